/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Power meters: hwmon rails and energy counters, powercap's energy_uj (meter.h). */
#include "meter.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hwmon.h"

/* The channel kinds a label may name, in the order one is preferred: power, energy, in. */
static const char *const channel_kinds[] = { "power", "energy", "in" };
#define N_KINDS 3

void power_meter_init(struct power_meter *m)
{
	memset(m, 0, sizeof(*m));
	m->input = m->current = (struct sysfs_attr)SYSFS_ATTR_INIT;
}

/* "power3_label" -> kind 0, channel 3; -1 for another name. */
static int channel_of(const char *file, const char *suffix, unsigned int *channel)
{
	for (int k = 0; k < N_KINDS; k++) {
		size_t n = strlen(channel_kinds[k]);
		int len = 0;

		if (strncmp(file, channel_kinds[k], n) == 0 &&
		    sscanf(file + n, "%u%n", channel, &len) == 1 && strcmp(file + n + len, suffix) == 0)
			return k;
	}
	return -1;
}

int power_meter_file_unit(const char *file, enum meter_unit *unit)
{
	unsigned int channel;
	int kind = channel_of(file, "_input", &channel);

	if (kind == 0 || channel_of(file, "_average", &channel) == 0)
		*unit = METER_POWER_UW;
	else if (kind == 1 || strcmp(file, "energy_uj") == 0)
		*unit = METER_ENERGY_UJ;
	else
		return -EINVAL;
	return 0;
}

/*
 * The file power channel @channel of the device in @dir is read from, into
 * @path: powerN_input, else powerN_average (ACPI's power_meter has only the
 * mean over its averaging interval).  Return: 0, or -ENOENT for neither.
 */
static int power_file(const char *dir, unsigned int channel, char *path)
{
	static const char *const suffixes[] = { "input", "average" };

	for (size_t k = 0; k < sizeof(suffixes) / sizeof(suffixes[0]); k++)
		if (sysfs_pathf(path, "%s/power%u_%s", dir, channel, suffixes[k]) == 0 &&
		    sysfs_exists(path))
			return 0;
	return -ENOENT;
}

/*
 * A power channel's sample period, ms, the time over which a held sample is
 * the mean: a powerN_average's own powerN_average_interval, else its hwmon
 * device's update_interval beside @path; 0 for an energy counter or where
 * the device gives neither.
 */
static uint32_t sample_period_ms(const char *path, enum meter_unit unit)
{
	const char *file = strrchr(path, '/');
	char interval[SYSFS_PATH_MAX];
	unsigned int channel;
	uint64_t ms;

	if (unit == METER_ENERGY_UJ || !file)
		return 0;
	if (channel_of(file + 1, "_average", &channel) == 0 &&
	    sysfs_pathf(interval, "%s_interval", path) == 0 && sysfs_read_u64(interval, &ms) == 0 &&
	    ms > 0 && ms <= UINT32_MAX)
		return (uint32_t)ms;
	if (sysfs_pathf(interval, "%.*s/update_interval", (int)(file - path), path) < 0 ||
	    sysfs_read_u64(interval, &ms) < 0 || ms > UINT32_MAX)
		return 0;
	return (uint32_t)ms;
}

static int open_input(struct power_meter *m, const char *path, enum meter_unit unit)
{
	int r = sysfs_attr_open(&m->input, path, false);

	if (r < 0)
		return r;
	m->unit = unit;
	m->track.energy = unit == METER_ENERGY_UJ;
	m->sample_ms = sample_period_ms(path, unit);
	m->track.sample_us = 1000 * (uint64_t)m->sample_ms;
	return 0;
}

int power_meter_open_path(struct power_meter *m, const char *path)
{
	const char *file = strrchr(path, '/');
	char range[SYSFS_PATH_MAX];
	enum meter_unit unit;
	int r;

	file = file ? file + 1 : path;
	if (power_meter_file_unit(file, &unit) < 0)
		return -EINVAL;
	if ((r = open_input(m, path, unit)) < 0)
		return r;
	snprintf(m->name, sizeof(m->name), "%s", path);
	m->id_len = strlen(m->name);
	/* powercap's counter wraps at max_energy_range_uj; hwmon's never should. */
	if (strcmp(file, "energy_uj") == 0 &&
	    sysfs_pathf(range, "%.*s/max_energy_range_uj", (int)(file - 1 - path), path) == 0 &&
	    sysfs_read_u64(range, &m->track.range_uj) < 0)
		m->track.range_uj = 0;
	return 0;
}

