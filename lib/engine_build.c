/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Building the engine: discovery, then the zones of the config or, without
 * any, the zones the kernel itself binds power actors to.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpufreq_policy.h"
#include "divvy.h"
#include "engine.h"
#include "log.h"
#include "thermal.h"
#include "zone_sensor.h"

/*
 * @unusable_fallback: cooling devices without a power model whose state
 * could not be opened (logged once), not tried again for other bindings.
 */
struct build {
	struct engine *e;
	struct thermal_inventory thermal;
	struct cpufreq_inventory cpufreq;
	size_t n_unusable_fallback;
	int unusable_fallback[THERMAL_MAX_BINDINGS];
};

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
	if (!e->stat_buf || !e->stat_prev || !e->stat_cur || !e->stat_next)
		return -ENOMEM;
	r = sysfs_attr_open(&e->proc_stat, PROC_STAT_PATH, false);
	if (r < 0) {
		pa_log(PA_LOG_ERR, PROC_STAT_PATH ": %s", sysfs_strerror(r));
		return r;
	}
	/* Both samples start equal: the first period sees no load yet.  A read
	 * that fails now (logged) leaves both empty until the next one. */
	if (engine_sample_load(e) == 0)
		memcpy(e->stat_prev, e->stat_cur, sizeof(struct cpu_stat));
	return 0;
}

static struct actor *find_actor(const struct engine *e, int cdev_id)
{
	for (size_t i = 0; i < e->n_actors; i++)
		if (e->actors[i]->cdev_id == cdev_id)
			return e->actors[i];
	return NULL;
}

static struct actor *find_actor_by_name(const struct engine *e, const char *name)
{
	for (size_t i = 0; i < e->n_actors; i++)
		if (strcmp(e->actors[i]->name, name) == 0)
			return e->actors[i];
	return NULL;
}

/* Adds @a (may be NULL) to the engine's actors; NULL when it cannot. */
static struct actor *register_actor(struct engine *e, struct actor *a)
{
	struct actor **grown;

	if (!a)
		return NULL;
	grown = realloc(e->actors, (e->n_actors + 1) * sizeof(*grown));
	if (!grown) {
		actor_destroy(a);
		return NULL;
	}
	e->actors = grown;
	e->actors[e->n_actors++] = a;
	return a;
}

/* Whether the kernel's type of cooling device @cdev is one a power actor drives. */
static bool power_device_type(const struct build *b, const struct cooling_device_info *cdev)
{
	return cpufreq_policy_of_cdev(&b->cpufreq, cdev->type) ||
	       strncmp(cdev->type, "devfreq-", 8) == 0;
}

/*
 * The actor for cooling_device@cdev_id, created the first time a zone asks
 * for it.  NULL (logged) for a device that is not a power actor.
 */
static struct actor *actor_for_cdev(struct build *b, int cdev_id, const struct actor_config *cfg)
{
	const struct cooling_device_info *cdev = thermal_find_cdev(&b->thermal, cdev_id);
	const struct cpufreq_policy_info *policy;
	struct actor *a = find_actor(b->e, cdev_id);

	if (a || !cdev)
		return a;
	if (!power_device_type(b, cdev)) {
		pa_log(PA_LOG_INFO, "cooling_device%d (%s): not a power actor", cdev_id, cdev->type);
		return NULL;
	}
	policy = cpufreq_policy_of_cdev(&b->cpufreq, cdev->type);
	a = policy ? actor_cpufreq_new(cdev_id, policy, cfg)
		   : actor_devfreq_new(cdev_id, cdev->type + 8, cfg);
	return register_actor(b->e, a);
}

