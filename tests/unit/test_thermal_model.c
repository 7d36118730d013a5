/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The online thermal model (lib/control/thermal_model.c) on synthetic plants
 * (thermal_plant.c): first-order and die+case plants, exact and 1 °C noisy
 * sensors, controlled like a zone with load changes.  With --table it
 * prints the figures doc/thermal-model.md quotes instead of testing (about
 * a second):
 *   build/tests/unit/test_thermal_model --table
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "control/thermal_model.h"
#include "thermal_plant.h"

/* The learnt sustainable power is within this of the truth... */
#define TOLERANCE 0.15
/* ...this long after the start (s), with at least this confidence. */
#define LEARN_S 1200.0
#define LEARNT_CONFIDENCE 0.5

/* Plants: die and case time constants (s; no case: first order), the die's share. */
static const double plants[][3] = {
	{ 0.5, 0, 1 }, { 3, 0, 1 }, { 20, 0, 1 }, { 120, 0, 1 },
	{ 0.5, 20, 0.1 }, { 0.5, 20, 0.4 }, { 0.5, 120, 0.1 }, { 0.5, 120, 0.4 },
	{ 3, 20, 0.1 }, { 3, 20, 0.4 }, { 3, 120, 0.1 }, { 3, 120, 0.4 },
};
#define N_PLANTS (sizeof(plants) / sizeof(plants[0]))
static const double sustainable_w[] = { 0.5, 10 };
/* The configured sustainable power, as a share of the truth. */
static const double prior_share[] = { 0.25, 4 };

/* Plant @p, sustainable @sp W, exact or 1 °C sensor with 0.2 °C noise, load changes. */
static struct synth_spec spec(size_t p, double sp, bool noisy)
{
	return (struct synth_spec){ .tau_die_s = plants[p][0], .tau_case_s = plants[p][1],
				    .die_share = plants[p][2], .sustainable_w = sp, .draw = 1,
				    .step_c = noisy ? 1 : 0, .noise_c = noisy ? 0.2 : 0,
				    .load_every_s = 120, .load_low = 0.2, .seed = 42 + p };
}

static double error_of(const struct synth *s)
{
	return s->model.est.sustainable_w / synth_sustainable_w(s) - 1;
}

static bool finite_estimate(const struct thermal_estimate *e)
{
	return isfinite(e->time_constant_s) && isfinite(e->gain_k_per_w) &&
	       isfinite(e->fast_gain_k_per_w) && isfinite(e->offset_c) &&
	       isfinite(e->sustainable_w) && isfinite(e->sustainable_sd_w) &&
	       e->confidence >= 0 && e->confidence <= 1;
}

/* Cells: every plant, sustainable power and prior. */
#define N_CELLS (N_PLANTS * 4)

/* Cell @i's plant under control, with its model; its name in @name. */
static void start_cell(size_t i, bool noisy, struct synth *s, char name[96])
{
	size_t p = i / 4;
	struct synth_spec sp = spec(p, sustainable_w[i / 2 % 2], noisy);

	synth_init(s, &sp, sp.sustainable_w * prior_share[i % 2]);
	snprintf(name, 96, "%5.1f/%5.1f %.1f  %5.1f  %-6s x%-4g", plants[p][0], plants[p][1],
		 plants[p][2], sp.sustainable_w, noisy ? "1 °C" : "exact", prior_share[i % 2]);
}

/* Every cell with the sensor given: learnt within TOLERANCE after LEARN_S. */
static void learn_all(bool noisy)
{
	for (size_t i = 0; i < N_CELLS; i++) {
		struct synth s;
		char name[96];

		start_cell(i, noisy, &s, name);
		synth_run(&s, LEARN_S);
		print_message("%s: %+.1f %% confidence %.2f\n", name, 100 * error_of(&s),
			      s.model.est.confidence);
		assert_true(finite_estimate(&s.model.est));
		assert_true(fabs(error_of(&s)) < TOLERANCE);
		assert_true(s.model.est.confidence > LEARNT_CONFIDENCE);
	}
}

