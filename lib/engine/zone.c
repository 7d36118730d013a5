/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "zone.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control/divvy.h"
#include "control/efficiency.h"
#include "control/floors.h"
#include "platform/log.h"
#include "zone_sensor.h"

/* ZONE= and TEMPERATURE_MC= (the last good reading) for the zone's messages. */
struct zone_fields {
	char zone[80];
	char temp[40];
	const char *list[3];
};

static const char *const *zone_fields(const struct zone *z, struct zone_fields *f)
{
	snprintf(f->zone, sizeof(f->zone), "ZONE=%s", z->setup.name);
	snprintf(f->temp, sizeof(f->temp), "TEMPERATURE_MC=%d", z->sensing.temp_mc);
	f->list[0] = f->zone;
	f->list[1] = f->temp;
	f->list[2] = NULL;
	return f->list;
}

/* For messages: a single sensor by its file, a combined one by its inputs. */
static const char *sensor_words(const struct zone *z, char *buf, size_t size)
{
	if (z->setup.sensor_kind == SENSOR_ONE)
		return z->setup.inputs[0].attr.path;
	zone_sensor_name(z, buf, size);
	return buf;
}

/* Says a fault once an episode, a spike at most once in SPIKE_QUIET_MS (the
 * ones between counted, said with the next); a sensor fault all the same. */
static void say_fault(struct zone *z, int r, const char *why, uint64_t now_us)
{
	struct zone_fields f;
	char sensor[SYSFS_PATH_MAX], kind[48], unsaid_words[96] = "";
	const char *const *base = zone_fields(z, &f);
	const char *fields[] = { base[0], base[1], kind, NULL };
	bool say = !(z->sensing.sensor_failed && z->sensing.fault_said);
	uint32_t unsaid = 0;

	snprintf(kind, sizeof(kind), "SENSOR_FAULT=%s", sensor_fault_name(z->sensing.sensor_fault));
	if (say && r == -EDOM)
		say = spike_quiet_step(&z->sensing.spike_quiet, now_us, &unsaid);
	if (unsaid)
		snprintf(unsaid_words, sizeof(unsaid_words), " (and %" PRIu32 " spikes since the last "
			 "one said, not said: one is said at most every %u min)", unsaid, SPIKE_QUIET_MS / 60000);
	if (say) {
		pa_log_fields(PA_LOG_ERR, fields, "zone %s: %s: %s; holding the current limits%s",
			      z->setup.name, sensor_words(z, sensor, sizeof(sensor)), why,
			      unsaid_words);
		z->sensing.fault_said = true;
	}
	z->sensing.sensor_failed = true;
}

int zone_read_temp(struct zone *z, uint64_t now_us)
{
	struct zone_fields f;
	char sensor[SYSFS_PATH_MAX], why[256];
	int64_t temp = 0;
	int r = zone_sensor_read(z, &temp);
	bool no_input = r < 0 && z->setup.sensor_kind != SENSOR_ONE;

	r = zone_sensor_judge(z, r, temp, why, sizeof(why));
	if (r < 0) {
		if (no_input)
			snprintf(why, sizeof(why), "no input reads");
		say_fault(z, r, why, now_us);
		z->sensing.failed_reads++;
		z->sensing.reading_sane = false;
		return r;
	}
	z->sensing.failed_reads = 0;
	z->sensing.reading_sane = true;
	z->sensing.temp_mc = (int32_t)temp;
	if (z->sensing.sensor_failed && z->sensing.fault_said)
		pa_log_fields(PA_LOG_NOTICE, zone_fields(z, &f),
			      "zone %s: %s reads again (%lld m°C)", z->setup.name,
			      sensor_words(z, sensor, sizeof(sensor)), (long long)temp);
	z->sensing.sensor_failed = false;
	z->sensing.fault_said = false;
	return 0;
}

/*
 * Whether @z divides by request: as configured, or because efficiency needs
 * every actor's power per OPP and one has none (a powercap/RAPL actor).
 */
