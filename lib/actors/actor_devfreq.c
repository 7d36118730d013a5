/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A devfreq cooling device (devfreq-<device>, e.g. a GPU) as a power actor.
 *
 * Frequencies come from /sys/class/devfreq/<device>/available_frequencies
 * and cur_freq (Hz).  The kernel's devfreq cooling takes the device's load
 * from the driver's busy/total time, which sysfs does not expose in
 * mainline; trans_stat only counts time per frequency, not busy time.  So
 * the load is read from the devfreq "load" attribute where the kernel has
 * one ("busy@freqHz", as Android and vendor kernels print it, or a plain
 * percentage), and is taken as 100% otherwise: the request is then the
 * power at the current frequency, an upper bound.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actor_internal.h"
#include "platform/log.h"
#include "platform/parse.h"

struct devfreq_actor {
	struct freq_actor f;
	struct sysfs_attr cur_freq;
	struct sysfs_attr load;
	bool read_failed;	/* logged once until it reads again */
};

static struct devfreq_actor *to_devfreq(struct actor *a)
{
	return (struct devfreq_actor *)a;
}

/* "37@400000000Hz" or "37": the percentage before any '@'. */
static int read_load(const struct sysfs_attr *attr, unsigned int *pct)
{
	char buf[64];
	ssize_t n = sysfs_attr_read(attr, buf, sizeof(buf));
	char *at;
	uint64_t v;
	int r;

	if (n < 0)
		return (int)n;
	at = memchr(buf, '@', (size_t)n);
	r = parse_u64(buf, at ? (size_t)(at - buf) : (size_t)n, &v);
	if (r == 0 && v > 100)
		r = -ERANGE;
	if (r == 0)
		*pct = (unsigned int)v;
	return r;
}

static int devfreq_sample(struct actor *a, const struct cycle_sample *s)
{
	struct devfreq_actor *d = to_devfreq(a);
	unsigned int load = 100;
	uint64_t hz;
	int r;

	(void)s;
	r = sysfs_attr_read_u64(&d->cur_freq, &hz);
	if (r == 0 && hz / 1000 > 0 && hz / 1000 <= UINT32_MAX)
		a->freq_khz = (uint32_t)(hz / 1000);
	else if (r == 0)
		r = -ERANGE;
	if (r == 0 && d->load.fd >= 0)
		r = read_load(&d->load, &load);
	if (r < 0 && !d->read_failed)
		pa_log(PA_LOG_WARNING, "%s: %s", d->load.fd >= 0 && r != -ERANGE ? d->load.path
		       : d->cur_freq.path, strerror(-r));
	d->read_failed = r < 0;
	a->load_pct = load;
	a->saturated = load >= CPU_LOAD_SATURATED_PCT;
	actor_update_power(a, 1);
	return 0;
}

static void devfreq_destroy(struct actor *a)
{
	struct devfreq_actor *d = to_devfreq(a);

	cooling_state_close(&d->f.cs);
	sysfs_attr_close(&d->cur_freq);
	sysfs_attr_close(&d->load);
	free(d);
}

static const struct actor_ops devfreq_ops = {
	.sample = devfreq_sample,
	.set_power = freq_actor_set_power,
	.state_for_power = freq_actor_state_for_power,
	.set_state = freq_actor_set_state,
	.check = freq_actor_check,
	.restore = freq_actor_restore,
	.save = freq_actor_save,
	.adopt = freq_actor_adopt,
	.destroy = devfreq_destroy,
};

/* available_frequencies (Hz, any order) -> ascending kHz. */
static int read_frequencies(struct devfreq_actor *d, const char *dir)
{
	char path[SYSFS_PATH_MAX], buf[SYSFS_VALUE_MAX], *tok, *save = NULL;
	ssize_t n = sysfs_pathf(path, "%s/available_frequencies", dir);

	if (n == 0)
		n = sysfs_read_str(path, buf, sizeof(buf));
	if (n < 0)
		return pa_log_errno((int)n, "%s: %s", path, sysfs_strerror((int)n));
	for (tok = strtok_r(buf, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		uint64_t hz;
		size_t i;

		if (parse_u64(tok, strlen(tok), &hz) < 0 || hz / 1000 == 0 || hz / 1000 > UINT32_MAX)
			return pa_log_errno(-EINVAL, "%s: \"%s\" is not a frequency", path, tok);
		if (d->f.n_freqs == POWER_TABLE_MAX_OPPS)
			break;
		for (i = d->f.n_freqs; i > 0 && d->f.freq_khz[i - 1] > hz / 1000; i--)
			d->f.freq_khz[i] = d->f.freq_khz[i - 1];
		d->f.freq_khz[i] = (uint32_t)(hz / 1000);
		d->f.n_freqs++;
	}
	if (d->f.n_freqs == 0)
		return pa_log_errno(-ENODATA, "%s: empty", path);
	return 0;
}

static int open_device(struct devfreq_actor *d, const char *device, const struct actor_config *cfg)
{
	char dir[SYSFS_PATH_MAX], path[SYSFS_PATH_MAX], of_node[SYSFS_PATH_MAX];
	struct opp_device dev = { .name = device, .of_node = of_node };
	int r;

	if (sysfs_pathf(dir, DEVFREQ_CLASS_DIR "/%s", device) < 0 || read_frequencies(d, dir) < 0)
		return -EINVAL;
	sysfs_pathf(path, "%s/cur_freq", dir);
	r = sysfs_attr_open(&d->cur_freq, path, false);
	if (r < 0)
		return pa_log_errno(r, "%s: %s", path, sysfs_strerror(r));
	sysfs_pathf(path, "%s/load", dir);
	if (sysfs_exists(path) && sysfs_attr_open(&d->load, path, false) == 0)
		pa_log(PA_LOG_INFO, "%s: load from %s", d->f.base.name, path);
	else
		pa_log(PA_LOG_INFO, "%s: no load attribute; the device is taken as fully busy",
		       d->f.base.name);
	sysfs_pathf(of_node, "%s/device/of_node", dir);
	dev.freq_khz = d->f.freq_khz;
	dev.n_freqs = d->f.n_freqs;
	if (cfg) {
		dev.dpc = cfg->dynamic_power_coefficient;
		dev.config_opps = cfg->opps;
		dev.n_config_opps = cfg->n_opps;
	}
	return actor_load_model(&d->f.base, &dev);
}

int actor_devfreq_new(int cdev_id, const char *device, const struct actor_config *cfg,
		      struct actor **ret)
{
	struct devfreq_actor *d = calloc(1, sizeof(*d));
	int r;

	assert(device && ret);
	*ret = NULL;
	if (!d)
		return -ENOMEM;
	freq_actor_init(&d->f, &devfreq_ops, ACTOR_DEVFREQ, cfg);
	d->cur_freq = d->load = (struct sysfs_attr)SYSFS_ATTR_INIT;
	snprintf(d->f.base.name, sizeof(d->f.base.name), "devfreq-%s", device);
	if ((r = open_device(d, device, cfg)) < 0 || (r = freq_actor_open_state(&d->f, cdev_id)) < 0)
		goto fail;
	d->f.base.freq_khz = d->f.freq_khz[d->f.n_freqs - 1];
	*ret = &d->f.base;
	return 0;
fail:
	devfreq_destroy(&d->f.base);
	return r;
}
