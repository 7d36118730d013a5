/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "zone_notes.h"

#include <stdio.h>

#include "journal.h"
#include "platform/log.h"
#include "control/time_units.h"

/* Switch-on crossed at once; released once the zone stayed under it long enough. */
static void note_activity(struct zone_notes *n, const struct zone *z, uint64_t now_us)
{
	if (z->control.active) {
		n->idle_since_us = 0;
		/* Without a temperature the zone runs blind (logged by the library). */
		if (!n->controlling && !z->sensing.sensor_failed && z->setup.always_on)
			pa_log_zone(PA_LOG_INFO, z,
				    "zone %s: %.2f °C, one passive trip: no "
				    "switch-on, controlling at every temperature as the kernel's "
				    "power_allocator does",
				    z->setup.name, z->sensing.temp_mc / 1000.0);
		else if (!n->controlling && !z->sensing.sensor_failed)
			pa_log_zone(PA_LOG_INFO, z, "zone %s: %.2f °C, switch-on %.2f °C crossed; "
				    "controlling", z->setup.name, z->sensing.temp_mc / 1000.0,
				    z->setup.switch_on_mc / 1000.0);
		n->controlling |= !z->sensing.sensor_failed;
		return;
	}
	if (!n->idle_since_us)
		n->idle_since_us = now_us;
	if (n->controlling && now_us - n->idle_since_us >= NOTES_RELEASE_QUIET_MS * USEC_PER_MSEC) {
		pa_log_zone(PA_LOG_INFO, z,
			    "zone %s: %.2f °C, below switch-on for %d s; limits "
			    "released",
			    z->setup.name, z->sensing.temp_mc / 1000.0,
			    NOTES_RELEASE_QUIET_MS / 1000);
		n->controlling = false;
	}
}

static void note_overshoot(struct zone_notes *n, const struct zone *z)
{
	if (z->sensing.sensor_failed)
		return;
	if (z->sensing.temp_mc <= z->setup.control_mc) {
		n->over = false;
	} else if (!n->over && z->sensing.temp_mc > z->setup.control_mc + NOTES_OVER_MC) {
		pa_log_zone(PA_LOG_WARNING, z, "zone %s: %.2f °C, %.2f °C over control (%.2f °C)",
			    z->setup.name, z->sensing.temp_mc / 1000.0,
			    (z->sensing.temp_mc - z->setup.control_mc) / 1000.0,
			    z->setup.control_mc / 1000.0);
		n->over = true;
	}
}

/* What @z's actors draw at their lowest states with their loads now, mW. */
static uint64_t lowest_sum_mw(const struct zone *z)
{
	uint64_t sum_mw = 0;

	for (size_t i = 0; i < z->setup.n_actors; i++)
		sum_mw += actor_lowest_mw(z->setup.actors[i]);
	return sum_mw;
}

/*
 * Why @z's actor @k has been at its lowest state for NOTES_LOWEST_MS: a
 * notice where the zone's budget is under what its actors draw at their
 * lowest states (too low a sustainable power, or heat from elsewhere); where
 * the budget covers that but the division granted this actor less than it
 * draws there, that, at info (its share, not the budget, holds it: issue 41,
 * 5); else nothing: another zone, or the cap's share there, holds it.
 */
static void say_lowest(const struct zone *z, size_t k)
{
	const struct actor *a = z->setup.actors[k];
	uint64_t lowest_mw = lowest_sum_mw(z);
	uint32_t draws_mw = actor_lowest_mw(a);

	if (z->control.budget_mw < lowest_mw)
		pa_log_zone(PA_LOG_NOTICE, z, "zone %s: %s has been at its lowest state (%lu) for "
			    "%d s: the budget, %u mW, is under what the zone's actors draw at "
			    "their lowest states, %llu mW; check sustainable_power and what else "
			    "heats the zone", z->setup.name, a->name, a->max_state,
			    NOTES_LOWEST_MS / 1000, z->control.budget_mw,
			    (unsigned long long)lowest_mw);
	else if (z->control.grant_mw[k] < draws_mw)
		pa_log_zone(PA_LOG_INFO, z, "zone %s: %s has been at its lowest state (%lu) for "
			    "%d s: its share of the budget, %u of %u mW, is under the %u mW it "
			    "draws there; the division gives the zone's other actors more",
			    z->setup.name, a->name, a->max_state, NOTES_LOWEST_MS / 1000,
			    z->control.grant_mw[k], z->control.budget_mw, draws_mw);
}

/*
 * A power actor held at its deepest state for NOTES_LOWEST_MS, said once
 * (say_lowest()).  Not a fan's (its top state is its hardest cooling), nor
 * in a step_wise zone, which has no budget.
 */
static void note_lowest(struct zone_notes *n, const struct zone *z, uint64_t now_us)
{
	for (size_t k = 0; k < z->setup.n_actors; k++) {
		const struct actor *a = z->setup.actors[k];

		if (!a->max_state || a->state < a->max_state || a->kind == ACTOR_COOLING_DEVICE ||
		    z->setup.pid.mode == PID_MODE_STEP_WISE) {
			n->lowest_since_us[k] = 0;
			n->lowest_said[k] = false;
			continue;
		}
		if (!n->lowest_since_us[k])
			n->lowest_since_us[k] = now_us;
		if (!n->lowest_said[k] &&
		    now_us - n->lowest_since_us[k] >= NOTES_LOWEST_MS * USEC_PER_MSEC) {
			say_lowest(z, k);
			n->lowest_said[k] = true;
		}
	}
}

