/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The external power cap a fleet manager sets over D-Bus
 * (Manager.SetPowerLimit): its value, its lease (an sd-event timer on
 * CLOCK_MONOTONIC: unless renewed, the cap lifts when it ends, so a manager
 * that dies leaves no machine capped) and whether even the actors' lowest
 * states draw more than it.  The engine divides it (engine_share_cap()).
 */
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "engine/engine.h"

/**
 * struct power_limit - the cap and its lease.
 * @lease: the timer that lifts the cap when the lease ends.
 * @limit_mw: the cap on every actor together, mW (0: none).
 * @expires_us: when the lease ends, CLOCK_MONOTONIC µs (0: no cap).
 * @unmet: empty, or why the cap cannot be met (the lowest states draw more).
 * @changed: called after any of the above changed (the daemon applies the
 *	cap at once and tells the bus), with @userdata.
 */
struct power_limit {
	sd_event_source *lease;
	uint32_t limit_mw;
	uint64_t expires_us;
	char unmet[160];
	void (*changed)(void *userdata);
	void *userdata;
};

/** power_limit_init() - no cap; the lease timer on @event.  Return: 0 or negative errno. */
int power_limit_init(struct power_limit *l, sd_event *event, void (*changed)(void *userdata),
		     void *userdata);

/**
 * power_limit_set() - cap every actor together at @limit_mw for @lease_s
 * seconds from now (a renewal when a cap is set: the lease starts again).
 * Return: 0, or -EINVAL with the reason in @why (@why_size bytes): a limit
 * of 0, or a lease outside [POWER_LIMIT_LEASE_MIN_S, POWER_LIMIT_LEASE_MAX_S].
 */
int power_limit_set(struct power_limit *l, uint32_t limit_mw, uint32_t lease_s, char *why,
		    size_t why_size);

/** power_limit_clear() - lift the cap (ClearPowerLimit()); nothing when none is set. */
void power_limit_clear(struct power_limit *l);

/**
 * power_limit_note_lowest() - after a cycle of @e: what the actors draw at
 * their lowest states at full load, mW (e->lowest_mw); sets @unmet when that
 * is above the cap, and says so once in the journal with the actors that
 * cycle left at their lowest states and those it did not (engine_lowest_text()).
 */
void power_limit_note_lowest(struct power_limit *l, const struct engine *e);

/** power_limit_free() - drop the timer (the cap goes with the process). */
void power_limit_free(struct power_limit *l);
