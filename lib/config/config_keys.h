/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Typed, range-checked access to libconfig settings with errors that name
 * file, line and key.  Internal to config.c.
 */
#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"

/* Longest key path we build ("zones[12].actors[3].opps[40].voltage_uv"). */
#define KEY_PATH_MAX 128
/* Longest key name compared for "did you mean". */
#define KEY_NAME_MAX 64
/* Absolute temperatures this small (m°C) were typed in °C. */
#define TEMP_IN_C_MAX 200

/**
 * struct cfg_source - the text libconfig parses: a file with its @includes
 * in place, read by powerallocd (config_source.c).
 * @text, @len, @cap: the text, NUL-terminated, its length and allocation.
 * @line: the text's line being appended to, from 1.
 * @spans, @n_spans, @spans_cap: where each run of the text's lines comes from.
 * @files, @n_files, @files_cap: the files read, the first the one asked for.
 */
struct cfg_source {
	char *text;
	size_t len, cap;
	unsigned int line;
	struct cfg_span *spans;
	size_t n_spans, spans_cap;
	char **files;
	size_t n_files, files_cap;
};

/**
 * cfg_source_read() - @path and its @includes into @s (cfg_source_free()
 * it, also after an error).  Return: 0, or negative errno with @err said.
 */
int cfg_source_read(struct cfg_source *s, const char *path, struct pa_config_error *err);

/** cfg_source_from_string() - as cfg_source_read(), from @text named @name. */
int cfg_source_from_string(struct cfg_source *s, const char *text, const char *name,
			   struct pa_config_error *err);

/**
 * cfg_source_where() - the file and its line (@file, @file_line) of line
 * @line of @s's text; line 0 (unknown) is the first file's.
 */
void cfg_source_where(const struct cfg_source *s, unsigned int line, const char **file,
		      unsigned int *file_line);

/** cfg_source_free() - free what @s holds. */
void cfg_source_free(struct cfg_source *s);

/**
 * struct parse_ctx - one file being parsed.
 * @file: its name, for an error whose setting names no file.
 * @src: its text and where each line comes from.
 * @err: where cfg_fail() records an error.
 */
struct parse_ctx {
	const char *file;
	const struct cfg_source *src;
	struct pa_config_error *err;
};

/**
 * cfg_where() - the file and the line in it (into @line) of setting @s,
 * NULL for none: the parsed file's name and 0.
 */
const char *cfg_where(const struct parse_ctx *ctx, const config_setting_t *s,
		      unsigned int *line);

/**
 * cfg_fail() - record an error at @where (its line and file) for key
 * @prefix.@key.  Return: -EINVAL, for the caller to pass up.
 */
