/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "schedule.h"

#include <time.h>

void schedule_arm(const struct schedule *s, const struct engine *e, sd_event_source *tick)
{
	uint64_t now_us = 0, accuracy_us = 0, next;

	sd_event_now(sd_event_source_get_event(tick), CLOCK_MONOTONIC, &now_us);
	next = schedule_next(s, e, now_us, &accuracy_us);
	if (next == SCHEDULE_NEVER) {
		sd_event_source_set_enabled(tick, SD_EVENT_OFF);
		return;
	}
	sd_event_source_set_time(tick, next);
	sd_event_source_set_time_accuracy(tick, accuracy_us);
	sd_event_source_set_enabled(tick, SD_EVENT_ONESHOT);
}
