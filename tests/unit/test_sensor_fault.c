/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sensors that lie (lib/control/sensor_fault.c): the stuck-sensor detector
 * and the names of the faults; the most a zone's model lets it move in one
 * period (thermal_model_max_change_mc(), the spike bound of a zone with a
 * confident model).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "control/sensor_fault.h"
#include "control/thermal_model.h"

#define PERIOD_US 100000ULL	/* 100 ms */
#define MAX_MW 4000		/* the zone's maximum power */

/* @n readings of @temp_mc at @power_mw, each @elapsed_us after the last; how many said stuck. */
static int feed(struct stuck_sensor *s, int n, int32_t temp_mc, uint32_t power_mw,
		uint64_t elapsed_us)
{
	int stuck = 0;

	for (int k = 0; k < n; k++)
		stuck += stuck_sensor_step(s, temp_mc, power_mw, MAX_MW, elapsed_us);
	return stuck;
}

/*
 * A coarse sensor on a steady load holds its value for ever: the power does
 * not move, so it is never stuck (10 minutes of 100 ms readings), nor with
 * the power wandering by up to 25 % of the maximum.
 */
static void test_steady_load_is_not_stuck(void **unused)
{
	struct stuck_sensor s = { 0 };

	(void)unused;
	assert_int_equal(feed(&s, 6000, 75000, 2500, PERIOD_US), 0);
	for (int k = 0; k < 6000; k++)
		assert_false(stuck_sensor_step(&s, 75000, k % 2 ? 2500 : 2500 + MAX_MW / 4,
					       MAX_MW, PERIOD_US));
	assert_int_equal(s.reads, 12000);
	assert_int_equal(s.moved_us, 0);
}

/*
 * One value while the power is more than 25 % of the maximum away from
 * what it drew at the first reading: stuck once that lasted STUCK_MOVED_MS
 * (300 readings of 100 ms), not one reading before; a value that moves by
 * 1 m°C clears it and starts a new hold.
 */
static void test_frozen_under_a_moving_power_is_stuck(void **unused)
{
	struct stuck_sensor s = { 0 };
	int moved = STUCK_MOVED_MS * 1000 / (int)PERIOD_US;

	(void)unused;
	assert_int_equal(feed(&s, 10, 60000, 500, PERIOD_US), 0);
	assert_int_equal(feed(&s, moved - 1, 60000, 500 + MAX_MW / 4 + 1, PERIOD_US), 0);
	assert_true(stuck_sensor_step(&s, 60000, 3900, MAX_MW, PERIOD_US));
	assert_true(s.stuck);
	assert_int_equal(s.moved_mw, 3400);
	assert_int_equal(s.moved_us, (uint64_t)STUCK_MOVED_MS * 1000);
	/* The power coming back does not unstick it; the value moving does. */
	assert_true(stuck_sensor_step(&s, 60000, 500, MAX_MW, PERIOD_US));
	assert_false(stuck_sensor_step(&s, 60001, 3900, MAX_MW, PERIOD_US));
	assert_int_equal(s.reads, 1);
	assert_int_equal(s.ref_power_mw, 3900);
	assert_int_equal(feed(&s, moved + 10, 60001, 3900, PERIOD_US), 0);
	/* Falling power counts as rising power does. */
	assert_int_equal(feed(&s, moved, 60001, 100, PERIOD_US), 1);
}

/* Idle polls of 5 s: the time is there after 7 readings, the readings only after 20. */
static void test_needs_its_readings(void **unused)
{
	struct stuck_sensor s = { 0 };

	(void)unused;
	assert_false(stuck_sensor_step(&s, 45000, 200, MAX_MW, 5000000));
	assert_int_equal(feed(&s, STUCK_MIN_READS - 2, 45000, 3000, 5000000), 0);
	assert_true(stuck_sensor_step(&s, 45000, 3000, MAX_MW, 5000000));
	assert_int_equal(s.reads, STUCK_MIN_READS);
}

/* A zone without a power (step_wise devices only) is never stuck; a reset forgets the value. */
static void test_no_power_and_reset(void **unused)
{
	struct stuck_sensor s = { 0 };

	(void)unused;
	for (int k = 0; k < 1000; k++)
		assert_false(stuck_sensor_step(&s, 50000, k % 2 ? 0 : 1000, 0, PERIOD_US));
	stuck_sensor_reset(&s);
	assert_false(s.primed);
	assert_false(stuck_sensor_step(&s, 50000, 1000, MAX_MW, PERIOD_US));
	assert_int_equal(s.reads, 1);
}

