/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /etc/powerallocd.conf: libconfig syntax -> struct pa_config, every rule
 * checked here so that the daemon never sees an invalid value.  Each error
 * names file, line and key (config_keys.c).
 */
#include "config.h"

#include <errno.h>
#include <libconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_keys.h"
#include "control/enum_name.h"
#include "platform/log.h"

#define TEMP_MIN_MC (-50000)
#define TEMP_MAX_MC 200000
#define GAIN_MAX 1000000.0	/* mW per °C */
#define CONTROL_MARGIN_MAX_MC 10000

const char *const actor_kind_names[] = { "cpufreq", "cpufreq_cap", "devfreq", "powercap", NULL };
static const char *const controller_names[] = { "default", "kernel", "step_wise", NULL };
static const char *const division_names[] = { "request", "efficiency", NULL };

const char *const cfg_root_keys[] = { "log_level", "idle_poll_ms", "trace_file", "metrics_dir",
				      "metrics_interval_ms", "zones", NULL };
const char *const cfg_zone_keys[] = {
	"name", "sensor", "switch_on_temp", "control_temp", "sustainable_power", "period_ms",
	"controller", "k_po", "k_pu", "k_i", "k_d", "integral_cutoff",
	"integral_bleed", "integral_under", "clamp_sustainable_power", "tuned_gains",
	"control_margin", "dither_grants", "saturated_request", "trust_sustainable_power",
	"division", "step_wise_fallback", "power_meter", "actors", NULL
};
static const char *const default_mode_keys[] = {
	"integral_bleed", "integral_under", "clamp_sustainable_power", "tuned_gains",
	"control_margin", "dither_grants", "saturated_request", "trust_sustainable_power", NULL
};

/*
 * Keys of earlier versions that no longer do anything: accepted with a
 * warning that says why (powerallocd.conf(5), RETIRED KEYS), so that an
 * old configuration still loads, but offered neither in "valid here" nor
 * in "did you mean".  The figures are doc/control-tuning.md's.
 */
static const char *const retired_zone_keys[] = {
	"wide_integral_bound", "budget_step_limit", "derivative_filter_ms", NULL
};
/* Why each of retired_zone_keys is gone, in the same order. */
static const char *const retired_why[] = {
	"the default controller always bounds its integral by the maximum power plus the "
	"sustainable power (off, it changed no cell of tools/bench-robust by more than 0.4 "
	"points of work or 0.09 °C)",
	"no limit on the budget's step earned its place (500 mW added up to 1.5 °C of "
	"overshoot and no work in tools/bench-robust)",
	"the derivative (k_d) is filtered over 2 periods",
};
_Static_assert(sizeof(retired_why) / sizeof(retired_why[0]) + 1 ==
	       sizeof(retired_zone_keys) / sizeof(retired_zone_keys[0]),
	       "a reason for each retired key");

/* Says once per key that @g carries a retired key, and why. */
static void warn_retired(struct parse_ctx *ctx, const config_setting_t *g, const char *prefix)
{
	for (size_t i = 0; retired_zone_keys[i]; i++) {
		const config_setting_t *s = config_setting_get_member(g, retired_zone_keys[i]);
		char path[128];
		unsigned int line;
		const char *file;

		if (!s)
			continue;
		file = cfg_where(ctx, s, &line);
		cfg_key_path(path, prefix, retired_zone_keys[i]);
		pa_log(PA_LOG_WARNING, "%s:%u: %s is retired and ignored: %s; remove it", file, line,
		       path, retired_why[i]);
	}
}

const char *actor_kind_name(enum actor_kind kind)
{
	if (kind == ACTOR_COOLING_DEVICE)
		return "cooling_device";
	return ENUM_NAME(actor_kind_names, kind);	/* its NULL, or past it: "?" */
}

const char *controller_name(enum pid_mode mode)
{
	return ENUM_NAME(controller_names, mode);
}

static int parse_temps(struct parse_ctx *ctx, const config_setting_t *g, const char *prefix,
		       struct zone_config *z)
{
	int64_t v;
	int r;