static bool divides_by_request(const struct zone *z)
{
	if (!z->setup.efficiency_division)
		return true;
	for (size_t i = 0; i < z->setup.n_actors; i++)
		if (!z->setup.actors[i]->table.n)
			return true;
	return false;
}

/*
 * What @a asks of @z's division: what it uses now (the kernel's request) or,
 * when the zone divides by request under the default controller with
 * saturated_request, one OPP more for each saturated CPU (at the actor's
 * frequency: the highest of its policies for cpufreq_cap).  Actors without
 * a power table (powercap) measure their request and have no OPP to step
 * to: theirs is kept.
 */
static uint32_t request_of(const struct zone *z, const struct actor *a)
{
	unsigned int saturated = a->saturated < a->n_cpus ? a->saturated : a->n_cpus;
	uint64_t req;

	if (z->setup.pid.mode != PID_MODE_DEFAULT || !z->setup.pid.fixes.saturated_request ||
	    !saturated || !divides_by_request(z))
		return a->req_mw;
	req = a->req_mw + (uint64_t)power_table_step_up_mw(&a->table, a->freq_khz) * saturated;
	return req > UINT32_MAX ? UINT32_MAX : (uint32_t)req;
}

/* The actors' requests, weights and maxima; returns the sums of max and min. */
static void gather(struct zone *z, struct divvy_actor *d, uint32_t *max_mw, uint32_t *min_mw)
{
	*max_mw = *min_mw = 0;
	for (size_t i = 0; i < z->setup.n_actors; i++) {
		const struct actor *a = z->setup.actors[i];

		z->control.request_mw[i] = request_of(z, a);
		d[i].req_mw = z->control.request_mw[i];
		d[i].weight_q10 = a->weight_q10;
		d[i].max_mw = a->max_mw;
		*max_mw += a->max_mw;
		*min_mw += a->min_mw;
	}
}

/*
 * The demand of @a: the work its load asks for, as a fraction of the actor
 * flat out at its top OPP (loads are percent of the current frequency).  A
 * saturated CPU (or device) is counted as asking for all of the top OPP:
 * its 100 % at a throttled frequency hides how much more it wants, and
 * valuing it at what it ran would keep a throttled cluster where it is.
 */
static double demand_of(const struct actor *a)
{
	const struct power_table *t = &a->table;
	double top = t->n ? t->entry[t->n - 1].freq_khz : 0, scale;
	unsigned int saturated;

	if (!top || !a->n_cpus)
		return 0;
	scale = fmin(1.0, a->freq_khz / top);
	saturated = a->saturated < a->n_cpus ? a->saturated : a->n_cpus;
	return fmin(1.0, (a->load_pct / 100.0 * scale + saturated * (1.0 - scale)) / a->n_cpus);
}

/* floors_divide_fn: the efficiency division of @budget_mw among the zone's actors @idx. */
static void divide_by_efficiency(const void *ctx, const size_t *idx, size_t n,
				 uint32_t budget_mw, uint32_t *grants_mw)
{
	const struct zone *z = ctx;
	struct eff_actor e[ZONE_MAX_ACTORS];

	for (size_t j = 0; j < n; j++) {
		const struct actor *a = z->setup.actors[idx[j]];

		e[j] = (struct eff_actor){ .table = &a->table, .n_cpus = a->n_cpus ? a->n_cpus : 1,
					   .demand = demand_of(a), .capacity = a->capacity,
					   .weight_q10 = a->weight_q10, .max_mw = a->max_mw };
	}
	efficiency_divide(e, n, budget_mw, grants_mw);
}

/*
 * Under the power cap, unless the zone dithers grants (whose carry spends
 * the part of a grant between two OPPs over a few periods), the parts the
 * OPPs leave buy whole OPP steps of whichever actor they fit
 * (floors_fill_opps()), so that the actors draw as close to the cap as
 * their OPPs allow.
 */
