/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The actors of a zone in /etc/powerallocd.conf, and their OPP tables. */
#include <errno.h>
#include <libconfig.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config_keys.h"
#include "control/divvy.h"
#include "platform/log.h"

const char *const cfg_cpufreq_keys[] = { "type", "cpus", "dynamic_power_coefficient", "opps", "weight",
					  "optional", "on_external_write", "power_meter", NULL };
const char *const cfg_opp_keys[] = { "freq_khz", "voltage_uv", "power_mw", "static_power_mw", NULL };
const char *const cfg_powercap_keys[] = { "type", "zone", "weight", "optional", "on_external_write",
					   NULL };
const char *const cfg_devfreq_keys[] = { "type", "device", "dynamic_power_coefficient", "opps", "weight",
					  "optional", "on_external_write", "power_meter", NULL };
static int parse_opp(struct parse_ctx *ctx, const config_setting_t *g, const char *prefix,
		     uint32_t dpc, struct opp *o)
{
	int64_t v;
	int r;

	r = cfg_get_int(ctx, g, prefix, "freq_khz", "kHz", 1, 100000000, &v);
	if (r == 0)
		return cfg_fail(ctx, g, prefix, "freq_khz", "missing (every OPP needs a frequency)");
	if (r < 0)
		return r;
	o->freq_khz = (uint32_t)v;
	if ((r = cfg_get_int(ctx, g, prefix, "voltage_uv", "uV", 1, 5000000, &v)) < 0)
		return r;
	o->voltage_uv = r ? (uint32_t)v : 0;
	if ((r = cfg_get_int(ctx, g, prefix, "power_mw", "mW", 1, POWER_MAX_MW, &v)) < 0)
		return r;
	o->power_mw = r ? (uint32_t)v : 0;
	if ((r = cfg_get_int(ctx, g, prefix, "static_power_mw", "mW", 0, POWER_MAX_MW, &v)) < 0)
		return r;
	o->static_power_mw = r ? (uint32_t)v : 0;

	if (o->voltage_uv && o->power_mw)
		return cfg_fail(ctx, g, prefix, "power_mw", "give voltage_uv or power_mw, not both");
	if (!o->voltage_uv && !o->power_mw)
		return cfg_fail(ctx, g, prefix, "voltage_uv", "missing (give voltage_uv or power_mw)");
	if (o->voltage_uv && !dpc)
		return cfg_fail(ctx, g, prefix, "voltage_uv",
				"needs the actor's dynamic_power_coefficient");
	return 0;
}

/* The index in @a->opps of the OPP at @freq_khz. */
static int opp_index(const struct actor_config *a, uint32_t freq_khz)
{
	int i = 0;

	while ((size_t)i + 1 < a->n_opps && a->opps[i].freq_khz != freq_khz)
		i++;
	return i;
}

/*
 * @a's OPPs (@table, built from them) against their frequencies: a power
 * that falls as the frequency rises is refused, naming both OPPs; a voltage
 * that does while the power rises is said (power_table.h says why it is
 * not refused).  Return: 0 or -EINVAL.
 */
static int check_rising(struct parse_ctx *ctx, const config_setting_t *list, const char *prefix,
			const struct actor_config *a, const struct power_table *table)
{
	bool voltage = false;
	size_t k = power_table_falling(table, false);
	const struct power_entry *e, *below;
	char path[KEY_PATH_MAX], elem[32];
	const char *file;
	unsigned int line;
	int i, j;

	if (!k && !(k = power_table_falling(table, true)))
		return 0;
	voltage = !power_table_falling(table, false);
	e = &table->entry[k];
	below = &table->entry[k - 1];
	i = opp_index(a, e->freq_khz);
	j = opp_index(a, below->freq_khz);
	snprintf(elem, sizeof(elem), "opps[%d]", i);
	cfg_key_path(path, prefix, elem);
	if (!voltage)
		return cfg_fail(ctx, config_setting_get_elem(list, (unsigned int)i), path,
				a->opps[i].voltage_uv ? "voltage_uv" : "power_mw", "the power falls "
				"as the frequency rises: %u mW at %u kHz, under opps[%d]'s %u mW at "
				"%u kHz; a device draws more at a higher frequency", e->power_mw,
				e->freq_khz, j, below->power_mw, below->freq_khz);
	file = cfg_where(ctx, config_setting_get_elem(list, (unsigned int)i), &line);
	pa_log(PA_LOG_WARNING, "%s:%u: %s.voltage_uv: the voltage falls as the frequency rises: "
	       "%u uV at %u kHz, under opps[%d]'s %u uV at %u kHz (the power still rises: taken)",
	       file, line, path,
	       e->voltage_uv, e->freq_khz, j, below->voltage_uv, below->freq_khz);
	return 0;
}