/* The cooling device of a configured actor. */
static int cdev_of_actor_config(const struct build *b, const struct actor_config *ac,
				const char *zone)
{
	char type[THERMAL_NAME_MAX + 16];

	if (ac->kind == ACTOR_CPUFREQ) {
		unsigned int cpu = cpumask_next(&ac->cpus, 0);
		const struct cpufreq_policy_info *p = cpufreq_policy_of_cpu(&b->cpufreq, cpu);

		if (!p || memcmp(&p->related, &ac->cpus, sizeof(p->related)) != 0) {
			pa_log(PA_LOG_ERR, "zone %s: cpus of actor line %u are not the CPUs of one "
			       "cpufreq policy", zone, ac->line);
			return -1;
		}
		for (size_t i = 0; i < b->thermal.n_cdevs; i++)
			if (cpufreq_policy_of_cdev(&b->cpufreq, b->thermal.cdevs[i].type) == p)
				return b->thermal.cdevs[i].id;
		pa_log(PA_LOG_ERR, "zone %s: policy%u has no cpufreq cooling device", zone, p->cpu);
		return -1;
	}
	if (ac->kind == ACTOR_DEVFREQ) {
		snprintf(type, sizeof(type), "devfreq-%s", ac->device);
		for (size_t i = 0; i < b->thermal.n_cdevs; i++)
			if (strcmp(b->thermal.cdevs[i].type, type) == 0)
				return b->thermal.cdevs[i].id;
		pa_log(PA_LOG_ERR, "zone %s: no cooling device %s", zone, type);
		return -1;
	}
	return -1;
}

/* The policies that make up exactly the CPUs of a cpufreq_cap actor. */
static struct actor *cap_actor(struct build *b, const struct actor_config *ac, const char *zone)
{
	const struct cpufreq_policy_info *policies[CONFIG_MAX_ACTORS];
	struct cpumask covered;
	size_t n = 0;
	char cpus[64], name[80];
	struct actor *a;

	cpumask_clear(&covered);
	cpumask_format_list(&ac->cpus, cpus, sizeof(cpus));
	snprintf(name, sizeof(name), "cpufreq-cap-%s", cpus);
	if ((a = find_actor_by_name(b->e, name)))
		return a;
	for (size_t i = 0; i < b->cpufreq.n && n < CONFIG_MAX_ACTORS; i++) {
		const struct cpufreq_policy_info *p = &b->cpufreq.policies[i];

		if (!cpumask_test(&ac->cpus, p->cpu))
			continue;
		policies[n++] = p;
		for (size_t w = 0; w < CPUMASK_MAX_CPUS / 64; w++)
			covered.bits[w] |= p->related.bits[w];
	}
	if (n == 0 || memcmp(&covered, &ac->cpus, sizeof(covered)) != 0) {
		pa_log(PA_LOG_ERR, "zone %s: cpus \"%s\" of actor line %u are not whole cpufreq "
		       "policies", zone, cpus, ac->line);
		return NULL;
	}
	return register_actor(b->e, actor_cpufreq_cap_new(policies, n, ac));
}

/* The actor a config entry names, created or shared. */
static struct actor *actor_for_config(struct build *b, const struct actor_config *ac,
				      const char *zone)
{
	struct actor *a;
	int cdev;

	switch (ac->kind) {
	case ACTOR_CPUFREQ_CAP:
		return cap_actor(b, ac, zone);
	case ACTOR_POWERCAP:
		a = find_actor_by_name(b->e, ac->powercap_zone);
		return a ? a : register_actor(b->e, actor_powercap_new(ac));
	default:
		cdev = cdev_of_actor_config(b, ac, zone);
		return cdev < 0 ? NULL : actor_for_cdev(b, cdev, ac);
	}
}

static int add_zone_actor(struct zone *z, struct actor *a, uint32_t weight_q10)
{
	for (size_t i = 0; i < z->n_actors; i++)
		if (z->actors[i] == a)
			return 0;
	if (z->n_actors == ZONE_MAX_ACTORS)
		return -E2BIG;
	z->actors[z->n_actors++] = a;
	a->weight_q10 = weight_q10 > DIVVY_MAX_WEIGHT ? DIVVY_MAX_WEIGHT : weight_q10;
	return 0;
}

