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

bool limit_log_due(struct limit_log *l, enum limit_reason shown, uint64_t now_us)
{
	uint64_t last_us;

	if ((unsigned int)shown >= LIMIT_REASONS)
		return false;
	/* The reason the log began with was shown until now. */
	if (!l->shown_us[l->said])
		l->shown_us[l->said] = now_us;
	last_us = l->shown_us[shown];
	l->shown_us[shown] = now_us;
	if (shown == l->said) {
		l->pending = l->said;
		return false;
	}
	if (shown != l->pending) {
		l->pending = shown;
		l->pending_us = now_us;
		l->prompt = !last_us || now_us - last_us >= LIMIT_HOLD_MS * USEC_PER_MSEC;
	}
	if (!l->prompt && now_us - l->pending_us < LIMIT_HOLD_MS * USEC_PER_MSEC)
		return false;
	l->said = shown;
	l->pending = shown;
	return true;
}