static int parse_opps(struct parse_ctx *ctx, const config_setting_t *actor, const char *prefix,
		      struct actor_config *a)
{
	config_setting_t *list;
	struct power_table table;
	int n, r;

	r = cfg_get_group_list(ctx, actor, prefix, "opps", &list);
	if (r <= 0)
		return r;
	n = config_setting_length(list);
	if (n == 0 || n > POWER_TABLE_MAX_OPPS)
		return cfg_fail(ctx, list, prefix, "opps", "needs 1 to %d entries, has %d",
				POWER_TABLE_MAX_OPPS, n);
	a->opps = calloc((size_t)n, sizeof(*a->opps));
	if (!a->opps)
		return -ENOMEM;
	a->n_opps = (size_t)n;
	for (int i = 0; i < n; i++) {
		config_setting_t *g = config_setting_get_elem(list, (unsigned int)i);
		char path[KEY_PATH_MAX], elem[32];

		snprintf(elem, sizeof(elem), "opps[%d]", i);
		cfg_key_path(path, prefix, elem);
		if ((r = cfg_check_keys(ctx, g, path, cfg_opp_keys)) < 0 ||
		    (r = parse_opp(ctx, g, path, a->dynamic_power_coefficient, &a->opps[i])) < 0)
			return r;
	}
	r = power_table_build(a->opps, a->n_opps, a->dynamic_power_coefficient, &table);
	if (r == -ERANGE)
		return cfg_fail(ctx, list, prefix, "opps", "an OPP's power exceeds 4294 W");
	if (r < 0)
		return cfg_fail(ctx, list, prefix, "opps", "two OPPs have the same frequency");
	return check_rising(ctx, list, prefix, a, &table);
}

/* The key that names the actor's device, by kind. */
static int parse_actor_target(struct parse_ctx *ctx, const config_setting_t *g,
			      const char *prefix, struct actor_config *a)
{
	static const char *const target_key[] = { "cpus", "cpus", "device", "zone" };
	const char *key = target_key[a->kind];
	const char *v, *why = "";
	int r;

	r = a->kind <= ACTOR_CPUFREQ_CAP ? cfg_get_string(ctx, g, prefix, key, &v)
					 : cfg_get_sysfs_name(ctx, g, prefix, key, &v);
	if (r == 0)
		return cfg_fail(ctx, g, prefix, key, "missing (a %s actor needs it)",
				actor_kind_name(a->kind));
	if (r < 0)
		return r;
	if (a->kind == ACTOR_DEVFREQ)
		return (a->device = strdup(v)) ? 0 : -ENOMEM;
	if (a->kind == ACTOR_POWERCAP)
		return (a->powercap_zone = strdup(v)) ? 0 : -ENOMEM;
	if (cpumask_parse_list(v, &a->cpus, &why) < 0)
		return cfg_fail(ctx, config_setting_get_member(g, key), prefix, key,
				"\"%s\": %s", v, why);
	return 0;
}

static const char *const external_write_names[] = { "reassert", "yield", NULL };

static int parse_actor(struct parse_ctx *ctx, const config_setting_t *g, const char *prefix,
		       struct actor_config *a)
{
	static const char *const *const keys_by_kind[] = {
		cfg_cpufreq_keys, cfg_cpufreq_keys, cfg_devfreq_keys, cfg_powercap_keys
	};
	int64_t dpc;
	double weight = 1.0;
	int kind, on_external = 0, r;

