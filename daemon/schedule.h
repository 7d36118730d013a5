/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * When each zone runs: at its period while it is active, limiting, blind or
 * rising fast enough to pass switch-on before its next idle poll; else at
 * the idle poll.  One sd-event timer serves every zone, so /proc/stat is
 * read once for all the zones due together.
 */
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "engine/engine.h"

/* A due time that never comes: the zone waits for an event. */
#define SCHEDULE_NEVER UINT64_MAX
/* Slowest polling of a zone whose step_wise fallback has a fan on, ms. */
#define SCHEDULE_FALLBACK_POLL_MS 1000
/*
 * The idle poll of a zone that no event can wake when idle_poll_ms = 0, ms:
 * without thermal netlink events, or when its switch-on is not one of its
 * thermal zone's trips (the kernel sends events only at its trips).
 */
#define SCHEDULE_NO_EVENTS_POLL_MS 1000

/**
 * struct schedule - per-zone due times for one engine.
 * @next_due_us: monotonic time each zone runs next, µs (SCHEDULE_NEVER: only
 *	on an event).
 * @due: per zone, whether it runs in this tick.
 * @idle_poll_ms: the poll of an idle zone, ms; 0 waits for events (but a
 *	zone whose switch-on is not a kernel trip is polled at
 *	SCHEDULE_NO_EVENTS_POLL_MS: schedule_polls_untripped()).
 */
struct schedule {
	uint64_t *next_due_us;
	bool *due;
	uint64_t idle_poll_ms;
};

/** schedule_reset() - arrays for @n_zones zones, every zone due now.  Return: 0 or -ENOMEM. */
int schedule_reset(struct schedule *s, size_t n_zones);

/** schedule_free() - free the arrays (idle_poll_ms stays). */
void schedule_free(struct schedule *s);

/**
 * schedule_polls_untripped() - whether idle zone @z is polled at
 * SCHEDULE_NO_EVENTS_POLL_MS although @s waits for events: its switch-on is
 * not a trip of its thermal zone (or it combines several), so no trip event
 * comes when it crosses switch-on.
 */
bool schedule_polls_untripped(const struct schedule *s, const struct zone *z);

/** schedule_mark_due() - set s->due for the zones due at @now_us (within 1 ms). */
void schedule_mark_due(struct schedule *s, const struct engine *e, uint64_t now_us);

/** schedule_ran() - zone @i ran at @now_us: when it runs next. */
void schedule_ran(struct schedule *s, const struct engine *e, size_t i, uint64_t now_us);

/** schedule_arm() - set @tick to the earliest due time, or disable it when none is. */
void schedule_arm(const struct schedule *s, const struct engine *e, sd_event_source *tick);
