/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's clock: the loop's time, the zones' schedule and the tick
 * timer armed from it.  Called by the loop, the period (tick.c), the
 * rescan and the sleep watch; calls none of them.
 */
#include "daemon_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <systemd/sd-event.h>

uint64_t daemon_now_us(const struct daemon *d)
{
	uint64_t t = 0;

	sd_event_now(d->event, CLOCK_MONOTONIC, &t);
	return t;
}

int daemon_reset_schedule(struct daemon *d)
{
	size_t n = d->engine.n_zones ? d->engine.n_zones : 1;

	free(d->was_active);
	free(d->notes);
	free(d->actor_notes);
	d->was_active = calloc(n, sizeof(*d->was_active));
	d->notes = calloc(n, sizeof(*d->notes));
	d->actor_notes = calloc(d->engine.n_actors + 1, sizeof(*d->actor_notes));
	if (!d->was_active || !d->notes || !d->actor_notes)
		return -ENOMEM;
	for (size_t k = 0; k < d->engine.n_actors; k++)
		actor_notes_init(&d->actor_notes[k], d->engine.actors[k]->limit.shown);
	return schedule_reset(&d->schedule, d->engine.n_zones);
}

void daemon_arm_tick(struct daemon *d)
{
	if (!d->sleep.asleep && !d->tick_now)
		schedule_arm(&d->schedule, &d->engine, d->tick);
}

void daemon_tick_now(struct daemon *d)
{
	uint64_t now = daemon_now_us(d);

	if (d->sleep.asleep)
		return;
	d->tick_now = true;
	sd_event_source_set_time(d->tick, now);
	sd_event_source_set_time_accuracy(d->tick, 1);
	sd_event_source_set_enabled(d->tick, SD_EVENT_ONESHOT);
}
