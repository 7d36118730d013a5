/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The power allocator's PID controller.
 *
 * Units follow the kernel: temperatures and errors in m°C, powers in mW,
 * gains and intermediate terms in Q10 fixed point (fixed_point.h).  The
 * kernel mode reproduces drivers/thermal/gov_power_allocator.c, including
 * its quirks, so that its output can be compared to the mW; the default mode
 * changes only what struct pid_fixes lists.
 */
#include "pid.h"

#include <errno.h>
#include <stdlib.h>

#include "fixed_point.h"

/* A long run with k_i = 0 integrates forever; saturate instead of overflowing. */
#define ERR_INTEGRAL_LIMIT (INT64_C(1) << 52)
/*
 * The kernel keeps the Q10 error in an s32, i.e. within +-2^21 m°C (2097 °C);
 * clamping to that keeps every product below 2^63 whatever the sensor says.
 */
#define ERR_LIMIT_MC (INT64_C(1) << 21)
/* Each term is saturated to +-2^42 mW (in Q10) before they are added. */
#define TERM_LIMIT (INT64_C(1) << 52)

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

int pid_default_gains(uint32_t sustainable_power_mw, int32_t switch_on_mc,
		      int32_t control_mc, struct pid_gains *gains)
{
	/* The kernel computes these in u32; u64 keeps huge SP from wrapping. */
	uint64_t sp = sustainable_power_mw;
	uint64_t dt;
	int64_t k_i;

	if (control_mc <= switch_on_mc)
		return -EINVAL;
	dt = (uint64_t)((int64_t)control_mc - switch_on_mc);
	gains->k_po = (int32_t)clamp64((int64_t)((sp << FRAC_BITS) / dt), 0, INT32_MAX);
	gains->k_pu = (int32_t)clamp64((int64_t)((2 * sp << FRAC_BITS) / dt), 0, INT32_MAX);
	k_i = gains->k_pu / 10;
	gains->k_i = k_i > 0 ? (int32_t)k_i : 1;
	gains->k_d = 0;
	gains->integral_cutoff_mc = 0;
	return 0;
}

void pid_tune_gains(struct pid_gains *gains)
{
	gains->k_po = (int32_t)clamp64((int64_t)gains->k_po * 3, 0, INT32_MAX);
}

void pid_default_fixes(struct pid_fixes *fixes)
{
	fixes->integral_bleed_q10 = 256;	/* a quarter of the integration rate */
	fixes->integral_under_q10 = 128;	/* an eighth: conf(5) */
	fixes->clamp_sustainable_power = true;
	fixes->tuned_gains = true;
	fixes->control_margin_mc = 50;	/* the simulated boards' OPP ripple grazed 0.01-0.08 °C */
	fixes->dither_grants = false;	/* spends more, rides 0.02-0.15 °C over control */
	fixes->saturated_request = true;
	fixes->trust_sustainable_power = false;	/* 4 x too high: 0.45-1.40 °C over, not 0 */
}

uint32_t pid_control_margin_limit_mc(int32_t switch_on_mc, int32_t control_mc)
{
	return control_mc > switch_on_mc ? (uint32_t)((int64_t)control_mc - switch_on_mc) / 2 : 0;
}

void pid_reset(struct pid_state *state)
{
	state->err_integral = 0;
	state->under_integral = 0;
	state->prev_err = 0;
	state->d_filtered = 0;
	state->primed = false;
	state->trend_lost = false;
	state->held_back = false;
}

void pid_forget_trend(struct pid_state *state)
{
	state->d_filtered = 0;
	state->trend_lost = true;
}

/*
 * The kernel's integral: accumulate while err < cutoff, but only if the
 * resulting term stays strictly inside +-max_power; otherwise freeze.
 * Returns the term, Q10 mW.
 */
static int64_t integral_kernel(const struct pid_gains *g, struct pid_state *s,
			       int64_t err, uint32_t max_power_mw)
{
	int64_t i = mul_frac(g->k_i, s->err_integral);

	if (err < int_to_frac(g->integral_cutoff_mc)) {
		int64_t i_next = i + mul_frac(g->k_i, err);

		if (llabs(i_next) < int_to_frac(max_power_mw)) {
			i = i_next;
			s->err_integral = clamp64(s->err_integral + err,
						  -ERR_INTEGRAL_LIMIT, ERR_INTEGRAL_LIMIT);
		}
	}
	return i;
}

/*
 * Unwinds the integral towards zero, at @integral_bleed times the rate the
 * opposite error would integrate at, without crossing zero.
 */
static void integral_bleed(const struct pid_fixes *f, struct pid_state *s, int64_t err)
{
	int64_t step;

	if (!f->integral_bleed_q10 || err == 0 || s->err_integral == 0 ||
	    (err > 0) == (s->err_integral > 0))
		return;
	step = err * (int64_t)f->integral_bleed_q10 / FRAC_ONE;
	if (llabs(step) >= llabs(s->err_integral))
		s->err_integral = 0;
	else
		s->err_integral += step;
}

