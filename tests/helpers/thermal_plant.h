/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Synthetic thermal plants for the thermal model's tests: a die node and,
 * optionally, a case node under it (an RC network to ambient), a sensor
 * that reads exactly or in steps with gaussian noise (seeded), and a zone
 * that controls it like the daemon would: a PI controller every 100 ms
 * whose budget picks one of ten OPP powers, under a load that now and then
 * asks for less than the budget.
 */
#include <stdbool.h>
#include <stdint.h>

#include "control/thermal_model.h"

#define SYNTH_PERIOD_MS 100
#define SYNTH_CONTROL_C 75.0
#define SYNTH_AMBIENT_C 25.0
#define SYNTH_STATIC_W 0.3

/**
 * struct synth_spec - one plant and how it is driven.
 * @tau_die_s: the die's time constant (its capacity times its resistance), s.
 * @tau_case_s: the case's, s; 0 for a first-order plant (a die alone).
 * @die_share: the die's share of the resistance to ambient (two nodes).
 * @sustainable_w: the true sustainable power, W: the resistance is
 *	(control - ambient) / (this + SYNTH_STATIC_W).
 * @draw: the power the silicon draws per watt its table says (1: exact).
 * @step_c: the sensor's resolution, °C (0: exact to the m°C).
 * @noise_c: its gaussian noise, standard deviation, °C.
 * @load_every_s: mean time between load changes, s (0: none).
 * @load_low: the least a load change asks, as a share of the maximum.
 * @seed: the noise's and the load's seed.
 */
struct synth_spec {
	double tau_die_s;
	double tau_case_s;
	double die_share;
	double sustainable_w;
	double draw;
	double step_c;
	double noise_c;
	double load_every_s;
	double load_low;
	uint64_t seed;
};

/**
 * struct synth - a plant under control, feeding a thermal model.
 * @spec: what it is.
 * @c_die, @r_die, @c_case, @r_case: J/K and K/W.
 * @die_c, @case_c: the nodes' temperatures, °C.
 * @t_s: time, s.
 * @integral_w, @kp_w_per_k, @ki_w_per_ks: the PI controller.
 * @prior_w: its feed-forward, and the model's prior (W).
 * @table_w: power of the current OPP as its table says, W.
 * @demand: share of the maximum the load asks for.
 * @demand_until_s: when the current load ends.
 * @rng: random state.
 * @abs_error_sum, @periods: |die - control| summed over the periods, and
 *	their count (the mean error of the control, K).
 * @model: the model it feeds.
 */
struct synth {
	struct synth_spec spec;
	double c_die, r_die, c_case, r_case;
	double die_c, case_c;
	double t_s;
	double integral_w, kp_w_per_k, ki_w_per_ks;
	double prior_w;
	double table_w;
	double demand;
	double demand_until_s;
	uint64_t rng;
	double abs_error_sum;
	uint64_t periods;
	struct thermal_model model;
};

/** synth_init() - the plant at 60 °C throughout, a model with prior @prior_w. */
void synth_init(struct synth *s, const struct synth_spec *spec, double prior_w);

/**
 * synth_scale_resistance() - scale the plant's resistances by @factor, its
 * time constants kept (a fan that stops, a heatsink that comes loose).
 * Return: the new sustainable power, W.
 */
double synth_scale_resistance(struct synth *s, double factor);

/** synth_run() - run until @until_s: plant, sensor, controller and model. */
void synth_run(struct synth *s, double until_s);

/**
 * synth_hold() - run until @until_s with the power held at @power_w (table
 * watts), no controller: the plant, the sensor and the model.
 */
void synth_hold(struct synth *s, double power_w, double until_s);

/** synth_sustainable_w() - the plant's true sustainable power now, W (in table watts). */
double synth_sustainable_w(const struct synth *s);

/** synth_gauss() - a standard normal draw from @rng. */
double synth_gauss(uint64_t *rng);
