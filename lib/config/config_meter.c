/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The power_meter of an actor or a zone: a file under /sys, or a hwmon
 * device's name and a channel's label.  Only the form is checked here;
 * whether the meter exists is the engine's to find (engine_meter.c).
 */
#include <errno.h>
#include <libconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config_keys.h"
#include "platform/meter.h"

const char *const cfg_meter_keys[] = { "hwmon", "label", NULL };

static int parse_meter_path(struct parse_ctx *ctx, const config_setting_t *s, const char *prefix,
			    struct meter_config *m)
{
	const char *path = config_setting_get_string(s);
	const char *file = strrchr(path, '/');
	enum meter_unit unit;

	if (strncmp(path, "/sys/", 5) != 0 || strstr(path, "/../"))
		return cfg_fail(ctx, s, prefix, "power_meter", "\"%s\" is not a file under /sys/ "
				"(give its absolute path, or { hwmon = \"NAME\"; label = \"LABEL\"; })",
				path);
	if (power_meter_file_unit(file + 1, &unit) < 0)
		return cfg_fail(ctx, s, prefix, "power_meter", "\"%s\" is no meter: give a hwmon "
				"powerN_input or powerN_average (µW) or energyN_input (µJ), or a "
				"powercap energy_uj (µJ)", path);
	return (m->path = strdup(path)) ? 1 : -ENOMEM;
}

static int parse_meter_group(struct parse_ctx *ctx, const config_setting_t *s, const char *prefix,
			     struct meter_config *m)
{
	char path[KEY_PATH_MAX];
	const char *hwmon, *label;
	int r;

	cfg_key_path(path, prefix, "power_meter");
	if ((r = cfg_check_keys(ctx, s, path, cfg_meter_keys)) < 0)
		return r;
	if ((r = cfg_get_string(ctx, s, path, "hwmon", &hwmon)) <= 0)
		return r ? r : cfg_fail(ctx, s, path, "hwmon", "missing (the hwmon device's name, "
					"as in /sys/class/hwmon/hwmon*/name)");
	if ((r = cfg_get_string(ctx, s, path, "label", &label)) <= 0)
		return r ? r : cfg_fail(ctx, s, path, "label", "missing (the channel's label, as in "
					"/sys/class/hwmon/hwmon*/power*_label)");
	if (!*hwmon || !*label)
		return cfg_fail(ctx, s, path, *hwmon ? "label" : "hwmon", "empty");
	m->hwmon = strdup(hwmon);
	m->label = strdup(label);
	return m->hwmon && m->label ? 1 : -ENOMEM;
}

int cfg_parse_meter(struct parse_ctx *ctx, const config_setting_t *group, const char *prefix,
		    struct meter_config *m)
{
	const config_setting_t *s = config_setting_get_member(group, "power_meter");

	if (!s)
		return 0;
	cfg_where(ctx, s, &m->line);
	if (config_setting_type(s) == CONFIG_TYPE_STRING)
		return parse_meter_path(ctx, s, prefix, m);
	if (config_setting_type(s) == CONFIG_TYPE_GROUP)
		return parse_meter_group(ctx, s, prefix, m);
	return cfg_fail(ctx, s, prefix, "power_meter", "give a path under /sys/ (\"/sys/class/"
			"hwmon/hwmon1/power1_input\") or { hwmon = \"NAME\"; label = \"LABEL\"; }");
}

void cfg_free_meter(struct meter_config *m)
{
	free(m->path);
	free(m->hwmon);
	free(m->label);
}
