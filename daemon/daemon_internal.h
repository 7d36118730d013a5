/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The running daemon: its state, and what its parts call of each other.
 * Each calls only those below it: the loop (daemon.c); the period
 * (tick.c); the rescan (daemon_rescan.c); the stop (daemon_shutdown.c);
 * the sleep watch (sleep.c); the clock (clock.c).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "bus.h"
#include "daemon.h"
#include "engine/engine.h"
#include "metrics.h"
#include "model_store.h"
#include "netlink.h"
#include "power_limit.h"
#include "saved.h"
#include "schedule.h"
#include "sleep.h"
#include "trace.h"
#include "zone_notes.h"
#include "control/time_units.h"

/**
 * enum rescan_reason - why a rescan is pending, which says when it runs and
 * how it is said; each ranks above those listed before it.
 * @RESCAN_NONE: no rescan pending.
 * @RESCAN_RETRY: configured zones or devices are missing: look again in
 *	RESCAN_RETRY_US, said at debug level.
 * @RESCAN_DEVICES_CHANGED: devices came or went (a thermal netlink event,
 *	a device gone while written): rescan in RESCAN_DELAY_US, so that a
 *	burst of events is one rescan, said at info level.  (Both delays are
 *	daemon_rescan.c's.)
 */
enum rescan_reason {
	RESCAN_NONE,
	RESCAN_RETRY,
	RESCAN_DEVICES_CHANGED,
};

struct pa_config;

struct daemon {
	sd_event *event;
	sd_event_source *tick;
	sd_event_source *rescan;
	const struct options *opts;
	struct pa_config *config;
	struct engine engine;
	struct saved saved;
	struct model_store models;
	struct trace trace;
	struct netlink *netlink;
	struct bus *bus;
	struct bus_view view;
	struct power_limit limit;
	uint64_t start_us;
	struct schedule schedule;
	bool *was_active;
	struct zone_notes *notes;
	struct actor_notes *actor_notes;	/* per actor, its limiting reason shown and said */
	struct metrics metrics;
	struct sleep_watch sleep;
	bool ready;
	bool tick_now;	/* the tick is armed for now (daemon_tick_now()): no zone's due time moves it */
	enum rescan_reason rescan_why;	/* the highest reason of the rescan pending */
	bool looking;
	char status[512];
};

/** daemon_now_us() - the event loop's monotonic time of this iteration, us. */
uint64_t daemon_now_us(const struct daemon *d);

/**
 * daemon_reset_schedule() - per-zone schedule and reports for the current
 * engine; every zone due now.  An actor's limiting reason, carried over a
 * rebuild, is not said again.  Return: 0 or -ENOMEM.
 */
int daemon_reset_schedule(struct daemon *d);

/**
 * daemon_arm_tick() - the tick timer armed for the next zone due, or off
 * when none is; not while asleep, nor while it is armed for now.
 */
void daemon_arm_tick(struct daemon *d);

/**
 * daemon_tick_now() - the tick timer armed for now, whichever zones are
 * due: a period runs in the loop's next iteration and says the state of
 * every zone (a rebuild to no zones too); not while asleep.
 */
void daemon_tick_now(struct daemon *d);

/**
 * daemon_on_tick() - the tick timer's handler (tick.c): runs the zones due
 * now, reports them, and arms the tick for the next.  @userdata: the
 * daemon.  Return: 0.
 */
int daemon_on_tick(sd_event_source *s, uint64_t usec, void *userdata);

/**
 * daemon_schedule_rescan() - a rescan for @why (RESCAN_RETRY or
 * RESCAN_DEVICES_CHANGED) after its delay, unless one is armed sooner; the
 * rescan is said at the level of the highest reason pending.
 */
void daemon_schedule_rescan(struct daemon *d, enum rescan_reason why);

/**
 * daemon_build_engine() - engine_build() with descriptors held aside:
 * zones beyond the open files limit are skipped, and the state file,
 * netlink and the bus still find descriptors.  A rebuild builds while the
 * old engine is open, so it needs about twice the descriptors.  @say_all:
 * say again what the last build said.  Return: engine_build()'s.
 */
int daemon_build_engine(struct engine *e, const struct pa_config *cfg, bool say_all);

/**
 * daemon_rebuild() - replaces the engine with one built from @cfg.  A
 * @reload that cannot build every configured zone is rejected and the
 * running engine stays (an optional actor that is missing does not reject
 * it).  Return: 0, -EINVAL when rejected, or another negative errno.
 */
int daemon_rebuild(struct daemon *d, const struct pa_config *cfg, bool reload);

/**
 * daemon_retry_if_incomplete() - after every build: retry while configured
 * devices or zones are missing, said once when the daemon starts looking.
 */
void daemon_retry_if_incomplete(struct daemon *d);

/**
 * daemon_on_rescan() - the rescan timer's handler: rebuilds from the
 * running config and runs the tick.  @userdata: the daemon.  Return: 0.
 */
int daemon_on_rescan(sd_event_source *s, uint64_t usec, void *userdata);

/**
 * daemon_make_state_dir() - makes the directory of the state file
 * @state_path (mode 0700) when it is missing, as systemd makes the unit's
 * RuntimeDirectory: a daemon started from a shell has crash protection too.
 * Said; a parent that is missing is not made.
 */
void daemon_make_state_dir(const char *state_path);

/** daemon_save_state() - writes the state file; a daemon that cannot is still worth running. */
void daemon_save_state(struct daemon *d);

/**
 * daemon_teardown() - restores what was taken over and frees everything.
 * Return: files not restored.
 */
size_t daemon_teardown(struct daemon *d);
