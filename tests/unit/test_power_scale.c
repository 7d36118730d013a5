/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The power model's calibration from a meter (lib/control/power_scale.c) on
 * synthetic actors: a table power that moves between states, a meter that
 * measures the silicon's (a scale, maybe an offset, noise), read as an
 * energy counter every period or as a held hwmon sample.  --table prints
 * the figures doc/power-meters.md quotes.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "assert_near.h"

#include "control/power_scale.h"


#define PERIOD_MS 100
#define PERIOD_US (PERIOD_MS * 1000ULL)
/* A window is 20 periods with an energy counter. */
#define WINDOW_PERIODS POWER_SCALE_WINDOW_PERIODS

/* The RK3399 big cluster's table at its OPPs, both CPUs busy, mW (a spread of states). */
static const double states_mw[] = { 228, 356, 531, 766, 1083, 1497, 1961, 2541 };
#define N_STATES (sizeof(states_mw) / sizeof(states_mw[0]))

/* splitmix64 and Box-Muller: the same noise on every machine. */
static uint64_t rng_state;

static double unit(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return ((double)(z >> 11) + 1.0) / 9007199254740992.0;
}

static double gaussian(void)
{
	return sqrt(-2.0 * log(unit())) * cos(2.0 * M_PI * unit());
}

/*
 * A synthetic actor: each period the controller picks a state near the
 * last (it dithers), the load is @load or, with @vary_load, 0.3-1.
 */
struct actor {
	size_t state;
	bool vary_load;
	double true_scale;
	double true_offset_mw;
	double noise;		/* relative, per period, standard deviation */
};

static double next_model_mw(struct actor *a)
{
	double u = unit(), load = a->vary_load ? 0.3 + 0.7 * unit() : 1.0;

	if (u < 0.3 && a->state > 0)
		a->state--;
	else if (u > 0.7 && a->state + 1 < N_STATES)
		a->state++;
	return states_mw[a->state] * load;
}

/* What the silicon draws for @model_mw this period, noise included. */
static double true_mw(const struct actor *a, double model_mw)
{
	return fmax(0, (a->true_scale * model_mw + a->true_offset_mw) * (1 + a->noise * gaussian()));
}

/* @periods of an energy counter read every period. Return: the windows that closed. */
static int run_energy(struct power_scale *ps, struct actor *a, int periods)
{
	int windows = 0;

	for (int i = 0; i < periods; i++) {
		double m = next_model_mw(a);

		if (power_scale_feed(ps, PERIOD_US, m, true_mw(a, m)) == POWER_SCALE_WINDOW)
			windows++;
	}
	return windows;
}

/* An hwmon power meter: the silicon's mean power over its sample period, held until the next. */
struct held_meter {
	int sample_ms;
	int in_sample;
	double acc_mw;
	double held_mw;
};

/* @periods of @meter read every period. */
static void run_held(struct power_scale *ps, struct actor *a, struct held_meter *meter,
		     int periods)
{
	int per_sample = meter->sample_ms / PERIOD_MS;

	for (int i = 0; i < periods; i++) {
		double m = next_model_mw(a);

		meter->acc_mw += true_mw(a, m);
		if (++meter->in_sample == per_sample) {
			meter->held_mw = meter->acc_mw / per_sample;
			meter->acc_mw = 0;
			meter->in_sample = 0;
		}
		power_scale_feed(ps, PERIOD_US, m, meter->held_mw);
	}
}

/* 0.7, 1.0 and 1.4 x the table, 5 % noise each period: within 2 % in 20 windows (40 s). */
static void test_converges(void **unused)
{
	static const double scales[] = { 0.7, 1.0, 1.4 };

	(void)unused;
	for (size_t k = 0; k < 3; k++) {
		struct actor a = { .state = 4, .true_scale = scales[k], .noise = 0.05 };
		struct power_scale ps;

		rng_state = 1 + k;
		power_scale_init(&ps, PERIOD_MS, 0);
		assert_int_equal(run_energy(&ps, &a, 20 * WINDOW_PERIODS), 20);
		assert_near(ps.scale, scales[k], 0.02 * scales[k]);
		/* A pure scale: the offset is not worth it. */
		assert_true(ps.offset_mw == 0);
		assert_true(ps.confidence > 0.9);
		assert_false(ps.implausible);
		/* Blended by a confidence over 0.9: most of the way to the truth. */
		assert_near(power_scale_apply_mw(&ps, 1000), 1000 * scales[k],
				   0.1 * fabs(scales[k] - 1) * 1000 + 20);
	}
}