/* @n readings of @temp_mc at @power_mw, 100 ms apart, judged with @est; how many said stuck. */
static int feed_model(struct stuck_sensor *s, int n, int32_t temp_mc, uint32_t power_mw,
		      const struct thermal_estimate *est)
{
	int stuck = 0;

	for (int k = 0; k < n; k++)
		stuck += stuck_sensor_step_model(s, temp_mc, power_mw, MAX_MW, PERIOD_US, est);
	return stuck;
}

/*
 * A case sensor (review 33, finding 5): time constant 1000 s, 1 °C steps,
 * 7.5 K/W: 40 % of the maximum power more shifts its steady state by 12 °C
 * but moves it 0.36 °C in 30 s.  The rule without a model calls it stuck at
 * 30 s; with the confident model it is not, until the model expects more
 * than 2 steps (2 °C: 12 (1 - e^(-t/1000)) > 2 at t = 182.3 s); and then,
 * frozen that long, it is.
 */
static void test_slow_sensor_waits_for_the_model(void **unused)
{
	const struct thermal_estimate est = { .time_constant_s = 1000, .gain_k_per_w = 7.5,
					      .confidence = 0.95 };
	struct stuck_sensor plain = { 0 }, s = { 0 };
	int moved = STUCK_MOVED_MS * 1000 / (int)PERIOD_US;

	(void)unused;
	/* Its step shown by a change of one degree; the power then rises by 40 %. */
	assert_int_equal(feed_model(&s, 10, 44000, 500, &est), 0);
	assert_int_equal(feed_model(&s, 10, 45000, 500, &est), 0);
	assert_int_equal(s.step_mc, 1000);
	assert_int_equal(feed(&plain, 10, 45000, 500, PERIOD_US), 0);
	assert_int_equal(feed(&plain, moved, 45000, 2100, PERIOD_US), 1);
	assert_int_equal(feed_model(&s, moved, 45000, 2100, &est), 0);
	/* 12000 (1 - e^-0.03) = 354.7 m°C expected so far. */
	assert_in_range(s.expected_mc, 350, 360);
	/* Not stuck at 180 s of the hold, stuck by 185 s. */
	assert_int_equal(feed_model(&s, 1500, 45000, 2100, &est), 0);
	assert_in_range(s.expected_mc, 1950, 2000);
	assert_int_equal(feed_model(&s, 50, 45000, 2100, &est) > 0, 1);
	assert_true(s.stuck);
	assert_in_range(s.expected_mc, 2000, 2070);
}

/*
 * A die (time constant 5 s, 10 K/W, 2 K/W over its case): the model
 * expects degrees within seconds, so the rule's 30 s decide as without
 * it; the power back where it was, what the model expected decays.
 */
static void test_die_with_model_as_without(void **unused)
{
	const struct thermal_estimate est = { .time_constant_s = 5, .gain_k_per_w = 10,
					      .fast_gain_k_per_w = 2, .confidence = 0.95 };
	struct stuck_sensor s = { 0 };
	int moved = STUCK_MOVED_MS * 1000 / (int)PERIOD_US;

	(void)unused;
	assert_int_equal(feed_model(&s, 10, 60000, 500, &est), 0);
	assert_int_equal(feed_model(&s, moved - 1, 60000, 1600, &est), 0);
	assert_true(stuck_sensor_step_model(&s, 60000, 1600, MAX_MW, PERIOD_US, &est));
	/* 1100 mW more: 11000 m°C settled for the case, 2200 m°C of die step. */
	assert_in_range(s.expected_mc, 13100, 13200);
	/* Unknown step (no change seen): 1 °C assumed; the power back, the expectation fades. */
	assert_int_equal(s.step_mc, 0);
	stuck_sensor_step_model(&s, 60000, 500, MAX_MW, 60 * 1000000ULL, &est);
	assert_in_range(s.expected_mc, 0, 1);
	assert_false(s.stuck);
}

