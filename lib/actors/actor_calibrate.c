/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An actor's power table calibrated from its meter (issue 35): the
 * estimator (control/power_scale.h) fed each period, and the table the
 * controller counts in rebuilt from the table as loaded at each window
 * that moved the estimate.  One calibrated table is the one place where
 * table watts become real watts: requests, maximum and minimum power, the
 * state a grant buys, dithering, floors and the efficiency order all read
 * it, so they all count the same watts (doc/power-meters.md).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "actor.h"
#include "platform/log.h"

/*
 * A reading this many periods after the last is a gap (an idle zone, a
 * sleep), not a late period: a loaded machine runs periods 2 x late.
 */
#define SCALE_GAP_PERIODS 4

void actor_start_calibration(struct actor *a, uint32_t period_ms)
{
	if (a->calibrating || !a->meter || !a->meter_owned || !a->table.n)
		return;
	a->model_table = a->table;
	a->calibrating = true;
	power_scale_init(&a->power_scale, period_ms ? period_ms : 1, a->meter->sample_ms);
	a->scale_fed_us = 0;
	a->scale_period_us = (uint64_t)(period_ms ? period_ms : 1) * 1000;
}

void actor_stop_calibration(struct actor *a)
{
	if (!a->calibrating)
		return;
	/* This period's grants were divided in the calibrated watts: restored at the next sample. */
	a->calibrating = false;
	a->table_due = true;
}

void actor_apply_table(struct actor *a)
{
	if (!a->table_due)
		return;
	a->table_due = false;
	if (a->calibrating)
		actor_calibrate_table(a);
	else
		a->table = a->model_table;
}

/* The ratio of real to table power at the powers the fit saw (1 before any window). */
static double table_ratio(const struct power_scale *ps)
{
	double p_mw = ps->sums.weight > 0 ? ps->sums.sum_p / ps->sums.weight : 0;

	/* Without an offset the ratio is the same at every power. */
	if (p_mw < POWER_SCALE_MIN_MODEL_MW)
		p_mw = 1000;
	return power_scale_apply_mw(ps, p_mw) / p_mw;
}

void actor_calibrate_table(struct actor *a)
{
	double ratio;

	if (!a->calibrating)
		return;
	ratio = table_ratio(&a->power_scale);
	a->table = a->model_table;
	for (size_t i = 0; i < a->table.n; i++) {
		struct power_entry *e = &a->table.entry[i];
		double uw = round(e->power_uw * ratio);

		e->power_uw = uw < UINT32_MAX ? (uint32_t)uw : UINT32_MAX;
		e->power_mw = e->power_uw / 1000;
	}
}

void actor_break_scale(struct actor *a)
{
	if (!a->calibrating)
		return;
	power_scale_break(&a->power_scale);
	a->scale_fed_us = 0;
	a->pending_us = 0;
	a->pending_model_mws = 0;
	a->pending_open = false;
}

/* The meter found implausible: said once, and the table as loaded from now on. */
static void scale_dropped(struct actor *a)
{
	pa_log(PA_LOG_WARNING, "%s: power meter %s reads %.2f x its power table, outside the "
	       "plausible %.1f-%.0f x; calibration dropped until a reload, going on from the "
	       "power table (check that the meter measures this actor's rail)", a->name,
	       a->meter->name, a->power_scale.window_ratio, POWER_SCALE_MIN, POWER_SCALE_MAX);
	actor_stop_calibration(a);
}

enum power_scale_event actor_feed_scale(struct actor *a, uint64_t now_us)
{
	enum power_scale_event ev;
	uint64_t elapsed_us;

	if (!a->calibrating || a->meter_read_us != now_us)
		return POWER_SCALE_NONE;	/* not read this period: its zone is idle or not due */
	elapsed_us = a->scale_fed_us && now_us > a->scale_fed_us ? now_us - a->scale_fed_us : 0;
	a->scale_fed_us = now_us;
	if ((!a->measured_valid && !a->meter_unmoved) || !elapsed_us ||
	    elapsed_us >= SCALE_GAP_PERIODS * a->scale_period_us) {
		actor_break_scale(a);
		a->scale_fed_us = now_us;
		/* A move or a first value read now: the next move counts from it. */
		a->pending_open = !a->meter_unmoved;
		return POWER_SCALE_NONE;
	}
	/* An energy counter slower than the period: its move measures every period since the last. */
	a->pending_us += elapsed_us;
	a->pending_model_mws += (double)a->model_mw * (double)elapsed_us;
	if (!a->measured_valid)
		return POWER_SCALE_NONE;
	if (!a->pending_open) {
		/* The first move since a break measures from before it: not counted. */
		a->pending_open = true;
		a->pending_us = 0;
		a->pending_model_mws = 0;
		return POWER_SCALE_NONE;
	}
	ev = power_scale_feed(&a->power_scale, a->pending_us,
			      a->pending_model_mws / (double)a->pending_us, a->measured_mw);
	a->pending_us = 0;
	a->pending_model_mws = 0;
	if (ev == POWER_SCALE_DROPPED) {
		scale_dropped(a);
	} else if (ev == POWER_SCALE_WINDOW) {
		a->table_due = true;	/* at the next sample: this period's grants are in */
		pa_log(PA_LOG_DEBUG, "%s: power scale %.3f, offset %.0f mW, confidence %.2f "
		       "(meter %s)", a->name, a->power_scale.scale, a->power_scale.offset_mw,
		       a->power_scale.confidence, a->meter->name);
	}
	return ev;
}

void actor_adopt_scale(struct actor *a, const struct actor *old)
{
	struct power_scale_state s;

	/* The same meter and the same table as loaded: a scale is a ratio to one table. */
	if (!a->calibrating || !old->calibrating || a->meter->id_len != old->meter->id_len ||
	    memcmp(a->meter->name, old->meter->name, a->meter->id_len) != 0 ||
	    a->model_table.n != old->model_table.n ||
	    memcmp(a->model_table.entry, old->model_table.entry,
		   a->model_table.n * sizeof(a->model_table.entry[0])) != 0)
		return;
	/* The same period and sample period: the whole estimator, windows being filled too. */
	if (a->power_scale.window_us == old->power_scale.window_us &&
	    a->power_scale.delay_us == old->power_scale.delay_us) {
		a->power_scale = old->power_scale;
		a->scale_fed_us = old->scale_fed_us;
	} else {
		power_scale_export(&old->power_scale, &s);
		power_scale_import(&a->power_scale, &s);
	}
	actor_calibrate_table(a);
}