/* A meter exactly 1.25 x the model over spread states: scale only, exact, confident. */
static void test_exact_meter(void **unused)
{
	struct actor a = { .state = 4, .true_scale = 1.25 };
	struct power_scale ps;

	(void)unused;
	rng_state = 12;
	power_scale_init(&ps, PERIOD_MS, 0);
	run_energy(&ps, &a, 20 * WINDOW_PERIODS);
	assert_true(ps.offset_mw == 0);
	assert_near(ps.scale, 1.25, 1e-9);
	assert_true(ps.confidence > 0.95);
}

/* Nothing learnt: confidence 0, the table itself. */
static void test_first_window(void **unused)
{
	struct actor a = { .state = 4, .true_scale = 1.4 };
	struct power_scale ps;

	(void)unused;
	rng_state = 7;
	power_scale_init(&ps, PERIOD_MS, 0);
	assert_int_equal(run_energy(&ps, &a, WINDOW_PERIODS - 1), 0);
	assert_true(ps.confidence == 0);
	assert_true(power_scale_apply_mw(&ps, 1000) == 1000);
	assert_int_equal(run_energy(&ps, &a, 1), 1);
	/* One window: the scale is seen, the confidence still low. */
	assert_near(ps.scale, 1.4, 0.001);
	assert_true(ps.confidence > 0.1 && ps.confidence < 0.3);
}

/*
 * An hwmon power updated every second (10 periods), the averaged sample
 * held between updates, the state changing every period: the windows
 * (4 samples) and the model's delay keep the pairs aligned, so the
 * estimate is as close and as confident as with an energy counter.
 */
static void test_slow_sampling(void **unused)
{
	struct actor a = { .state = 4, .true_scale = 1.4, .noise = 0.05 };
	struct held_meter meter = { .sample_ms = 1000 };
	struct power_scale ps;

	(void)unused;
	rng_state = 11;
	power_scale_init(&ps, PERIOD_MS, 1000);
	assert_int_equal(ps.window_us, 4000000);
	/* 30 windows of 40 periods. */
	run_held(&ps, &a, &meter, 30 * 40);
	assert_near(ps.scale, 1.4, 0.02 * 1.4);
	assert_true(ps.offset_mw == 0);
	assert_true(ps.confidence > 0.9);
}

/* The silicon's scale steps from 1.0 to 1.3 (a hotter die): within 3 % after 60 windows. */
static void test_step_change(void **unused)
{
	struct actor a = { .state = 4, .true_scale = 1.0, .noise = 0.05 };
	struct power_scale ps;

	(void)unused;
	rng_state = 5;
	power_scale_init(&ps, PERIOD_MS, 0);
	run_energy(&ps, &a, 100 * WINDOW_PERIODS);
	assert_near(ps.scale, 1.0, 0.02);
	a.true_scale = 1.3;
	run_energy(&ps, &a, 10 * WINDOW_PERIODS);
	/* Moving: 40 % of the way after 10 windows (0.95^10 = 0.6 of the weight is old). */
	assert_true(ps.scale > 1.1 && ps.scale < 1.15);
	run_energy(&ps, &a, 50 * WINDOW_PERIODS);
	assert_near(ps.scale, 1.3, 0.03 * 1.3);
}

/*
 * A rail that also feeds 300 mW the table does not know, the load varying:
 * the offset is fitted.
 */