/* Searching the hwmon devices named @hwmon for the channel labelled @label. */
struct label_search {
	const char *hwmon;
	const char *label;
	const char *dir;	/* the device being walked */
	char found[SYSFS_PATH_MAX];	/* the device with the label */
	bool named;		/* a device of that name exists */
	int kind;		/* the best match's kind, N_KINDS for none */
	unsigned int channel;
};

/* Whether channel @channel of kind @kind in @dir reads: a power, an energy, volts and amps. */
static bool channel_reads(const char *dir, int kind, unsigned int channel)
{
	char path[SYSFS_PATH_MAX];

	if (kind == 0)
		return power_file(dir, channel, path) == 0;
	if (sysfs_pathf(path, "%s/%s%u_input", dir, channel_kinds[kind], channel) < 0 ||
	    !sysfs_exists(path))
		return false;
	return kind == 1 ||
	       (sysfs_pathf(path, "%s/curr%u_input", dir, channel) == 0 && sysfs_exists(path));
}

/*
 * The label of channel @channel of kind @kind of the device in @dir, into
 * @label: its _label file's, or, where it has none, its name ("power1") if
 * it reads, as sensors(1) names an unlabelled channel (ACPI's power_meter
 * labels nothing).  Return: whether it has one.
 */
static bool channel_label(const char *dir, int kind, unsigned int channel, char *label,
			  size_t size)
{
	char path[SYSFS_PATH_MAX];
	ssize_t n;

	if (sysfs_pathf(path, "%s/%s%u_label", dir, channel_kinds[kind], channel) < 0)
		return false;
	if ((n = sysfs_read_str(path, label, size)) != -ENOENT)
		return n > 0;
	return channel_reads(dir, kind, channel) &&
	       snprintf(label, size, "%s%u", channel_kinds[kind], channel) < (int)size;
}

/* The files that name a channel: its label, its reading. */
static const char *const channel_files[] = { "_label", "_input", "_average" };

static int visit_label(const char *file, void *userdata)
{
	struct label_search *s = userdata;
	char label[128];
	unsigned int channel;
	int kind = -1;

	for (size_t k = 0; k < sizeof(channel_files) / sizeof(channel_files[0]) && kind < 0; k++)
		kind = channel_of(file, channel_files[k], &channel);
	if (kind < 0 || kind >= s->kind ||
	    !channel_label(s->dir, kind, channel, label, sizeof(label)) ||
	    strcmp(label, s->label) != 0)
		return 0;
	s->kind = kind;
	s->channel = channel;
	return 0;
}

/* Opens the channel found in @dir. */
static int open_channel(struct power_meter *m, const char *dir, int kind, unsigned int channel)
{
	char path[SYSFS_PATH_MAX], curr[SYSFS_PATH_MAX];
	enum meter_unit unit = kind == 1 ? METER_ENERGY_UJ : METER_VOLT_AMP;
	int r;

	/* A voltage channel: its power where the driver gives one, else volts times amps. */
	if (kind != 1 && power_file(dir, channel, path) == 0)
		unit = METER_POWER_UW;
	else if (kind == 0)
		return -ENOENT;
	else if (sysfs_pathf(path, "%s/%s%u_input", dir, channel_kinds[kind], channel) < 0)
		return -ENAMETOOLONG;
	r = open_input(m, path, unit);
	if (r < 0 || unit != METER_VOLT_AMP)
		return r;
	if ((r = sysfs_pathf(curr, "%s/curr%u_input", dir, channel)) == 0)
		r = sysfs_attr_open(&m->current, curr, false);
	return r;
}

static int visit_device(const struct hwmon_device *dev, void *userdata)
{
	struct label_search *s = userdata;

	if (strcmp(dev->name, s->hwmon) != 0)
		return 0;
	s->named = true;
	s->dir = dev->dir;
	sysfs_list_dir(dev->dir, visit_label, s);
	if (s->kind == N_KINDS)
		return 0;
	snprintf(s->found, sizeof(s->found), "%s", dev->dir);
	return 1;	/* the first device with the label */
}