/* The sensor's step: the smallest change seen, kept over a reset. */
static void test_sensor_step(void **unused)
{
	struct stuck_sensor s = { 0 };
	double slow_mc = 0;
	const struct thermal_estimate est = { .time_constant_s = 100, .gain_k_per_w = 4,
					      .fast_gain_k_per_w = 1 };

	(void)unused;
	feed(&s, 1, 50000, 1000, PERIOD_US);
	feed(&s, 1, 50500, 1000, PERIOD_US);
	feed(&s, 1, 52000, 1000, PERIOD_US);
	assert_int_equal(s.step_mc, 500);
	feed(&s, 1, 51900, 1000, PERIOD_US);
	assert_int_equal(s.step_mc, 100);
	stuck_sensor_reset(&s);
	assert_false(s.primed);
	assert_int_equal(s.step_mc, 100);
	/* 1 W less for 100 s: the slow node 4 K (1 - 1/e) down, the die 1 K at once. */
	assert_int_equal(stuck_expected_mc(&est, &slow_mc, 1000, 2000, 100), -3528);
	assert_int_equal(lround(slow_mc), -2528);
}

static void test_names(void **unused)
{
	(void)unused;
	assert_string_equal(sensor_fault_name(SENSOR_FAULT_NONE), "none");
	assert_string_equal(sensor_fault_name(SENSOR_FAULT_READ), "read-error");
	assert_string_equal(sensor_fault_name(SENSOR_FAULT_RANGE), "out-of-range");
	assert_string_equal(sensor_fault_name(SENSOR_FAULT_SPIKE), "spike");
	assert_string_equal(sensor_fault_name(SENSOR_FAULT_STUCK), "stuck");
	assert_string_equal(sensor_fault_name(SENSOR_FAULTS), "?");
}

/*
 * A die of 2 K/W over its case, 10 K/W in all with a 10 s time constant,
 * settling at 40 °C without power; 5 W flat out.  At 60 °C, 100 ms: the
 * die's step (10 °C) plus the way to 90 °C (30 °C x (1 - e^-0.01), 0.30 °C),
 * which is further than the way down to 40 °C (0.20 °C).  At 85 °C the way
 * down is the further.  No time: the die's step alone.
 */
/*
 * A sensor that spikes every 15 s for a day: said at most once in
 * SPIKE_QUIET_MS (the first at once), the ones between counted and handed
 * out with the next one said; a spike after a long quiet is said at once.
 */
static void test_spikes_said_once_in_a_while(void **unused)
{
	struct spike_quiet q = { 0 };
	uint64_t t = 5000 * 1000ULL, last_said = 0;
	uint32_t unsaid = 99, counted = 0;
	int said = 0, spikes = 0;

	(void)unused;
	assert_true(spike_quiet_step(&q, t, &unsaid));
	assert_int_equal(unsaid, 0);
	last_said = t;
	said++, spikes++;
	for (t += 15000000ULL; t < 5000000ULL + 86400000000ULL; t += 15000000ULL) {
		spikes++;
		if (!spike_quiet_step(&q, t, &unsaid))
			continue;
		assert_true(t - last_said >= SPIKE_QUIET_MS * 1000ULL);
		assert_int_equal(unsaid, SPIKE_QUIET_MS / 15000 - 1);
		counted += unsaid;
		last_said = t;
		said++;
	}
	assert_int_equal(said, 86400 / (SPIKE_QUIET_MS / 1000));
	assert_int_equal(said + (int)counted + (int)q.unsaid, spikes);
	/* After a quiet longer than the bound, the next spike is said, with its tail. */
	assert_true(spike_quiet_step(&q, t + SPIKE_QUIET_MS * 1000ULL, &unsaid));
	assert_int_equal(unsaid, spikes - said - counted);
}

static void test_model_max_change(void **unused)
{
	struct thermal_estimate est = { .time_constant_s = 10, .gain_k_per_w = 10,
					.fast_gain_k_per_w = 2, .offset_c = 40 };

	(void)unused;
	assert_in_range(thermal_model_max_change_mc(&est, 60000, 5000, 0.1), 10297, 10301);
	assert_in_range(thermal_model_max_change_mc(&est, 85000, 5000, 0.1), 10446, 10450);
	assert_int_equal(thermal_model_max_change_mc(&est, 60000, 5000, 0), 10000);
	/* A second: 30 °C x (1 - e^-0.1) = 2.85 °C. */
	assert_in_range(thermal_model_max_change_mc(&est, 60000, 5000, 1), 12853, 12856);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steady_load_is_not_stuck),
		cmocka_unit_test(test_frozen_under_a_moving_power_is_stuck),
		cmocka_unit_test(test_needs_its_readings),
		cmocka_unit_test(test_no_power_and_reset),
		cmocka_unit_test(test_slow_sensor_waits_for_the_model),
		cmocka_unit_test(test_die_with_model_as_without),
		cmocka_unit_test(test_sensor_step),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_spikes_said_once_in_a_while),
		cmocka_unit_test(test_model_max_change),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
