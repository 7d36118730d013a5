/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sim_io.h"

#include <errno.h>
#include <fcntl.h>
#include <libconfig.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define USER_HZ 100.0

/* In place, as the kernel changes a file: one write, then the length. */
static void put_fd(int fd, const char *text)
{
	size_t len = strlen(text);

	if (fd < 0)
		return;
	if (pwrite(fd, text, len, 0) == (ssize_t)len)
		(void)!ftruncate(fd, (off_t)len);
}

static int open_in_tree(const struct sim *sim, const char *rel, int flags)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", sim->dir, rel);
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
	return fd;
}

static int lookup_double(config_t *cfg, const char *path, double *v)
{
	double d;
	int i;

	if (config_lookup_float(cfg, path, &d) == CONFIG_TRUE) {
		*v = d;
		return 0;
	}
	if (config_lookup_int(cfg, path, &i) == CONFIG_TRUE) {
		*v = i;
		return 0;
	}
	fprintf(stderr, "simulation description: missing number %s\n", path);
	return -1;
}

static int lookup_string(config_t *cfg, const char *path, char *buf, size_t size)
{
	const char *s;

	if (config_lookup_string(cfg, path, &s) != CONFIG_TRUE) {
		fprintf(stderr, "simulation description: missing string %s\n", path);
		return -1;
	}
	snprintf(buf, size, "%s", s);
	return 0;
}

static bool board_has_gpu(const struct board *b)
{
	for (size_t k = 0; k < b->n_domains; k++)
		if (!b->domains[k].n_cpus)
			return true;
	return false;
}

/*
 * The optional fan: fan = { cooling_device = N; resistance_k_per_w = [ ... ]; },
 * the case-to-ambient resistance for each fan state.  Return: 0 or -1.
 */
static int read_fan(struct sim *sim, config_t *cfg)
{
	config_setting_t *r = config_lookup(cfg, "fan.resistance_k_per_w");
	struct thermal_params *t = &sim->thermal;
	int cdev;

	sim->fan_cdev = -1;
	if (!config_lookup(cfg, "fan"))
		return 0;
	if (config_lookup_int(cfg, "fan.cooling_device", &cdev) != CONFIG_TRUE || cdev < 0 || !r ||
	    !config_setting_is_array(r) || config_setting_length(r) < 1 ||
	    config_setting_length(r) > PLANT_MAX_FAN_STATES) {
		fprintf(stderr, "simulation description: fan needs cooling_device and 1 to %d "
			"resistances\n", PLANT_MAX_FAN_STATES);
		return -1;
	}
	sim->fan_cdev = cdev;
	t->n_fan_states = (size_t)config_setting_length(r);
	for (size_t i = 0; i < t->n_fan_states; i++)
		t->fan_case_to_ambient_k_per_w[i] = config_setting_get_float_elem(r, (int)i);
	return 0;
}

/*
 * The optional domain_power_scale = "NAME=X[,NAME=X...]": domains whose
 * silicon draws another multiple of their table than the plant's 1
 * (--power-scale-domain replaces the domains it names).  Return: 0 or -1.
 */
static int read_domain_scales(struct sim *sim, config_t *cfg)
{
	const char *text;

	if (!config_lookup(cfg, "domain_power_scale"))
		return 0;
	if (config_lookup_string(cfg, "domain_power_scale", &text) != CONFIG_TRUE) {
		fprintf(stderr, "simulation description: domain_power_scale is a string, "
			"\"cluster1=1.4,gpu=0.7\"\n");
		return -1;
	}
	return plant_vary_domains(&sim->thermal, sim->board, text,
				  "simulation description: domain_power_scale");
}

