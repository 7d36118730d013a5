/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plant's power meters in the simulated tree (sim_meters.h). */
#include "sim_meters.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const config_names[] = { "none", "hwmon", "power", "energy", "energy_uj" };

/* The noise's stream: the sensor's seed, another sequence. */
#define SIM_METERS_SEED_SALT 0x6d657465727321ULL

int sim_meter_config_parse(const char *name, enum sim_meter_config *c)
{
	int i = name_index(config_names, 5, name);

	if (i >= 0)
		*c = (enum sim_meter_config)i;
	return i < 0 ? -1 : 0;
}

/* Meter @m measures domain @k, rail @label; its files not open yet. */
static void meter_init(struct sim_meter *m, size_t k, const char *label)
{
	memset(m, 0, sizeof(*m));
	m->domain = k;
	snprintf(m->label, sizeof(m->label), "%s", label);
	m->power_fd = m->in_fd = m->energy_fd = m->rapl_fd = -1;
}

static int domain_index(const struct board *b, const char *name)
{
	for (size_t k = 0; k < b->n_domains; k++)
		if (strcmp(b->domains[k].name, name) == 0)
			return (int)k;
	return -1;
}

/* One rail of the description's meters.rails: { domain = "NAME"; label = "LABEL"; }. */
static int read_rail(config_setting_t *r, const struct board *b, struct sim_meters *mt)
{
	const char *domain = NULL, *label = NULL;
	int k;

	if (!config_setting_lookup_string(r, "domain", &domain) ||
	    !config_setting_lookup_string(r, "label", &label) || !*label || strlen(label) >= 32) {
		fprintf(stderr, "simulation description: each of meters.rails needs domain and "
			"label (1 to 31 characters)\n");
		return -1;
	}
	k = domain_index(b, domain);
	if (k < 0) {
		fprintf(stderr, "simulation description: meters.rails: no domain \"%s\" on %s\n",
			domain, b->name);
		return -1;
	}
	for (size_t i = 0; i < mt->n; i++)
		if (mt->m[i].domain == (size_t)k) {
			fprintf(stderr, "simulation description: meters.rails: %s twice\n", domain);
			return -1;
		}
	meter_init(&mt->m[mt->n++], (size_t)k, label);
	return 0;
}

int sim_meters_read_description(config_t *cfg, const struct board *b, struct sim_meters *mt)
{
	config_setting_t *rails = config_lookup(cfg, "meters.rails");
	double noise;
	int period;

	memset(mt, 0, sizeof(*mt));
	mt->period_ms = SIM_METERS_DEFAULT_PERIOD_MS;
	if (config_lookup_int(cfg, "meters.period_ms", &period) == CONFIG_TRUE)
		mt->period_ms = period;
	if (config_lookup_float(cfg, "meters.noise_pct", &noise) == CONFIG_TRUE)
		mt->noise_pct = noise;
	if (mt->period_ms < 10 || mt->period_ms > 10000 || !(mt->noise_pct >= 0) ||
	    mt->noise_pct > 50) {
		fprintf(stderr, "simulation description: meters.period_ms 10 to 10000, "
			"meters.noise_pct 0 to 50\n");
		return -1;
	}
	if (!rails)
		return 0;
	if (!config_setting_is_list(rails) || config_setting_length(rails) > PLANT_MAX_DOMAINS) {
		fprintf(stderr, "simulation description: meters.rails is a list ( { ... }, ... ) "
			"of at most %d\n", PLANT_MAX_DOMAINS);
		return -1;
	}
	for (int i = 0; i < config_setting_length(rails); i++)
		if (read_rail(config_setting_get_elem(rails, (unsigned int)i), b, mt) < 0)
			return -1;
	return 0;
}

void sim_meters_apply(struct sim_meters *mt, const struct board *b,
		      const struct sim_meter_options *o, uint64_t seed)
{
	if (o->period_ms >= 0)
		mt->period_ms = o->period_ms;
	if (o->noise_pct >= 0)
		mt->noise_pct = o->noise_pct;
	mt->step_mw = o->step_mw;
	mt->config = o->config;
	if (o->all && !mt->n)
		for (size_t k = 0; k < b->n_domains && k < PLANT_MAX_DOMAINS; k++) {
			char label[32];

			snprintf(label, sizeof(label), "vdd_%s", b->domains[k].name);
			meter_init(&mt->m[mt->n++], k, label);
		}
	sensor_model_init(&mt->rng, 0, 0, seed ^ SIM_METERS_SEED_SALT);
}

