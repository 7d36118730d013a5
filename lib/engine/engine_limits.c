/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "engine_limits.h"

#include <stdbool.h>

#include "control/time_units.h"
#include "engine.h"

/*
 * What @z's actor @i can be held under: its request, at most its maximum (a
 * request over it, with saturated_request, is no more than its maximum can
 * grant), mW.
 */
static uint32_t holdable_mw(const struct zone *z, size_t i)
{
	uint32_t max_mw = z->setup.actors[i]->max_mw;

	return z->control.request_mw[i] < max_mw ? z->control.request_mw[i] : max_mw;
}

/*
 * Whether @z's grants hold any of its actors back: a step_wise state above
 * 0, or a budget under their requests or a saturated actor's maximum (the
 * controller's while it is active; the power cap's share, which also binds
 * an idle or step_wise zone).
 */
static bool holds_back(const struct zone *z)
{
	bool step_wise = z->setup.pid.mode == PID_MODE_STEP_WISE;
	bool budgeted = z->period.cap_limited || (!step_wise && z->control.active);
	uint64_t asked_mw = 0;

	for (size_t i = 0; i < z->setup.n_actors; i++) {
		if ((step_wise && z->control.step_state[i]) || (budgeted && zone_holds_saturated(z, i)))
			return true;
		asked_mw += holdable_mw(z, i);
	}
	return budgeted && z->control.budget_mw < asked_mw;
}

/*
 * Whether @z holds nothing back at all: no power cap's share, no step_wise
 * state, every actor granted its maximum (an idle zone; an active one whose
 * budget covers every maximum).  A reason it showed is then not held
 * through LIMIT_HOLD_MS: no dip of a load under a grant that still binds.
 */
static bool zone_released(const struct zone *z)
{
	if (z->period.cap_limited)
		return false;
	for (size_t i = 0; i < z->setup.n_actors; i++)
		if (z->control.step_state[i] || z->control.grant_mw[i] < z->setup.actors[i]->max_mw)
			return false;
	return true;
}

/*
 * Whether @a is held back by nothing: at state 0 (a fan: off) with the
 * grant of every zone it serves (the most restrictive, a->granted_mw) at
 * its maximum.
 */
static bool actor_released(const struct actor *a)
{
	return a->state == 0 && a->granted_mw >= a->max_mw;
}

enum limit_reason zone_limit_reason(const struct zone *z)
{
	bool all_lowest = z->setup.n_actors > 0;

	if (!holds_back(z))
		return LIMIT_NONE;
	if (z->sensing.sensor_failed)
		return LIMIT_SENSOR_FAULT;
	for (size_t i = 0; i < z->setup.n_actors; i++)
		all_lowest &= actor_at_lowest(z->setup.actors[i]);
	if (all_lowest && z->sensing.temp_mc > z->setup.control_mc)
		return LIMIT_LOWEST_STATE;
	return z->period.cap_limited ? LIMIT_POWER_LIMIT : LIMIT_TEMPERATURE;
}

/*
 * Why @z holds @a, which it holds at a state or grant under its request
 * (@fallback: at a fallback device's state, which the temperature sets).
 * A fallback device at its top state (a fan at full speed) is cooling as
 * hard as it can, not held at a lowest state under a budget: it has none,
 * its reason stays the temperature.
 */
static enum limit_reason held_by(const struct zone *z, const struct actor *a, bool fallback)
{
	enum limit_reason r = z->sensing.sensor_failed ? LIMIT_SENSOR_FAULT : z->sensing.limit.now;

	/* A fallback device of a zone that holds no actor, or held by the cap. */
	if (r == LIMIT_NONE || r == LIMIT_LOWEST_STATE || (fallback && r == LIMIT_POWER_LIMIT))
		r = LIMIT_TEMPERATURE;
	if (!fallback && r != LIMIT_SENSOR_FAULT && actor_at_lowest(a) &&
	    z->sensing.temp_mc > z->setup.control_mc)
		return LIMIT_LOWEST_STATE;
	return r;
}

static enum limit_reason actor_limit_reason(const struct engine *e, const struct actor *a)
{
	enum limit_reason worst = LIMIT_NONE, r;

	for (size_t k = 0; k < e->n_zones; k++) {
		const struct zone *z = &e->zones[k];

		for (size_t i = 0; i < z->setup.n_actors; i++) {
			bool held = z->setup.pid.mode == PID_MODE_STEP_WISE
					    ? z->control.step_state[i] > 0
					    : z->control.grant_mw[i] < holdable_mw(z, i) ||
						      zone_holds_saturated(z, i);

			if (z->setup.actors[i] != a || z->sensing.limit.now == LIMIT_NONE || !held)
				continue;
			if ((r = held_by(z, a, false)) > worst)
				worst = r;
		}
		for (size_t i = 0; i < z->setup.n_fallback; i++)
			if (z->setup.fallback[i].actor == a && z->setup.fallback[i].state > 0 &&
			    (r = held_by(z, a, true)) > worst)
				worst = r;
	}
	return worst;
}

/* The sensor fault shown: the zone's now, else its last one until LIMIT_HOLD_MS after it ended. */
static void track_fault(struct zone *z, uint64_t now_us)
{
	if (z->sensing.sensor_fault != SENSOR_FAULT_NONE) {
		z->sensing.fault_shown = z->sensing.sensor_fault;
		z->sensing.fault_seen_us = now_us;
	} else if (now_us - z->sensing.fault_seen_us >= LIMIT_HOLD_MS * USEC_PER_MSEC) {
		z->sensing.fault_shown = SENSOR_FAULT_NONE;
	}
}

void engine_track_limits(struct engine *e, uint64_t now_us, const bool *due)
{
	for (size_t k = 0; k < e->n_zones; k++) {
		if (due && !due[k])
			continue;
		limit_track(&e->zones[k].sensing.limit, zone_limit_reason(&e->zones[k]), now_us,
			    zone_released(&e->zones[k]));
		track_fault(&e->zones[k], now_us);
	}
	for (size_t i = 0; i < e->n_actors; i++)
		limit_track(&e->actors[i]->limit, actor_limit_reason(e, e->actors[i]), now_us,
			    actor_released(e->actors[i]));
}