static void test_learns_exact_sensor(void **unused)
{
	(void)unused;
	learn_all(false);
}

static void test_learns_noisy_sensor(void **unused)
{
	(void)unused;
	learn_all(true);
}

/* Before any block, the model is its prior, with no confidence. */
static void test_prior(void **unused)
{
	struct thermal_model m;

	(void)unused;
	thermal_model_init(&m, 100, 75000, 2200);
	assert_true(finite_estimate(&m.est));
	assert_int_equal(thermal_model_sustainable_mw(&m), 2200);
	assert_true(m.est.confidence == 0);
	assert_float_equal(m.est.time_constant_s, 30, 1e-6);
	assert_float_equal(m.state.block_s, 5, 1e-9);	/* 50 periods of 100 ms */
	thermal_model_init(&m, 1000, 75000, 0);	/* no prior: 1 W */
	assert_int_equal(thermal_model_sustainable_mw(&m), 1000);
	assert_float_equal(m.state.block_s, 20, 1e-9);	/* at most 20 s */
}

/* The simulated RockPro64's kind of plant: a 1 s die on a 60 s case, 2.2 W sustainable. */
static struct synth_spec rk3399_like(bool noisy)
{
	return (struct synth_spec){ .tau_die_s = 1, .tau_case_s = 60, .die_share = 0.1,
				    .sustainable_w = 2.2, .draw = 1, .step_c = noisy ? 1 : 0,
				    .noise_c = noisy ? 0.2 : 0, .load_every_s = 120,
				    .load_low = 0.2, .seed = 7 };
}

/*
 * Controlled, the zone's blocks excite the model and the confidence rises
 * (measured: 0.05 at 10 s, 0.93 at 60 s, 1.00 at 600 s); a zone that sits
 * at one temperature far from control with one power says nothing about
 * where control is reached: its confidence stays near 0.
 */
static void test_confidence_rises_with_excitation(void **unused)
{
	struct synth_spec sp = rk3399_like(true);
	struct thermal_model idle;
	struct synth s;

	(void)unused;
	synth_init(&s, &sp, 2.2);
	synth_run(&s, 10);
	print_message("confidence at 10 s %.2f, ", s.model.est.confidence);
	assert_true(s.model.est.confidence < 0.2);
	synth_run(&s, 60);
	print_message("60 s %.2f, ", s.model.est.confidence);
	assert_true(s.model.est.confidence > 0.3);
	synth_run(&s, 600);
	print_message("600 s %.2f\n", s.model.est.confidence);
	assert_true(s.model.est.confidence > 0.9);
	thermal_model_init(&idle, 100, 75000, 2200);
	for (int k = 0; k < 12000; k++)
		thermal_model_sample(&idle, 100000, 45000, 300);
	print_message("idle: %.0f mW, confidence %.3f\n", idle.est.sustainable_w * 1000,
		      idle.est.confidence);	/* measured: 1732 mW, 0.013 */
	assert_true(idle.est.confidence < 0.05);
	assert_true(finite_estimate(&idle.est));
}

/* A plant whose resistance changes by @factor at 900 s: confidence falls, the estimate recovers. */
static void change_plant(double factor, bool noisy)
{
	struct synth_spec sp = rk3399_like(noisy);
	double lowest = 1, truth;
	struct synth s;

	synth_init(&s, &sp, 2.2);
	synth_run(&s, 900);
	assert_true(s.model.est.confidence > 0.8);
	assert_true(fabs(error_of(&s)) < 0.05);
	truth = synth_scale_resistance(&s, factor);
	for (double t = 905; t <= 960; t += 5) {
		synth_run(&s, t);
		lowest = fmin(lowest, s.model.est.confidence);
	}
	synth_run(&s, 1500);
	print_message("x%g: truth %.3f W, lowest confidence %.2f, after 600 s %+.1f %% (%.2f)\n",
		      factor, truth, lowest, 100 * error_of(&s), s.model.est.confidence);
	assert_true(lowest < 0.3);
	assert_true(fabs(error_of(&s)) < TOLERANCE);
	assert_true(s.model.est.confidence > LEARNT_CONFIDENCE);
}