static const struct trip_info *find_trip(const struct thermal_zone_info *tz, int index)
{
	for (size_t i = 0; i < tz->n_trips; i++)
		if ((int)tz->trips[i].index == index)
			return &tz->trips[i];
	return NULL;
}

/* The zone's fallback entry for cooling_device@cdev_id, created on first use; NULL if none can be. */
static struct fallback_device *fallback_for(struct build *b, struct zone *z,
					    const struct cooling_device_info *cdev)
{
	struct actor *a = find_actor(b->e, cdev->id);

	for (size_t i = 0; i < b->n_unusable_fallback; i++)
		if (b->unusable_fallback[i] == cdev->id)
			return NULL;
	if (!a)
		a = register_actor(b->e, actor_cooling_device_new(cdev->id, cdev->type));
	if (!a && b->n_unusable_fallback < THERMAL_MAX_BINDINGS)
		b->unusable_fallback[b->n_unusable_fallback++] = cdev->id;
	if (!a || a->kind != ACTOR_COOLING_DEVICE)
		return NULL;	/* its cur_state could not be opened (logged with the file) */
	for (size_t i = 0; i < z->n_fallback; i++)
		if (z->fallback[i].actor == a)
			return &z->fallback[i];
	if (z->n_fallback == ZONE_MAX_FALLBACK) {
		pa_log(PA_LOG_WARNING, "zone %s: cooling_device%d (%s): more than %d devices on the "
		       "step_wise fallback; this one is left alone", z->name, cdev->id, cdev->type,
		       ZONE_MAX_FALLBACK);
		return NULL;
	}
	z->fallback[z->n_fallback].actor = a;
	return &z->fallback[z->n_fallback++];
}

/*
 * Taking a zone over stops the kernel driving anything bound to it: every
 * device bound to one of its active or passive trips that has no power
 * model (a fan) is driven by the step_wise fallback instead.
 */
static void add_fallback_devices(struct build *b, struct zone *z,
				 const struct thermal_zone_info *tz)
{
	for (size_t i = 0; i < tz->n_bindings; i++) {
		const struct cdev_binding *bd = &tz->bindings[i];
		const struct cooling_device_info *cdev = thermal_find_cdev(&b->thermal, bd->cdev_id);
		const struct trip_info *trip = find_trip(tz, bd->trip);
		struct fallback_device *f;

		if (!cdev || !trip || power_device_type(b, cdev) ||
		    (trip->type != TRIP_ACTIVE && trip->type != TRIP_PASSIVE))
			continue;
		f = fallback_for(b, z, cdev);
		if (f && fallback_add_trip(f, trip->temp_mc, trip->hyst_mc) < 0)
			pa_log(PA_LOG_WARNING, "zone %s: cooling_device%d (%s): more than %d trips; "
			       "the step_wise fallback ignores trip %d", z->name, cdev->id,
			       cdev->type, FALLBACK_MAX_TRIPS, bd->trip);
	}
}

/*
 * A margin of more than half the passive range would aim the zone near or
 * under switch-on; config.c refuses one when the file gives both
 * temperatures, this catches temperatures taken from the trips.
 */
