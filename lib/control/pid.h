/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/**
 * enum pid_mode - which control law a zone runs.
 * @PID_MODE_DEFAULT: the kernel's law with its known faults fixed (struct pid_fixes).
 * @PID_MODE_KERNEL:  drivers/thermal/gov_power_allocator.c (v6.13+) to the mW.
 * @PID_MODE_STEP_WISE: not a PID and no power budget: the kernel's step_wise
 *	governor, one cooling state more per period while above the control
 *	temperature and rising, one less while below it and falling (zone.c).
 */
enum pid_mode {
	PID_MODE_DEFAULT = 0,
	PID_MODE_KERNEL = 1,
	PID_MODE_STEP_WISE = 2,
};

/**
 * struct pid_gains - controller gains, in the kernel's units.
 * @k_po: proportional gain while overshooting (T > control), Q10 mW per m°C.
 * @k_pu: proportional gain while undershooting, Q10 mW per m°C.
 * @k_i:  integral gain, Q10 mW per m°C per period.
 * @k_d:  derivative gain, Q10 mW per (m°C per ms).
 * @integral_cutoff_mc: the error is integrated only while it is below this (m°C).
 *
 * A gain of 1 mW per °C is 1.024 in these units (1024 / 1000).
 */
struct pid_gains {
	int32_t k_po;
	int32_t k_pu;
	int32_t k_i;
	int32_t k_d;
	int32_t integral_cutoff_mc;
};

/* The default mode's derivative filter: a first-order low pass over this many periods. */
#define PID_DERIVATIVE_FILTER_PERIODS 2

/* The integral learnt under the aim is at most this many times the P term on its error ... */
#define PID_UNDER_CAP 4
/* ... and learnt only this many control margins or more under the aim (past the OPP ripple). */
#define PID_UNDER_BAND 2

/**
 * struct pid_fixes - the fixes the default mode makes to the kernel's law
 * that a configuration can turn off (powerallocd.conf(5); what each is
 * worth: doc/control-quality.md).  Three more are always made: the
 * integral is bounded by max_power + sustainable_power (so that it can
 * always cancel the feed-forward) and clamped there, where the kernel stops
 * integrating at |i| < max_power; the derivative has the units its formula
 * says (the kernel's comes out 1024 times larger), starts from the first
 * sample instead of kicking at switch-on, and is low-pass filtered over
 * PID_DERIVATIVE_FILTER_PERIODS periods.
 * @integral_bleed_q10: while the error has the opposite sign to the integral
 *	(the temperature is back under control after an overshoot), the
 *	integral is unwound towards zero at this fraction (Q10, 0..1024) of the
 *	rate at which it would integrate that error, never past zero, so that a
 *	negative integral does not hold the budget down after the temperature
 *	has fallen.  The kernel keeps it until the zone falls below switch-on.
 *	0 = off.
 * @integral_under_q10: while the zone is more than PID_UNDER_BAND control
 *	margins under its aim and the previous budget held a saturated actor
 *	below its maximum (pid_state.held_back), integrate the error beyond
 *	that band at this fraction (Q10, 0..1024) of k_i, into its own term
 *	(pid_state.under_integral) capped every period at PID_UNDER_CAP times
 *	the proportional term on that error.  It learns what a zone lacks
 *	whose actors need more than the sustainable power (a burst on a
 *	heatsink not yet warm): the proportional term alone holds such a
 *	zone (their power - sustainable) / k_pu under its aim, and the
 *	kernel's law integrates nothing under control.  The cap ties
 *	the learnt part to the error, so it is 0 from the band's edge up and
 *	cannot wind up over a slow approach; the band leaves the OPP ripple
 *	alone.  0 = off.
 * @clamp_sustainable_power: clamp the sustainable power to
 *	[min_power, max_power] of the zone's actors.
 * @tuned_gains: until the model is confident, the kernel's estimated
 *	gains scaled by pid_tune_gains() instead of the estimates themselves.
 * @control_margin_mc: aim this far below the control temperature, m°C.
 *	The grants move the actors in OPP steps, and a zone held at its aim
 *	ripples around it as an actor steps up and back, by a few hundredths
 *	of a °C; aiming the margin lower keeps those peaks under control.
 *	At most pid_control_margin_limit_mc() (config.c, engine_build.c).
 *	0 = aim at control, as the kernel does.
 * @dither_grants: carry the part of a grant an actor's OPPs leave unspent
 *	into its next period (dither.h), so that it alternates between the
 *	two OPPs around its grant and spends the grant on average, where the
 *	kernel's power2state takes the lower one every period.  Off by
 *	default: the zone then sits at control, with the OPP ripple above it.
 * @trust_sustainable_power: feed the sustainable power forward from the
 *	first period, as the kernel does, instead of the actors' lowest power
 *	until the model is confident (model_tuning.h, the first approach).
 * @saturated_request: with the request division, an actor whose CPUs (or
 *	device) are saturated at a throttled OPP asks for the next OPP up for
 *	each of them (power_table_step_up_mw()) instead of only what it uses
 *	now, so a cluster throttled to its lowest OPP is not kept there by its
 *	own small request.
 */