/*
 * The error integral_under works on, Q10 m°C: what is left beyond
 * PID_UNDER_BAND control margins under the aim.  The margin is the room
 * left above the aim for the zone's OPP ripple, which swings as far below
 * it; learning inside the ripple would only lift its top through the
 * margin, while the offset p leaves under a burst is far outside it.
 */
static int64_t under_error(const struct pid_fixes *f, int64_t err)
{
	return err - int_to_frac((int64_t)f->control_margin_mc * PID_UNDER_BAND);
}

/*
 * The part of the integral learnt under the aim, Q10 mW: while a saturated
 * actor is held back, the error beyond the band at integral_under times
 * the rate.  It is kept apart from err_integral so that it can be capped on
 * its own every period, held back or not, at PID_UNDER_CAP times p on that
 * error: the cap shrinks as the zone warms and is 0 from the band's edge
 * up, so nothing learnt on the way up is left to carry the zone over
 * control.
 */
/*
 * The most under_integral may hold on @err_under (under_error()'s, > 0) under
 * @g, Q10 m°C: PID_UNDER_CAP times p on it.  Compared as integrals, not
 * terms, so that k_i * under_integral is only formed once it is within the
 * cap (<= 2^62).
 */
static int64_t under_limit(const struct pid_gains *g, int64_t err_under)
{
	int64_t cap = clamp64(mul_frac(g->k_pu, err_under) * PID_UNDER_CAP, 0, TERM_LIMIT);

	return int_to_frac(cap) / g->k_i;
}

static int64_t integral_under(const struct pid_params *pp, struct pid_state *s, int64_t err)
{
	const struct pid_gains *g = &pp->gains;

	if (!pp->fixes.integral_under_q10 || g->k_i <= 0) {
		s->under_integral = 0;
		return 0;
	}
	err = under_error(&pp->fixes, err);
	if (err <= 0) {
		s->under_integral = 0;
		return 0;
	}
	if (s->held_back)
		s->under_integral += err * pp->fixes.integral_under_q10 / FRAC_ONE;
	s->under_integral = clamp64(s->under_integral, 0, under_limit(g, err));
	return mul_frac(g->k_i, s->under_integral);
}

/*
 * The wide bound: accumulate while err < cutoff and clamp so that
 * |i| <= bound, where the bound leaves room to cancel the feed-forward.
 */
static int64_t integral_wide(const struct pid_gains *g, struct pid_state *s, int64_t err,
			     uint32_t sp_mw, uint32_t max_power_mw)
{
	int64_t bound, limit;

	if (g->k_i <= 0)
		return 0;
	bound = int_to_frac((int64_t)max_power_mw + sp_mw);
	/* Largest |err_integral| whose term mul_frac(k_i, .) stays within bound. */
	limit = clamp64(int_to_frac(bound) / g->k_i, 0, ERR_INTEGRAL_LIMIT);
	if (err < int_to_frac(g->integral_cutoff_mc))
		s->err_integral = clamp64(s->err_integral + err, -limit, limit);
	else
		s->err_integral = clamp64(s->err_integral, -limit, limit);
	return mul_frac(g->k_i, s->err_integral);
}

/* Default mode integral: the bled integral under the wide bound, plus what integral_under learnt. */
static int64_t integral_default(const struct pid_params *pp, struct pid_state *s,
				int64_t err, uint32_t sp_mw, uint32_t max_power_mw)
{
	integral_bleed(&pp->fixes, s, err);
	return integral_wide(&pp->gains, s, err, sp_mw, max_power_mw) +
	       integral_under(pp, s, err);
}

/* err - prev_err, bounded like err itself so that k_d * derr fits. */
static int64_t error_change(const struct pid_state *s, int64_t err)
{
	return clamp64(err - s->prev_err, -int_to_frac(ERR_LIMIT_MC), int_to_frac(ERR_LIMIT_MC));
}

/*
 * The kernel's derivative, Q10 mW: div_frac(mul_frac(k_d, derr), period_ms)
 * treats the period as Q10 although it is an integer, so the term comes out
 * 1024 times larger than its formula; prev_err starts at 0 after a reset.
 */
static int64_t derivative_kernel(const struct pid_params *pp, struct pid_state *s, int64_t err)
{
	int64_t d = mul_frac(pp->gains.k_d, error_change(s, err));

	return int_to_frac(d) / (int64_t)(pp->period_ms ? pp->period_ms : 1);
}

/*
 * Default mode derivative, Q10 mW: k_d * (err - prev_err) / period with the
 * units its formula says, no kick on the first period after a reset (the
 * previous error is taken to be the current one), and low-pass filtered
 * with alpha = 1 / (1 + PID_DERIVATIVE_FILTER_PERIODS).
 */
