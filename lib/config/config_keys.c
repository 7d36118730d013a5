/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config_keys.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "platform/log.h"

static const char *type_name(int type)
{
	switch (type) {
	case CONFIG_TYPE_GROUP: return "a group";
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64: return "an integer";
	case CONFIG_TYPE_FLOAT: return "a number";
	case CONFIG_TYPE_STRING: return "a string";
	case CONFIG_TYPE_BOOL: return "a boolean";
	case CONFIG_TYPE_ARRAY: return "an array";
	case CONFIG_TYPE_LIST: return "a list";
	default: return "an unknown type";
	}
}

void cfg_key_path(char *buf, const char *prefix, const char *key)
{
	if (prefix && *prefix && key && *key)
		snprintf(buf, KEY_PATH_MAX, "%s.%s", prefix, key);
	else
		snprintf(buf, KEY_PATH_MAX, "%s", prefix && *prefix ? prefix : key ? key : "");
}

const char *cfg_where(const struct parse_ctx *ctx, const config_setting_t *s,
		      unsigned int *line)
{
	const char *file = ctx->file;

	*line = 0;
	if (s && ctx->src)
		cfg_source_where(ctx->src, (unsigned int)config_setting_source_line(s), &file, line);
	else if (s)
		*line = (unsigned int)config_setting_source_line(s);
	return file;
}

int cfg_fail(struct parse_ctx *ctx, const config_setting_t *where, const char *prefix,
	     const char *key, const char *fmt, ...)
{
	struct pa_config_error *e = ctx->err;
	const char *file = cfg_where(ctx, where, &e->line);
	char path[KEY_PATH_MAX];
	va_list ap;

	cfg_key_path(path, prefix, key);
	snprintf(e->file, sizeof(e->file), "%s", file);
	snprintf(e->key, sizeof(e->key), "%s", path);
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof(e->message), fmt, ap);
	va_end(ap);
	snprintf(e->text, sizeof(e->text), "%s:%u: %s: %s", e->file, e->line, e->key, e->message);
	return -EINVAL;
}

static bool is_allowed(const char *name, const char *const *allowed)
{
	for (; *allowed; allowed++)
		if (strcmp(name, *allowed) == 0)
			return true;
	return false;
}

/* Edit distance (insertions, deletions, substitutions, swaps of neighbours) of two short names. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t d[KEY_NAME_MAX + 1][KEY_NAME_MAX + 1];

	if (la > KEY_NAME_MAX || lb > KEY_NAME_MAX)
		return SIZE_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

/* The allowed name nearest to @name, if a typo away (a third of its letters at most); else NULL. */
static const char *nearest(const char *name, const char *const *allowed)
{
	const char *best = NULL;
	size_t best_d = strlen(name) / 3 + 1;

	for (; *allowed; allowed++) {
		size_t d = edit_distance(name, *allowed);

		if (d < best_d) {
			best_d = d;
			best = *allowed;
		}
	}
	return best;
}

const char *pa_nearest_name(const char *name, const char *const *names)
{
	return nearest(name, names);
}

int cfg_check_keys_retired(struct parse_ctx *ctx, const config_setting_t *group,
			   const char *prefix, const char *const *allowed,
			   const char *const *retired)
{
	int n = config_setting_length(group);

	for (int i = 0; i < n; i++) {
		const config_setting_t *s = config_setting_get_elem(group, (unsigned int)i);
		const char *name = config_setting_name(s);
		const char *near;
		char list[400] = "";

		if (!name || is_allowed(name, allowed) || (retired && is_allowed(name, retired)))
			continue;
		for (const char *const *a = allowed; *a; a++) {
			size_t len = strlen(list);

			snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "", *a);
		}
		near = nearest(name, allowed);
		if (near)
			return cfg_fail(ctx, s, prefix, name, "unknown key: did you mean \"%s\"? (valid "
					"here: %s)", near, list);
		return cfg_fail(ctx, s, prefix, name, "unknown key (valid here: %s)", list);
	}
	return 0;
}

int cfg_check_keys(struct parse_ctx *ctx, const config_setting_t *group, const char *prefix,
		   const char *const *allowed)
{
	return cfg_check_keys_retired(ctx, group, prefix, allowed, NULL);
}

/* Fetches @key with one of two accepted types; 0 when absent. */
static int lookup(struct parse_ctx *ctx, const config_setting_t *group, const char *prefix,
		  const char *key, int want, int want2, const char *want_name,
		  config_setting_t **out)
{
	config_setting_t *s = config_setting_get_member(group, key);
	int type;

	if (!s)
		return 0;
	type = config_setting_type(s);
	if (type != want && type != want2)
		return cfg_fail(ctx, s, prefix, key, "expected %s, got %s", want_name,
				type_name(type));
	*out = s;
	return 1;
}

