/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "zone_schedule.h"

#include <errno.h>
#include <stdlib.h>

#include "control/time_units.h"

int schedule_reset(struct schedule *s, size_t n_zones)
{
	size_t n = n_zones ? n_zones : 1;

	schedule_free(s);
	s->next_due_us = calloc(n, sizeof(*s->next_due_us));
	s->due = calloc(n, sizeof(*s->due));
	return s->next_due_us && s->due ? 0 : -ENOMEM;
}

void schedule_free(struct schedule *s)
{
	free(s->next_due_us);
	free(s->due);
	s->next_due_us = NULL;
	s->due = NULL;
}

static bool zone_limited(const struct zone *z)
{
	for (size_t i = 0; i < z->setup.n_actors; i++)
		if (z->setup.actors[i]->granted_mw < z->setup.actors[i]->max_mw)
			return true;
	return false;
}

bool schedule_polls_untripped(const struct schedule *s, const struct zone *z)
{
	return s->idle_poll_ms == 0 && !z->setup.always_on && !z->setup.switch_on_trip;
}

uint64_t schedule_idle_ms(const struct schedule *s, const struct zone *z)
{
	uint64_t idle_ms = s->idle_poll_ms;

	if (schedule_polls_untripped(s, z))
		idle_ms = SCHEDULE_NO_EVENTS_POLL_MS;
	if (zone_fallback_engaged(z) && (idle_ms == 0 || idle_ms > SCHEDULE_FALLBACK_POLL_MS))
		idle_ms = SCHEDULE_FALLBACK_POLL_MS;
	return idle_ms;
}

bool schedule_fast(const struct schedule *s, const struct zone *z)
{
	uint64_t idle_ms = schedule_idle_ms(s, z);

	if (z->control.active || zone_limited(z) || z->sensing.sensor_failed)
		return true;
	return idle_ms &&
	       rise_could_reach(&z->sensing.rise, z->setup.switch_on_mc, (uint32_t)idle_ms,
				(uint32_t)(z->setup.control_mc - z->setup.switch_on_mc));
}

void schedule_mark_due(struct schedule *s, const struct engine *e, uint64_t now_us)
{
	for (size_t i = 0; i < e->n_zones; i++)
		s->due[i] = s->next_due_us[i] <= now_us + USEC_PER_MSEC;
}

void schedule_ran(struct schedule *s, const struct engine *e, size_t i, uint64_t now_us)
{
	const struct zone *z = &e->zones[i];
	uint64_t idle_ms = schedule_idle_ms(s, z);

	if (schedule_fast(s, z))
		s->next_due_us[i] = now_us + z->setup.pid.period_ms * USEC_PER_MSEC;
	else
		s->next_due_us[i] = idle_ms ? now_us + idle_ms * USEC_PER_MSEC : SCHEDULE_NEVER;
}

uint64_t schedule_next(const struct schedule *s, const struct engine *e, uint64_t now_us,
		       uint64_t *accuracy_us)
{
	uint64_t next = SCHEDULE_NEVER, accuracy = USEC_PER_MSEC;
	bool fast = false;

	for (size_t i = 0; i < e->n_zones; i++) {
		if (s->next_due_us[i] < next)
			next = s->next_due_us[i];
		fast |= schedule_fast(s, &e->zones[i]);
	}
	if (next == SCHEDULE_NEVER)
		return next;
	/*
	 * Idle: let the wakeup move by a quarter of the poll so it coalesces;
	 * not one due now (a trip event, a new power limit), which sd-event
	 * would otherwise put at the end of that window, a quarter of the
	 * poll late.
	 */
	if (!fast && next > now_us + USEC_PER_MSEC)
		accuracy = (s->idle_poll_ms ? s->idle_poll_ms : SCHEDULE_NO_EVENTS_POLL_MS) *
			   USEC_PER_MSEC / 4;
	*accuracy_us = accuracy ? accuracy : USEC_PER_MSEC;
	return next;
}