static void test_plant_change(void **unused)
{
	(void)unused;
	for (int noisy = 0; noisy < 2; noisy++) {
		change_plant(1.5, noisy);	/* a fan stopped */
		change_plant(0.67, noisy);	/* a heatsink added */
	}
}

/*
 * Under a steady load read by the 1 °C sensor, the learnt sustainable power
 * does not chatter: from 600 s to 1800 s it moves by less than 4 % of the
 * truth, peak to peak, on every plant (measured: 1.9 % at most).
 */
static void test_no_chatter(void **unused)
{
	(void)unused;
	for (size_t i = 0; i < N_PLANTS * 2; i++) {
		struct synth_spec sp = spec(i / 2, sustainable_w[i % 2], true);
		double lo = INFINITY, hi = 0;
		struct synth s;

		sp.load_every_s = 0;
		synth_init(&s, &sp, sp.sustainable_w);
		synth_run(&s, 600);
		for (double t = 605; t <= 1800; t += 5) {
			synth_run(&s, t);
			lo = fmin(lo, s.model.est.sustainable_w);
			hi = fmax(hi, s.model.est.sustainable_w);
		}
		print_message("plant %zu, %g W: %.2f %% peak to peak\n", i / 2, sp.sustainable_w,
			      100 * (hi - lo) / synth_sustainable_w(&s));
		assert_true((hi - lo) / synth_sustainable_w(&s) < 0.04);
	}
}

/* Silicon that draws more or less than its table: learnt in the table's watts. */
static void test_silicon_draw(void **unused)
{
	static const double draw[] = { 0.7, 1.4 };

	(void)unused;
	for (size_t i = 0; i < 2; i++) {
		struct synth_spec sp = rk3399_like(true);
		struct synth s;

		sp.draw = draw[i];
		synth_init(&s, &sp, 2.2);
		synth_run(&s, LEARN_S);
		print_message("draw x%g: truth %.3f W, learnt %+.1f %%\n", draw[i],
			      synth_sustainable_w(&s), 100 * error_of(&s));
		assert_true(fabs(error_of(&s)) < TOLERANCE);
	}
}

/* One 150 °C reading in a learnt zone moves the estimate by little and is no change. */
static void test_spike(void **unused)
{
	struct synth_spec sp = rk3399_like(true);
	double before;
	struct synth s;

	(void)unused;
	synth_init(&s, &sp, 2.2);
	synth_run(&s, 600);
	before = s.model.est.sustainable_w;
	thermal_model_sample(&s.model, 100000, 150000, (uint32_t)(s.table_w * 1000));
	synth_run(&s, 620);
	print_message("spike: %.3f -> %.3f W\n", before, s.model.est.sustainable_w);
	assert_true(fabs(s.model.est.sustainable_w / before - 1) < 0.05);
	assert_int_equal(s.model.state.changes, 0);
}

/* diag(info^-1)[i], the parameter's variance factor, by solving info x = e_i. */
static double variance_factor(const struct thermal_model *m, int i)
{
	double a[THERMAL_MODEL_N][THERMAL_MODEL_N + 1];
	int n = THERMAL_MODEL_N;

	for (int r = 0; r < n; r++) {
		memcpy(a[r], m->state.info[r], sizeof(m->state.info[r]));
		a[r][n] = r == i;
	}
	for (int c = 0; c < n; c++)
		for (int r = c + 1; r < n; r++) {
			double f = a[r][c] / a[c][c];

			for (int k = c; k <= n; k++)
				a[r][k] -= f * a[c][k];
		}
	for (int r = n - 1; r >= 0; r--) {
		for (int k = r + 1; k < n; k++)
			a[r][n] -= a[r][k] * a[k][n];
		a[r][n] /= a[r][r];
	}
	return a[i][n];
}