	if ((r = cfg_get_temp_mc(ctx, g, prefix, "switch_on_temp", TEMP_MIN_MC, TEMP_MAX_MC, false,
				 &v)) < 0)
		return r;
	z->has_switch_on_temp = r;
	z->switch_on_temp_mc = r ? (int32_t)v : 0;
	if ((r = cfg_get_temp_mc(ctx, g, prefix, "control_temp", TEMP_MIN_MC, TEMP_MAX_MC, true,
				 &v)) < 0)
		return r;
	z->has_control_temp = r;
	z->control_temp_mc = r ? (int32_t)v : 0;
	if (z->has_switch_on_temp && z->has_control_temp &&
	    z->control_temp_mc <= z->switch_on_temp_mc)
		return cfg_fail(ctx, config_setting_get_member(g, "control_temp"), prefix,
				"control_temp", "%d m°C must be above switch_on_temp (%d m°C)",
				z->control_temp_mc, z->switch_on_temp_mc);
	if ((r = cfg_get_int(ctx, g, prefix, "sustainable_power", "mW", 1, POWER_MAX_MW, &v)) < 0)
		return r;
	z->sustainable_power_mw = r ? (uint32_t)v : 0;
	if ((r = cfg_get_int(ctx, g, prefix, "period_ms", "ms", 10, 60000, &v)) < 0)
		return r;
	z->period_ms = r ? (uint32_t)v : 100;
	return 0;
}

/* A gain in mW per °C (per period for k_i, per °C/s for k_d) -> Q10 kernel units. */
static int parse_gain(struct parse_ctx *ctx, const config_setting_t *g, const char *prefix,
		      const char *key, double to_q10, unsigned int bit, struct zone_config *z,
		      int32_t *gain)
{
	double v;
	int r = cfg_get_float(ctx, g, prefix, key, 0.0, GAIN_MAX, &v);

	if (r <= 0)
		return r;
	*gain = (int32_t)lround(v * to_q10);
	z->gains_set |= bit;
	return 0;
}

static int parse_gains(struct parse_ctx *ctx, const config_setting_t *g, const char *prefix,
		       struct zone_config *z)
{
	const double per_mc = 1024.0 / 1000.0;
	int64_t cutoff;
	int r;

	if ((r = parse_gain(ctx, g, prefix, "k_po", per_mc, GAIN_K_PO, z, &z->gains.k_po)) < 0 ||
	    (r = parse_gain(ctx, g, prefix, "k_pu", per_mc, GAIN_K_PU, z, &z->gains.k_pu)) < 0 ||
	    (r = parse_gain(ctx, g, prefix, "k_i", per_mc, GAIN_K_I, z, &z->gains.k_i)) < 0 ||
	    (r = parse_gain(ctx, g, prefix, "k_d", 1024.0, GAIN_K_D, z, &z->gains.k_d)) < 0)
		return r;
	r = cfg_get_int(ctx, g, prefix, "integral_cutoff", "m°C", -TEMP_MAX_MC, TEMP_MAX_MC, &cutoff);
	if (r < 0)
		return r;
	if (r) {
		z->gains.integral_cutoff_mc = (int32_t)cutoff;
		z->gains_set |= GAIN_INTEGRAL_CUTOFF;
	}
	return 0;
}

/* A key 0..1, stored Q10 (0..1024) in @q10 when present; unchanged when absent. */
static int get_fraction_q10(struct parse_ctx *ctx, const config_setting_t *g, const char *prefix,
			    const char *key, uint32_t *q10)
{
	double fraction;
	int r = cfg_get_float(ctx, g, prefix, key, 0.0, 1.0, &fraction);

	if (r > 0)
		*q10 = (uint32_t)lround(fraction * 1024.0);
	return r;
}

static int parse_fixes(struct parse_ctx *ctx, const config_setting_t *g, const char *prefix,
		       struct zone_config *z)
{
	struct pid_fixes *f = &z->fixes;
	int64_t v;
	int r;

