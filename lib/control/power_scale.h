/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * An actor's power model calibrated from its meter: the ratio of the power
 * a meter measures to the power the actor's table says (P = C V^2 f, or the
 * energy model, times the load), learnt online over the states the actor
 * visits.  Pure computation (no I/O, no clock, no allocation): the caller
 * feeds it, each period, the modelled and the measured power of that
 * period.  The method, the data behind scale-only versus scale and offset,
 * and the figures its tests measure are in doc/power-meters.md.
 *
 * Periods are summed into windows of POWER_SCALE_WINDOW_PERIODS periods at
 * least, and at least POWER_SCALE_WINDOW_SAMPLES of the meter's samples:
 * a window's mean measured power is compared with its mean modelled power,
 * so that a meter that holds a sample for many periods (an hwmon power
 * updated every second) is compared over the same stretch of time as the
 * model, not period by period.  Such a meter's sample is the mean power
 * over its sample period, read on average one sample period late: the
 * modelled power is delayed by the meter's sample period (to the period)
 * before it is summed.  An energy counter read every period (RAPL's
 * energy_uj, hwmon energyN_input) has a sample period of 0: no delay.
 *
 * Successive windows fit, by least squares with exponential forgetting,
 * measured = scale x modelled (+ offset_mw where the data asks for it:
 * the modelled powers spread, POWER_SCALE_OFFSET_MIN_CV, and the offset
 * halving the residual).
 */
#include <stdbool.h>
#include <stdint.h>

/* A sustained ratio outside this range: the meter and the model disagree. */
#define POWER_SCALE_MIN 0.3
#define POWER_SCALE_MAX 3.0

/* A window is this many periods at least ... */
#define POWER_SCALE_WINDOW_PERIODS 20
/* ... and this many of the meter's samples at least. */
#define POWER_SCALE_WINDOW_SAMPLES 4

/* The delay line of the modelled power, periods: a longer sample period is cut to it. */
#define POWER_SCALE_DELAY_PERIODS 32

/*
 * Each window's weight is multiplied by this at the next: a memory of ~20
 * windows (40 s at a 100 ms period), the time a changed scale takes to show.
 */
#define POWER_SCALE_FORGET 0.95

/* Windows whose mean modelled power is under this say nothing of the scale, mW. */
#define POWER_SCALE_MIN_MODEL_MW 10.0

/* This many windows in a row outside [POWER_SCALE_MIN, POWER_SCALE_MAX]: implausible. */
#define POWER_SCALE_IMPLAUSIBLE_WINDOWS 5

/* The offset is fitted only with the modelled powers' coefficient of variation over this. */
#define POWER_SCALE_OFFSET_MIN_CV 0.25

/* A resumed state counts as this many windows at most, so that a changed machine shows. */
#define POWER_SCALE_RESUME_WINDOWS 10.0

/** enum power_scale_event - what a period did. */
enum power_scale_event {
	POWER_SCALE_NONE,	/* accumulated (or ignored: invalid input) */
	POWER_SCALE_WINDOW,	/* a window closed and the estimate moved */
	POWER_SCALE_DROPPED,	/* the meter just became implausible: say it, once */
};

/**
 * struct power_scale_state - what resumes an estimator (saved between runs
 * with the thermal model): the forgotten sums over the windows, each
 * window's mean modelled power P and measured power M, mW.
 * @weight: sum of the windows' weights (effective windows).
 * @sum_p, @sum_m: sums of P and M, mW.
 * @sum_pp, @sum_pm, @sum_mm: sums of P², P M and M², mW².
 */
struct power_scale_state {
	double weight;
	double sum_p;
	double sum_m;
	double sum_pp;
	double sum_pm;
	double sum_mm;
};

/**
 * struct power_scale - one metered actor's estimator.
 * @window_us: a window's length, µs.
 * @delay_us: the modelled power's delay, µs (the meter's sample period).
 * @delay_mw, @delay_dt_us, @delay_head, @delay_n: the delay line: the
 *	modelled power and length of the last periods, oldest at @delay_head.
 * @delay_total_us: the time in the delay line.
 * @win_us, @win_model_us, @win_model_mws, @win_meas_mws: the window being
 *	filled: the meter's time and the delayed model's (µs), and the
 *	modelled and measured energies (mW µs).
 * @sums: the fit's sums (struct power_scale_state).
 * @bad_windows: windows in a row with a ratio out of range.
 * @implausible: the meter was dropped (sticky until power_scale_init()).
 * @window_ratio: the last window's measured / modelled power, one kept out
 *	of the fit included (what a dropped meter is said with); 0 before any.
 * @scale: measured / modelled power.
 * @offset_mw: the static offset, mW (0 with the scale-only fit).
 * @confidence: 0 (nothing learnt) to 1; see power_scale_feed().
 */
