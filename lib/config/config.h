/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "control/cpumask.h"
#include "control/pid.h"
#include "control/power_table.h"
#include "control/sensor_combine.h"

/* Limits that keep a config reviewable and every per-zone array small. */
#define CONFIG_MAX_ZONES 64
#define CONFIG_MAX_ACTORS 64
/* metrics_interval_ms: its default and range, ms. */
#define METRICS_INTERVAL_DEFAULT_MS 10000
#define METRICS_INTERVAL_MIN_MS 100
#define METRICS_INTERVAL_MAX_MS 3600000

/**
 * enum actor_kind - how an actor limits its device.
 * @ACTOR_CPUFREQ: a cpufreq cooling device (cpufreq-cpuN), cur_state.
 * @ACTOR_CPUFREQ_CAP: a cpufreq policy's scaling_max_freq (no cooling device).
 * @ACTOR_DEVFREQ: a devfreq cooling device (devfreq-<dev>), e.g. a GPU.
 * @ACTOR_POWERCAP: a powercap/RAPL zone's constraint_0_power_limit_uw.
 * @ACTOR_COOLING_DEVICE: a cooling device without a power model (a fan),
 *	driven by the step_wise fallback; never named in a config.
 */
enum actor_kind {
	ACTOR_CPUFREQ,
	ACTOR_CPUFREQ_CAP,
	ACTOR_DEVFREQ,
	ACTOR_POWERCAP,
	ACTOR_COOLING_DEVICE,
};

/* Bits of zone_config.gains_set: which gains the config overrides. */
#define GAIN_K_PO (1u << 0)
#define GAIN_K_PU (1u << 1)
#define GAIN_K_I (1u << 2)
#define GAIN_K_D (1u << 3)
#define GAIN_INTEGRAL_CUTOFF (1u << 4)

/**
 * struct meter_config - a power meter, as configured (power_meter).
 * @path: a file under /sys (powerN_input, energyN_input or energy_uj), or NULL.
 * @hwmon, @label: else the hwmon device's name and its channel's label; NULL
 *	for none.
 * @line: line of the key in the file.
 */
struct meter_config {
	char *path;
	char *hwmon;
	char *label;
	unsigned int line;
};

/** meter_configured() - whether @m names a meter. */
static inline bool meter_configured(const struct meter_config *m)
{
	return m->path || m->hwmon;
}

/**
 * struct actor_config - one actor of a zone, as configured.
 * @kind: see enum actor_kind.
 * @cpus: cpufreq kinds: the CPUs of the policy.
 * @device: devfreq: the device name under /sys/class/devfreq.
 * @powercap_zone: powercap: the zone name under /sys/class/powercap.
 * @dynamic_power_coefficient: uW/MHz/V^2; 0 = from the platform.
 * @weight_q10: weight in Q10 (1024 = 1.0).
 * @opps: an OPP table given in the config (NULL: from the platform).
 * @n_opps: entries in @opps.
 * @optional: the zone runs without this actor when its device is missing or
 *	unusable (default false: the zone is then not controlled).
 * @line: line of the actor in the file.
 * @at_most_original: powercap: never write a limit above the one found at
 *	start (not a key: automatic x86 package zones, whose firmware set that
 *	long-term limit for the machine's cooling).
 * @yield_external: on_external_write = "yield": when another writer
 *	changes a file the actor writes, leave the actor to it (default
 *	"reassert": write ours back, lib/control/external_write.h).
 * @meter: its power meter (power_meter; none configured: a powercap actor
 *	still measures itself through its energy_uj).
 */
struct actor_config {
	enum actor_kind kind;
	struct cpumask cpus;
	char *device;
	char *powercap_zone;
	uint32_t dynamic_power_coefficient;
	uint32_t weight_q10;
	struct opp *opps;
	size_t n_opps;
	bool optional;
	unsigned int line;
	bool at_most_original;
	bool yield_external;
	struct meter_config meter;
};

/**
 * struct sensor_config - a zone's sensor, as configured.
 * @kind: one thermal zone, or how several are combined.
 * @input, @n_inputs: thermal zone types or "thermal_zoneN" (one for
 *	SENSOR_ONE), distinct.
 * @weight: SENSOR_SUM: each input's weight (positive); 1 otherwise.
 * @offset_mc: added to the combination, m°C (0 for SENSOR_ONE).
 */
struct sensor_config {
	enum sensor_kind kind;
	size_t n_inputs;
	char *input[SENSOR_MAX_INPUTS];
	double weight[SENSOR_MAX_INPUTS];
	int32_t offset_mc;
};

