/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * A zone's thermal response learnt online from what the daemon sees every
 * period: the power its actors draw and the temperature its sensor reads.
 * Pure computation (no I/O, no clock, no allocation): the caller feeds it
 * samples with the time between them.  The method and the figures its tests
 * measure are in doc/thermal-model.md.
 *
 * The samples are averaged over blocks of THERMAL_MODEL_BLOCK_* length (the
 * temperature between samples taken as a straight line, the power as the
 * mean the sample reports), and successive blocks fit, by recursive least
 * squares with exponential forgetting, the model
 *
 *   T[j+1] - Tref = a (T[j] - Tref) + g (P[j+1] - P[j]) + B P[j] + c
 *
 * of a slow node (the case: pole a, gain B / (1 - a)) under a fast one that
 * settles within a block (the die: gain g).  Tref is the control
 * temperature; c holds the ambient and the power the zone cannot see
 * (static power, other devices).
 */
#include <stdbool.h>
#include <stdint.h>

/* The parameters fitted: a, g, B and c of the model above. */
#define THERMAL_MODEL_N 4

/* A block is this many zone periods, within the bounds below (ms). */
#define THERMAL_MODEL_BLOCK_PERIODS 50
#define THERMAL_MODEL_BLOCK_MIN_MS 500
#define THERMAL_MODEL_BLOCK_MAX_MS 20000

/**
 * struct thermal_estimate - what the model says about its zone.
 * @time_constant_s: the slow (dominant) time constant, s.
 * @gain_k_per_w: steady-state temperature rise per watt, K/W.
 * @fast_gain_k_per_w: the rise per watt within one block (the die over the
 *	case), K/W.
 * @offset_c: where the zone settles with its actors drawing nothing: the
 *	ambient plus what the power it cannot see adds, °C.
 * @sustainable_w: the actors' power at which the zone settles at its
 *	control temperature, W (0 when even no power is too much).
 * @sustainable_sd_w: the standard deviation of @sustainable_w the fit
 *	gives (its covariance scaled by the prediction errors), W.
 * @confidence: 0 (nothing learnt) to 1; see thermal_model_sample().
 */
struct thermal_estimate {
	double time_constant_s;
	double gain_k_per_w;
	double fast_gain_k_per_w;
	double offset_c;
	double sustainable_w;
	double sustainable_sd_w;
	double confidence;
};

/**
 * struct thermal_model_state - what a model needs to resume where it was,
 * as plain numbers (saved between runs by the daemon, model_record.h): the
 * fit, its covariance, its noise, its prior and its counts.  The block being
 * filled and the chain of blocks are not in it: a resumed model starts a
 * new chain.
 * @block_s: block length, s.
 * @ref_c: Tref, the control temperature, °C.
 * @prior: the parameters (a, g, B, c) the configured sustainable power
 *	suggests.
 * @gain_min_k_per_w, @gain_max_k_per_w: the bounds of the gain, K/W.
 * @floor: the prior's information (diagonal): forgetting keeps it, so a
 *	parameter the blocks stop telling about goes back to its prior.
 * @info, @rhs: the normal equations (information matrix and right side).
 * @theta: a, g, B, c of the file comment, within their physical bounds.
 * @noise_var: forgotten mean of the normalised squared one-step prediction
 *	errors, K².
 * @cusum_high, @cusum_low: the change detector's sums (standard deviations).
 * @recent_var: forgotten mean of the last few squared errors, K².
 * @changes: plant changes detected.
 * @updates: blocks fitted since the start.
 */
struct thermal_model_state {
	double block_s;
	double ref_c;
	double prior[THERMAL_MODEL_N];
	double gain_min_k_per_w;
	double gain_max_k_per_w;
	double floor[THERMAL_MODEL_N];
	double info[THERMAL_MODEL_N][THERMAL_MODEL_N];
	double rhs[THERMAL_MODEL_N];
	double theta[THERMAL_MODEL_N];
	double noise_var;
	double cusum_high;
	double cusum_low;
	double recent_var;
	uint32_t changes;
	uint32_t updates;
};

