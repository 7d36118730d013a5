/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The D-Bus interface (powerallocd(8), DBUS API): org.powerallocd1 on the
 * system bus, a Manager object and one object per zone and per actor, with
 * live values read from the engine when asked.  Control never waits on the
 * bus: without one, powerallocd logs once and tries again every few seconds.
 */
#include <stdbool.h>
#include <systemd/sd-event.h>

#include "engine/engine.h"
#include "power_limit.h"

#define BUS_NAME "org.powerallocd1"
#define BUS_PATH "/org/powerallocd1"
/*
 * The bus is dispatched after the control timer whenever both are ready
 * (sd-event priorities: lower runs first; the timer runs at NORMAL), and
 * sd-bus handles one message per dispatch, so a period waits for at most
 * one message's work.
 */
#define BUS_EVENT_PRIORITY (SD_EVENT_PRIORITY_NORMAL + 10)

struct bus;

/**
 * struct bus_view - what the bus shows, owned by the daemon.
 * @engine: zones and actors (their values are read at query time).
 * @state: the Manager's State: "controlling", "idle" or "no-zones".
 * @reload: called for Reload() from root; returns 0, or negative errno with
 *	the reason the configuration was rejected in @why (@why_size bytes).
 * @limit: the power cap SetPowerLimit() and ClearPowerLimit() change.
 */
struct bus_view {
	const struct engine *engine;
	const char *state;
	int (*reload)(void *userdata, char *why, size_t why_size);
	struct power_limit *limit;
	void *userdata;
};

/** bus_open() - connect (session bus when @session) and take the name; retries on its own. */
struct bus *bus_open(sd_event *event, bool session, const struct bus_view *view);

/** bus_zones_changed() - the zones and actors were rebuilt: objects vanish and appear. */
void bus_zones_changed(struct bus *b, size_t old_zones, size_t old_actors);

/** bus_zone_changed() - zone @i's property @prop (one that emits changes) changed. */
void bus_zone_changed(struct bus *b, size_t i, const char *prop);

/** bus_actor_changed() - actor @i's property @prop (one that emits changes) changed. */
void bus_actor_changed(struct bus *b, size_t i, const char *prop);

/** bus_power_limit_changed() - the power limit, its lease or whether it is met changed. */
void bus_power_limit_changed(struct bus *b);

/** bus_state_changed() - the Manager's State changed. */
void bus_state_changed(struct bus *b);

/** bus_close() - release the name and disconnect (NULL is fine). */
void bus_close(struct bus *b);