	cfg_where(ctx, g, &a->line);
	r = cfg_get_enum(ctx, g, prefix, "type", actor_kind_names, &kind);
	if (r == 0)
		return cfg_fail(ctx, g, prefix, "type", "missing (one of: cpufreq, cpufreq_cap, devfreq, powercap)");
	if (r < 0)
		return r;
	a->kind = (enum actor_kind)kind;
	if (a->kind == ACTOR_POWERCAP && cfg_has(g, "power_meter"))
		return cfg_fail(ctx, config_setting_get_member(g, "power_meter"), prefix,
				"power_meter", "a powercap actor is measured by its zone's own "
				"energy_uj: remove power_meter");
	if ((r = cfg_check_keys(ctx, g, prefix, keys_by_kind[kind])) < 0 ||
	    (r = parse_actor_target(ctx, g, prefix, a)) < 0)
		return r;
	if ((r = cfg_get_int(ctx, g, prefix, "dynamic_power_coefficient", "", 1, 1000000, &dpc)) < 0)
		return r;
	a->dynamic_power_coefficient = r ? (uint32_t)dpc : 0;
	if ((r = cfg_get_float(ctx, g, prefix, "weight", 0.0, 64.0, &weight)) < 0)
		return r;
	a->weight_q10 = (uint32_t)lround(weight * DIVVY_WEIGHT_ONE);
	if ((r = cfg_get_bool(ctx, g, prefix, "optional", &a->optional)) < 0)
		return r;
	/* Another writer on its files: write ours back (with a back-off), or leave it the actor. */
	if ((r = cfg_get_enum(ctx, g, prefix, "on_external_write", external_write_names,
			      &on_external)) < 0)
		return r;
	a->yield_external = on_external == 1;
	if ((r = cfg_parse_meter(ctx, g, prefix, &a->meter)) < 0)
		return r;
	return parse_opps(ctx, g, prefix, a);
}

static int check_actor_overlap(struct parse_ctx *ctx, const config_setting_t *list,
			       const char *prefix, const struct zone_config *z, size_t i)
{
	const struct actor_config *a = &z->actors[i];

	for (size_t j = 0; j < i; j++) {
		const struct actor_config *b = &z->actors[j];
		char elem[32];
		bool same;

		if (a->kind <= ACTOR_CPUFREQ_CAP && b->kind <= ACTOR_CPUFREQ_CAP) {
			struct cpumask both;

			for (size_t w = 0; w < CPUMASK_MAX_CPUS / 64; w++)
				both.bits[w] = a->cpus.bits[w] & b->cpus.bits[w];
			same = cpumask_weight(&both) > 0;
		} else if (a->kind == ACTOR_DEVFREQ && b->kind == ACTOR_DEVFREQ) {
			same = strcmp(a->device, b->device) == 0;
		} else if (a->kind == ACTOR_POWERCAP && b->kind == ACTOR_POWERCAP) {
			same = strcmp(a->powercap_zone, b->powercap_zone) == 0;
		} else {
			same = false;
		}
		if (same) {
			snprintf(elem, sizeof(elem), "actors[%zu]", i);
			return cfg_fail(ctx, config_setting_get_elem(list, (unsigned int)i), prefix,
					elem, "controls the same device or CPUs as actors[%zu]", j);
		}
	}
	return 0;
}

int cfg_parse_actors(struct parse_ctx *ctx, const config_setting_t *zone, const char *prefix,
			struct zone_config *z)
{
	config_setting_t *list;
	int n, r;

	r = cfg_get_group_list(ctx, zone, prefix, "actors", &list);
	if (r < 0)
		return r;
	n = r ? config_setting_length(list) : 0;
	if (n == 0)
		return cfg_fail(ctx, r ? list : zone, prefix, "actors",
				"a zone needs at least one actor");
	if (n > CONFIG_MAX_ACTORS)
		return cfg_fail(ctx, list, prefix, "actors", "more than %d actors", CONFIG_MAX_ACTORS);
	z->actors = calloc((size_t)n, sizeof(*z->actors));
	if (!z->actors)
		return -ENOMEM;
	z->n_actors = (size_t)n;
	for (int i = 0; i < n; i++) {
		char path[KEY_PATH_MAX], elem[32];

		snprintf(elem, sizeof(elem), "actors[%d]", i);
		cfg_key_path(path, prefix, elem);
		r = parse_actor(ctx, config_setting_get_elem(list, (unsigned int)i), path, &z->actors[i]);
		if (r < 0)
			return r;
		r = check_actor_overlap(ctx, list, prefix, z, (size_t)i);
		if (r < 0)
			return r;
	}
	return 0;
}