/*
 * What a number with a decimal point @f most likely meant in @unit, into
 * @hint: in a milli unit, a fraction or a whole number of at most
 * TEMP_IN_C_MAX in size typed in the base unit (1.5 W for 1500 mW, 75.0 °C
 * for 75000 m°C), else a whole number meant as it is ("75000.0"); the
 * first of these in [@min, @max].
 */
static void float_hint(double f, const char *unit, int64_t min, int64_t max, char *hint,
		       size_t size)
{
	bool whole = f == floor(f);
	double v[2] = { unit[0] == 'm' && (!whole || fabs(f) <= TEMP_IN_C_MAX) ? f * 1000 : NAN,
			whole ? f : NAN };

	for (size_t i = 0; i < 2; i++)
		if (v[i] >= (double)min && v[i] <= (double)max) {
			snprintf(hint, size, ": did you mean %lld (%s)?", llround(v[i]), unit);
			return;
		}
}

int cfg_get_int(struct parse_ctx *ctx, const config_setting_t *group, const char *prefix,
		const char *key, const char *unit, int64_t min, int64_t max, int64_t *out)
{
	config_setting_t *s = config_setting_get_member(group, key);
	char hint[64] = "";
	int64_t v;
	int r;

	if (s && config_setting_type(s) == CONFIG_TYPE_FLOAT && *unit) {
		double f = config_setting_get_float(s);

		if (isfinite(f))
			float_hint(f, unit, min, max, hint, sizeof(hint));
		/* "%g" would print 75.0 as 75, which looks like the integer asked for. */
		if (isfinite(f) && f == floor(f) && fabs(f) < 1e15)
			return cfg_fail(ctx, s, prefix, key, "expected %s, an integer, got %.1f, a "
					"number with a decimal point%s", unit, f, hint);
		return cfg_fail(ctx, s, prefix, key, "expected %s, an integer, got %g%s", unit, f, hint);
	}
	r = lookup(ctx, group, prefix, key, CONFIG_TYPE_INT, CONFIG_TYPE_INT64, "an integer", &s);
	if (r <= 0)
		return r;
	v = config_setting_get_int64(s);
	if (v < min || v > max)
		return cfg_fail(ctx, s, prefix, key, "%lld%s%s is out of range [%lld, %lld]",
				(long long)v, *unit ? " " : "", unit, (long long)min, (long long)max);
	*out = v;
	return 1;
}

/*
 * @key's value @v (m°C, valid up to @max_mc) against room temperature:
 * below it a control temperature (@refuse) would hold the zone's actors at
 * their lowest power whenever it runs, refused; a switch-on above 0 makes
 * the zone always on, said as a warning.  Both offer the value times 10 or
 * 100 where that is a likely temperature (750 -> 75000).
 */
static int check_room_temp(struct parse_ctx *ctx, const config_setting_t *group,
			   const char *prefix, const char *key, int64_t v, int64_t max_mc,
			   bool refuse)
{
	const config_setting_t *s = config_setting_get_member(group, key);
	char hint[64] = "", path[KEY_PATH_MAX];
	unsigned int line;
	const char *file = cfg_where(ctx, s, &line);

	if (v >= TEMP_ROOM_MC || (!refuse && v <= 0))
		return 0;
	/* 750 for 75000: a zero or two left out. */
	for (int64_t times = 10; times <= 100 && v > 0; times *= 10)
		if (v * times >= TEMP_LIKELY_MIN_MC && v * times <= TEMP_LIKELY_MAX_MC) {
			snprintf(hint, sizeof(hint), "; did you mean %lld (%lld °C)?",
				 (long long)(v * times), (long long)(v * times / 1000));
			break;
		}
	if (refuse)
		return cfg_fail(ctx, s, prefix, key, "%lld m°C is %.3f °C, below room temperature "
				"(%d °C): the zone would hold its actors at their lowest power "
				"whenever it runs%s (%s is in m°C, %d to %lld)", (long long)v,
				v / 1000.0, TEMP_ROOM_MC / 1000, hint, key, TEMP_ROOM_MC,
				(long long)max_mc);
	cfg_key_path(path, prefix, key);
	pa_log(PA_LOG_WARNING, "%s:%u: %s: %lld m°C is %.3f °C, below room temperature (%d °C): "
	       "the zone is on at any temperature%s (0 or below says so on purpose)",
	       file, line, path,
	       (long long)v, v / 1000.0, TEMP_ROOM_MC / 1000, hint);
	return 0;
}

int cfg_get_temp_mc(struct parse_ctx *ctx, const config_setting_t *group, const char *prefix,
		    const char *key, int64_t min_mc, int64_t max_mc, bool control, int64_t *out)
{
	int64_t v;
	int r = cfg_get_int(ctx, group, prefix, key, "m°C", min_mc, max_mc, &v);

	if (r <= 0)
		return r;
	/* Degrees typed for millidegrees, unless a control temperature would still be too low. */
	if (v != 0 && v >= -TEMP_IN_C_MAX && v <= TEMP_IN_C_MAX &&
	    (!control || v * 1000 >= TEMP_ROOM_MC))
		return cfg_fail(ctx, config_setting_get_member(group, key), prefix, key,
				"%lld m°C is %.3f °C: did you mean %lld (m°C)?", (long long)v,
				v / 1000.0, (long long)v * 1000);
	if ((r = check_room_temp(ctx, group, prefix, key, v, max_mc, control)) < 0)
		return r;
	*out = v;
	return 1;
}

