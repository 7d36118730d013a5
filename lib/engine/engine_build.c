/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Building the engine: discovery, then the zones of the config or, without
 * any, the zones the kernel itself binds power actors to.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control/divvy.h"
#include "engine_build.h"
#include "inventory_text.h"
#include "platform/log.h"
#include "platform/thermal.h"
#include "zone_sensor.h"

/* /proc/stat buffer: a line per possible CPU, plus the aggregate line. */
static int open_load(struct engine *e)
{
	struct cpumask possible;
	char text[SYSFS_VALUE_MAX];
	unsigned int n_cpus = CPUMASK_MAX_CPUS;
	int r;

	if (sysfs_read_str(CPU_DIR "/possible", text, sizeof(text)) >= 0 &&
	    cpumask_parse_list(text, &possible, NULL) == 0)
		for (unsigned int c = cpumask_next(&possible, 0); c < CPUMASK_MAX_CPUS;
		     c = cpumask_next(&possible, c + 1))
			n_cpus = c + 1;
	e->stat_buf_size = ((size_t)n_cpus + 2) * CPU_STAT_MAX_LINE;
	e->stat_buf = malloc(e->stat_buf_size);
	e->stat_prev = calloc(1, sizeof(struct cpu_stat));
	e->stat_cur = calloc(1, sizeof(struct cpu_stat));
	e->stat_next = calloc(1, sizeof(struct cpu_stat));
	e->loads = calloc(1, sizeof(struct cpu_loads));
	if (!e->stat_buf || !e->stat_prev || !e->stat_cur || !e->stat_next || !e->loads)
		return -ENOMEM;
	r = sysfs_attr_open(&e->proc_stat, PROC_STAT_PATH, false);
	if (r < 0)
		return pa_log_errno(r, PROC_STAT_PATH ": %s", sysfs_strerror(r));
	/* The first period sees no load yet; a read that fails now (logged)
	 * leaves both samples empty until the next one. */
	engine_restart_load(e);
	return 0;
}

int build_add_zone_actor(struct zone *z, struct actor *a, uint32_t weight_q10)
{
	if (zone_has_actor(z, a))
		return 1;
	if (z->setup.n_actors == ZONE_MAX_ACTORS)
		return -E2BIG;
	z->setup.actors[z->setup.n_actors++] = a;
	a->weight_q10 = weight_q10 > DIVVY_MAX_WEIGHT ? DIVVY_MAX_WEIGHT : weight_q10;
	return 0;
}

/*
 * A margin of more than half the passive range would aim the zone near or
 * under switch-on; config.c refuses one when the file gives both
 * temperatures, this catches temperatures taken from the trips.
 */
static void limit_control_margin(struct zone *z)
{
	uint32_t half_mc = pid_control_margin_limit_mc(z->setup.switch_on_mc, z->setup.control_mc);

	if (z->setup.pid.mode != PID_MODE_DEFAULT ||
	    z->setup.pid.fixes.control_margin_mc <= half_mc)
		return;
	pa_log(PA_LOG_WARNING,
	       "zone %s: control_margin %u m°C is more than half of control - "
	       "switch-on (%d m°C); using %u m°C",
	       z->setup.name, z->setup.pid.fixes.control_margin_mc,
	       z->setup.control_mc - z->setup.switch_on_mc, half_mc);
	z->setup.pid.fixes.control_margin_mc = half_mc;
}

/* The gains the configuration sets replace the rule's, and keep the model's off them. */
static void set_configured_gains(struct pid_params *pp, const struct zone_config *zc,
				 struct model_tuning *tuning)
{
	tuning->gains_fixed = zc->gains_set != 0;
	if (zc->gains_set & GAIN_K_PO)
		pp->gains.k_po = zc->gains.k_po;
	if (zc->gains_set & GAIN_K_PU)
		pp->gains.k_pu = zc->gains.k_pu;
	if (zc->gains_set & GAIN_K_I)
		pp->gains.k_i = zc->gains.k_i;
	if (zc->gains_set & GAIN_K_D)
		pp->gains.k_d = zc->gains.k_d;
	if (zc->gains_set & GAIN_INTEGRAL_CUTOFF)
		pp->gains.integral_cutoff_mc = zc->gains.integral_cutoff_mc;
}