/**
 * struct zone_config - one controlled zone.
 * @name: label in logs and on D-Bus.
 * @sensor: the thermal zone it reads, or those it combines.
 * @switch_on_temp_mc, @control_temp_mc: m°C, valid when the has_ flag is set
 *	(otherwise the zone's first and last passive trips; both are set for
 *	a combined sensor, which has no trips of its own).
 * @sustainable_power_mw: mW; 0 = from sysfs, else estimated.
 * @period_ms: control period while active, ms.
 * @controller: control law.
 * @gains: gain overrides, valid for the bits set in @gains_set.
 * @fixes: the default mode's fixes (documented defaults unless set).
 * @efficiency_division: divide the budget by efficiency (lib/control/efficiency.h)
 *	rather than in proportion to the requests.
 * @step_wise_fallback: drive the devices bound to the zone that have no
 *	power model (fans) with step_wise (default true).
 * @actors, @n_actors: the zone's actors (at least one).
 * @meter: the board's total power meter (power_meter), for all its actors together.
 * @line: line of the zone in the file.
 */
struct zone_config {
	char *name;
	struct sensor_config sensor;
	bool has_switch_on_temp;
	bool has_control_temp;
	int32_t switch_on_temp_mc;
	int32_t control_temp_mc;
	uint32_t sustainable_power_mw;
	uint32_t period_ms;
	enum pid_mode controller;
	struct pid_gains gains;
	unsigned int gains_set;
	struct pid_fixes fixes;
	bool efficiency_division;
	bool step_wise_fallback;
	struct actor_config *actors;
	size_t n_actors;
	struct meter_config meter;
	unsigned int line;
};

/**
 * struct pa_config - the whole validated configuration.
 * @path: the file it came from.
 * @log_level: maximum priority logged, PA_LOG_ERR..PA_LOG_DEBUG (platform/log.h).
 * @idle_poll_ms: polling period while every zone is below switch-on, ms;
 *	0 = events only.
 * @trace_file: CSV trace path, "" for none.
 * @metrics_dir: where the metrics file for node_exporter's textfile
 *	collector is written, "" for none.
 * @metrics_interval_ms: how often it is written, ms (METRICS_INTERVAL_*_MS).
 * @zones, @n_zones: configured zones; none = configure from the kernel's bindings.
 */
struct pa_config {
	char *path;
	int log_level;
	uint32_t idle_poll_ms;
	char *trace_file;
	char *metrics_dir;
	uint32_t metrics_interval_ms;
	struct zone_config *zones;
	size_t n_zones;
};

/**
 * struct pa_config_error - where and why a config was rejected.
 * @file: file name (an @include'd file where the error is in one).
 * @line: line number, 0 when unknown (e.g. the file cannot be opened).
 * @key: the key's path, e.g. "zones[0].actors[1].cpus"; "" for syntax errors.
 * @message: what is wrong.
 * @text: "file:line: key: message", ready to log.
 */
struct pa_config_error {
	char file[256];
	unsigned int line;
	char key[128];
	char message[512];
	char text[1024];
};

/*
 * The most a config file may hold, bytes, and the whole with its @includes:
 * a configuration is a few KiB; more is not one (a log, a disk image).
 */
#define PA_CONFIG_MAX_BYTES (1 << 20)
/* How deep @includes may nest, as libconfig's own limit: deeper is a loop. */
#define PA_CONFIG_INCLUDE_DEPTH_MAX 10

/**
 * pa_config_load_file() - parse and validate a config file.
 * @path: the file.
 * @out: on success, the config (free with pa_config_free()).
 * @err: on failure, what is wrong.
 *
 * The file and each file it @includes are read here, each a regular file of
 * at most PA_CONFIG_MAX_BYTES, then parsed from memory: libconfig's scanner
 * exits the process on a read error (flex's YY_FATAL_ERROR), which a
 * directory, a FIFO, a device or a failing disk gives.  An @include is read
 * relative to the including file's directory, nested at most
 * PA_CONFIG_INCLUDE_DEPTH_MAX deep; an error names the file it is in.
 *
 * Return: 0; -ENOENT/-EACCES/-EIO/-SYSFS_ENOTREG (not a regular
 * file)/-EFBIG (over the bound)/... when the file or an @include cannot be
 * read; -EINVAL when invalid; -ENOMEM.
 */
int pa_config_load_file(const char *path, struct pa_config **out, struct pa_config_error *err);

/**
 * pa_config_load_string() - as pa_config_load_file(), from @text.
 * @name: the name errors give as the file; its directory is where a
 *	relative @include is read.
 */
int pa_config_load_string(const char *text, const char *name, struct pa_config **out,
			  struct pa_config_error *err);

/** pa_config_new_default() - the config used when there is no file: defaults, no zones. */
struct pa_config *pa_config_new_default(void);

/** pa_config_free() - free @config (NULL is fine). */
void pa_config_free(struct pa_config *config);

/**
 * pa_nearest_name() - the name of the NULL-terminated @names nearest to
 * @name when it is a typo away (at most a third of its letters inserted,
 * deleted, changed or swapped), else NULL: the "did you mean" of unknown
 * configuration keys, and of powerallocctl's commands and zones.
 */
const char *pa_nearest_name(const char *name, const char *const *names);

/** actor_kind_name() - the config's name for @kind ("cpufreq", ...). */
const char *actor_kind_name(enum actor_kind kind);

/** controller_name() - the config's name for @mode ("default", "kernel", "step_wise"). */
const char *controller_name(enum pid_mode mode);
