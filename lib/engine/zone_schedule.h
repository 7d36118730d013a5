/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * When each zone runs: at its period while it is active, limiting, blind or
 * rising fast enough to pass switch-on before its next idle poll; else at
 * the idle poll.  Pure decisions on the zones' state and monotonic times;
 * the daemon's one sd-event timer (daemon/schedule.c) is armed at
 * schedule_next(), so /proc/stat is read once for all the zones due
 * together.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

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

/**
 * schedule_idle_ms() - the idle poll of @z, ms: @s's idle_poll_ms;
 * SCHEDULE_NO_EVENTS_POLL_MS where no event would say that the zone crossed
 * switch-on (schedule_polls_untripped()); at most SCHEDULE_FALLBACK_POLL_MS
 * while a fallback device is on.  Return: ms, 0 when the zone waits for an
 * event.
 */
uint64_t schedule_idle_ms(const struct schedule *s, const struct zone *z);

/**
 * schedule_fast() - whether @z runs at its period (pid.period_ms) rather
 * than at its idle poll: while it is active, still limiting (an actor
 * granted under its maximum) or its sensor failed, and also while, rising
 * as fast as it lately did, it could pass switch-on before its next idle
 * poll: a load that starts while the zone is idle would otherwise go
 * unchecked for a whole idle poll, long enough for a die to heat past
 * control.
 */
bool schedule_fast(const struct schedule *s, const struct zone *z);

/** schedule_mark_due() - set s->due for the zones due at @now_us, µs (within 1 ms). */
void schedule_mark_due(struct schedule *s, const struct engine *e, uint64_t now_us);

/**
 * schedule_ran() - zone @i of @e ran at @now_us, µs: it runs next one
 * period later when schedule_fast(), else one schedule_idle_ms() later, or
 * on an event only (SCHEDULE_NEVER) when that is 0.  Sets s->next_due_us[@i].
 */
void schedule_ran(struct schedule *s, const struct engine *e, size_t i, uint64_t now_us);

/**
 * schedule_next() - when the timer fires next, and how late it may.
 * @now_us: the loop's monotonic time now, µs.
 * @accuracy_us: output: how far the wakeup may move to coalesce with
 *	others, µs: 1 ms while a zone runs fast or one is due now (a trip
 *	event, a new power limit); else a quarter of the idle poll
 *	(SCHEDULE_NO_EVENTS_POLL_MS's when idle_poll_ms is 0).  Untouched when
 *	none is due.
 * Return: the earliest due time of @e's zones, monotonic µs, or
 * SCHEDULE_NEVER when every zone waits for an event.
 */
uint64_t schedule_next(const struct schedule *s, const struct engine *e, uint64_t now_us,
		       uint64_t *accuracy_us);