static void limit_control_margin(struct zone *z)
{
	uint32_t half_mc = pid_control_margin_limit_mc(z->switch_on_mc, z->control_mc);

	if (z->pid.mode != PID_MODE_DEFAULT || z->pid.fixes.control_margin_mc <= half_mc)
		return;
	pa_log(PA_LOG_WARNING, "zone %s: control_margin %u m°C is more than half of control - "
	       "switch-on (%d m°C); using %u m°C", z->name, z->pid.fixes.control_margin_mc,
	       z->control_mc - z->switch_on_mc, half_mc);
	z->pid.fixes.control_margin_mc = half_mc;
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
	struct pid_params *pp = &z->pid;

	pp->mode = zc ? zc->controller : PID_MODE_DEFAULT;
	z->efficiency_division = zc ? zc->efficiency_division : true;
	pp->period_ms = zc ? zc->period_ms : 100;
	if (zc && zc->sustainable_power_mw) {
		pp->sustainable_power_mw = zc->sustainable_power_mw;
		z->sp_source = SP_FROM_CONFIG;
	} else if (tz && tz->sustainable_power_mw) {
		pp->sustainable_power_mw = tz->sustainable_power_mw;
		z->sp_source = SP_FROM_SYSFS;
	} else {
		pp->sustainable_power_mw = zone_estimate_sustainable_power(z);
		z->sp_source = SP_ESTIMATED;
	}
	pid_default_gains(pp->sustainable_power_mw, z->switch_on_mc, z->control_mc, &pp->gains);
	pid_default_fixes(&pp->fixes);
	if (zc)
		pp->fixes = zc->fixes;
	if (pp->mode == PID_MODE_DEFAULT && pp->fixes.tuned_gains)
		pid_tune_gains(&pp->gains);
	limit_control_margin(z);
	if (zc)
		set_configured_gains(pp, zc, &z->tuning);
	z->pid_run = *pp;
}

/* The zone's governor, given up for user_space; kept to be put back at exit. */
static void take_over(struct zone *z, const struct thermal_zone_info *tz)
{
	snprintf(z->original_policy, sizeof(z->original_policy), "%s", tz->policy);
	if (sysfs_read_only()) {
		z->original_policy[0] = '\0';	/* discovery only: nothing taken over */
	} else if (thermal_zone_set_policy(tz->id, "user_space") < 0) {
		pa_log(PA_LOG_WARNING, "zone %s: cannot set thermal_zone%d/policy to user_space; the "
		       "kernel's %s governor may act on it too", z->name, tz->id, tz->policy);
		z->original_policy[0] = '\0';
	}
}

/*
 * Opens the sensor, samples the actors once, sets the controller, takes the
 * zone over (@tz: its thermal zone; NULL for a combined sensor, which takes
 * none over and has no bindings for the step_wise fallback).
 */
static int finish_zone(struct build *b, struct zone *z, const struct thermal_zone_info *tz,
		       const struct zone_config *zc)
{
	struct cycle_sample s = { b->e->stat_cur, b->e->stat_cur, 0 };
	char sensor[SYSFS_PATH_MAX];
	int r;

	if ((r = zone_sensor_open(z)) < 0)
		return r;	/* logged */
	for (size_t i = 0; i < z->n_actors; i++)
		actor_sample(z->actors[i], &s);
	setup_controller(z, tz, zc);
	thermal_model_init(&z->model, z->pid.period_ms, z->control_mc, z->pid.sustainable_power_mw);
	if (tz)
		take_over(z, tz);
	if (tz && (!zc || zc->step_wise_fallback))
		add_fallback_devices(b, z, tz);
	zone_sensor_name(z, sensor, sizeof(sensor));
	pa_log(PA_LOG_INFO, "zone %s: %s (%s), switch-on %d m°C, control %d m°C, "
	       "sustainable power %u mW (%s), %zu actors, %zu on the step_wise fallback, %s "
	       "controller", z->name, sensor, tz ? tz->type : "combined", z->switch_on_mc,
	       z->control_mc, z->pid.sustainable_power_mw, zone_sp_source_name(z), z->n_actors,
	       z->n_fallback, z->pid.mode == PID_MODE_KERNEL ? "kernel" :
	       z->pid.mode == PID_MODE_STEP_WISE ? "step_wise" : "default");
	zone_sensor_start(z);
	return 0;
}

/*
 * Whether the kernel can hand thermal zone @tz over: it offers the
 * user_space governor.  Else two governors would drive the same devices, so
 * the zone @name is left out, said at @level with the kernel option to
 * enable and @outcome.
 */