static void fill_opps(struct zone *z)
{
	const struct power_table *tables[ZONE_MAX_ACTORS];
	uint32_t load_pct[ZONE_MAX_ACTORS];

	if (z->setup.pid.mode == PID_MODE_DEFAULT && z->setup.pid.fixes.dither_grants)
		return;
	for (size_t i = 0; i < z->setup.n_actors; i++) {
		tables[i] = &z->setup.actors[i]->table;
		load_pct[i] = z->setup.actors[i]->load_pct;
	}
	floors_fill_opps(tables, load_pct, z->setup.n_actors, z->control.budget_mw,
			 z->control.grant_mw);
}

/*
 * The budget divided among the actors.  When the power cap's share is the
 * budget (apply_cap() first), it bounds what they draw, and an actor granted
 * less than it draws at its lowest state draws that all the same: no actor
 * is granted less, and what that takes is taken from the others
 * (floors_divide()); then the OPPs are filled (fill_opps()).  Otherwise,
 * with a cap that does not bind too, the floors are 0: one division, the
 * kernel's law.
 */
static void divide(struct zone *z, struct divvy_actor *d)
{
	uint32_t floor_mw[ZONE_MAX_ACTORS] = { 0 };

	for (size_t i = 0; i < z->setup.n_actors && z->period.cap_limited; i++)
		floor_mw[i] = actor_lowest_mw(z->setup.actors[i]);
	if (divides_by_request(z)) {
		floors_divvy(d, z->setup.n_actors, floor_mw, z->control.budget_mw,
			     z->setup.pid.mode == PID_MODE_KERNEL);
		for (size_t i = 0; i < z->setup.n_actors; i++)
			z->control.grant_mw[i] = d[i].granted_mw;
	} else {
		floors_divide(z->setup.n_actors, floor_mw, z->control.budget_mw,
			      divide_by_efficiency, z, z->control.grant_mw);
	}
	if (z->period.cap_limited)
		fill_opps(z);
}

/* Lowers the budget to the zone's share of the power cap; whether it did. */
static bool apply_cap(struct zone *z)
{
	z->period.cap_limited = z->period.capped && z->control.budget_mw > z->period.cap_mw;
	if (z->period.cap_limited)
		z->control.budget_mw = z->period.cap_mw;
	return z->period.cap_limited;
}

void zone_cycle_blind(struct zone *z)
{
	struct divvy_actor d[ZONE_MAX_ACTORS];
	uint32_t max_mw, min_mw;

	const char *what;
	uint32_t blind_mw = zone_blind_power_mw(z, &what);

	gather(z, d, &max_mw, &min_mw);
	if (z->sensing.failed_reads == ZONE_FAULT_PERIODS) {
		struct zone_fields f;

		pa_log_fields(PA_LOG_WARNING, zone_fields(z, &f), "zone %s: no temperature for %u "
			      "periods; limiting to the %s sustainable power, %u mW", z->setup.name,
			      ZONE_FAULT_PERIODS, what, blind_mw);
	}
	pid_reset(&z->control.pid_state);
	z->control.active = true;
	z->control.budget_mw = blind_mw < max_mw ? blind_mw : max_mw;
	apply_cap(z);
	divide(z, d);
	/* Without a temperature there is no trend to follow: fans to full. */
	for (size_t i = 0; i < z->setup.n_fallback; i++)
		z->setup.fallback[i].state = z->setup.fallback[i].actor->max_state;
}

/* What the zone's actors draw now, mW: the sum of their requests. */
static uint64_t actors_power_mw(const struct zone *z)
{
	uint64_t power_mw = 0;

	for (size_t i = 0; i < z->setup.n_actors; i++)
		power_mw += z->setup.actors[i]->req_mw;
	return power_mw;
}