	pid_default_fixes(f);
	warn_retired(ctx, g, prefix);
	if (z->controller != PID_MODE_DEFAULT) {
		for (const char *const *k = default_mode_keys; *k; k++)
			if (cfg_has(g, *k))
				return cfg_fail(ctx, config_setting_get_member(g, *k), prefix, *k,
						"only applies to controller \"default\"");
		return 0;
	}
	if ((r = cfg_get_bool(ctx, g, prefix, "clamp_sustainable_power",
			      &f->clamp_sustainable_power)) < 0 ||
	    (r = cfg_get_bool(ctx, g, prefix, "tuned_gains", &f->tuned_gains)) < 0 ||
	    (r = cfg_get_bool(ctx, g, prefix, "dither_grants", &f->dither_grants)) < 0 ||
	    (r = cfg_get_bool(ctx, g, prefix, "saturated_request", &f->saturated_request)) < 0 ||
	    (r = cfg_get_bool(ctx, g, prefix, "trust_sustainable_power",
			      &f->trust_sustainable_power)) < 0)
		return r;
	if ((r = get_fraction_q10(ctx, g, prefix, "integral_bleed", &f->integral_bleed_q10)) < 0 ||
	    (r = get_fraction_q10(ctx, g, prefix, "integral_under", &f->integral_under_q10)) < 0)
		return r;
	if ((r = cfg_get_int(ctx, g, prefix, "control_margin", "m°C", 0, CONTROL_MARGIN_MAX_MC, &v)) < 0)
		return r;
	if (r && z->has_switch_on_temp && z->has_control_temp &&
	    v > pid_control_margin_limit_mc(z->switch_on_temp_mc, z->control_temp_mc))
		return cfg_fail(ctx, config_setting_get_member(g, "control_margin"), prefix,
				"control_margin", "%lld m°C is more than half of control_temp - "
				"switch_on_temp (%d m°C)", (long long)v,
				z->control_temp_mc - z->switch_on_temp_mc);
	if (r)
		f->control_margin_mc = (uint32_t)v;
	return 0;
}

static int parse_zone(struct parse_ctx *ctx, const config_setting_t *g, const char *prefix,
		      struct zone_config *z)
{
	const char *name;
	int controller = PID_MODE_DEFAULT, division = 1;	/* efficiency */
	int r;

	cfg_where(ctx, g, &z->line);
	if ((r = cfg_check_keys_retired(ctx, g, prefix, cfg_zone_keys, retired_zone_keys)) < 0)
		return r;
	if ((r = cfg_get_string(ctx, g, prefix, "name", &name)) <= 0)
		return r ? r : cfg_fail(ctx, g, prefix, "name", "missing (every zone needs a name)");
	if (!*name)
		return cfg_fail(ctx, config_setting_get_member(g, "name"), prefix, "name", "empty");
	if (!(z->name = strdup(name)))
		return -ENOMEM;
	if ((r = cfg_parse_sensor(ctx, g, prefix, z)) <= 0)
		return r ? r : cfg_fail(ctx, g, prefix, "sensor",
					"missing (a thermal zone type or thermal_zoneN, or a "
					"group: { max = [ ... ]; } or { sum = ( ... ); })");
	if ((r = parse_temps(ctx, g, prefix, z)) < 0)
		return r;
	if (z->sensor.kind != SENSOR_ONE && (!z->has_switch_on_temp || !z->has_control_temp))
		return cfg_fail(ctx, g, prefix, z->has_control_temp ? "switch_on_temp" : "control_temp",
				"missing: a combined sensor has no trip points of its own, so "
				"switch_on_temp and control_temp must be given");
	if ((r = cfg_get_enum(ctx, g, prefix, "controller", controller_names, &controller)) < 0)
		return r;
	z->controller = (enum pid_mode)controller;
	if ((r = cfg_get_enum(ctx, g, prefix, "division", division_names, &division)) < 0)
		return r;
	z->efficiency_division = division == 1;
	z->step_wise_fallback = true;
	if ((r = cfg_get_bool(ctx, g, prefix, "step_wise_fallback", &z->step_wise_fallback)) < 0)
		return r;
	if ((r = parse_gains(ctx, g, prefix, z)) < 0 || (r = parse_fixes(ctx, g, prefix, z)) < 0 ||
	    (r = cfg_parse_meter(ctx, g, prefix, &z->meter)) < 0)
		return r;
	return cfg_parse_actors(ctx, g, prefix, z);
}