/*
 * Says once per zone when the learnt sustainable power departs from the
 * one the zone was given: the device tree or the configuration is
 * probably wrong.
 */
static void note_model(struct zone *z)
{
	static const char *const wrong[] = { "configuration", "device tree", "estimate (the "
					     "actors' lowest powers)", "firmware's RAPL long-term "
					     "limit (constraint_0_power_limit_uw)" };
	int pct;

	if (z->learning.model_departure_said || !zone_model_departs(z, &pct))
		return;
	pa_log_zone(PA_LOG_NOTICE, z,
		    "zone %s: learned sustainable power %u mW departs from the "
		    "%s %u mW by %+d %% (confidence %.2f, time constant %.0f s); the %s is "
		    "probably wrong",
		    z->setup.name, thermal_model_sustainable_mw(&z->learning.model),
		    zone_sp_source_adjective(z), z->setup.pid.sustainable_power_mw, pct,
		    z->learning.model.est.confidence, z->learning.model.est.time_constant_s,
		    wrong[z->setup.sp_source]);
	z->learning.model_departure_said = true;
}

/* The default controller took its feed-forward and gains from the model, or left them. */
static void note_tuning(struct zone_notes *n, const struct zone *z)
{
	const struct pid_gains *g = &z->control.pid_run.gains;

	if (z->control.tuning.engaged == n->tuned)
		return;
	n->tuned = z->control.tuning.engaged;
	if (n->tuned)
		pa_log_zone(PA_LOG_INFO, z, "zone %s: tuned from its thermal model (confidence "
			    "%.2f): sustainable power %u mW (%s %u mW), gain %.0f mW/°C",
			    z->setup.name, z->learning.model.est.confidence,
			    z->control.pid_run.sustainable_power_mw, zone_sp_source_adjective(z),
			    z->setup.pid.sustainable_power_mw, g->k_pu * 1000.0 / 1024);
	else if (zone_first_approach(z))
		pa_log_zone(PA_LOG_INFO, z, "zone %s: thermal model no longer confident (%.2f); "
			    "back to the first approach: the lowest power, %u mW, fed forward "
			    "with the gains from the %s sustainable power %u mW", z->setup.name,
			    z->learning.model.est.confidence, zone_feed_forward_mw(z),
			    zone_sp_source_adjective(z), z->setup.pid.sustainable_power_mw);
	else
		pa_log_zone(PA_LOG_INFO, z,
			    "zone %s: thermal model no longer confident (%.2f); "
			    "back to the %s sustainable power %u mW and the gains from it",
			    z->setup.name, z->learning.model.est.confidence,
			    zone_sp_source_adjective(z), z->setup.pid.sustainable_power_mw);
}

/* The zone's limiting reason, when it is to be said (limit_log_due()): what its budget and requests are. */
static void note_reason(struct zone_notes *n, const struct zone *z, uint64_t now_us)
{
	enum limit_reason was = n->reason_log.said;
	uint64_t asked_mw = 0;

	n->reason = z->sensing.limit.shown;
	if (!limit_log_due(&n->reason_log, n->reason, now_us))
		return;
	for (size_t i = 0; i < z->setup.n_actors; i++)
		asked_mw += z->control.request_mw[i];
	pa_log_zone(PA_LOG_INFO, z, "zone %s: limiting reason %s (was %s); %.2f °C, budget %u mW "
		    "for %llu mW requested", z->setup.name, limit_reason_name(n->reason),
		    limit_reason_name(was), z->sensing.temp_mc / 1000.0, z->control.budget_mw,
		    (unsigned long long)asked_mw);
}

void zone_notes_update(struct zone_notes *n, struct zone *z, uint64_t now_us)
{
	note_activity(n, z, now_us);
	note_overshoot(n, z);
	note_lowest(n, z, now_us);
	note_model(z);
	note_tuning(n, z);
	note_reason(n, z, now_us);
}

/* @a's limiting reason, now @a->limit.shown, was @was. */
static void say_actor_reason(const struct actor *a, enum limit_reason was)
{
	char actor[80], reason[48], power[64];
	const char *fields[] = { actor, reason, NULL };

	snprintf(actor, sizeof(actor), "ACTOR=%s", a->name);
	snprintf(reason, sizeof(reason), "LIMITING_REASON=%s", limit_reason_name(a->limit.shown));
	snprintf(power, sizeof(power), ", granted %u mW, requests %u mW", a->granted_mw, a->req_mw);
	pa_log_fields(PA_LOG_INFO, fields, "actor %s: limiting reason %s (was %s); state %lu of "
		      "%lu%s", a->name, limit_reason_name(a->limit.shown), limit_reason_name(was),
		      a->state, a->max_state, a->kind == ACTOR_COOLING_DEVICE ? "" : power);
}

void actor_notes_init(struct actor_notes *n, enum limit_reason shown)
{
	*n = (struct actor_notes){ .shown = shown, .log = { .said = shown, .pending = shown } };
}

bool actor_notes_update(struct actor_notes *n, const struct actor *a, uint64_t now_us)
{
	enum limit_reason was = n->log.said;
	bool changed = a->limit.shown != n->shown;

	n->shown = a->limit.shown;
	/* Each period's path: below the log level, not even formatted. */
	if (limit_log_due(&n->log, n->shown, now_us) && journal_enabled(PA_LOG_INFO))
		say_actor_reason(a, was);
	return changed;
}