static int64_t derivative_default(const struct pid_params *pp, struct pid_state *s, int64_t err)
{
	uint32_t period = pp->period_ms;
	int64_t d;

	if (!s->primed)
		s->prev_err = err;
	d = mul_frac(pp->gains.k_d, error_change(s, err)) / (int64_t)(period ? period : 1);
	if (!s->primed) {
		s->d_filtered = d;
		return d;
	}
	s->d_filtered += (d - s->d_filtered) / (1 + PID_DERIVATIVE_FILTER_PERIODS);
	return s->d_filtered;
}

static uint32_t effective_sustainable_power(const struct pid_params *pp,
					    uint32_t min_power_mw, uint32_t max_power_mw)
{
	uint32_t sp = pp->sustainable_power_mw;

	if (pp->mode != PID_MODE_DEFAULT || !pp->fixes.clamp_sustainable_power)
		return sp;
	if (sp > max_power_mw)
		sp = max_power_mw;
	if (sp < min_power_mw)
		sp = min_power_mw;
	return sp;
}

/* The proportional term on @err_q10 (Q10 m°C) under @g, Q10 mW. */
static int64_t proportional(const struct pid_gains *g, int64_t err_q10)
{
	return clamp64(mul_frac(err_q10 < 0 ? g->k_po : g->k_pu, err_q10), -TERM_LIMIT, TERM_LIMIT);
}

void pid_retune(const struct pid_params *from, const struct pid_params *to,
		struct pid_state *state, uint32_t min_power_mw, uint32_t max_power_mw)
{
	int64_t i, ff_from, ff_to;

	int64_t under, err_under, limit;

	if (!state->primed || to->gains.k_i <= 0)
		return;
	ff_from = effective_sustainable_power(from, min_power_mw, max_power_mw);
	ff_to = effective_sustainable_power(to, min_power_mw, max_power_mw);
	i = mul_frac(from->gains.k_i, state->err_integral) + int_to_frac(ff_from - ff_to) +
	    proportional(&from->gains, state->prev_err) - proportional(&to->gains, state->prev_err);
	under = state->under_integral * from->gains.k_i / to->gains.k_i;
	/*
	 * What the new gains' cap on the under integral (integral_under())
	 * would cut off at the next period goes to the wide integral instead,
	 * so that the budget does not drop at the switch (first approach under
	 * a prior 4 x too high, engaging 0.2 °C under the aim: -481 of 1755 mW).
	 */
	err_under = under_error(&to->fixes, state->prev_err);
	limit = err_under > 0 && to->fixes.integral_under_q10 ? under_limit(&to->gains, err_under) : 0;
	if (under > limit) {
		i += mul_frac(to->gains.k_i, under - limit);
		under = limit;
	}
	i = clamp64(i, -TERM_LIMIT, TERM_LIMIT);
	state->err_integral = clamp64(int_to_frac(i) / to->gains.k_i, -ERR_INTEGRAL_LIMIT,
				      ERR_INTEGRAL_LIMIT);
	state->under_integral = under;
}

int32_t pid_aim_mc(const struct pid_params *params, int32_t control_mc)
{
	if (params->mode != PID_MODE_DEFAULT)
		return control_mc;
	return (int32_t)clamp64((int64_t)control_mc - params->fixes.control_margin_mc, INT32_MIN,
				INT32_MAX);
}

uint32_t pid_step(const struct pid_params *params, struct pid_state *state,
		  int32_t control_mc, int32_t temp_mc, uint32_t min_power_mw,
		  uint32_t max_power_mw, struct pid_output *out)
{
	const struct pid_gains *g = &params->gains;
	uint32_t sp = effective_sustainable_power(params, min_power_mw, max_power_mw);
	int64_t target_mc = pid_aim_mc(params, control_mc), err, p, i, d, budget;

	err = int_to_frac(clamp64(target_mc - temp_mc, -ERR_LIMIT_MC, ERR_LIMIT_MC - 1));

	p = proportional(g, err);
	if (state->trend_lost) {
		state->prev_err = err;
		state->trend_lost = false;
	}
	if (params->mode == PID_MODE_KERNEL) {
		i = integral_kernel(g, state, err, max_power_mw);
		d = derivative_kernel(params, state, err);
	} else {
		i = integral_default(params, state, err, sp, max_power_mw);
		d = derivative_default(params, state, err);
	}
	state->prev_err = err;
	i = clamp64(i, -TERM_LIMIT, TERM_LIMIT);
	d = clamp64(d, -TERM_LIMIT, TERM_LIMIT);

	/* Feed-forward the power the zone can dissipate at control temperature. */
	budget = clamp64((int64_t)sp + frac_to_int(p + i + d), 0, max_power_mw);
	state->primed = true;

	if (out) {
		out->err_mc = frac_to_int(err);
		out->err_integral_mc = frac_to_int(state->err_integral + state->under_integral);
		out->p_mw = frac_to_int(p);
		out->i_mw = frac_to_int(i);
		out->d_mw = frac_to_int(d);
		out->sustainable_power_mw = sp;
		out->budget_mw = (uint32_t)budget;
	}
	return (uint32_t)budget;
}