/* Finite estimates within the bounds, and a covariance never wider than the prior's. */
static void assert_sane(const struct thermal_model *m)
{
	const struct thermal_estimate *e = &m->est;

	assert_true(finite_estimate(e));
	assert_true(m->state.theta[0] >= 0 && m->state.theta[0] < 1);
	assert_true(e->time_constant_s <= 1200 * (1 + 1e-9));
	assert_true(e->gain_k_per_w >= m->state.gain_min_k_per_w * (1 - 1e-9));
	assert_true(e->gain_k_per_w <= m->state.gain_max_k_per_w * (1 + 1e-9));
	assert_true(e->offset_c >= fmin(-40, m->state.ref_c) - 1e-6);
	assert_true(e->offset_c <= m->state.ref_c + 30 + 1e-6);
	for (int i = 0; i < THERMAL_MODEL_N; i++) {
		double v = variance_factor(m, i);

		assert_true(isfinite(v) && v > 0);
		assert_true(v <= 1 / m->state.floor[i] * (1 + 1e-9));
	}
}

/* A stuck sensor, zero power, constant input, and the extremes the zone lets through. */
static void test_degenerate_input(void **unused)
{
	struct thermal_model m;

	(void)unused;
	thermal_model_init(&m, 100, 75000, 2200);
	for (int k = 0; k < 20000; k++)	/* stuck at control, power moving */
		thermal_model_sample(&m, 100000, 75000, (uint32_t)(1000 + 100 * (k / 37 % 5)));
	assert_sane(&m);
	thermal_model_init(&m, 100, 75000, 2200);
	for (int k = 0; k < 20000; k++)	/* cooling with no power */
		thermal_model_sample(&m, 100000, 30000 + 40000 * exp(-k / 600.0), 0);
	assert_sane(&m);
	thermal_model_init(&m, 100, 75000, 2200);
	for (int k = 0; k < 20000; k++)	/* nothing moves at all */
		thermal_model_sample(&m, 100000, 75000, 2200);
	assert_sane(&m);
	thermal_model_init(&m, 100, 75000, 0);
	for (int k = 0; k < 20000; k++)	/* the extremes, alternating */
		thermal_model_sample(&m, 100000, k % 2 ? 200000 : -60000, k % 3 ? UINT32_MAX : 0);
	assert_sane(&m);
	/* Odd zones: a huge or tiny prior, a cold control temperature, a slow period. */
	thermal_model_init(&m, 100, 75000, UINT32_MAX);
	assert_sane(&m);
	thermal_model_init(&m, 10000, -50000, 1);
	assert_sane(&m);
	for (int k = 0; k < 2000; k++)
		thermal_model_sample(&m, 10000000, -50000 + 1000 * (k % 7), 1 + k % 3);
	assert_sane(&m);
	thermal_model_init(&m, 1, 200000, UINT32_MAX);
	for (int k = 0; k < 20000; k++)
		thermal_model_sample(&m, 1000, 200000 - k, UINT32_MAX - (uint32_t)k);
	assert_sane(&m);
}

/* A gap longer than a block starts the chain anew: no block spans it. */
static void test_gap(void **unused)
{
	struct thermal_model m;
	uint32_t updates;

	(void)unused;
	thermal_model_init(&m, 100, 75000, 2200);
	for (int k = 0; k < 200; k++)
		thermal_model_sample(&m, 100000, 70000, 2000);
	updates = m.state.updates;
	assert_true(updates > 0);
	thermal_model_sample(&m, 60000000, 40000, 0);	/* a minute later */
	assert_false(m.have_prev);
	/* The next block only starts the chain; the one after is fitted. */
	for (int k = 0; k < 50; k++)
		thermal_model_sample(&m, 100000, 40000, 0);
	assert_int_equal(m.state.updates, updates);
	for (int k = 0; k < 50; k++)
		thermal_model_sample(&m, 100000, 40000, 0);
	assert_int_equal(m.state.updates, updates + 1);
	/* A failed read drops the block being filled too. */
	thermal_model_sample(&m, 100000, 40000, 0);
	thermal_model_break(&m);
	assert_false(m.have_prev);
	assert_true(m.block_elapsed_s == 0);
}

