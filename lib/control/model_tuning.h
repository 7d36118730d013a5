/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The default controller's feed-forward and gains from the zone's learnt
 * thermal model (thermal_model.h).  Pure computation.  The rule, why it
 * has this form and the measurements behind its constants are in
 * doc/control-tuning.md.
 *
 * While the model is not confident the zone runs on its prior's gains:
 * the kernel's from the configured (device-tree, or estimated) sustainable
 * power (pid_default_gains(), pid_tune_gains()), but not on the prior as
 * feed-forward: that is the actors' lowest power, so the first approach
 * comes up to control on the proportional term and does not carry a prior
 * set too high over it (4 x the truth, a device tree's 3.5 x, silicon
 * drawing 1.4 x its table: 0.45-1.40 °C over control fed forward, 0.00
 * with the lowest power; doc/control-tuning.md, "The first approach").
 * pid_fixes.trust_sustainable_power feeds the prior forward instead, as
 * the kernel does (a value measured on the board).  The engine passes the
 * prior for an always-on zone: its gains come from control - 0 °C, and p
 * over the lowest power would hold its actors far under control (the
 * RK3399's gpu-thermal at 40 °C: 1724 mW, not the 2555 its busy GPU draws),
 * and for an x86 package on its firmware's PL1 (zone_approach_mw()).
 * Once the model's confidence reaches MODEL_TUNING_ENGAGE, the
 * feed-forward is the learnt sustainable power P (mW) and the gains are
 *
 *   k_po = k_pu = MODEL_TUNING_LOOP_GAIN x P / (control - ambient)   mW per °C
 *   k_i  = k_pu / MODEL_TUNING_INTEGRAL_PERIODS                      per period
 *
 * with ambient MODEL_TUNING_AMBIENT_MC and control - ambient at least
 * MODEL_TUNING_MIN_GAP_MC.  (control - ambient) / P is the zone's whole
 * thermal resistance as the learnt sustainable power measures it (the
 * model's own gain and time constant are too weakly identified in a held
 * zone to tune on), so the proportional loop gain is
 * MODEL_TUNING_LOOP_GAIN at steady state.  The model is left again when
 * its confidence falls under MODEL_TUNING_RELEASE (a changed plant); both
 * switches keep the budget continuous (pid_retune()).
 */
#include <stdbool.h>
#include <stdint.h>

#include "pid.h"
#include "thermal_model.h"

/*
 * The model's confidence (0..1) at which its values are taken, and under
 * which they are left.  0.05 is a standard deviation of 44 % of the learnt
 * sustainable power: a zone held far under control by a bad prior never
 * gets much surer than that, and the gains tolerate an error of 2 x.
 */
#define MODEL_TUNING_ENGAGE 0.05
#define MODEL_TUNING_RELEASE 0.02
/*
 * Proportional gain x the zone's thermal resistance (dimensionless): 12.5
 * is a loop gain of at most 5 through a die that holds up to 0.4 of the
 * resistance, half the 10.5 at which such a die of 0.5 s starts to cycle.
 */
#define MODEL_TUNING_LOOP_GAIN 12.5
/* The ambient the rule assumes, m°C; the gap to control is taken as at least 10 °C. */
#define MODEL_TUNING_AMBIENT_MC 25000
#define MODEL_TUNING_MIN_GAP_MC 10000
/*
 * Integral time in periods, as the kernel's k_i = k_pu / 10: the period is
 * chosen for the plant, so the rule holds for any period (and in the
 * simulator, which runs the daemon's clock faster).
 */
#define MODEL_TUNING_INTEGRAL_PERIODS 10

/**
 * struct model_tuning - what the default controller runs on.
 * @engaged: the model's values are in use (else the prior's).
 * @gains_fixed: the configuration set a gain: the gains stay the
 *	configured ones, only the feed-forward follows the model.
 */
struct model_tuning {
	bool engaged;
	bool gains_fixed;
};

/**
 * model_tuning_gains() - the gains the rule gives for a learnt
 * sustainable power.
 * @sustainable_mw: learnt sustainable power, mW.
 * @control_mc: control temperature, m°C.
 * @gains: out: k_po, k_pu, k_i as the file comment says, in pid_gains'
 *	units (Q10, at least 1, saturated at INT32_MAX); k_d and the integral
 *	cutoff 0.
 */
void model_tuning_gains(uint32_t sustainable_mw, int32_t control_mc, struct pid_gains *gains);

/**
 * model_tuning_approach_mw() - the feed-forward of the first approach
 * (until the model engages), mW: @approach_mw where it is under the
 * prior's sustainable power and pid_fixes.trust_sustainable_power is off,
 * else the prior's (the file comment).
 */
uint32_t model_tuning_approach_mw(const struct pid_params *prior, uint32_t approach_mw);

/**
 * model_tuning_apply() - one period's parameters for a default-mode zone.
 * @t: the zone's tuning state.
 * @prior: the zone's parameters from its configuration (the prior).
 * @est: the model's current estimate (its sustainable power under 1 mW
 *	disengages).
 * @control_mc: control temperature, m°C.
 * @approach_mw: the feed-forward until the model engages, where it is
 *	under the prior's, mW: the actors' lowest power (the caller passes
 *	the prior's where it trusts it).
 * @run: set to @prior with the model's feed-forward and gains when
 *	engaged, else to @prior with model_tuning_approach_mw()'s
 *	feed-forward (the first approach: the file comment).
 * Return: true when @t->engaged changed this period (the caller makes the
 *	switch bumpless with pid_retune()).
 */
bool model_tuning_apply(struct model_tuning *t, const struct pid_params *prior,
			const struct thermal_estimate *est, int32_t control_mc,
			uint32_t approach_mw, struct pid_params *run);