/*
 * Controller and sustainable power, once the actors are known and sampled
 * (@tz: the thermal zone taken over, NULL for a combined sensor).
 */
static void setup_controller(struct zone *z, const struct thermal_zone_info *tz,
			     const struct zone_config *zc)
{
	struct pid_params *pp = &z->setup.pid;
	/* Read only when the config gives none: an ACPI zone's read fails (EIO). */
	uint32_t sysfs_mw = zc && zc->sustainable_power_mw ? 0 :
			    tz ? thermal_zone_sustainable_power(tz) : 0;

	pp->mode = zc ? zc->controller : PID_MODE_DEFAULT;
	z->setup.efficiency_division = zc ? zc->efficiency_division : true;
	pp->period_ms = zc ? zc->period_ms : 100;
	if (zc && zc->sustainable_power_mw) {
		pp->sustainable_power_mw = zc->sustainable_power_mw;
		z->setup.sp_source = SP_FROM_CONFIG;
	} else if (!zc && z->setup.sp_source == SP_FROM_RAPL) {
		/* An x86 package's RAPL limit, set by engine_x86.c. */
	} else if (sysfs_mw) {
		pp->sustainable_power_mw = sysfs_mw;
		z->setup.sp_source = SP_FROM_SYSFS;
	} else {
		pp->sustainable_power_mw = zone_estimate_sustainable_power(z);
		z->setup.sp_source = SP_ESTIMATED;
	}
	pid_default_gains(pp->sustainable_power_mw, z->setup.switch_on_mc, z->setup.control_mc,
			  &pp->gains);
	pid_default_fixes(&pp->fixes);
	if (zc)
		pp->fixes = zc->fixes;
	if (pp->mode == PID_MODE_DEFAULT && pp->fixes.tuned_gains)
		pid_tune_gains(&pp->gains);
	limit_control_margin(z);
	if (zc)
		set_configured_gains(pp, zc, &z->control.tuning);
	z->control.pid_run = *pp;
}

/*
 * The zone's governor, given up for user_space; kept to be put back at
 * exit.  Return: 0, or negative errno when the kernel keeps it (said): two
 * governors would drive the same devices (a policy write that failed once
 * left the zone so for good), so the zone is not taken, as one without
 * user_space is not; a configured zone is looked for again.
 */
static int take_over(struct zone *z, const struct thermal_zone_info *tz)
{
	int r;

	snprintf(z->setup.original_policy, sizeof(z->setup.original_policy), "%s", tz->policy);
	for (z->setup.n_bound = 0; z->setup.n_bound < tz->n_bindings; z->setup.n_bound++)
		z->setup.bound_cdev[z->setup.n_bound] = tz->bindings[z->setup.n_bound].cdev_id;
	if (sysfs_read_only()) {
		z->setup.original_policy[0] = '\0';	/* discovery only: nothing taken over */
	} else if ((r = thermal_zone_set_policy(tz->id, "user_space")) < 0) {
		pa_log(PA_LOG_ERR,
		       "zone %s: cannot set thermal_zone%d/policy to user_space: %s; "
		       "zone skipped: its policy stays %s",
		       z->setup.name, tz->id, sysfs_strerror(r), tz->policy);
		z->setup.original_policy[0] = '\0';
		return r;
	} else if (thermal_zone_open_policy(tz->id, &z->setup.policy) == 0) {
		z->setup.policy_open = true;	/* else not watched: another writer goes unseen */
	}
	return 0;
}