static int check_unique_zone(struct parse_ctx *ctx, const config_setting_t *list,
			     const struct pa_config *c, size_t i)
{
	const config_setting_t *g = config_setting_get_elem(list, (unsigned int)i);
	char prefix[32];

	snprintf(prefix, sizeof(prefix), "zones[%zu]", i);
	for (size_t j = 0; j < i; j++) {
		if (strcmp(c->zones[i].name, c->zones[j].name) == 0)
			return cfg_fail(ctx, config_setting_get_member(g, "name"), prefix, "name",
					"duplicate zone name \"%s\" (also zones[%zu])",
					c->zones[i].name, j);
		/* A combined sensor takes no thermal zone over: only single ones can clash. */
		if (c->zones[i].sensor.kind == SENSOR_ONE && c->zones[j].sensor.kind == SENSOR_ONE &&
		    strcmp(c->zones[i].sensor.input[0], c->zones[j].sensor.input[0]) == 0)
			return cfg_fail(ctx, config_setting_get_member(g, "sensor"), prefix, "sensor",
					"\"%s\" is already controlled by zone \"%s\"",
					c->zones[i].sensor.input[0], c->zones[j].name);
	}
	return 0;
}

static int parse_zones(struct parse_ctx *ctx, const config_setting_t *root, struct pa_config *c)
{
	config_setting_t *list;
	int n, r;

	r = cfg_get_group_list(ctx, root, "", "zones", &list);
	if (r <= 0)
		return r;
	n = config_setting_length(list);
	if (n > CONFIG_MAX_ZONES)
		return cfg_fail(ctx, list, "", "zones", "more than %d zones", CONFIG_MAX_ZONES);
	c->zones = calloc((size_t)(n ? n : 1), sizeof(*c->zones));
	if (!c->zones)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		char prefix[32];

		snprintf(prefix, sizeof(prefix), "zones[%d]", i);
		c->n_zones = (size_t)i + 1;
		r = parse_zone(ctx, config_setting_get_elem(list, (unsigned int)i), prefix, &c->zones[i]);
		if (r < 0)
			return r;
		r = check_unique_zone(ctx, list, c, (size_t)i);
		if (r < 0)
			return r;
	}
	return 0;
}

/* A root key naming an absolute path or "" for none, into *@path when present. */
static int parse_path(struct parse_ctx *ctx, const config_setting_t *root, const char *key,
		      char **path)
{
	const char *value = NULL;
	int r = cfg_get_string(ctx, root, "", key, &value);

	if (r <= 0)
		return r;
	if (*value && value[0] != '/')
		return cfg_fail(ctx, config_setting_get_member(root, key), "", key,
				"\"%s\" must be an absolute path (or \"\" for none)", value);
	free(*path);
	*path = strdup(value);
	return *path ? 0 : -ENOMEM;
}

static int parse_root(struct parse_ctx *ctx, const config_setting_t *root, struct pa_config *c)
{
	int level = PA_LOG_INFO - PA_LOG_ERR;
	int64_t v;
	int r;

	if ((r = cfg_check_keys(ctx, root, "", cfg_root_keys)) < 0)
		return r;
	if ((r = cfg_get_enum(ctx, root, "", "log_level", pa_log_level_names(), &level)) < 0)
		return r;
	c->log_level = PA_LOG_ERR + level;
	if ((r = cfg_get_int(ctx, root, "", "idle_poll_ms", "ms", 0, 3600000, &v)) < 0)
		return r;
	if (r)
		c->idle_poll_ms = (uint32_t)v;
	if ((r = parse_path(ctx, root, "trace_file", &c->trace_file)) < 0 ||
	    (r = parse_path(ctx, root, "metrics_dir", &c->metrics_dir)) < 0)
		return r;
	if ((r = cfg_get_int(ctx, root, "", "metrics_interval_ms", "ms", METRICS_INTERVAL_MIN_MS,
			     METRICS_INTERVAL_MAX_MS, &v)) < 0)
		return r;
	if (r)
		c->metrics_interval_ms = (uint32_t)v;
	return parse_zones(ctx, root, c);
}

struct pa_config *pa_config_new_default(void)
{
	struct pa_config *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->log_level = PA_LOG_INFO;
	c->idle_poll_ms = 1000;
	c->metrics_interval_ms = METRICS_INTERVAL_DEFAULT_MS;
	c->trace_file = strdup("");
	c->metrics_dir = strdup("");
	c->path = strdup("");
	if (!c->trace_file || !c->metrics_dir || !c->path) {
		pa_config_free(c);
		return NULL;
	}
	return c;
}

