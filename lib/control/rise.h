/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * How fast a zone can heat, learnt from its own readings, so that a zone
 * below switch-on is not left to idle polling when the next idle period
 * could carry it past switch-on (a load that starts while it is idle: the
 * die heats in about a second, an idle poll is typically a second).
 */
#include <stdbool.h>
#include <stdint.h>

/**
 * struct rise_tracker - one zone's fastest recent rise.
 * @last_temp_mc: the previous reading, m°C.
 * @last_us: when it was taken, µs (any monotonic clock).
 * @max_rate_mc_per_s: the fastest rise between two readings seen lately,
 *	m°C per second; forgets with a time constant of RISE_FORGET_S.
 * @primed: false until the first reading.
 */
struct rise_tracker {
	int32_t last_temp_mc;
	uint64_t last_us;
	uint32_t max_rate_mc_per_s;
	bool primed;
};

/* A rise seen this many seconds ago counts for 1/e of what it did. */
#define RISE_FORGET_S 60

/**
 * rise_track() - account for a reading.
 * @t: the zone's tracker.
 * @temp_mc: the reading, m°C.
 * @now_us: when it was taken, µs; a reading at the same time as the
 *	previous one (or before it) only replaces it.
 */
void rise_track(struct rise_tracker *t, int32_t temp_mc, uint64_t now_us);

/**
 * rise_restart() - the next reading is a first one again (the machine
 * slept: the change since the last reading is no rate), keeping the rate
 * seen lately.
 */
void rise_restart(struct rise_tracker *t);

/**
 * rise_could_reach() - whether the zone, rising at the fastest rate seen,
 * could pass @threshold_mc within @horizon_ms of its last reading.
 * @t: the zone's tracker.
 * @threshold_mc: the temperature the zone acts at (switch-on), m°C.
 * @horizon_ms: the time to the next reading if nothing is done (the idle poll), ms.
 * @band_limit_mc: the furthest below @threshold_mc this answers true,
 *	m°C, however fast the zone has risen (a sensor glitch is not a rate to
 *	poll fast for); the zone's control - switch-on is a sensible value.
 */
bool rise_could_reach(const struct rise_tracker *t, int32_t threshold_mc, uint32_t horizon_ms,
		      uint32_t band_limit_mc);
