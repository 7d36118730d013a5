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
 * Feeds a power meter's @model_mw read at @now_us into the model's mean
 * over about METER_MODEL_TAU_US (µW, so that it decays to 0): a burst in
 * one period does not stand for the load; a read that follows the last by
 * that time or more (a long period, a zone that was idle) is the mean.
 * METER_MODEL_UNKNOWN starts it again.
 */
static void model_feed(struct meter_track *t, uint64_t now_us, uint32_t model_mw)
{
	/* @read_us: the last read's time, which fed the mean too (still_restart(), stopped()). */
	uint64_t dt_us = now_us - t->read_us, model_uw = (uint64_t)model_mw * 1000;

	if (model_mw == METER_MODEL_UNKNOWN || t->model_fed_us == 0 || now_us < t->read_us) {
		t->model_mean_uw = model_uw;
		t->model_fed_us = model_mw == METER_MODEL_UNKNOWN ? 0 : 1;	/* 1: fed, no time yet */
		t->base_known = false;
	} else {
		uint64_t w_us = dt_us < METER_MODEL_TAU_US ? dt_us : METER_MODEL_TAU_US;

		/* µW x µs / µs: the step towards @model_mw in w of the time constant. */
		t->model_mean_uw = (uint64_t)((int64_t)t->model_mean_uw +
					      ((int64_t)model_uw - (int64_t)t->model_mean_uw) *
					      (int64_t)w_us / METER_MODEL_TAU_US);
		t->model_fed_us = t->model_fed_us <= UINT64_MAX - dt_us ? t->model_fed_us + dt_us
									: UINT64_MAX;
	}
}

/* The model's mean, mW, once fed for METER_MODEL_SETTLE_US (a load, not a sample); else -1. */
static int64_t model_mean_mw(const struct meter_track *t)
{
	return t->model_fed_us >= METER_MODEL_SETTLE_US ? (int64_t)(t->model_mean_uw / 1000) : -1;
}

/*
 * A new run of reads on one value from @now_us: the value changed (or a new
 * time base); a power is judged from the model's mean now, once it settled.
 */
static void still_restart(struct meter_track *t, uint64_t now_us)
{
	int64_t mean_mw = model_mean_mw(t);

	t->same = 0;
	t->still_us = 0;
	t->owed_uj = 0;
	t->read_us = now_us;
	t->base_known = mean_mw >= 0;
	t->base_model_mw = mean_mw >= 0 ? (uint32_t)mean_mw : 0;
}

/*
 * @t's step learnt from a change of @delta (µW or µJ) between two values it
 * showed, @larger the larger of them: a power's change of more than
 * METER_STEP_MAX_PCT of it is the load's move, not the meter's resolution.
 */
static void learn_step(struct meter_track *t, uint64_t delta, uint64_t larger)
{
	if (!t->energy && delta * 100 > METER_STEP_MAX_PCT * larger)
		return;
	if (delta && (!t->step || delta < t->step))
		t->step = delta;
}

/*
 * Whether the model's mean moved from where it was when the value last
 * changed (meter_fault.h); where that was not settled yet, the first
 * settled mean is where it is judged from.
 */
static bool model_moved(struct meter_track *t)
{
	int64_t mean_mw = model_mean_mw(t);
	uint64_t now_mw, hi, d_mw;

	if (mean_mw < 0)
		return false;
	now_mw = (uint64_t)mean_mw;
	if (!t->base_known) {
		t->base_model_mw = (uint32_t)now_mw;
		t->base_known = true;
		return false;
	}
	hi = now_mw > t->base_model_mw ? now_mw : t->base_model_mw;
	d_mw = hi - (now_mw < t->base_model_mw ? now_mw : t->base_model_mw);
	/* mW x 1000 = µW, the unit of a power meter's step. */
	return d_mw * 100 > METER_MOVE_PCT * hi && d_mw > METER_MOVE_MIN_MW &&
	       d_mw * 1000 > METER_MOVE_STEPS * t->step;
}