/* Blocks are time averages: a ramp read every 100 ms or every 250 ms gives the same blocks. */
static void test_irregular_sampling(void **unused)
{
	struct thermal_model fast, slow;

	(void)unused;
	thermal_model_init(&fast, 100, 75000, 2200);
	thermal_model_init(&slow, 100, 75000, 2200);
	for (int k = 0; k <= 1000; k++)	/* 100 s */
		thermal_model_sample(&fast, 100000, 50000 + 20 * k, 1500);
	for (int k = 0; k <= 400; k++)
		thermal_model_sample(&slow, 250000, 50000 + 50 * k, 1500);
	assert_int_equal(fast.state.updates, slow.state.updates);
	assert_float_equal(fast.prev_temp_c, slow.prev_temp_c, 1e-6);
	assert_float_equal(fast.prev_power_w, slow.prev_power_w, 1e-9);
	assert_float_equal(fast.est.sustainable_w, slow.est.sustainable_w, 1e-6);
}

/* --table, first part: every cell, the error and confidence over time. */
static void print_learning(void)
{
	static const double at_s[] = { 60, 300, 600, 1200, 1800 };

	printf("plant (die/case s, die share)  SP W  sensor  prior | error %% (confidence) at");
	for (size_t t = 0; t < 5; t++)
		printf(" %4.0f s", at_s[t]);
	printf(" | changes detected | tau s, gain K/W (true)\n");
	for (int noisy = 0; noisy < 2; noisy++)
		for (size_t i = 0; i < N_CELLS; i++) {
			struct synth s;
			char name[96];

			start_cell(i, noisy, &s, name);
			printf("%s |", name);
			for (size_t t = 0; t < 5; t++) {
				synth_run(&s, at_s[t]);
				printf(" %+6.1f (%.2f)", 100 * error_of(&s), s.model.est.confidence);
			}
			printf(" | %u | %.0f, %.1f (%.1f)\n", s.model.state.changes,
			       s.model.est.time_constant_s, s.model.est.gain_k_per_w,
			       s.r_die + s.r_case);
		}
}

/* --table, second part: every plant's resistance x1.5 at 900 s. */
static void print_changes(void)
{
	printf("\nplant, resistance x1.5 at 900 s     SP W  sensor | detected after s | lowest "
	       "confidence | error %% (confidence) 300 s and 600 s after\n");
	for (int noisy = 0; noisy < 2; noisy++)
		for (size_t i = 0; i < N_PLANTS * 2; i++) {
			struct synth_spec sp = spec(i / 2, sustainable_w[i % 2], noisy);
			double lowest = 1, detected = -1;
			struct synth s;
			uint32_t changes;

			synth_init(&s, &sp, sp.sustainable_w);
			synth_run(&s, 900);
			changes = s.model.state.changes;
			synth_scale_resistance(&s, 1.5);
			for (double t = 905; t <= 1200; t += 5) {
				synth_run(&s, t);
				lowest = fmin(lowest, s.model.est.confidence);
				if (detected < 0 && s.model.state.changes > changes)
					detected = t - 900;
			}
			printf("%5.1f/%5.1f %.1f                     %5.1f  %-6s | %4.0f | %.2f | "
			       "%+6.1f (%.2f)", plants[i / 2][0], plants[i / 2][1], plants[i / 2][2],
			       sp.sustainable_w, noisy ? "1 °C" : "exact", detected, lowest,
			       100 * error_of(&s), s.model.est.confidence);
			synth_run(&s, 1500);
			printf(" %+6.1f (%.2f)\n", 100 * error_of(&s), s.model.est.confidence);
		}
}