int cfg_fail(struct parse_ctx *ctx, const config_setting_t *where, const char *prefix,
	     const char *key, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/** cfg_key_path() - "@prefix.@key" (or "@key" at the root) into @buf. */
void cfg_key_path(char *buf, const char *prefix, const char *key);

/**
 * cfg_check_keys() - reject any member of @group not in the NULL-terminated
 * @allowed list, suggesting the nearest allowed name when it is a typo away
 * (at most a third of its letters edited).  Return: 0 or -EINVAL.
 */
int cfg_check_keys(struct parse_ctx *ctx, const config_setting_t *group, const char *prefix,
		   const char *const *allowed);

/**
 * cfg_check_keys_retired() - as cfg_check_keys(), and the members named in
 * the NULL-terminated @retired (keys of earlier versions, warned about by
 * the caller) pass too, though neither "valid here" nor "did you mean"
 * offers them.
 */
int cfg_check_keys_retired(struct parse_ctx *ctx, const config_setting_t *group,
			   const char *prefix, const char *const *allowed,
			   const char *const *retired);

/*
 * Getters: return 1 when the key is present and valid (value in *out), 0 when
 * absent (*out untouched), -EINVAL with the error recorded otherwise.
 */

/**
 * cfg_get_int() - an integer in @unit ("mW", "m°C", "ms", "kHz", "" for a
 * count).  A number with a fraction is refused naming the unit; in a milli
 * unit the message offers the value times 1000 (1.5 for mW: "did you mean
 * 1500 (mW)?").
 */
int cfg_get_int(struct parse_ctx *ctx, const config_setting_t *group, const char *prefix,
		const char *key, const char *unit, int64_t min, int64_t max, int64_t *out);

/**
 * cfg_get_temp_mc() - an absolute temperature, m°C, in [@min_mc, @max_mc].
 * A value of 1 to 200 in size is a temperature in °C typed where m°C are
 * meant (75 m°C is 0.075 °C): refused with "did you mean 75000 (m°C)?".
 * Below room temperature (TEMP_ROOM_MC) a @control temperature would hold
 * the zone's actors at their lowest power whenever it runs: refused; a
 * switch-on above 0 (0 or below says always on, as the kernel's one-trip
 * zones) makes the zone always on: a warning.  Both offer the value times
 * 10 or 100 where that is a likely temperature (750 -> "did you mean 75000
 * (75 °C)?").
 */
int cfg_get_temp_mc(struct parse_ctx *ctx, const config_setting_t *group, const char *prefix,
		    const char *key, int64_t min_mc, int64_t max_mc, bool control, int64_t *out);
/* Room temperature, m°C: no zone is cooled below it. */
#define TEMP_ROOM_MC 20000
/* Where a zone's temperatures usually are, m°C: what a suggestion may offer. */
#define TEMP_LIKELY_MIN_MC 30000
#define TEMP_LIKELY_MAX_MC 150000

int cfg_get_float(struct parse_ctx *ctx, const config_setting_t *group, const char *prefix,
		  const char *key, double min, double max, double *out);
int cfg_get_bool(struct parse_ctx *ctx, const config_setting_t *group, const char *prefix,
		 const char *key, bool *out);
int cfg_get_string(struct parse_ctx *ctx, const config_setting_t *group, const char *prefix,
		   const char *key, const char **out);
/* @names: NULL-terminated; *out is the index of the match. */
int cfg_get_enum(struct parse_ctx *ctx, const config_setting_t *group, const char *prefix,
		 const char *key, const char *const *names, int *out);
/* A name under /sys/class/...: non-empty, no '/', not "." or "..". */
int cfg_check_sysfs_name(struct parse_ctx *ctx, const config_setting_t *where,
			 const char *prefix, const char *key, const char *v);
int cfg_get_sysfs_name(struct parse_ctx *ctx, const config_setting_t *group, const char *prefix,
		       const char *key, const char **out);
/* A list of groups (possibly empty); *out is the list setting. */
int cfg_get_group_list(struct parse_ctx *ctx, const config_setting_t *group, const char *prefix,
		       const char *key, config_setting_t **out);

/**
 * cfg_syntax_group_in_array() - whether the syntax error libconfig found at
 * @line of @f is a group opening a list in square brackets ("zones = [ {"),
 * where libconfig takes only scalars; the key before the '[' (or "") into
 * @key.  Reads @f from where it is.
 */
bool cfg_syntax_group_in_array(FILE *f, unsigned int line, char *key, size_t key_size);

/* Presence test that also counts a setting of any type. */
static inline bool cfg_has(const config_setting_t *group, const char *key)
{
	return config_setting_get_member(group, key) != NULL;
}

/* Config limits shared by config.c and config_actor.c. */
#define POWER_MAX_MW 10000000	/* 10 kW */

/* "cpufreq", "cpufreq_cap", "devfreq", "powercap", NULL: indexed by enum actor_kind. */
extern const char *const actor_kind_names[];

/**
 * cfg_parse_sensor() - the "sensor" of zone @zone into @z->sensor: a
 * thermal zone's name, or a group combining several (config_sensor.c).
 * Return: 1 when present, 0 when absent, negative errno.
 */
int cfg_parse_sensor(struct parse_ctx *ctx, const config_setting_t *zone, const char *prefix,
		     struct zone_config *z);

/** cfg_parse_actors() - the "actors" list of zone @zone into @z. Return: 0 or negative errno. */
int cfg_parse_actors(struct parse_ctx *ctx, const config_setting_t *zone, const char *prefix,
		     struct zone_config *z);

/**
 * cfg_parse_meter() - the "power_meter" of @group (an actor's or a zone's)
 * into @m: a path under /sys to a powerN_input, energyN_input or
 * energy_uj, or a group { hwmon = "NAME"; label = "LABEL"; }
 * (config_meter.c).  Return: 1 when present, 0 when absent, negative errno.
 */
int cfg_parse_meter(struct parse_ctx *ctx, const config_setting_t *group, const char *prefix,
		    struct meter_config *m);

/** cfg_free_meter() - free what cfg_parse_meter() allocated in @m. */
void cfg_free_meter(struct meter_config *m);

/* The keys valid in each kind of group, NULL-terminated (also checked
 * against the man page by the tests). */
extern const char *const cfg_root_keys[];
extern const char *const cfg_zone_keys[];
extern const char *const cfg_sensor_keys[];
extern const char *const cfg_sensor_sum_keys[];
extern const char *const cfg_cpufreq_keys[];
extern const char *const cfg_devfreq_keys[];
extern const char *const cfg_powercap_keys[];
extern const char *const cfg_opp_keys[];
extern const char *const cfg_meter_keys[];
