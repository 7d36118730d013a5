/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "limit.h"

#include "enum_name.h"
#include "time_units.h"

static const char *const reason_names[LIMIT_REASONS] = {
	[LIMIT_NONE] = "none",
	[LIMIT_TEMPERATURE] = "temperature",
	[LIMIT_POWER_LIMIT] = "power-limit",
	[LIMIT_LOWEST_STATE] = "lowest-state",
	[LIMIT_SENSOR_FAULT] = "sensor-fault",
};

const char *limit_reason_name(enum limit_reason r)
{
	return ENUM_NAME(reason_names, r);
}

void limit_track(struct limit_tracker *t, enum limit_reason now, uint64_t now_us,
		 bool released)
{
	if (released)
		now = LIMIT_NONE;
	if (t->updated_us && now_us > t->updated_us && t->now != LIMIT_NONE)
		t->limited_us += now_us - t->updated_us;
	t->updated_us = now_us;
	t->now = now;
	if (released || now >= t->shown || now_us - t->shown_us >= LIMIT_HOLD_MS * USEC_PER_MSEC) {
		t->shown = now;
		t->shown_us = now_us;
	}
}