/**
 * struct thermal_model - the estimator (see the file comment).
 * @state: what it has learnt, the part that is saved and resumed
 *	(thermal_model_export(), thermal_model_import()).
 * @primed: a sample was seen (@last_temp_c is set).
 * @last_temp_c: the previous sample's temperature, °C.
 * @block_elapsed_s, @block_temp_cs, @block_energy_j: the block being
 *	filled: its time, its temperature's integral (°C s), its energy (J).
 * @have_prev: the previous block is complete and contiguous with this one.
 * @prev_temp_c, @prev_power_w: its mean temperature (°C) and power (W).
 * @est: the estimate from @state's theta.
 */
struct thermal_model {
	struct thermal_model_state state;
	bool primed;
	double last_temp_c;
	double block_elapsed_s;
	double block_temp_cs;
	double block_energy_j;
	bool have_prev;
	double prev_temp_c;
	double prev_power_w;
	struct thermal_estimate est;
};

/**
 * thermal_model_init() - a model that knows only its prior.
 * @m: the model.
 * @period_ms: the zone's control period, ms (sets the block length).
 * @control_mc: the zone's control temperature, m°C.
 * @prior_sustainable_mw: the configured (or estimated) sustainable power,
 *	mW: the prior, with a confidence of 0.
 */
void thermal_model_init(struct thermal_model *m, uint32_t period_ms, int32_t control_mc,
			uint32_t prior_sustainable_mw);

/**
 * thermal_model_sample() - account for one reading.
 * @m: the model.
 * @elapsed_us: time since the previous sample, µs (ignored for the first).
 *	A gap longer than a block starts the chain of blocks anew.
 * @temp_mc: the temperature now, m°C.
 * @power_mw: the mean power the zone's actors drew since the previous
 *	sample, mW.
 *
 * Each completed block updates the fit and m->est.  The confidence is
 * 1 / (1 + (s / (0.1 P))^2), where P is the sustainable power and s its
 * standard deviation from the fit's covariance and prediction errors: 0.5
 * when s is 10 % of P.  It rises while the blocks excite the model (power
 * and temperature moving), drifts down while they do not (forgetting), and
 * falls when the predictions miss (a changed plant).
 */
void thermal_model_sample(struct thermal_model *m, uint64_t elapsed_us, int32_t temp_mc,
			  uint32_t power_mw);

/**
 * thermal_model_break() - no reading this period (a failed sensor): the
 * block being filled and the chain are dropped, the fit is kept.
 */
void thermal_model_break(struct thermal_model *m);

/**
 * thermal_model_sustainable_mw() - the learnt sustainable power, mW,
 * saturated to the uint32_t range.
 */
uint32_t thermal_model_sustainable_mw(const struct thermal_model *m);


/** thermal_model_export() - the state of @m, for thermal_model_import(). */
void thermal_model_export(const struct thermal_model *m, struct thermal_model_state *s);

/**
 * thermal_model_import() - resume @m, just initialised for its zone, from
 * @s: its fit, covariance, noise, prior and counts, and the estimate and
 * confidence they give; a new chain of blocks starts with the next sample.
 * Return: 0; -EINVAL, @m unchanged, when @s is not a state a model can be
 * in (a number not finite, a block or control temperature other than
 * @m's, an information matrix that is not positive definite, parameters
 * out of their bounds).
 */
int thermal_model_import(struct thermal_model *m, const struct thermal_model_state *s);

/**
 * thermal_model_predict_mc() - the temperature @forecast_s seconds from now
 * if the zone's actors keep drawing @power_mw, m°C: from @temp_mc towards
 * where the model settles at that power (est->offset_c + est->gain_k_per_w
 * x the power), along the slow time constant.  The die's fast rise over the
 * case (est->fast_gain_k_per_w) settles within a block, so the reading now
 * already holds it for the power now.
 * Return: the predicted temperature, m°C.
 */
int32_t thermal_model_predict_mc(const struct thermal_estimate *est, int32_t temp_mc,
				 uint32_t power_mw, double forecast_s);

/**
 * thermal_model_max_change_mc() - the most the zone's temperature can move
 * in @elapsed_s seconds from @temp_mc by its model, m°C: the die's step over
 * the case for @max_power_mw (est->fast_gain_k_per_w), plus the slow node's
 * way towards where it settles flat out (@max_power_mw) or at no power,
 * whichever is the further (thermal_model_predict_mc()).
 */
int32_t thermal_model_max_change_mc(const struct thermal_estimate *est, int32_t temp_mc,
				    uint32_t max_power_mw, double elapsed_s);