static void test_offset(void **unused)
{
	struct actor a = { .state = 4, .vary_load = true, .true_scale = 1.1,
			   .true_offset_mw = 300, .noise = 0.03 };
	struct power_scale ps;

	(void)unused;
	rng_state = 3;
	power_scale_init(&ps, PERIOD_MS, 0);
	run_energy(&ps, &a, 60 * WINDOW_PERIODS);
	assert_near(ps.scale, 1.1, 0.05);
	assert_near(ps.offset_mw, 300, 60);
	assert_true(ps.confidence > 0.8);
	/* The table's figure and the real power are each other's inverse. */
	for (double t = 100; t <= 3000; t += 100)
		assert_near(power_scale_table_mw(&ps, power_scale_apply_mw(&ps, t)), t, 1e-6);
}

/*
 * Leakage at a fixed temperature (doc/power-meters.md): the RK3399 big
 * cluster dithering over OPPs 4-6 at a load that moves between 0.3 and 1
 * every 5 s (windows of 2 s: their means spread), drawing its table's
 * dynamic power plus k V^3 (224, 282, 348 mW) whatever the load.  The
 * offset is fitted, and the estimate holds at 30 % load on the lowest of
 * them, where a scale alone is 25 % short.
 */
static void test_leakage(void **unused)
{
	static const double dyn_mw[] = { 944, 1297, 1697 }, leak_mw[] = { 224, 282, 348 };
	struct power_scale ps;
	size_t state = 1;
	double load = 1;

	(void)unused;
	rng_state = 8;
	power_scale_init(&ps, PERIOD_MS, 0);
	for (int i = 0; i < 60 * WINDOW_PERIODS; i++) {
		double u = unit();

		if (i % 50 == 0)
			load = 0.3 + 0.7 * unit();
		if (u < 0.3 && state > 0)
			state--;
		else if (u > 0.7 && state < 2)
			state++;
		power_scale_feed(&ps, PERIOD_US, dyn_mw[state] * load,
				 dyn_mw[state] * load + leak_mw[state]);
	}
	assert_true(ps.offset_mw > 100);
	assert_near(power_scale_apply_mw(&ps, 0.3 * dyn_mw[0]), 0.3 * dyn_mw[0] + leak_mw[0],
		    0.1 * (0.3 * dyn_mw[0] + leak_mw[0]));
	assert_near(power_scale_apply_mw(&ps, dyn_mw[2]), dyn_mw[2] + leak_mw[2],
		    0.1 * (dyn_mw[2] + leak_mw[2]));
}

/*
 * A meter 5 x the model for POWER_SCALE_IMPLAUSIBLE_WINDOWS windows: dropped,
 * said once; the table from then on, and the fit before it untouched.
 */
static void test_implausible(void **unused)
{
	struct actor a = { .state = 4, .true_scale = 1.2, .noise = 0.02 };
	struct power_scale ps;
	int dropped = 0;
	double scale;

	(void)unused;
	rng_state = 9;
	power_scale_init(&ps, PERIOD_MS, 0);
	run_energy(&ps, &a, 10 * WINDOW_PERIODS);
	scale = ps.scale;
	a.true_scale = 5;
	for (int i = 0; i < 20 * WINDOW_PERIODS; i++) {
		double m = next_model_mw(&a);
		enum power_scale_event e = power_scale_feed(&ps, PERIOD_US, m, true_mw(&a, m));

		if (e == POWER_SCALE_DROPPED) {
			dropped++;
			/* After the windows in a row, not before. */
			assert_int_equal(i + 1, POWER_SCALE_IMPLAUSIBLE_WINDOWS * WINDOW_PERIODS);
		}
	}
	assert_int_equal(dropped, 1);
	assert_true(ps.implausible);
	assert_true(ps.scale == scale);
	assert_true(power_scale_apply_mw(&ps, 1000) == 1000);
	assert_true(power_scale_table_mw(&ps, 1000) == 1000);
}

