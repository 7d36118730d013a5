/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A zone's "sensor": a thermal zone's name, or a group that combines
 * several:
 *   sensor = { max = [ "cpu-thermal", "gpu-thermal" ]; };
 *   sensor = { sum = ( { zone = "cpu-thermal"; weight = 0.6; },
 *                      { zone = "battery"; weight = 0.4; } ); offset = -2000; };
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_keys.h"

/* An input's weight, at most: a weight is a share, not a gain. */
#define SENSOR_WEIGHT_MAX 100.0
/* |offset|, m°C: a skin estimate sits a few °C under the die, not 100. */
#define SENSOR_OFFSET_MAX_MC 100000

const char *const cfg_sensor_keys[] = { "max", "sum", "offset", NULL };
const char *const cfg_sensor_sum_keys[] = { "zone", "weight", NULL };

/* Takes @name as input @i of @s; refuses a name given twice. */
static int add_input(struct parse_ctx *ctx, const config_setting_t *where, const char *prefix,
		     const char *key, struct sensor_config *s, const char *name)
{
	for (size_t j = 0; j < s->n_inputs; j++)
		if (strcmp(s->input[j], name) == 0)
			return cfg_fail(ctx, where, prefix, key, "\"%s\" is already an input "
					"(inputs are distinct)", name);
	s->input[s->n_inputs] = strdup(name);
	if (!s->input[s->n_inputs])
		return -ENOMEM;
	s->weight[s->n_inputs++] = 1.0;
	return 0;
}

/* The list under @key: 1 to SENSOR_MAX_INPUTS entries. */
static int input_list(struct parse_ctx *ctx, const config_setting_t *g, const char *prefix,
		      const char *key, int want, const char *want_name, config_setting_t **out)
{
	config_setting_t *list = config_setting_get_member(g, key);
	int n, type = config_setting_type(list);

	if (type != CONFIG_TYPE_ARRAY && type != CONFIG_TYPE_LIST)
		return cfg_fail(ctx, list, prefix, key, "expected %s", want_name);
	n = config_setting_length(list);
	if (n < 1 || n > SENSOR_MAX_INPUTS)
		return cfg_fail(ctx, list, prefix, key, "%d inputs: 1 to %d are allowed", n,
				SENSOR_MAX_INPUTS);
	for (int i = 0; i < n; i++) {
		config_setting_t *e = config_setting_get_elem(list, (unsigned int)i);
		char elem[KEY_PATH_MAX];

		snprintf(elem, sizeof(elem), "%s[%d]", key, i);
		if (config_setting_type(e) != want)
			return cfg_fail(ctx, e, prefix, elem, "expected %s", want_name);
	}
	*out = list;
	return n;
}

/* max = [ "a", "b" ]: the hottest of the thermal zones named. */
static int parse_max(struct parse_ctx *ctx, const config_setting_t *g, const char *prefix,
		     struct sensor_config *s)
{
	config_setting_t *list;
	int n = input_list(ctx, g, prefix, "max", CONFIG_TYPE_STRING,
			   "an array of thermal zones: [ \"cpu-thermal\", \"gpu-thermal\" ]", &list);

	for (int i = 0, r; i < n; i++) {
		config_setting_t *e = config_setting_get_elem(list, (unsigned int)i);
		const char *name = config_setting_get_string(e);
		char elem[KEY_PATH_MAX];

		snprintf(elem, sizeof(elem), "max[%d]", i);
		if ((r = cfg_check_sysfs_name(ctx, e, prefix, elem, name)) < 0 ||
		    (r = add_input(ctx, e, prefix, elem, s, name)) < 0)
			return r;
	}
	s->kind = SENSOR_MAX;
	return n < 0 ? n : 0;
}

/* sum = ( { zone = "a"; weight = 0.6; }, ... ): weights positive, 1 when not given. */
static int parse_sum(struct parse_ctx *ctx, const config_setting_t *g, const char *prefix,
		     struct sensor_config *s)
{
	config_setting_t *list;
	int n = input_list(ctx, g, prefix, "sum", CONFIG_TYPE_GROUP,
			   "a list of inputs: ( { zone = \"cpu-thermal\"; weight = 0.6; }, ... )",
			   &list);

	for (int i = 0, r; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(list, (unsigned int)i);
		char elem[KEY_PATH_MAX];
		const char *name;
		double w = 1.0;

		snprintf(elem, sizeof(elem), "%.100s.sum[%d]", prefix, i);
		if ((r = cfg_check_keys(ctx, e, elem, cfg_sensor_sum_keys)) < 0 ||
		    (r = cfg_get_sysfs_name(ctx, e, elem, "zone", &name)) < 0)
			return r;
		if (r == 0)
			return cfg_fail(ctx, e, elem, "zone", "missing (a thermal zone type or "
					"thermal_zoneN)");
		if ((r = cfg_get_float(ctx, e, elem, "weight", 0.0, SENSOR_WEIGHT_MAX, &w)) < 0)
			return r;
		if (w <= 0)
			return cfg_fail(ctx, config_setting_get_member(e, "weight"), elem, "weight",
					"must be above 0 (leave the input out instead)");
		if ((r = add_input(ctx, config_setting_get_member(e, "zone"), elem, "zone", s,
				   name)) < 0)
			return r;
		s->weight[s->n_inputs - 1] = w;
	}
	s->kind = SENSOR_SUM;
	return n < 0 ? n : 0;
}

static int parse_combined(struct parse_ctx *ctx, const config_setting_t *g, const char *prefix,
			  struct sensor_config *s)
{
	bool has_max = cfg_has(g, "max"), has_sum = cfg_has(g, "sum");
	int64_t offset;
	int r;

	if ((r = cfg_check_keys(ctx, g, prefix, cfg_sensor_keys)) < 0)
		return r;
	if (has_max == has_sum)
		return cfg_fail(ctx, g, prefix, "", "give either max = [ ... ] or sum = ( ... ), "
				"not %s", has_max ? "both" : "neither");
	if ((r = has_max ? parse_max(ctx, g, prefix, s) : parse_sum(ctx, g, prefix, s)) < 0)
		return r;
	r = cfg_get_int(ctx, g, prefix, "offset", "m°C", -SENSOR_OFFSET_MAX_MC,
			SENSOR_OFFSET_MAX_MC, &offset);
	if (r > 0)
		s->offset_mc = (int32_t)offset;
	return r < 0 ? r : 1;
}

int cfg_parse_sensor(struct parse_ctx *ctx, const config_setting_t *zone, const char *prefix,
		     struct zone_config *z)
{
	config_setting_t *g = config_setting_get_member(zone, "sensor");
	char key[KEY_PATH_MAX];
	const char *name;
	int r;

	if (g && config_setting_type(g) == CONFIG_TYPE_GROUP) {
		cfg_key_path(key, prefix, "sensor");
		return parse_combined(ctx, g, key, &z->sensor);
	}
	if ((r = cfg_get_sysfs_name(ctx, zone, prefix, "sensor", &name)) <= 0)
		return r;
	z->sensor.kind = SENSOR_ONE;
	return (r = add_input(ctx, g, prefix, "sensor", &z->sensor, name)) < 0 ? r : 1;
}