void zone_observe_power(struct zone *z, uint64_t now_us)
{
	double power_mw = (double)actors_power_mw(z);

	if (z->learning.observed_us && now_us > z->learning.observed_us) {
		z->learning.model_energy_mj += power_mw * ((now_us - z->learning.observed_us) / 1e6);
		z->learning.model_elapsed_us += now_us - z->learning.observed_us;
	}
	z->learning.observed_us = now_us;
}

uint32_t zone_mean_power_mw(const struct zone *z)
{
	const struct zone_learning *l = &z->learning;
	double mean_mw = l->model_elapsed_us ? l->model_energy_mj * 1e6 / l->model_elapsed_us : 0;

	return mean_mw < UINT32_MAX ? (uint32_t)(mean_mw + 0.5) : UINT32_MAX;
}

void zone_observe(struct zone *z, bool have_temp)
{
	if (have_temp)
		thermal_model_sample(&z->learning.model, z->learning.model_elapsed_us, z->sensing.temp_mc,
				     zone_mean_power_mw(z));
	else
		thermal_model_break(&z->learning.model);
	z->learning.model_energy_mj = 0;
	z->learning.model_elapsed_us = 0;
}

bool zone_model_departs(const struct zone *z, int *pct)
{
	double learnt = z->learning.model.est.sustainable_w * 1000,
	       given = z->setup.pid.sustainable_power_mw;

	if (z->learning.model.est.confidence < ZONE_MODEL_CONFIDENT || !given)
		return false;
	/* Within what an int holds: a learnt power 10000 times the given is news enough. */
	*pct = (int)lround(fmin((learnt / given - 1) * 100, 1e6));
	return abs(*pct) > ZONE_MODEL_DEPARTS_PCT;
}

bool zone_has_actor(const struct zone *z, const struct actor *a)
{
	for (size_t i = 0; i < z->setup.n_actors; i++)
		if (z->setup.actors[i] == a)
			return true;
	return false;
}

bool zone_fallback_engaged(const struct zone *z)
{
	for (size_t i = 0; i < z->setup.n_fallback; i++)
		if (z->setup.fallback[i].state > 0)
			return true;
	return false;
}

/*
 * The kernel's step_wise: above the control temperature and rising, one
 * state more; below it and falling, one state less; otherwise hold.  The
 * grants are left at the actors' maxima (the states are the decision)
 * unless the power cap's share divides lower.
 */
static void zone_cycle_step_wise(struct zone *z)
{
	int32_t trend = z->sensing.temp_mc - z->sensing.prev_temp_mc;
	bool throttle = z->sensing.temp_mc >= z->setup.control_mc;

	z->control.active = throttle;
	z->control.budget_mw = 0;
	for (size_t i = 0; i < z->setup.n_actors; i++) {
		unsigned long *s = &z->control.step_state[i];

		if (throttle && trend > 0 && *s < z->setup.actors[i]->max_state)
			(*s)++;
		else if (!throttle && trend < 0 && *s > 0)
			(*s)--;
		z->control.active |= *s > 0;
		z->control.request_mw[i] = z->setup.actors[i]->req_mw;
		z->control.grant_mw[i] = z->setup.actors[i]->max_mw;
		z->control.budget_mw += z->setup.actors[i]->max_mw;
	}
	/* Under a power cap the states are also held to the cap's share, divided. */
	if (apply_cap(z)) {
		struct divvy_actor d[ZONE_MAX_ACTORS];
		uint32_t max_mw, min_mw;

		gather(z, d, &max_mw, &min_mw);
		divide(z, d);
	}
}

bool zone_holds_saturated(const struct zone *z, size_t i)
{
	assert(i < z->setup.n_actors);
	return z->setup.actors[i]->saturated && z->control.grant_mw[i] < z->setup.actors[i]->max_mw;
}

/* Whether the grants keep a saturated actor below its maximum power. */
static bool holds_back(const struct zone *z)
{
	for (size_t i = 0; i < z->setup.n_actors; i++)
		if (zone_holds_saturated(z, i))
			return true;
	return false;
}