int power_meter_open_hwmon(struct power_meter *m, const char *hwmon, const char *label)
{
	struct label_search s = { .hwmon = hwmon, .label = label, .kind = N_KINDS };
	int r;

	if (hwmon_each(visit_device, &s) != 1)
		return s.named ? -ENOENT : -ENODEV;
	if ((r = open_channel(m, s.found, s.kind, s.channel)) < 0) {
		power_meter_close(m);
		return r;
	}
	snprintf(m->name, sizeof(m->name), "hwmon \"%s\" label \"%s\"", hwmon, label);
	m->id_len = strlen(m->name);
	snprintf(m->name + m->id_len, sizeof(m->name) - m->id_len, " (%s)", m->input.path);
	return 0;
}

int power_meter_read(struct power_meter *m, uint64_t now_us, uint32_t model_mw, uint32_t *power_mw)
{
	int64_t value, ma = 0;
	int r = sysfs_attr_read_s64(&m->input, &value);

	if (r == 0 && m->unit == METER_VOLT_AMP && (r = sysfs_attr_read_s64(&m->current, &ma)) == 0)
		value *= ma;	/* mV * mA = µW */
	if (r < 0) {
		m->error = -r;
		return sysfs_attr_still_there(&m->input) &&
		       (m->unit != METER_VOLT_AMP || sysfs_attr_still_there(&m->current))
			       ? -METER_UNREADABLE : -METER_VANISHED;
	}
	m->error = 0;
	return meter_track_step(&m->track, value, now_us, model_mw, power_mw);
}

void power_meter_restart(struct power_meter *m)
{
	m->track.have_last = false;
	m->track.same = 0;
}

void power_meter_close(struct power_meter *m)
{
	sysfs_attr_close(&m->input);
	sysfs_attr_close(&m->current);
}

/* Collecting labels: into a text list, or into an array for "did you mean". */
struct label_walk {
	const char *dir;
	char *buf;
	size_t size, used;
	const char **labels;
	size_t max, n;
	const char *hwmon;	/* the device name wanted, or NULL for all */
};

/* Appends @a then @b to the text list, cut at its end. */
static void append(struct label_walk *w, const char *a, const char *b)
{
	int n;

	if (w->used >= w->size)
		return;
	n = snprintf(w->buf + w->used, w->size - w->used, "%s%s", a, b);
	if (n > 0)
		w->used = w->used + (size_t)n < w->size ? w->used + (size_t)n : w->size;
}

/* Channels looked at for labels in a listing: 0 to this, of each kind. */
#define LIST_CHANNELS_MAX 32

/* The labels of w->dir's meter channels, by kind then channel (power, energy, in). */
static void collect_labels(struct label_walk *w)
{
	for (int k = 0; k < N_KINDS; k++) {
		for (unsigned int ch = 0; ch <= LIST_CHANNELS_MAX; ch++) {
			char label[128];

			if (!channel_label(w->dir, k, ch, label, sizeof(label)))
				continue;
			if (!w->labels) {
				append(w, w->n++ ? ", " : "", label);
			} else if (w->n + 1 < w->max && w->used + strlen(label) + 1 <= w->size) {
				w->labels[w->n++] = strcpy(w->buf + w->used, label);
				w->used += strlen(label) + 1;
			}
		}
	}
}

static int list_device(const struct hwmon_device *dev, void *userdata)
{
	struct label_walk *w = userdata;

	w->dir = dev->dir;
	if (w->labels) {
		if (strcmp(dev->name, w->hwmon) == 0)
			collect_labels(w);
		return 0;
	}
	append(w, w->used ? "; " : "", dev->name);
	append(w, " (", dev->id);
	append(w, "): ", "");
	w->n = 0;
	collect_labels(w);
	if (w->n == 0)
		append(w, "no power channels", "");
	return 0;
}

void hwmon_meter_list(char *buf, size_t size)
{
	struct label_walk w = { .buf = buf, .size = size };

	buf[0] = '\0';
	hwmon_each(list_device, &w);
	if (w.used == 0)
		snprintf(buf, size, "no hwmon devices");
}

size_t hwmon_meter_labels(const char *hwmon, char *buf, size_t size, const char **labels,
			  size_t max)
{
	struct label_walk w = { .buf = buf, .size = size, .labels = labels, .max = max,
				.hwmon = hwmon };

	if (max == 0)
		return 0;
	hwmon_each(list_device, &w);
	labels[w.n] = NULL;
	return w.n;
}
