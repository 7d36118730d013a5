/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * What the journal says about a zone's state, once per episode: switch-on
 * crossed, limits released (only once the zone has stayed under switch-on
 * for NOTES_RELEASE_QUIET_MS, so that a bursty load that dips under it
 * does not log a pair per burst), more than NOTES_OVER_MC over control,
 * an actor held at its lowest state for NOTES_LOWEST_MS (and by what: the
 * zone's budget, or its share of it), a learnt
 * sustainable power that departs from the given one; and a zone's or an
 * actor's limiting reason when the one shown changes (held for
 * LIMIT_HOLD_MS by lib/control/limit.h: one line per episode too), but a
 * change back to a reason said in the last LIMIT_LOG_QUIET_MS only once it
 * has held for LIMIT_HOLD_MS (limit_log_due(): no line per flip of a device
 * stepping between two states).
 */
#include <stdbool.h>
#include <stdint.h>

#include "engine/zone.h"

/* How long under switch-on before "released" (ms), how far over control before
 * "over control" (m°C), how long at the lowest state before it is said (ms). */
#define NOTES_RELEASE_QUIET_MS 10000
#define NOTES_OVER_MC 1000
#define NOTES_LOWEST_MS 10000

/**
 * struct zone_notes - what was said about one zone.
 * @controlling: "controlling" said and "released" not yet.
 * @idle_since_us: since when the zone has been under switch-on, monotonic
 *	µs; 0 while active.
 * @over: "over control" said, and the zone not back under control since.
 * @lowest_since_us: per actor, since when it has been at its deepest state,
 *	monotonic µs (0: not).
 * @lowest_said: per actor, that was said.
 * @reason: the zone's limiting reason shown as of its last period (D-Bus
 *	signals each change).
 * @reason_log: what the journal said of it.
 * @fault: the sensor fault last signalled on D-Bus (zone->sensing.fault_shown).
 * @tuned: the default controller was last said to run on the model.
 */
struct zone_notes {
	bool controlling;
	uint64_t idle_since_us;
	bool over;
	uint64_t lowest_since_us[ZONE_MAX_ACTORS];
	bool lowest_said[ZONE_MAX_ACTORS];
	enum limit_reason reason;
	struct limit_log reason_log;
	enum sensor_fault fault;
	bool tuned;
};

/**
 * zone_notes_update() - after a period of @z at @now_us: say what changed
 * (@z remembers that its learnt sustainable power was said to depart).
 */
void zone_notes_update(struct zone_notes *n, struct zone *z, uint64_t now_us);

/**
 * struct actor_notes - what was said about one actor.
 * @shown: its limiting reason shown as of the last period (D-Bus signals
 *	each change).
 * @log: what the journal said of it.
 */
struct actor_notes {
	enum limit_reason shown;
	struct limit_log log;
};

/** actor_notes_init() - notes of an actor whose reason shown is @shown, taken as said. */
void actor_notes_init(struct actor_notes *n, enum limit_reason shown);

/**
 * actor_notes_update() - after a period at @now_us (monotonic µs): note
 * @a's limiting reason shown, and say it when limit_log_due() (not even
 * formatted below the log level).
 * Return: whether the reason shown changed.
 */
bool actor_notes_update(struct actor_notes *n, const struct actor *a, uint64_t now_us);