/* A meter stuck at 0 is implausible too (ratio 0). */
static void test_stuck_at_zero(void **unused)
{
	struct actor a = { .state = 4 };
	struct power_scale ps;
	int dropped = 0;

	(void)unused;
	rng_state = 2;
	power_scale_init(&ps, PERIOD_MS, 0);
	for (int i = 0; i < 10 * WINDOW_PERIODS; i++)
		dropped += power_scale_feed(&ps, PERIOD_US, next_model_mw(&a), 0) ==
			   POWER_SCALE_DROPPED;
	assert_int_equal(dropped, 1);
	assert_true(ps.implausible);
}

/* One wild window (a glitch) neither drops the meter nor moves the scale. */
static void test_glitch(void **unused)
{
	struct actor a = { .state = 4, .true_scale = 0.8 };
	struct power_scale ps;
	double scale;

	(void)unused;
	rng_state = 4;
	power_scale_init(&ps, PERIOD_MS, 0);
	run_energy(&ps, &a, 10 * WINDOW_PERIODS);
	scale = ps.scale;
	for (int i = 0; i < WINDOW_PERIODS; i++)
		assert_int_not_equal(power_scale_feed(&ps, PERIOD_US, 1000, 20000),
				     POWER_SCALE_DROPPED);
	assert_true(ps.scale == scale);
	assert_int_equal(ps.bad_windows, 1);
	run_energy(&ps, &a, WINDOW_PERIODS);
	assert_int_equal(ps.bad_windows, 0);
	assert_false(ps.implausible);
}

static void assert_sane(const struct power_scale *ps)
{
	assert_true(isfinite(ps->scale) && isfinite(ps->offset_mw) && isfinite(ps->confidence));
	assert_true(ps->confidence >= 0 && ps->confidence <= 1);
	for (double t = 0; t <= 4000; t += 500) {
		assert_true(isfinite(power_scale_apply_mw(ps, t)));
		assert_true(power_scale_apply_mw(ps, t) >= 0);
		assert_true(isfinite(power_scale_table_mw(ps, t)));
		assert_true(power_scale_table_mw(ps, t) >= 0);
	}
}

/* Zeros, NaN, infinities, negative and zero-length periods: nothing learnt, nothing NaN. */
static void test_zeros(void **unused)
{
	struct power_scale ps;

	(void)unused;
	power_scale_init(&ps, PERIOD_MS, 0);
	for (int i = 0; i < 10 * WINDOW_PERIODS; i++)
		assert_int_equal(power_scale_feed(&ps, PERIOD_US, 0, 0), POWER_SCALE_NONE);
	assert_sane(&ps);
	/* An idle actor on a live rail: no modelled power, nothing to scale. */
	for (int i = 0; i < 10 * WINDOW_PERIODS; i++)
		assert_int_equal(power_scale_feed(&ps, PERIOD_US, 0, 150), POWER_SCALE_NONE);
	assert_sane(&ps);
	assert_true(ps.sums.weight == 0 && ps.scale == 1);
	power_scale_feed(&ps, PERIOD_US, NAN, 100);
	power_scale_feed(&ps, PERIOD_US, 100, INFINITY);
	power_scale_feed(&ps, PERIOD_US, -5, 100);
	power_scale_feed(&ps, 0, 1e300, 1e300);
	assert_sane(&ps);
	assert_true(ps.win_us == 0);
	/* A period of 0 ms in the init: taken as 1. */
	power_scale_init(&ps, 0, 0);
	assert_true(ps.window_us == 1000 * WINDOW_PERIODS);
	assert_sane(&ps);
}

/* A break drops the window being filled: the next window starts from the break. */
static void test_break(void **unused)
{
	struct power_scale ps;

	(void)unused;
	power_scale_init(&ps, PERIOD_MS, 1000);
	for (int i = 0; i < 30; i++)
		power_scale_feed(&ps, PERIOD_US, 1000, 1000);
	/* The first second (the meter's delay) pairs with no model: 20 periods counted. */
	assert_true(ps.win_us == 20 * PERIOD_US);
	assert_int_equal(ps.delay_n, 10);
	power_scale_break(&ps);
	assert_true(ps.win_us == 0 && ps.delay_n == 0 && ps.win_model_mws == 0);
}