struct power_scale {
	uint64_t window_us;
	uint64_t delay_us;
	double delay_mw[POWER_SCALE_DELAY_PERIODS];
	uint64_t delay_dt_us[POWER_SCALE_DELAY_PERIODS];
	unsigned int delay_head;
	unsigned int delay_n;
	uint64_t delay_total_us;
	uint64_t win_us;
	uint64_t win_model_us;
	double win_model_mws;
	double win_meas_mws;
	struct power_scale_state sums;
	unsigned int bad_windows;
	bool implausible;
	double window_ratio;
	double scale;
	double offset_mw;
	double confidence;
};

/**
 * power_scale_init() - an estimator that knows nothing (scale 1, offset 0,
 * confidence 0).
 * @ps: the estimator.
 * @period_ms: the zone's control period, ms (1 at least).
 * @sample_ms: the meter's sample period, ms: how often its reading
 *	changes (an hwmon power's update_interval), 0 for an energy counter
 *	differenced every period.
 */
void power_scale_init(struct power_scale *ps, uint32_t period_ms, uint32_t sample_ms);

/**
 * power_scale_feed() - one period of a metered actor.
 * @ps: the estimator.
 * @elapsed_us: the period's length, µs (0 is ignored).
 * @model_mw: the power the actor's table gives for the state and the load
 *	it ran at during the period, mW.
 * @measured_mw: the meter over the same period, mW: an energy counter's
 *	difference over the period's time, or a held power sample as read.
 *
 * Each closed window updates the fit: the scale is the ratio of the
 * windows' summed measured to summed modelled power (scale-only), or the
 * least-squares line through them where the offset is worth it.  The
 * confidence is (1 - exp(-w / 4)) x 1 / (1 + (r / 0.25)^2) x (0.85 + 0.15
 * min(1, cv / 0.1)), w the effective windows, r the residual's standard
 * deviation relative to the mean measured power, cv the modelled powers'
 * coefficient of variation: 0.81 after 8 quiet windows over states that
 * spread (w = 6.6 with the forgetting), 0.69 at a single state, whose
 * ceiling is 0.85.
 * Windows under POWER_SCALE_MIN_MODEL_MW are skipped.
 * Return: POWER_SCALE_DROPPED once, the period the meter becomes
 * implausible (POWER_SCALE_IMPLAUSIBLE_WINDOWS windows in a row, or the
 * estimate, out of [POWER_SCALE_MIN, POWER_SCALE_MAX]); then NONE.
 */
enum power_scale_event power_scale_feed(struct power_scale *ps, uint64_t elapsed_us,
					double model_mw, double measured_mw);

/**
 * power_scale_break() - no valid reading this period (a meter that failed,
 * a gap between periods): the window being filled and the delay line are
 * dropped, the fit is kept.
 */
void power_scale_break(struct power_scale *ps);

/**
 * power_scale_apply_mw() - the power the silicon draws where the table
 * says @table_mw, mW: the estimate blended towards the table by its
 * confidence, scale' = 1 + c (scale - 1), offset' = c x offset; the table
 * itself while the meter is implausible.  Never negative.
 */
double power_scale_apply_mw(const struct power_scale *ps, double table_mw);

/**
 * power_scale_table_mw() - the inverse: the table's figure for a real
 * (measured) power @real_mw, mW: what a grant of @real_mw buys in the
 * table's terms.  Never negative.
 */
double power_scale_table_mw(const struct power_scale *ps, double real_mw);

/** power_scale_export() - the sums that resume @ps (struct power_scale_state). */
void power_scale_export(const struct power_scale *ps, struct power_scale_state *s);

/**
 * power_scale_import() - resume @ps, just initialised, from @s; its weight
 * cut to POWER_SCALE_RESUME_WINDOWS.
 * Return: 0; -EINVAL, @ps unchanged, when @s is no state an estimator can
 * be in (a number not finite or negative where it cannot be, sums that
 * no windows give) or when its estimate is implausible.
 */
int power_scale_import(struct power_scale *ps, const struct power_scale_state *s);