int build_finish_zone(struct build *b, struct zone *z, const struct thermal_zone_info *tz,
		      const struct zone_config *zc)
{
	struct cycle_sample s = { b->e->stat_cur, b->e->stat_cur, b->e->loads, 0 };
	char sensor[SYSFS_PATH_MAX], on[64];
	const char *type;
	size_t len;
	int r;

	if ((r = zone_sensor_open(z)) < 0)
		return r;	/* logged */
	zone_sensor_name(z, sensor, sizeof(sensor));
	/* What its thermal model is learnt on: the zone's type, or what a combined sensor reads
	 * (its description, cut to the field). */
	type = tz ? tz->type : sensor;
	len = strnlen(type, sizeof(z->setup.sensor_type) - 1);
	memcpy(z->setup.sensor_type, type, len);
	z->setup.sensor_type[len] = '\0';
	for (size_t i = 0; i < z->setup.n_actors; i++)
		actor_sample(z->setup.actors[i], &s);
	setup_controller(z, tz, zc);
	if (build_check_power(z, zc) < 0) {
		b->e->n_refused++;	/* only a change to the config fixes it */
		return -EINVAL;
	}
	thermal_model_init(&z->learning.model, z->setup.pid.period_ms, z->setup.control_mc,
			   z->setup.pid.sustainable_power_mw);
	z->setup.switch_on_trip = tz && thermal_zone_has_trip_at(tz, z->setup.switch_on_mc);
	if (tz && (r = take_over(z, tz)) < 0)
		return r;
	if (tz && (!zc || zc->step_wise_fallback))
		build_add_fallback_devices(b, z, tz);
	pa_log(PA_LOG_INFO,
	       "zone %s: %s (%s), %s, control %d m°C, sustainable power %u mW "
	       "(%s), %zu %s, %zu on the step_wise fallback, %s controller",
	       z->setup.name, sensor, tz ? tz->type : "combined",
	       zone_switch_on_text(z, on, sizeof(on)), z->setup.control_mc,
	       z->setup.pid.sustainable_power_mw, zone_sp_source_name(z), z->setup.n_actors,
	       plural(z->setup.n_actors, "actor", "actors"), z->setup.n_fallback,
	       z->setup.pid.mode == PID_MODE_KERNEL	 ? "kernel"
	       : z->setup.pid.mode == PID_MODE_STEP_WISE ? "step_wise"
							 : "default");
	zone_sensor_start(z);
	return 0;
}

bool build_offers_user_space(const struct thermal_zone_info *tz, const char *name, int level,
			     const char *outcome)
{
	if (thermal_zone_offers_policy(tz, "user_space"))
		return true;
	pa_log(level, "zone %s: thermal_zone%d (%s) offers no user_space policy "
	       "(available_policies: %s): the kernel needs CONFIG_THERMAL_GOV_USER_SPACE=y; %s",
	       name, tz->id, tz->type, tz->available_policies[0] ? tz->available_policies :
	       "unreadable", outcome);
	return false;
}

/*
 * Whether @name (@zc's sensor or one of its inputs) names one thermal zone.
 * When it names several (a type they share), says so with each one, its
 * temperature and how to name it, and counts the zone refused: only a
 * change to the config can fix it.
 */
static bool names_one_zone(struct build *b, const struct zone_config *zc, const char *name)
{
	size_t n = thermal_count_zones(&b->thermal, name);
	char list[INVENTORY_TEXT_MAX];

	if (n < 2)
		return true;
	inventory_text_zones_named(list, sizeof(list), &b->thermal, name);
	pa_log(PA_LOG_ERR, "zone %s: %s \"%s\" is the type of %zu thermal zones: %s; name "
	       "one by its directory name%s\"thermal_zone%d\"; zone skipped", zc->name,
	       zc->sensor.kind == SENSOR_ONE ? "sensor" : "input", name, n, list,
	       zc->sensor.kind == SENSOR_ONE ? ": sensor = " : ", as ",
	       thermal_find_zone(&b->thermal, name)->id);
	b->e->n_refused++;
	return false;
}

/*
 * The thermal zones @zc's sensor reads, into @z's inputs; *@tz: the one a
 * single sensor takes over (NULL for a combined sensor), read whole.
 * -ENOENT (logged, with the thermal zones there are) when one is not there,
 * -EINVAL when one names several or two name the same zone.
 */
static int find_inputs(struct build *b, const struct zone_config *zc, struct zone *z,
		       struct thermal_zone_info **tz)
{
	const struct sensor_config *sc = &zc->sensor;
	char list[INVENTORY_TEXT_MAX];

