/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Power meters that lie: stops, jumps and unexpected wraps (meter_fault.h). */
#include "meter_fault.h"

#include "enum_name.h"

static const char *const fault_names[] = {
	[METER_OK] = "ok",
	[METER_VANISHED] = "vanished",
	[METER_UNREADABLE] = "unreadable",
	[METER_STOPPED] = "stopped",
	[METER_JUMP] = "jumped",
	[METER_BACKWARDS] = "went backwards",
};

const char *meter_fault_name(enum meter_fault fault)
{
	return ENUM_NAME(fault_names, fault);
}

uint64_t energy_delta(uint64_t prev, uint64_t cur, uint64_t range)
{
	if (cur >= prev)
		return cur - prev;
	return range >= prev ? range - prev + cur : cur;
}

/*
 * Counts a read at @now_us that did not move; whether the meter has now
 * stopped: unmoved for max(METER_STOP_US, METER_STOP_SAMPLES sample
 * periods) of time, over METER_STOP_MIN_READS reads at least.
 */
static bool stopped(struct meter_track *t, uint64_t now_us, bool moved, bool drawing)
{
	uint64_t hold_us = (uint64_t)METER_STOP_SAMPLES * t->sample_us;

	if (moved || !drawing || now_us < t->still_since_us) {	/* or a new time base */
		t->same = 0;
		t->still_since_us = now_us;
		return false;
	}
	if (hold_us < METER_STOP_US)
		hold_us = METER_STOP_US;
	return ++t->same >= METER_STOP_MIN_READS && now_us - t->still_since_us >= hold_us;
}

/* A wrap is expected where the counter has a range and the energy through it is plausible. */
static bool wrap_expected(const struct meter_track *t, uint64_t cur, uint64_t dt_us)
{
	uint64_t prev = (uint64_t)t->last_value;

	if (t->range_uj == 0 || prev > t->range_uj || cur > t->range_uj)
		return false;
	/* mW * µs / 1000 = µJ: without a bound, any wrap within the range is taken. */
	return t->max_mw == 0 ||
	       energy_delta(prev, cur, t->range_uj) <= (uint64_t)t->max_mw * dt_us / 1000;
}

static int energy_step(struct meter_track *t, int64_t value, uint64_t now_us, bool drawing,
		       uint32_t *power_mw)
{
	uint64_t dt_us, delta_uj, mw;
	bool backwards;

	/* The first value, or a clock that did not move on (a new time base): start from here. */
	if (!t->have_last || now_us <= t->last_us) {
		t->have_last = true;
		t->last_value = value;
		t->last_us = now_us;
		t->same = 0;
		t->still_since_us = now_us;
		return 0;
	}
	if (stopped(t, now_us, value != t->last_value, drawing))
		return -METER_STOPPED;
	if (value == t->last_value)
		return 0;	/* nothing counted yet: the next move averages over the wait */
	dt_us = now_us - t->last_us;
	backwards = value < t->last_value && !wrap_expected(t, (uint64_t)value, dt_us);
	delta_uj = energy_delta((uint64_t)t->last_value, (uint64_t)value, t->range_uj);
	/* 1000 µJ / µs = mW; a delta too large to scale is a jump. */
	mw = delta_uj <= UINT64_MAX / 1000 ? 1000 * delta_uj / dt_us : UINT64_MAX;
	/* Whatever it says, the next reading counts from this value. */
	t->last_value = value;
	t->last_us = now_us;
	if (backwards)
		return -METER_BACKWARDS;
	if ((t->max_mw && mw > t->max_mw) || mw > UINT32_MAX)
		return -METER_JUMP;
	*power_mw = (uint32_t)mw;
	return 1;
}

int meter_track_step(struct meter_track *t, int64_t value, uint64_t now_us, bool drawing,
		     uint32_t *power_mw)
{
	int64_t mw = value / 1000;	/* µW -> mW */
	bool moved;

	if (value < 0)
		return -METER_JUMP;
	if (t->energy)
		return energy_step(t, value, now_us, drawing, power_mw);
	if ((t->max_mw && mw > t->max_mw) || mw > UINT32_MAX)
		return -METER_JUMP;
	moved = !t->have_last || value != t->last_value;
	t->have_last = true;
	t->last_value = value;
	t->last_us = now_us;
	if (stopped(t, now_us, moved, drawing))
		return -METER_STOPPED;
	*power_mw = (uint32_t)mw;
	return 1;
}