struct pid_fixes {
	uint32_t integral_bleed_q10;
	uint32_t integral_under_q10;
	bool clamp_sustainable_power;
	bool tuned_gains;
	uint32_t control_margin_mc;
	bool dither_grants;
	bool saturated_request;
	bool trust_sustainable_power;
};

/**
 * struct pid_params - everything that defines a zone's controller.
 * @mode: control law.
 * @gains: see struct pid_gains (pid_default_gains() gives the kernel's).
 * @sustainable_power_mw: feed-forward: the power the zone dissipates at control temperature, mW.
 * @period_ms: control period, ms (> 0).
 * @fixes: used in PID_MODE_DEFAULT only.
 */
struct pid_params {
	enum pid_mode mode;
	struct pid_gains gains;
	uint32_t sustainable_power_mw;
	uint32_t period_ms;
	struct pid_fixes fixes;
};

/**
 * struct pid_state - what the controller remembers between periods.
 * @err_integral: sum of integrated errors, Q10 m°C.
 * @under_integral: the part learnt under the aim, Q10 m°C, >= 0 (default
 *	mode, pid_fixes.integral_under_q10).
 * @prev_err: error of the previous period, Q10 m°C.
 * @d_filtered: filtered derivative term, Q10 mW (default mode).
 * @primed: false until the first period after a reset.
 * @trend_lost: the previous error is from before a gap in time (the
 *	machine slept): the next period takes its own error as the previous
 *	one, so the derivative sees no change across the gap.
 * @held_back: the previous budget held a saturated actor below its maximum
 *	(set by the caller once it has divided the budget; see
 *	pid_fixes.integral_under_q10).
 */
struct pid_state {
	int64_t err_integral;
	int64_t under_integral;
	int64_t prev_err;
	int64_t d_filtered;
	bool primed;
	bool trend_lost;
	bool held_back;
};

/**
 * struct pid_output - one period's result and its parts, for traces: the
 * kernel's trace values, frac_to_int() of each term.
 * @err_mc: the error, aim - temperature, m°C.
 * @err_integral_mc: the integrated error, err_integral + under_integral, m°C.
 * @p_mw: the proportional term, mW.
 * @i_mw: the integral term, mW.
 * @d_mw: the derivative term, mW.
 * @sustainable_power_mw: the feed-forward used (clamped when
 *	pid_fixes.clamp_sustainable_power), mW.
 * @budget_mw: the budget pid_step() returned, mW.
 */
struct pid_output {
	int64_t err_mc;
	int64_t err_integral_mc;
	int64_t p_mw;
	int64_t i_mw;
	int64_t d_mw;
	uint32_t sustainable_power_mw;
	uint32_t budget_mw;
};