/* The prediction is the first-order step response the estimate describes. */
static void test_predict_formula(void **unused)
{
	struct thermal_estimate e = { .time_constant_s = 10, .gain_k_per_w = 2,
				      .offset_c = 30 };

	(void)unused;
	/* Settles at 30 + 2 x 10 = 50 °C; from 40 °C, one time constant later. */
	assert_int_equal(thermal_model_predict_mc(&e, 40000, 10000, 0), 40000);
	assert_int_equal(thermal_model_predict_mc(&e, 40000, 10000, 10),
			 (int32_t)lround(50000 - 10000 * exp(-1)));
	assert_int_equal(thermal_model_predict_mc(&e, 40000, 10000, 1e6), 50000);
	/* Above where it settles: it cools. */
	assert_true(thermal_model_predict_mc(&e, 60000, 10000, 5) < 60000);
	/* No time constant learnt: at once where it settles. */
	e.time_constant_s = 0;
	assert_int_equal(thermal_model_predict_mc(&e, 40000, 10000, 1), 50000);
}

/*
 * The forecast on every plant after it learnt (LEARN_S under control): the
 * power held at @share of the sustainable for 5 s (the die's fast rise in
 * the reading), then the temperature FORECAST_S ahead against the plant's.
 * Return: the largest error, K.
 */
#define FORECAST_S 10.0
static const double shares[] = { 1.0, 1.2, 0.5, 2.0 };
static double forecast_error(bool noisy, double share, bool print)
{
	double worst = 0;

	for (size_t i = 0; i < N_CELLS; i += 2) {
		struct synth s;
		char name[96];
		int32_t predicted;
		double power_w;

		start_cell(i, noisy, &s, name);
		synth_run(&s, LEARN_S);
		power_w = share * synth_sustainable_w(&s);
		synth_hold(&s, power_w, LEARN_S + 5);
		predicted = thermal_model_predict_mc(&s.model.est, (int32_t)lround(s.die_c * 1000),
						     (uint32_t)lround(power_w * 1000), FORECAST_S);
		synth_hold(&s, power_w, LEARN_S + 5 + FORECAST_S);
		if (print)
			printf("%s  x%.1f  %6.2f °C predicted, %6.2f °C reached, error %+5.2f K\n",
			       name, share, predicted / 1000.0, s.die_c, predicted / 1000.0 - s.die_c);
		worst = fmax(worst, fabs(predicted / 1000.0 - s.die_c));
	}
	return worst;
}

/*
 * Within 1 °C 10 s ahead at the sustainable power, where a zone under
 * control runs and the model learnt.  Away from it the learnt gain is
 * extrapolated: --table measures 2.2 K at 1.2 x, 5.5 K at 0.5 x and 11 K
 * at 2 x (doc/thermal-model.md).
 */
static void test_forecast(void **unused)
{
	(void)unused;
	assert_true(forecast_error(false, 1.0, false) < 1.0);
}

static int print_table(void)
{
	print_learning();
	print_changes();
	printf("\nForecast %.0f s ahead after %.0f s of learning, the power held:\n", FORECAST_S,
	       LEARN_S);
	for (size_t k = 0; k < sizeof(shares) / sizeof(shares[0]); k++)
		printf("x%.1f the sustainable power: largest error %.2f K\n", shares[k],
		       forecast_error(false, shares[k], k == 0));
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prior),
		cmocka_unit_test(test_learns_exact_sensor),
		cmocka_unit_test(test_learns_noisy_sensor),
		cmocka_unit_test(test_confidence_rises_with_excitation),
		cmocka_unit_test(test_plant_change),
		cmocka_unit_test(test_no_chatter),
		cmocka_unit_test(test_silicon_draw),
		cmocka_unit_test(test_spike),
		cmocka_unit_test(test_degenerate_input),
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_irregular_sampling),
		cmocka_unit_test(test_predict_formula),
		cmocka_unit_test(test_forecast),
	};

	if (argc > 1 && strcmp(argv[1], "--table") == 0)
		return print_table();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