/* mkdir -p of @path. */
static int make_dirs(const char *path)
{
	char p[512];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return mkdir(p, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

/* @dir/@rel holding @text; with @fd, opened for writing in place. */
static int put_file(const char *dir, const char *rel, const char *text, int *fd)
{
	char path[768];
	int f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (f < 0 || write(f, text, strlen(text)) != (ssize_t)strlen(text)) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		if (f >= 0)
			close(f);
		return -1;
	}
	if (fd)
		*fd = f;
	else
		close(f);
	return 0;
}

/* The lowest hwmonN the tree does not have. */
static int free_hwmon(const char *dir)
{
	char path[512];
	int n = 0;

	do
		snprintf(path, sizeof(path), "%s/sys/class/hwmon/hwmon%d", dir, n);
	while (access(path, F_OK) == 0 && ++n < 1000);
	return n;
}

/* Link @dir/@class_rel to @dir/@target_rel, relative as sysfs does. */
static int link_class(const char *dir, const char *class_dir, const char *name,
		      const char *target_rel)
{
	char path[512], target[512];

	snprintf(path, sizeof(path), "%s/%s", dir, class_dir);
	if (make_dirs(path) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/%s/%s", dir, class_dir, name);
	snprintf(target, sizeof(target), "../../%s", target_rel);
	if (symlink(target, path) < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Channel @i (powerK_*, inK_*, energyK_*, K = i + 1) of the hwmon device at @dev. */
static int setup_channel(struct sim_meter *m, size_t i, const char *dir, const char *dev)
{
	static const char *const kinds[] = { "power", "in", "energy" };
	char rel[512], text[64];
	int r = 0;

	snprintf(text, sizeof(text), "%s\n", m->label);
	for (size_t f = 0; f < 3 && r == 0; f++) {
		snprintf(rel, sizeof(rel), "%s/%s%zu_label", dev, kinds[f], i + 1);
		r = put_file(dir, rel, text, NULL);
	}
	snprintf(rel, sizeof(rel), "%s/power%zu_input", dev, i + 1);
	r = r ? r : put_file(dir, rel, "0\n", &m->power_fd);
	snprintf(rel, sizeof(rel), "%s/in%zu_input", dev, i + 1);
	r = r ? r : put_file(dir, rel, "0\n", &m->in_fd);
	snprintf(rel, sizeof(rel), "%s/energy%zu_input", dev, i + 1);
	return r ? r : put_file(dir, rel, "0\n", &m->energy_fd);
}

/* The RAPL-like zone sim-rapl:@i for meter @m. */
static int setup_rapl(struct sim_meter *m, size_t i, const char *dir)
{
	char rel[256], path[512], text[64], zone[32];

	snprintf(zone, sizeof(zone), "sim-rapl:%zu", i);
	snprintf(rel, sizeof(rel), "sys/devices/virtual/powercap/sim-rapl/%s", zone);
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (make_dirs(path) < 0)
		return -1;
	snprintf(text, sizeof(text), "%s\n", m->label);
	snprintf(path, sizeof(path), "%s/name", rel);
	if (put_file(dir, path, text, NULL) < 0)
		return -1;
	snprintf(text, sizeof(text), "%.0f\n", SIM_METERS_ENERGY_RANGE_UJ);
	snprintf(path, sizeof(path), "%s/max_energy_range_uj", rel);
	if (put_file(dir, path, text, NULL) < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/energy_uj", rel);
	if (put_file(dir, path, "0\n", &m->rapl_fd) < 0)
		return -1;
	return link_class(dir, "sys/class/powercap", zone, rel + 4);
}

int sim_meters_setup(struct sim_meters *mt, const char *dir, double speed)
{
	char dev[128], path[512], text[32];

	if (!mt->n)
		return 0;
	mt->hwmon = free_hwmon(dir);
	snprintf(dev, sizeof(dev), "sys/devices/platform/sim-rails/hwmon/hwmon%d", mt->hwmon);
	snprintf(path, sizeof(path), "%s/%s", dir, dev);
	if (make_dirs(path) < 0 || put_file(dir, strcat(strcpy(path, dev), "/name"),
					    SIM_METERS_HWMON_NAME "\n", NULL) < 0)
		return -1;
	/* The hwmon ABI's sample period, ms of the daemon's clock (the plant's / the speed). */
	snprintf(text, sizeof(text), "%ld\n", lround(fmax(1, mt->period_ms / speed)));
	snprintf(path, sizeof(path), "%s/update_interval", dev);
	if (put_file(dir, path, text, NULL) < 0)
		return -1;
	snprintf(path, sizeof(path), "hwmon%d", mt->hwmon);
	if (link_class(dir, "sys/class/hwmon", path, dev + 4) < 0)
		return -1;
	for (size_t i = 0; i < mt->n; i++)
		if (setup_channel(&mt->m[i], i, dir, dev) < 0 || setup_rapl(&mt->m[i], i, dir) < 0)
			return -1;
	return 0;
}

void sim_meters_config(const struct sim_meters *mt, size_t k, char *buf, size_t size)
{
	size_t i = 0;

	buf[0] = '\0';
	while (i < mt->n && mt->m[i].domain != k)
		i++;
	if (i == mt->n)
		return;
	switch (mt->config) {
	case SIM_METER_CONFIG_HWMON:
		snprintf(buf, size, "power_meter = { hwmon = \"%s\"; label = \"%s\"; }; ",
			 SIM_METERS_HWMON_NAME, mt->m[i].label);
		break;
	case SIM_METER_CONFIG_POWER:
	case SIM_METER_CONFIG_ENERGY:
		snprintf(buf, size, "power_meter = \"/sys/class/hwmon/hwmon%d/%s%zu_input\"; ",
			 mt->hwmon, mt->config == SIM_METER_CONFIG_POWER ? "power" : "energy", i + 1);
		break;
	case SIM_METER_CONFIG_ENERGY_UJ:
		snprintf(buf, size, "power_meter = \"/sys/class/powercap/sim-rapl:%zu/energy_uj\"; ",
			 i);
		break;
	default:
		break;
	}
}

/* In place, as the kernel changes a file. */
static void put_value(int fd, double v)
{
	char text[32];
	int len = snprintf(text, sizeof(text), "%.0f\n", floor(v));

	if (fd >= 0 && pwrite(fd, text, (size_t)len, 0) == len)
		(void)!ftruncate(fd, len);
}

/* A noisy multiplier: 1 + the noise, never negative. */
static double noise(struct sim_meters *mt)
{
	return mt->noise_pct > 0 ? fmax(0, 1 + mt->noise_pct / 100 * sensor_model_gaussian(&mt->rng))
				 : 1;
}

/* A power of @uw µW as the meter gives it: to the nearest of its steps (step_mw), if any. */
static double in_steps(const struct sim_meters *mt, double uw)
{
	double step_uw = mt->step_mw * 1000;

	return step_uw > 0 ? round(uw / step_uw) * step_uw : uw;
}

/* The voltage of domain @k's OPP now, mV. */
static double opp_mv(const struct plant *pl, size_t k)
{
	const struct board_domain *d = &pl->board->domains[k];

	for (size_t i = 0; i < d->n_opps; i++)
		if (d->opps[i].freq_khz == pl->dom[k].freq_khz)
			return d->opps[i].voltage_uv / 1000.0;
	return 0;
}

void sim_meters_step(struct sim_meters *mt, const struct plant *pl, double dt_s)
{
	bool sample;

	if (!mt->n || dt_s <= 0)
		return;
	mt->sample_s += dt_s;
	/*
	 * Half a step of slack: the sample ends on the step nearest its period.
	 * The first step samples at once: a meter has a reading when the daemon starts.
	 */
	sample = mt->sample_s >= mt->period_ms / 1000.0 - dt_s / 2 || !mt->primed;
	mt->primed = true;
	for (size_t i = 0; i < mt->n; i++) {
		struct sim_meter *m = &mt->m[i];
		double w = pl->dom[m->domain].power_w;

		m->energy_uj += w * dt_s * 1e6 * noise(mt);
		m->sample_j += w * dt_s;
		put_value(m->energy_fd, m->energy_uj);
		put_value(m->rapl_fd, fmod(m->energy_uj, SIM_METERS_ENERGY_RANGE_UJ + 1));
		if (!sample)
			continue;
		put_value(m->power_fd, in_steps(mt, m->sample_j / mt->sample_s * 1e6 * noise(mt)));
		put_value(m->in_fd, opp_mv(pl, m->domain));
		m->sample_j = 0;
	}
	if (sample)
		mt->sample_s = 0;
}

void sim_meters_describe(const struct sim_meters *mt, char *buf, size_t size)
{
	if (!mt->n)
		snprintf(buf, size, "none");
	else if (mt->step_mw > 0)
		snprintf(buf, size, "%s (hwmon%d), %d ms, noise %.1f %%, steps %.0f mW",
			 SIM_METERS_HWMON_NAME, mt->hwmon, mt->period_ms, mt->noise_pct, mt->step_mw);
	else
		snprintf(buf, size, "%s (hwmon%d), %d ms, noise %.1f %%", SIM_METERS_HWMON_NAME,
			 mt->hwmon, mt->period_ms, mt->noise_pct);
}

void sim_meters_rails(const struct sim_meters *mt, const struct board *b, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < mt->n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s ", b->domains[mt->m[i].domain].name);
	if (len < size)
		snprintf(buf + len, size - len, "(daemon told: %s)", config_names[mt->config]);
}

void sim_meters_close(struct sim_meters *mt)
{
	for (size_t i = 0; i < mt->n; i++) {
		int *fds[] = { &mt->m[i].power_fd, &mt->m[i].in_fd, &mt->m[i].energy_fd,
			       &mt->m[i].rapl_fd };

		for (size_t f = 0; f < 4; f++)
			if (*fds[f] >= 0) {
				close(*fds[f]);
				*fds[f] = -1;
			}
	}
}