static void zone_config_free(struct zone_config *z)
{
	for (size_t i = 0; i < z->n_actors; i++) {
		free(z->actors[i].device);
		free(z->actors[i].powercap_zone);
		free(z->actors[i].opps);
		cfg_free_meter(&z->actors[i].meter);
	}
	cfg_free_meter(&z->meter);
	free(z->actors);
	free(z->name);
	for (size_t i = 0; i < z->sensor.n_inputs; i++)
		free(z->sensor.input[i]);
}

void pa_config_free(struct pa_config *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n_zones; i++)
		zone_config_free(&c->zones[i]);
	free(c->zones);
	free(c->trace_file);
	free(c->metrics_dir);
	free(c->path);
	free(c);
}

/*
 * libconfig's error at its line of @src's text, in the file and line that
 * line comes from, with what it most likely means where its text alone
 * says nothing useful.
 */
static void syntax_error(struct parse_ctx *ctx, const config_t *cfg, const struct cfg_source *src)
{
	struct pa_config_error *e = ctx->err;
	unsigned int line = (unsigned int)config_error_line(cfg);
	FILE *f = fmemopen(src->text, src->len + 1, "r");
	char key[KEY_NAME_MAX + 1], hint[256] = "";
	const char *file;

	cfg_source_where(src, line, &file, &e->line);
	snprintf(e->file, sizeof(e->file), "%s", file);
	e->key[0] = '\0';
	if (f && cfg_syntax_group_in_array(f, line, key, sizeof(key)))
		snprintf(hint, sizeof(hint), ": a list of groups takes parentheses, %s%s( { ... }, "
			 "{ ... } ); square brackets [ ] hold only numbers, strings or booleans",
			 key, *key ? " = " : "");
	if (f)
		fclose(f);
	snprintf(e->message, sizeof(e->message), "%s%s", config_error_text(cfg), hint);
	snprintf(e->text, sizeof(e->text), "%s:%u: %s", e->file, e->line, e->message);
}

/*
 * Parses @src's text (the file @name with its @includes in place, read
 * by cfg_source_read()) from memory: libconfig reads no file itself.
 */
static int load(const struct cfg_source *src, const char *name, struct pa_config **out,
		struct pa_config_error *err)
{
	struct parse_ctx ctx = { .file = name, .src = src, .err = err };
	struct pa_config *c;
	config_t cfg;
	int ok, r;

	memset(err, 0, sizeof(*err));
	c = pa_config_new_default();
	if (!c)
		return -ENOMEM;
	free(c->path);
	c->path = strdup(name);
	config_init(&cfg);
	config_set_auto_convert(&cfg, CONFIG_FALSE);
	ok = config_read_string(&cfg, src->text);
	if (!c->path) {
		r = -ENOMEM;
	} else if (ok != CONFIG_TRUE) {
		syntax_error(&ctx, &cfg, src);
		r = -EINVAL;
	} else {
		r = parse_root(&ctx, config_root_setting(&cfg), c);
	}
	config_destroy(&cfg);
	if (r == -ENOMEM)
		snprintf(err->text, sizeof(err->text), "%s: out of memory", name);
	if (r < 0) {
		pa_config_free(c);
		return r;
	}
	*out = c;
	return 0;
}

/* Loads @text (NULL: the file @name) with its @includes. */
static int load_source(const char *text, const char *name, struct pa_config **out,
		       struct pa_config_error *err)
{
	struct cfg_source src;
	int r;

	*out = NULL;
	r = text ? cfg_source_from_string(&src, text, name, err) : cfg_source_read(&src, name, err);
	if (r == 0)
		r = load(&src, name, out, err);
	cfg_source_free(&src);
	return r;
}

int pa_config_load_string(const char *text, const char *name, struct pa_config **out,
			  struct pa_config_error *err)
{
	return load_source(text, name, out, err);
}

int pa_config_load_file(const char *path, struct pa_config **out, struct pa_config_error *err)
{
	return load_source(NULL, path, out, err);
}
