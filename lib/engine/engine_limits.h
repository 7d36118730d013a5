/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Why each zone and actor is limited this period, from the engine's grants
 * (the reasons and how the one shown is held: limit.h).
 */
#include <stdbool.h>
#include <stdint.h>

#include "control/limit.h"

struct engine;
struct zone;

/**
 * zone_limit_reason() - why @z holds its actors back this period, after the
 * engine applied its grants: none when its budget covers their requests;
 * else sensor-fault without a temperature, lowest-state when every actor is
 * at its lowest state and the zone is still over control, power-limit when
 * the budget is the power cap's share (zone->period.cap_limited), else temperature.
 */
enum limit_reason zone_limit_reason(const struct zone *z);

/**
 * engine_track_limits() - after the grants of a cycle at @now_us were
 * applied: each zone that ran (@due, NULL for all) and every actor track
 * their reason.  An actor's is the most severe of the zones that hold it
 * below its request (step_wise, or its fallback: at a state above 0),
 * lowest-state when it is at its lowest state and that zone still over
 * control.  Each zone that ran also tracks the sensor fault it shows
 * (zone->sensing.fault_shown).  A fallback device is on for the temperature: never power-limit,
 * and never lowest-state (at its top state a fan cools as hard as it can;
 * it has no budget to be held under).
 */
void engine_track_limits(struct engine *e, uint64_t now_us, const bool *due);