/* Exported, imported: the same estimate, its weight cut; bad states refused. */
static void test_export_import(void **unused)
{
	struct actor a = { .state = 4, .true_scale = 1.3, .noise = 0.05 };
	struct power_scale ps, back;
	struct power_scale_state s, bad;

	(void)unused;
	rng_state = 6;
	power_scale_init(&ps, PERIOD_MS, 0);
	run_energy(&ps, &a, 40 * WINDOW_PERIODS);
	power_scale_export(&ps, &s);
	power_scale_init(&back, PERIOD_MS, 0);
	assert_int_equal(power_scale_import(&back, &s), 0);
	assert_near(back.scale, ps.scale, 1e-9);
	assert_near(back.sums.weight, POWER_SCALE_RESUME_WINDOWS, 1e-9);
	assert_true(back.confidence > 0.8);
	bad = s;
	bad.sum_p = NAN;
	assert_int_equal(power_scale_import(&back, &bad), -EINVAL);
	bad = s;
	bad.weight = -1;
	assert_int_equal(power_scale_import(&back, &bad), -EINVAL);
	bad = s;
	bad.sum_pp = 0;	/* no windows give sum_p > 0 with sum_pp = 0 */
	assert_int_equal(power_scale_import(&back, &bad), -EINVAL);
	/* An implausible estimate: 5 x. */
	bad = (struct power_scale_state){ .weight = 1, .sum_p = 100, .sum_m = 500,
					  .sum_pp = 1e4, .sum_pm = 5e4, .sum_mm = 25e4 };
	assert_int_equal(power_scale_import(&back, &bad), -EINVAL);
	assert_near(back.scale, ps.scale, 1e-9);
	/* The empty state: nothing learnt. */
	memset(&bad, 0, sizeof(bad));
	power_scale_init(&back, PERIOD_MS, 0);
	assert_int_equal(power_scale_import(&back, &bad), 0);
	assert_true(back.scale == 1 && back.confidence == 0);
}

/*
 * --table: per scale and meter, the scale learnt and its confidence after
 * 5, 10, 20 and 40 windows (doc/power-meters.md).
 */
static void print_table(void)
{
	static const double scales[] = { 0.7, 1.0, 1.4 };
	static const int samples_ms[] = { 0, 1000 };

	printf("scale  meter    windows: 5             10            20            40\n");
	for (size_t k = 0; k < 3; k++)
		for (size_t j = 0; j < 2; j++) {
			struct actor a = { .state = 4, .true_scale = scales[k], .noise = 0.05 };
			struct held_meter meter = { .sample_ms = samples_ms[j] ? samples_ms[j]
								   : PERIOD_MS };
			struct power_scale ps;
			int done = 0;

			rng_state = 1 + k;
			power_scale_init(&ps, PERIOD_MS, (uint32_t)samples_ms[j]);
			printf("%4.1f   %-7s ", scales[k], samples_ms[j] ? "hwmon1s" : "energy");
			for (int w = 5; w <= 40; w *= 2) {
				int per = (int)(ps.window_us / PERIOD_US);

				run_held(&ps, &a, &meter, (w - done) * per);
				done = w;
				printf("  %.3f c %.2f", ps.scale, ps.confidence);
			}
			printf("\n");
		}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_converges),
		cmocka_unit_test(test_exact_meter),
		cmocka_unit_test(test_first_window),
		cmocka_unit_test(test_slow_sampling),
		cmocka_unit_test(test_step_change),
		cmocka_unit_test(test_offset),
		cmocka_unit_test(test_leakage),
		cmocka_unit_test(test_implausible),
		cmocka_unit_test(test_stuck_at_zero),
		cmocka_unit_test(test_glitch),
		cmocka_unit_test(test_zeros),
		cmocka_unit_test(test_break),
		cmocka_unit_test(test_export_import),
	};

	if (argc > 1 && strcmp(argv[1], "--table") == 0) {
		print_table();
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
