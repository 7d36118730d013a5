/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Why a zone or an actor is limited: each period's reason, from what the
 * controller already knows, and the reason shown (D-Bus, status, metrics,
 * journal): a reason as severe as the one shown or more is shown from its
 * period on, a less severe one only once the one shown has not been seen for
 * LIMIT_HOLD_MS, so that throttling shows at once and a bursty load that
 * dips out of it does not make it flap.  The time spent limited is counted
 * from each period's reason.
 */
#include <stdbool.h>
#include <stdint.h>

/* How long a reason is still shown after the last period that had it, ms. */
#define LIMIT_HOLD_MS 10000

/**
 * enum limit_reason - why a zone or an actor is held below what it asks,
 * least severe first.
 * @LIMIT_NONE: nothing is held back.
 * @LIMIT_TEMPERATURE: the zone's budget, from its temperature, is under what
 *	its actors request (step_wise: a state above 0).
 * @LIMIT_POWER_LIMIT: the zone's share of the external power cap
 *	(Manager.SetPowerLimit, zone->period.cap_limited) is what holds it: its budget
 *	is the cap's share, under what its actors request.
 * @LIMIT_LOWEST_STATE: a power actor held at its lowest state (a zone: every
 *	actor at its lowest) with the zone still over its control temperature:
 *	its grant, its share of the budget, is under what it draws there (a
 *	zone: the budget is under what they all draw there).  Never a fan's: at
 *	its top state it cools as hard as it can, for the temperature.
 * @LIMIT_SENSOR_FAULT: the zone has no sane temperature and holds its limits
 *	or runs on its sustainable power.
 * @LIMIT_REASONS: how many there are.
 */
enum limit_reason {
	LIMIT_NONE,
	LIMIT_TEMPERATURE,
	LIMIT_POWER_LIMIT,
	LIMIT_LOWEST_STATE,
	LIMIT_SENSOR_FAULT,
	LIMIT_REASONS,
};

/**
 * struct limit_tracker - one zone's or actor's reasons.
 * @now: the reason of the last period.
 * @shown: the reason shown.
 * @shown_us: the last period whose reason was @shown (or a more severe
 *	one), monotonic µs.
 * @updated_us: the last period's time, monotonic µs (0: none yet).
 * @limited_us: the time spent with a reason other than none, µs (each
 *	interval counted with the reason at its start).
 */
struct limit_tracker {
	enum limit_reason now;
	enum limit_reason shown;
	uint64_t shown_us;
	uint64_t updated_us;
	uint64_t limited_us;
};

/**
 * struct limit_log - what the journal said of one zone's or actor's reason
 * shown (limit_log_due()).
 * @said: the reason last said (or the one shown when the log began).
 * @pending: the reason shown that differs from @said, since @pending_us.
 * @pending_us: since when @pending has been shown, monotonic µs.
 * @prompt: @pending is to be said at once: it had not been shown for
 *	LIMIT_HOLD_MS before.
 * @shown_us: per reason, the last period it was shown, monotonic µs (0:
 *	never).
 */
struct limit_log {
	enum limit_reason said;
	enum limit_reason pending;
	uint64_t pending_us;
	bool prompt;
	uint64_t shown_us[LIMIT_REASONS];
};

/**
 * limit_log_due() - whether the reason @shown in the period at @now_us
 * (monotonic, µs) is to be said in the journal now; if so it becomes the one
 * said.  A change to a reason not shown in the LIMIT_HOLD_MS before is said
 * in its first period (throttling that starts, or ends after the reason's
 * hold); a change back to one shown in that time only once it has been
 * shown for LIMIT_HOLD_MS on end.  So a device stepping between two states,
 * whose reason flips every period (the reason shown is not held through a
 * release: limit_track()), is said once, then only what holds 10 s, not once
 * per flip (issue 41: 26 lines in 12 s); D-Bus and the metrics still follow
 * every change of the reason shown.
 */
bool limit_log_due(struct limit_log *l, enum limit_reason shown, uint64_t now_us);

/** limit_reason_name() - "none", "temperature", "power-limit", "lowest-state", "sensor-fault". */
const char *limit_reason_name(enum limit_reason r);

/**
 * limit_track() - the period at @now_us (monotonic, us) had reason @now:
 * count the time since the previous period; show @now when it is as severe
 * as the reason shown or more, or when that one was last seen LIMIT_HOLD_MS
 * ago or more, or at once when @released: nothing is held back at all (an
 * idle zone, an actor at state 0 granted its maximum), which is no dip of a
 * bursty load under a grant that still holds it (@now is then none).
 */
void limit_track(struct limit_tracker *t, enum limit_reason now, uint64_t now_us,
		 bool released);