/**
 * pid_default_gains() - the kernel's estimate_pid_constants().
 * @sustainable_power_mw: mW.
 * @switch_on_mc: switch-on temperature, m°C.
 * @control_mc: control temperature, m°C.
 * @gains: out: k_po = (SP << 10) / dT, k_pu = (2 SP << 10) / dT (Q10 mW
 *	per m°C, saturated at INT32_MAX), k_i = max(k_pu / 10, 1), k_d = 0,
 *	integral_cutoff = 0, with dT = control - switch_on in m°C.
 * Return: 0, or -EINVAL when control_mc <= switch_on_mc.
 */
int pid_default_gains(uint32_t sustainable_power_mw, int32_t switch_on_mc,
		      int32_t control_mc, struct pid_gains *gains);

/**
 * pid_tune_gains() - the default mode's gains before its model is
 * confident (pid_fixes.tuned_gains): the kernel's estimates with k_po x 3,
 * saturating at INT32_MAX; k_pu and k_i stay the kernel's.  Shedding power
 * three times as fast above control keeps a sustainable power configured
 * too high and fed forward (trust_sustainable_power) from carrying the
 * first approach far over (4 x too high: 0.51 °C over instead of 0.96;
 * doc/control-tuning.md).
 * @gains: in: pid_default_gains()' result; out: the tuned gains.
 */
void pid_tune_gains(struct pid_gains *gains);

/** pid_default_fixes() - set @fixes to the default mode's defaults (powerallocd.conf(5)). */
void pid_default_fixes(struct pid_fixes *fixes);

/**
 * pid_aim_mc() - the temperature @params aim at, m°C: @control_mc, less
 * the control margin for the default controller (PID_MODE_DEFAULT).
 */
int32_t pid_aim_mc(const struct pid_params *params, int32_t control_mc);

/**
 * pid_control_margin_limit_mc() - the largest control margin a zone may
 * have: half of @control_mc - @switch_on_mc (m°C), so that the point aimed
 * at stays in the upper half of the passive range.
 * Return: the limit, m°C; 0 when control is not above switch-on.
 */
uint32_t pid_control_margin_limit_mc(int32_t switch_on_mc, int32_t control_mc);

/**
 * pid_retune() - carry a default-mode controller's memory over a change of
 * its parameters (feed-forward, gains), so that the next budget goes on
 * from the last one instead of jumping: the change of the feed-forward and
 * of the proportional term on the last error goes into the integral, and
 * the integrals are rescaled to keep their terms under the new k_i.
 * @from: the parameters the last period ran on.
 * @to: the parameters the next period runs on.
 * @state: the controller's memory (unchanged while it is not primed).
 * @min_power_mw, @max_power_mw: as pid_step() takes them (the feed-forward
 *	clamp), mW.
 */
void pid_retune(const struct pid_params *from, const struct pid_params *to,
		struct pid_state *state, uint32_t min_power_mw, uint32_t max_power_mw);

/** pid_reset() - forget @state's integrals and previous error (the zone fell below switch-on). */
void pid_reset(struct pid_state *state);

/**
 * pid_forget_trend() - forget @state's previous error and filtered
 * derivative, keeping its integrals: after the machine slept, the error
 * before and the error after are not one period apart, and their
 * difference is no rate of change.  The next pid_step() has a derivative
 * of 0 in every mode.
 */
void pid_forget_trend(struct pid_state *state);

/**
 * pid_step() - run the controller for one period.
 * @params: controller definition.
 * @state: carried from period to period.
 * @control_mc: control temperature, m°C (the default mode aims
 *	@params->fixes.control_margin_mc below it).
 * @temp_mc: current temperature, m°C.
 * @min_power_mw: sum of the actors' lowest power, mW (default mode's SP clamp).
 * @max_power_mw: sum of the actors' maximum power (max allocatable), mW.
 * @out: optional, the terms of this period.
 * Return: the power budget for the next period, mW, in [0, max_power_mw].
 */
uint32_t pid_step(const struct pid_params *params, struct pid_state *state,
		  int32_t control_mc, int32_t temp_mc, uint32_t min_power_mw,
		  uint32_t max_power_mw, struct pid_output *out);