/*
 * Counts a read at @now_us on the value of the last one; whether the meter
 * has now stopped.  @counts: the machine says the value should have moved
 * (meter_fault.h); its time, at most METER_MODEL_TAU_US or a sample period
 * a read (a zone idle in between did not read it), and the energy of
 * @model_mw over it (an energy counter's) are added then.
 */
static bool stopped(struct meter_track *t, uint64_t now_us, bool counts, uint32_t model_mw)
{
	uint64_t hold_us = (uint64_t)METER_STOP_SAMPLES * t->sample_us, dt_us, most_us, uj;

	if (now_us < t->read_us) {	/* a new time base */
		still_restart(t, now_us);
		return false;
	}
	dt_us = now_us - t->read_us;
	most_us = t->sample_us > METER_MODEL_TAU_US ? t->sample_us : METER_MODEL_TAU_US;
	dt_us = dt_us < most_us ? dt_us : most_us;
	t->read_us = now_us;
	if (!counts)
		return false;
	/* mW x µs / 1000 = µJ, saturating (a sample period of over an hour at 4 GW). */
	uj = dt_us <= UINT64_MAX / UINT32_MAX ? (uint64_t)model_mw * dt_us / 1000 : UINT64_MAX;
	t->owed_uj = t->owed_uj <= UINT64_MAX - uj ? t->owed_uj + uj : UINT64_MAX;
	t->still_us += dt_us;
	t->same++;
	if (hold_us < METER_STOP_US)
		hold_us = METER_STOP_US;
	return t->same >= METER_STOP_MIN_READS && t->still_us >= hold_us &&
	       (!t->energy || t->owed_uj / METER_MOVE_STEPS >= t->step);
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

static int energy_step(struct meter_track *t, int64_t value, uint64_t now_us, uint32_t model_mw,
		       uint32_t *power_mw)
{
	uint64_t dt_us, delta_uj, mw;
	bool backwards;

	/* The first value, or a clock that did not move on (a new time base): start from here. */
	if (!t->have_last || now_us <= t->last_us) {
		t->have_last = true;
		t->last_value = value;
		t->last_us = now_us;
		still_restart(t, now_us);
		return 0;
	}
	/* Nothing counted yet: stopped where it should have, else the next move averages over the wait. */
	if (value == t->last_value)
		return stopped(t, now_us, model_mw > 0 && model_mw != METER_MODEL_UNKNOWN,
			       model_mw) ? -METER_STOPPED : 0;
	still_restart(t, now_us);
	dt_us = now_us - t->last_us;
	backwards = value < t->last_value && !wrap_expected(t, (uint64_t)value, dt_us);
	delta_uj = energy_delta((uint64_t)t->last_value, (uint64_t)value, t->range_uj);
	if (value > t->last_value)
		learn_step(t, delta_uj, (uint64_t)value);
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

int meter_track_step(struct meter_track *t, int64_t value, uint64_t now_us, uint32_t model_mw,
		     uint32_t *power_mw)
{
	int64_t mw = value / 1000;	/* µW -> mW */

	if (value < 0)
		return -METER_JUMP;
	if (t->energy)
		return energy_step(t, value, now_us, model_mw, power_mw);
	if ((t->max_mw && mw > t->max_mw) || mw > UINT32_MAX)
		return -METER_JUMP;
	model_feed(t, now_us, model_mw);
	if (t->have_last && value == t->last_value) {
		if (stopped(t, now_us, model_moved(t), model_mw))
			return -METER_STOPPED;
	} else {
		if (t->have_last)
			learn_step(t, (uint64_t)(value > t->last_value ? value - t->last_value
								   : t->last_value - value),
				   (uint64_t)(value > t->last_value ? value : t->last_value));
		t->have_last = true;
		t->last_value = value;
		still_restart(t, now_us);
	}
	*power_mw = (uint32_t)mw;
	return 1;
}
