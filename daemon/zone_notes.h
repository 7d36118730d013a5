/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * What the journal says about a zone's state, once per episode: switch-on
 * crossed, limits released (only once the zone has stayed under switch-on
 * for NOTES_RELEASE_QUIET_MS, so that a bursty load that dips under it
 * does not log a pair per burst), more than NOTES_OVER_MC over control,
 * an actor held at its lowest state for NOTES_LOWEST_MS, and the default
 * controller taking its tuning from the zone's thermal model or leaving it.
 */
#include <stdbool.h>
#include <stdint.h>

#include "zone.h"

#define NOTES_RELEASE_QUIET_MS 10000
#define NOTES_OVER_MC 1000
#define NOTES_LOWEST_MS 10000

/**
 * struct zone_notes - what was said about one zone.
 * @controlling: "controlling" said and "released" not yet.
 * @idle_since_us: since when the zone has been under switch-on, 0 while active.
 * @over: "over control" said, and the zone not back under control since.
 * @lowest_since_us: per actor, since when it has been at its deepest state (0: not).
 * @lowest_said: per actor, that was said.
 * @tuned: the controller was last said to run on the model.
 */
struct zone_notes {
	bool controlling;
	uint64_t idle_since_us;
	bool over;
	uint64_t lowest_since_us[ZONE_MAX_ACTORS];
	bool lowest_said[ZONE_MAX_ACTORS];
	bool tuned;
};

/**
 * zone_notes_update() - after a period of @z at @now_us: say what changed,
 * and once that the learnt sustainable power departs from the one the zone
 * was given (marked in z->model_departure_said, which a rebuild keeps).
 */
void zone_notes_update(struct zone_notes *n, struct zone *z, uint64_t now_us);