/* The board's GPU needs its devfreq device name (gpu_device); a board without one does not. */
static int read_description(struct sim *sim, const char *path)
{
	struct thermal_params *t = &sim->thermal;
	char board[64];
	config_t cfg;
	int r = -1;

	t->power_scale = 1;
	config_init(&cfg);
	if (config_read_file(&cfg, path) != CONFIG_TRUE) {
		fprintf(stderr, "%s:%d: %s\n", path, config_error_line(&cfg), config_error_text(&cfg));
	} else if (lookup_string(&cfg, "board", board, sizeof(board)) == 0 &&
		   lookup_string(&cfg, "tree", sim->tree_name, sizeof(sim->tree_name)) == 0 &&
		   lookup_string(&cfg, "zone.sensor", sim->sensor, sizeof(sim->sensor)) == 0 &&
		   lookup_double(&cfg, "ambient_c", &t->ambient_c) == 0 &&
		   lookup_double(&cfg, "initial_c", &t->initial_c) == 0 &&
		   lookup_double(&cfg, "die.capacity_j_per_k", &t->die_capacity_j_per_k) == 0 &&
		   lookup_double(&cfg, "die.resistance_k_per_w", &t->die_to_case_k_per_w) == 0 &&
		   lookup_double(&cfg, "case.capacity_j_per_k", &t->case_capacity_j_per_k) == 0 &&
		   lookup_double(&cfg, "case.resistance_k_per_w", &t->case_to_ambient_k_per_w) == 0 &&
		   lookup_double(&cfg, "static_power_w", &t->static_power_w) == 0 &&
		   lookup_double(&cfg, "zone.switch_on_c", &sim->switch_on_c) == 0 &&
		   lookup_double(&cfg, "zone.control_c", &sim->control_c) == 0) {
		sim->board = board_find(board);
		if (!sim->board)
			fprintf(stderr, "%s: unknown board \"%s\"\n", path, board);
		else if (board_has_gpu(sim->board))
			r = lookup_string(&cfg, "gpu_device", sim->gpu_device, sizeof(sim->gpu_device));
		else
			r = 0;
		if (r == 0)
			r = read_fan(sim, &cfg);
		if (r == 0)
			r = read_domain_scales(sim, &cfg);
		if (r == 0)
			r = sim_events_read_description(&cfg, &sim->kernel);
		if (r == 0)
			r = sim_meters_read_description(&cfg, sim->board, &sim->meters);
	}
	config_destroy(&cfg);
	return r;
}

/* tests/fixtures/fixture.py TREE DIR */
static int build_tree(const struct sim *sim)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		execlp("python3", "python3", SIM_FIXTURE_SCRIPT, sim->tree_name, sim->dir, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "cannot build the %s tree with %s\n", sim->tree_name,
			SIM_FIXTURE_SCRIPT);
		return -1;
	}
	return 0;
}

/* The zone's sustainable_power key, or nothing where the daemon must find it. */
static void write_sustainable(FILE *f, const struct sim *sim, const struct sim_settings *set)
{
	if (set->sp == SIM_SP_FACTOR)
		fprintf(f, "  sustainable_power = %d;\n",
			(int)lround(sim->sustainable_w * 1000 * set->sp_factor));
}

/*
 * The daemon's config: one zone with every domain as an actor, the
 * sustainable power as set (by default the thermal model's true one at the
 * daemon's control temperature: the description's, or moved by
 * --trip-below or --trip-above), and the period scaled by the speed.
 */