int cfg_get_float(struct parse_ctx *ctx, const config_setting_t *group, const char *prefix,
		  const char *key, double min, double max, double *out)
{
	config_setting_t *s = config_setting_get_member(group, key);
	double v;
	int type;

	if (!s)
		return 0;
	type = config_setting_type(s);
	if (type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64)
		v = (double)config_setting_get_int64(s);
	else if (type == CONFIG_TYPE_FLOAT)
		v = config_setting_get_float(s);
	else
		return cfg_fail(ctx, s, prefix, key, "expected a number, got %s", type_name(type));
	if (!isfinite(v) || v < min || v > max)
		return cfg_fail(ctx, s, prefix, key, "%g is out of range [%g, %g]", v, min, max);
	*out = v;
	return 1;
}

int cfg_get_bool(struct parse_ctx *ctx, const config_setting_t *group, const char *prefix,
		 const char *key, bool *out)
{
	config_setting_t *s = NULL;
	int r = lookup(ctx, group, prefix, key, CONFIG_TYPE_BOOL, CONFIG_TYPE_BOOL,
		       "a boolean (true or false)", &s);

	if (r <= 0)
		return r;
	*out = config_setting_get_bool(s);
	return 1;
}

int cfg_get_string(struct parse_ctx *ctx, const config_setting_t *group, const char *prefix,
		   const char *key, const char **out)
{
	config_setting_t *s = NULL;
	int r = lookup(ctx, group, prefix, key, CONFIG_TYPE_STRING, CONFIG_TYPE_STRING,
		       "a string", &s);

	if (r <= 0)
		return r;
	*out = config_setting_get_string(s);
	return 1;
}

int cfg_get_enum(struct parse_ctx *ctx, const config_setting_t *group, const char *prefix,
		 const char *key, const char *const *names, int *out)
{
	const char *v, *near;
	char list[256] = "";
	int r = cfg_get_string(ctx, group, prefix, key, &v);

	if (r <= 0)
		return r;
	for (int i = 0; names[i]; i++) {
		size_t len = strlen(list);

		if (strcmp(v, names[i]) == 0) {
			*out = i;
			return 1;
		}
		snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "", names[i]);
	}
	near = nearest(v, names);
	if (near)
		return cfg_fail(ctx, config_setting_get_member(group, key), prefix, key,
				"\"%s\" is not one of: %s: did you mean \"%s\"?", v, list, near);
	return cfg_fail(ctx, config_setting_get_member(group, key), prefix, key,
			"\"%s\" is not one of: %s", v, list);
}

int cfg_check_sysfs_name(struct parse_ctx *ctx, const config_setting_t *where,
			 const char *prefix, const char *key, const char *v)
{
	if (!*v || strchr(v, '/') || strcmp(v, ".") == 0 || strcmp(v, "..") == 0 ||
	    strlen(v) > 200)
		return cfg_fail(ctx, where, prefix, key,
				"\"%s\" is not a device name (non-empty, no '/')", v);
	return 0;
}

int cfg_get_sysfs_name(struct parse_ctx *ctx, const config_setting_t *group, const char *prefix,
		       const char *key, const char **out)
{
	const char *v;
	int r = cfg_get_string(ctx, group, prefix, key, &v);

	if (r <= 0)
		return r;
	if ((r = cfg_check_sysfs_name(ctx, config_setting_get_member(group, key), prefix, key,
				      v)) < 0)
		return r;
	*out = v;
	return 1;
}

int cfg_get_group_list(struct parse_ctx *ctx, const config_setting_t *group, const char *prefix,
		       const char *key, config_setting_t **out)
{
	config_setting_t *s = NULL;
	int r = lookup(ctx, group, prefix, key, CONFIG_TYPE_LIST, CONFIG_TYPE_ARRAY,
		       "a list of groups: ( { ... }, { ... } )", &s);
	int n;

	if (r <= 0)
		return r;
	n = config_setting_length(s);
	if (config_setting_type(s) == CONFIG_TYPE_ARRAY && n > 0)
		return cfg_fail(ctx, s, prefix, key, "expected a list of groups: ( { ... } ), got an array");
	for (int i = 0; i < n; i++) {
		config_setting_t *e = config_setting_get_elem(s, (unsigned int)i);

		if (config_setting_type(e) != CONFIG_TYPE_GROUP) {
			char elem[KEY_PATH_MAX];

			snprintf(elem, sizeof(elem), "%s[%d]", key, i);
			return cfg_fail(ctx, e, prefix, elem, "expected a group { ... }, got %s",
					type_name(config_setting_type(e)));
		}
	}
	*out = s;
	return 1;
}