	z->setup.sensor_kind = sc->kind;
	z->setup.sensor_offset_mc = sc->offset_mc;
	for (size_t i = 0; i < sc->n_inputs; i++) {
		struct thermal_zone_info *in = thermal_find_zone(&b->thermal, sc->input[i]);

		if (!in) {
			inventory_text_thermal_zones(list, sizeof(list), &b->thermal);
			pa_log(PA_LOG_ERR, "zone %s: no thermal zone \"%s\" (%s); thermal zones: %s; "
			       "zone skipped", zc->name, sc->input[i], sc->kind == SENSOR_ONE ?
			       "sensor is a thermal zone's type or thermal_zoneN" :
			       "an input of its sensor", list);
			return -ENOENT;
		}
		if (!names_one_zone(b, zc, sc->input[i]))
			return -EINVAL;
		if (zone_sensor_reads_tz(z, in->id)) {
			pa_log(PA_LOG_ERR, "zone %s: \"%s\" is thermal_zone%d, already an input; zone "
			       "skipped", zc->name, sc->input[i], in->id);
			return -EINVAL;
		}
		z->setup.inputs[i] = (struct sensor_input){ .tz_id = in->id,
							    .weight = sc->weight[i],
							    .attr = SYSFS_ATTR_INIT };
		snprintf(z->setup.inputs[i].name, sizeof(z->setup.inputs[i].name), "%s", in->type);
		z->setup.n_inputs = i + 1;
		*tz = in;
	}
	if (sc->kind != SENSOR_ONE)
		*tz = NULL;
	if (*tz)
		thermal_zone_load(*tz);
	z->setup.tz_id = *tz ? (*tz)->id : -1;
	return 0;
}

static int build_configured_zone(struct build *b, const struct zone_config *zc, struct zone *z)
{
	struct thermal_zone_info *tz = NULL;
	int r;

	memset(z, 0, sizeof(*z));
	snprintf(z->setup.name, sizeof(z->setup.name), "%s", zc->name);
	if ((r = find_inputs(b, zc, z, &tz)) < 0)
		return r;
	if (tz && !build_offers_user_space(tz, zc->name, PA_LOG_ERR, "zone skipped")) {
		b->e->n_refused++;
		return -EOPNOTSUPP;
	}
	if ((r = build_zone_temps(z, zc, tz)) < 0 ||
	    (r = build_check_control_temp(b, zc, z, tz)) < 0 ||
	    (r = build_configured_actors(b, zc, z)) < 0)
		return r;
	build_open_zone_meter(b, zc, z);
	return build_finish_zone(b, z, tz, zc);
}

/* Actors registered from @first on, for a zone that was not built: no zone holds them. */
static void drop_actors_from(struct engine *e, size_t first)
{
	while (e->n_actors > first)
		actor_destroy(e->actors[--e->n_actors]);
}

int engine_build(struct engine *e, const struct pa_config *cfg)
{
	struct build b = { .e = e };
	size_t n;
	int r;

	engine_init(e);
	if ((r = open_load(e)) < 0 || (r = thermal_scan(&b.thermal)) < 0 ||
	    (r = cpufreq_scan(&b.cpufreq)) < 0) {
		engine_free(e);
		return r;
	}
	n = cfg->n_zones ? cfg->n_zones : b.thermal.n_zones;
	e->zones = calloc(n ? n : 1, sizeof(*e->zones));
	if (!e->zones) {
		r = -ENOMEM;
	} else {
		for (size_t i = 0; i < n; i++) {
			struct zone *z = &e->zones[e->n_zones];
			size_t n_actors = e->n_actors;

			r = cfg->n_zones ? build_configured_zone(&b, &cfg->zones[i], z)
					 : build_auto_zone(&b, &b.thermal.zones[i], z);
			if (r == 0) {
				e->n_zones++;
			} else {
				engine_zone_close(z);
				drop_actors_from(e, n_actors);
			}
		}
		r = (int)e->n_zones;
		build_note_kernel_bound(&b);
	}
	thermal_inventory_free(&b.thermal);
	cpufreq_inventory_free(&b.cpufreq);
	if (r < 0)
		engine_free(e);
	return r;
}