static int write_config(const struct sim *sim, const struct sim_settings *set)
{
	double speed = set->speed;
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/powerallocd.conf", sim->dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "idle_poll_ms = %d;\nzones = ( { name = \"soc\"; sensor = \"%s\";\n"
		"  switch_on_temp = %d; control_temp = %d;\n"
		"  period_ms = %d; controller = \"%s\"; division = \"%s\";\n",
		(int)(1000 / speed), sim->sensor, (int)(sim->switch_on_c * 1000),
		sim->daemon_control_mc, (int)(SIM_PERIOD_MS / speed), set->controller,
		set->division);
	write_sustainable(f, sim, set);
	if (set->zone_keys)
		fprintf(f, "  %s\n", set->zone_keys);
	fprintf(f, "  actors = (\n");
	for (size_t k = 0; k < sim->board->n_domains; k++) {
		const struct board_domain *d = &sim->board->domains[k];
		char meter[160];

		/* Its power_meter key only where --meter-config asks: else the file is as before. */
		sim_meters_config(&sim->meters, k, meter, sizeof(meter));
		if (d->n_cpus)
			fprintf(f, "    { type = \"cpufreq\"; cpus = \"%u-%u\"; %s}%s\n", d->cpus[0],
				d->cpus[d->n_cpus - 1], meter,
				k + 1 < sim->board->n_domains ? "," : "");
		else
			fprintf(f, "    { type = \"devfreq\"; device = \"%s\"; %s}%s\n",
				sim->gpu_device, meter, k + 1 < sim->board->n_domains ? "," : "");
	}
	fprintf(f, "  ); } );\n");
	return fclose(f) == 0 ? 0 : -1;
}

/* --sustainable-power none: no zone of the tree has one either. */
static int clear_tree_sustainable(const struct sim *sim)
{
	for (size_t z = 0; z < SIM_MAX_SENSORS; z++) {
		char path[512];
		FILE *f;

		snprintf(path, sizeof(path),
			 "%s/sys/devices/virtual/thermal/thermal_zone%zu/sustainable_power", sim->dir, z);
		if (access(path, F_OK) != 0)
			continue;
		f = fopen(path, "w");
		if (!f || fputs("0\n", f) < 0 || fclose(f) != 0)
			return -1;
	}
	return 0;
}

/*
 * The description changed as asked, the plant's true sustainable power at
 * the daemon's control temperature, the actors' maximum, the sensor.
 */
static void apply_settings(struct sim *sim, const struct sim_settings *set)
{
	const struct board *b = sim->board;

	if (set->vary)
		plant_vary(&sim->thermal, set->vary);
	sim->daemon_control_mc = (int)(sim->control_c * 1000) + set->trip_offset_mc;
	sim->sustainable_w = plant_sustainable_w(&sim->thermal, sim->daemon_control_mc / 1000.0,
						 sim->thermal.ambient_c);
	for (size_t k = 0; k < b->n_domains; k++)
		sim->max_budget_mw += b->domains[k].opps[b->domains[k].n_opps - 1].power_mw *
				      (b->domains[k].n_cpus ? b->domains[k].n_cpus : 1);
	sensor_model_init(&sim->sensor_model, set->sensor_step_c, set->sensor_noise_c, set->seed);
	if (set->meters)
		sim_meters_apply(&sim->meters, b, set->meters, set->seed);
}

static int open_files(struct sim *sim)
{
	char rel[256];
	unsigned int n_clusters = 0;

	/* Every zone of the tree reads the die (one thermal model for the SoC). */
	for (size_t z = 0; z < SIM_MAX_SENSORS; z++) {
		char path[512];

		snprintf(rel, sizeof(rel), "sys/devices/virtual/thermal/thermal_zone%zu/temp", z);
		snprintf(path, sizeof(path), "%s/%s", sim->dir, rel);
		if (access(path, F_OK) != 0)
			break;
		sim->sensor_fd[sim->n_sensors++] = open_in_tree(sim, rel, O_WRONLY);
	}
	sim->stat_fd = open_in_tree(sim, "proc/stat", O_WRONLY);
	sim->fan_fd = -1;
	if (sim->fan_cdev >= 0) {
		snprintf(rel, sizeof(rel), "sys/devices/virtual/thermal/cooling_device%d/cur_state",
			 sim->fan_cdev);
		sim->fan_fd = open_in_tree(sim, rel, O_RDONLY);
		if (sim->fan_fd < 0)
			return -1;
	}
	for (size_t k = 0; k < sim->board->n_domains; k++) {
		const struct board_domain *d = &sim->board->domains[k];

		sim->load_fd[k] = -1;
		if (d->n_cpus) {
			snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpufreq/policy%u/scaling_cur_freq",
				 d->cpus[0]);
			sim->freq_fd[k] = open_in_tree(sim, rel, O_WRONLY);
			sim->n_cpus += d->n_cpus;
			n_clusters++;
		} else {
			snprintf(rel, sizeof(rel), "sys/class/devfreq/%s/cur_freq", sim->gpu_device);
			sim->freq_fd[k] = open_in_tree(sim, rel, O_WRONLY);
			char load[600];

			snprintf(load, sizeof(load), "%s/sys/class/devfreq/%s/load", sim->dir,
				 sim->gpu_device);
			sim->load_fd[k] = open(load, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		}
		/* The fixture registers the clusters' cooling devices first, then the GPU's. */
		snprintf(rel, sizeof(rel), "sys/devices/virtual/thermal/cooling_device%zu/cur_state",
			 d->n_cpus ? k : (size_t)n_clusters);
		sim->state_fd[k] = open_in_tree(sim, rel, O_RDONLY);
		if (sim->freq_fd[k] < 0 || sim->state_fd[k] < 0)
			return -1;
	}
	return sim->stat_fd < 0 || sim->n_cpus > SIM_MAX_CPUS ? -1 : 0;
}

int sim_setup(struct sim *sim, const char *description, const struct sim_settings *set)
{
	memset(sim, 0, sizeof(*sim));
	sim->daemon = -1;
	sim->fan_cdev = sim->fan_fd = -1;
	sim->trace_fd = -1;
	sim->budget_mw = -1;
	sim->trace_last_ms = -1;
	sim->plant_start_daemon_ms = -1;
	sim->event_fd = -1;
	sim->trip_events = set->trip_events;
	sim->powerallocd = set->powerallocd;
	sim->state_dir = set->state_dir;
	snprintf(sim->dir, sizeof(sim->dir), "%s/powerallocd-sim.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (read_description(sim, description) < 0 ||
	    (set->vary && plant_vary_domains(&sim->thermal, sim->board, set->vary->domain_scales,
					     "--power-scale-domain") < 0) ||
	    !mkdtemp(sim->dir))
		return -1;
	apply_settings(sim, set);
	if (build_tree(sim) < 0 || sim_meters_setup(&sim->meters, sim->dir, set->speed) < 0 ||
	    write_config(sim, set) < 0 || open_files(sim) < 0 ||
	    (set->sp == SIM_SP_NONE && clear_tree_sustainable(sim) < 0) ||
	    sim_events_setup(sim) < 0) {
		sim_cleanup(sim);
		return -1;
	}
	return 0;
}

static void write_proc_stat(struct sim *sim, const struct plant *pl, double dt_s)
{
	char text[64 * (SIM_MAX_CPUS + 4)];
	size_t len = (size_t)snprintf(text, sizeof(text), "cpu  0 0 0 0 0 0 0 0 0 0\n");
	unsigned int cpu = 0;

	for (size_t k = 0; k < pl->board->n_domains; k++) {
		const struct board_domain *d = &pl->board->domains[k];

		for (unsigned int i = 0; i < d->n_cpus; i++, cpu++) {
			sim->busy_ticks[cpu] += pl->dom[k].busy * dt_s * USER_HZ;
			sim->idle_ticks[cpu] += (1 - pl->dom[k].busy) * dt_s * USER_HZ;
			if (sim->cpu5_offline && d->cpus[i] == 5)
				continue;	/* an offline CPU has no line */
			len += (size_t)snprintf(text + len, sizeof(text) - len,
						"cpu%u %.0f 0 0 %.0f 0 0 0 0 0 0\n", d->cpus[i],
						sim->busy_ticks[cpu], sim->idle_ticks[cpu]);
		}
	}
	snprintf(text + len, sizeof(text) - len, "intr 0\nctxt 0\n");
	put_fd(sim->stat_fd, text);
}

void sim_write_outputs(struct sim *sim, const struct plant *pl, double dt_s)
{
	char text[64];

	sim->sensor_mc = sim->spike_now ? 150000L : sensor_model_read_mc(&sim->sensor_model,
									 pl->die_c);
	snprintf(text, sizeof(text), "%ld\n", sim->sensor_mc);
	for (size_t z = 0; z < sim->n_sensors; z++)
		put_fd(sim->sensor_fd[z], text);
	write_proc_stat(sim, pl, dt_s);
	for (size_t k = 0; k < pl->board->n_domains; k++) {
		uint32_t khz = pl->dom[k].freq_khz ? pl->dom[k].freq_khz
			       : pl->board->domains[k].opps[pl->board->domains[k].n_opps - 1].freq_khz;

		if (sim->load_fd[k] >= 0) {
			snprintf(text, sizeof(text), "%ld@%luHz\n", lround(pl->dom[k].busy * 100),
				 (unsigned long)khz * 1000);
			put_fd(sim->load_fd[k], text);
			snprintf(text, sizeof(text), "%lu\n", (unsigned long)khz * 1000);
		} else {
			snprintf(text, sizeof(text), "%u\n", khz);
		}
		put_fd(sim->freq_fd[k], text);
	}
	sim_meters_step(&sim->meters, pl, dt_s);
}

/* A cooling state from @fd, or @fallback when it cannot be read. */
unsigned long sim_read_state(int fd, unsigned long fallback)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return fallback;
	buf[n] = '\0';
	return strtoul(buf, NULL, 10);
}

void sim_read_states(struct sim *sim, struct plant *pl)
{
	for (size_t k = 0; k < pl->board->n_domains; k++)
		pl->dom[k].state = sim_read_state(sim->state_fd[k], pl->dom[k].state);
	if (sim->fan_fd >= 0) {
		pl->fan_state = sim_read_state(sim->fan_fd, pl->fan_state);
		if (pl->fan_state > sim->fan_highest)
			sim->fan_highest = pl->fan_state;
	}
}

void sim_cleanup(struct sim *sim)
{
	char cmd[600];

	for (size_t z = 0; z < sim->n_sensors; z++)
		close(sim->sensor_fd[z]);
	if (sim->fan_fd >= 0)
		close(sim->fan_fd);
	if (sim->trace_fd >= 0)
		close(sim->trace_fd);
	if (sim->event_fd >= 0)
		close(sim->event_fd);
	sim_meters_close(&sim->meters);
	if (sim->dir[0] && strstr(sim->dir, "powerallocd-sim.") && !getenv("SIM_KEEP_TREE")) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sim->dir);
		(void)!system(cmd);
	}
}