static bool offers_user_space(const struct thermal_zone_info *tz, const char *name, int level,
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
 * The thermal zones @zc's sensor reads, into @z's inputs; *@tz: the one a
 * single sensor takes over (NULL for a combined sensor).  -ENOENT (logged)
 * when one is not there, -EINVAL when two name the same zone.
 */
static int find_inputs(const struct build *b, const struct zone_config *zc, struct zone *z,
		       const struct thermal_zone_info **tz)
{
	const struct sensor_config *sc = &zc->sensor;

	z->sensor_kind = sc->kind;
	z->sensor_offset_mc = sc->offset_mc;
	for (size_t i = 0; i < sc->n_inputs; i++) {
		const struct thermal_zone_info *in = thermal_find_zone(&b->thermal, sc->input[i]);

		if (!in) {
			pa_log(PA_LOG_ERR, "zone %s: no thermal zone \"%s\"%s; zone skipped", zc->name,
			       sc->input[i], sc->kind == SENSOR_ONE ? "" : " (an input of its sensor)");
			return -ENOENT;
		}
		if (zone_sensor_reads_tz(z, in->id)) {
			pa_log(PA_LOG_ERR, "zone %s: \"%s\" is thermal_zone%d, already an input; zone "
			       "skipped", zc->name, sc->input[i], in->id);
			return -EINVAL;
		}
		z->inputs[i] = (struct sensor_input){ .tz_id = in->id, .weight = sc->weight[i],
						      .attr = SYSFS_ATTR_INIT };
		snprintf(z->inputs[i].name, sizeof(z->inputs[i].name), "%s", in->type);
		z->n_inputs = i + 1;
		*tz = in;
	}
	if (sc->kind != SENSOR_ONE)
		*tz = NULL;
	z->tz_id = *tz ? (*tz)->id : -1;
	return 0;
}

/* Switch-on and control: configured, else the passive trips of @tz (a single sensor's). */
static int zone_temps(struct zone *z, const struct zone_config *zc,
		      const struct thermal_zone_info *tz)
{
	int32_t on = 0, control = 0;
	size_t passive = tz ? thermal_passive_range(tz, &on, &control) : 0;

	z->switch_on_mc = zc->has_switch_on_temp ? zc->switch_on_temp_mc : on;
	z->control_mc = zc->has_control_temp ? zc->control_temp_mc : control;
	if ((!zc->has_switch_on_temp || !zc->has_control_temp) && passive < 2) {
		pa_log(PA_LOG_ERR, "zone %s: thermal_zone%d has %zu passive %s; set switch_on_temp "
		       "and control_temp; zone skipped", zc->name, z->tz_id, passive,
		       plural(passive, "trip", "trips"));
		return -EINVAL;
	}
	if (z->control_mc <= z->switch_on_mc) {
		pa_log(PA_LOG_ERR, "zone %s: control %d m°C is not above switch-on %d m°C; zone "
		       "skipped", zc->name, z->control_mc, z->switch_on_mc);
		return -EINVAL;
	}
	return 0;
}

static int build_configured_zone(struct build *b, const struct zone_config *zc, struct zone *z)
{
	const struct thermal_zone_info *tz = NULL;
	int r;

	memset(z, 0, sizeof(*z));
	snprintf(z->name, sizeof(z->name), "%s", zc->name);
	if ((r = find_inputs(b, zc, z, &tz)) < 0)
		return r;
	if (tz && !offers_user_space(tz, zc->name, PA_LOG_ERR, "zone skipped")) {
		b->e->n_refused++;
		return -EOPNOTSUPP;
	}
	if ((r = zone_temps(z, zc, tz)) < 0)
		return r;
	for (size_t i = 0; i < zc->n_actors; i++) {
		struct actor *a = actor_for_config(b, &zc->actors[i], zc->name);

		if (!a || add_zone_actor(z, a, zc->actors[i].weight_q10) < 0) {
			pa_log(PA_LOG_ERR, "zone %s: actor line %u unusable; the zone runs without it",
			       zc->name, zc->actors[i].line);
			b->e->n_missing++;
		}
	}
	if (z->n_actors == 0) {
		pa_log(PA_LOG_ERR, "zone %s: no usable actor; zone skipped", zc->name);
		return -ENODEV;
	}
	return finish_zone(b, z, tz, zc);
}

/* Index of the last passive trip (the control trip); -1 without one. */
static int control_trip(const struct thermal_zone_info *tz)
{
	int trip = -1;

	for (size_t i = 0; i < tz->n_trips; i++)
		if (tz->trips[i].type == TRIP_PASSIVE)
			trip = (int)tz->trips[i].index;
	return trip;
}

static int build_auto_zone(struct build *b, const struct thermal_zone_info *tz, struct zone *z)
{
	int trip = control_trip(tz);
	uint32_t total_weight = 0;

	memset(z, 0, sizeof(*z));
	snprintf(z->name, sizeof(z->name), "%s", tz->type);
	z->tz_id = tz->id;
	z->sensor_kind = SENSOR_ONE;
	z->n_inputs = 1;
	z->inputs[0] = (struct sensor_input){ .tz_id = tz->id, .weight = 1.0,
					      .attr = SYSFS_ATTR_INIT };
	snprintf(z->inputs[0].name, sizeof(z->inputs[0].name), "%s", tz->type);
	if (thermal_passive_range(tz, &z->switch_on_mc, &z->control_mc) < 2 ||
	    z->control_mc <= z->switch_on_mc) {
		pa_log(PA_LOG_INFO, "thermal_zone%d (%s): fewer than two passive trips; not "
		       "controlled", tz->id, tz->type);
		return -EINVAL;
	}
	if (!offers_user_space(tz, z->name, PA_LOG_WARNING, "not controlled"))
		return -EOPNOTSUPP;
	for (size_t i = 0; i < tz->n_bindings; i++)
		if (tz->bindings[i].trip == trip)
			total_weight += tz->bindings[i].weight;
	for (size_t i = 0; i < tz->n_bindings; i++) {
		const struct cdev_binding *bd = &tz->bindings[i];
		const struct cooling_device_info *cdev = thermal_find_cdev(&b->thermal, bd->cdev_id);
		struct actor *a;

		/* A device without a power model goes to the step_wise fallback. */
		if (bd->trip != trip || (cdev && !power_device_type(b, cdev)))
			continue;
		a = actor_for_cdev(b, bd->cdev_id, NULL);
		if (!a || add_zone_actor(z, a, total_weight ? bd->weight : DIVVY_WEIGHT_ONE) < 0) {
			pa_log(PA_LOG_WARNING, "thermal_zone%d (%s): cooling_device%d on its control "
			       "trip is not a usable power actor; not controlled", tz->id, tz->type,
			       bd->cdev_id);
			return -ENODEV;
		}
	}
	if (z->n_actors == 0) {
		pa_log(PA_LOG_INFO, "thermal_zone%d (%s): no cooling device on its control trip; "
		       "not controlled", tz->id, tz->type);
		return -ENODEV;
	}
	return finish_zone(b, z, tz, NULL);
}

int engine_build(struct engine *e, const struct pa_config *cfg)
{
	struct build b = { .e = e };
	size_t n;
	int r;

	memset(e, 0, sizeof(*e));
	e->proc_stat.fd = -1;
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

			r = cfg->n_zones ? build_configured_zone(&b, &cfg->zones[i], z)
					 : build_auto_zone(&b, &b.thermal.zones[i], z);
			if (r == 0)
				e->n_zones++;
			else
				zone_sensor_close(z);
		}
		r = (int)e->n_zones;
	}
	thermal_inventory_free(&b.thermal);
	cpufreq_inventory_free(&b.cpufreq);
	if (r < 0)
		engine_free(e);
	return r;
}