const char *zone_switch_on_text(const struct zone *z, char *buf, size_t size)
{
	if (z->setup.always_on)
		snprintf(buf, size, "always on (one passive trip)");
	else
		snprintf(buf, size, "switch-on %d m°C", z->setup.switch_on_mc);
	return buf;
}

/*
 * The parameters this period runs on: the default controller takes its
 * model's once it is confident (model_tuning_apply()), carrying its memory
 * over the switch so that the budget does not jump; until then the lowest
 * power, but an always-on zone's prior (model_tuning.h, the first approach).
 */
static const struct pid_params *period_params(struct zone *z, uint32_t min_mw, uint32_t max_mw)
{
	struct pid_params last = z->control.pid_run;

	if (z->setup.pid.mode != PID_MODE_DEFAULT)
		return &z->setup.pid;
	if (model_tuning_apply(&z->control.tuning, &z->setup.pid, &z->learning.model.est,
			       z->setup.control_mc, zone_approach_mw(z, min_mw),
			       &z->control.pid_run))
		pid_retune(&last, &z->control.pid_run, &z->control.pid_state, min_mw, max_mw);
	return &z->control.pid_run;
}

/*
 * The power allocator: below switch-on every actor's maximum, else the
 * PID's budget divided; a zone without switch-on is never below it.
 */
static void zone_cycle_power(struct zone *z)
{
	struct divvy_actor d[ZONE_MAX_ACTORS];
	uint32_t max_mw, min_mw;

	gather(z, d, &max_mw, &min_mw);
	z->control.active = z->setup.always_on || z->sensing.temp_mc >= z->setup.switch_on_mc;
	if (!z->control.active) {
		pid_reset(&z->control.pid_state);
		memset(&z->control.pid_out, 0, sizeof(z->control.pid_out));
		z->control.budget_mw = max_mw;
		if (apply_cap(z)) {
			divide(z, d);
			return;
		}
		for (size_t i = 0; i < z->setup.n_actors; i++)
			z->control.grant_mw[i] = d[i].max_mw;
		return;
	}
	z->control.budget_mw = pid_step(period_params(z, min_mw, max_mw), &z->control.pid_state,
					z->setup.control_mc, z->sensing.temp_mc, min_mw, max_mw,
					&z->control.pid_out);
	apply_cap(z);
	divide(z, d);
	z->control.pid_state.held_back = holds_back(z);
}

void zone_cycle(struct zone *z)
{
	if (z->setup.pid.mode == PID_MODE_STEP_WISE)
		zone_cycle_step_wise(z);
	else
		zone_cycle_power(z);
	/* The fallback devices step in every period, whatever the controller. */
	for (size_t i = 0; i < z->setup.n_fallback; i++)
		fallback_step(&z->setup.fallback[i], z->sensing.temp_mc, z->sensing.prev_temp_mc,
			      z->setup.fallback[i].actor->max_state);
	z->sensing.prev_temp_mc = z->sensing.temp_mc;
}

uint32_t zone_estimate_sustainable_power(const struct zone *z)
{
	uint32_t sp = 0;

	for (size_t i = 0; i < z->setup.n_actors; i++)
		sp += z->setup.actors[i]->min_mw;
	return sp;
}

double zone_headroom(const struct zone *z, double forecast_s)
{
	uint64_t power_mw = actors_power_mw(z);
	int32_t span_mc = z->setup.control_mc - z->setup.switch_on_mc, temp_mc;

	temp_mc = thermal_model_predict_mc(&z->learning.model.est, z->sensing.temp_mc,
					   power_mw < UINT32_MAX ? (uint32_t)power_mw : UINT32_MAX,
					   forecast_s);
	/* Equal trips: the fraction's scale is one m°C. */
	return (double)(temp_mc - z->setup.switch_on_mc) / (span_mc > 0 ? span_mc : 1);
}
