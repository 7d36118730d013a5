/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fastest recent rise of a zone (lib/control/rise.c): when an idle zone is polled at its period. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "control/rise.h"

#define S 1000000ULL	/* µs */

/* Switch-on 70 °C, control 85 °C: the band limit is 15 °C; idle poll 1 s. */
#define SWITCH_ON 70000
#define BAND 15000
#define IDLE_MS 1000

/* Nothing is known before two readings: only a zone already past the threshold is due. */
static void test_unprimed_and_first_reading(void **unused)
{
	struct rise_tracker t = { 0 };

	(void)unused;
	assert_false(rise_could_reach(&t, SWITCH_ON, IDLE_MS, BAND));
	rise_track(&t, 69000, 10 * S);
	assert_int_equal(t.max_rate_mc_per_s, 0);
	assert_false(rise_could_reach(&t, SWITCH_ON, IDLE_MS, BAND));
	rise_track(&t, 71000, 11 * S);
	assert_true(rise_could_reach(&t, SWITCH_ON, IDLE_MS, BAND));
}

/* A rise of 6 °C in one second: within 6 °C of switch-on the zone is due at its period. */
static void test_rate_and_reach(void **unused)
{
	struct rise_tracker t = { 0 };

	(void)unused;
	rise_track(&t, 60000, 100 * S);
	rise_track(&t, 66000, 101 * S);
	assert_in_range(t.max_rate_mc_per_s, 5900, 6000);
	assert_true(rise_could_reach(&t, SWITCH_ON, IDLE_MS, BAND));	/* 4 °C below */
	/* The same rate over a ten times shorter idle poll reaches 0.6 °C only. */
	assert_false(rise_could_reach(&t, SWITCH_ON, 100, BAND));
	/* Falling does not lower the rate learnt (only time does)... */
	rise_track(&t, 65000, 102 * S);
	assert_in_range(t.max_rate_mc_per_s, 5800, 6000);
	assert_true(rise_could_reach(&t, SWITCH_ON, IDLE_MS, BAND));	/* 5 °C below */
}

/* ...but 8 °C below switch-on at 6 °C/s is out of reach of one idle poll. */
static void test_out_of_reach(void **unused)
{
	struct rise_tracker t = { 0 };

	(void)unused;
	rise_track(&t, 56000, 0);
	rise_track(&t, 62000, S);
	rise_track(&t, 61900, 2 * S);
	assert_false(rise_could_reach(&t, SWITCH_ON, IDLE_MS, BAND));
	assert_true(rise_could_reach(&t, SWITCH_ON, 2 * IDLE_MS, BAND));
}

/* A rise long ago is forgotten with a time constant of RISE_FORGET_S. */
static void test_forgets(void **unused)
{
	struct rise_tracker t = { 0 };

	(void)unused;
	rise_track(&t, 60000, 0);
	rise_track(&t, 66000, S);
	for (uint64_t s = 2; s <= 1 + RISE_FORGET_S; s++)
		rise_track(&t, 66000, s * S);
	/* e^-1 of 6000 m°C/s after RISE_FORGET_S seconds. */
	assert_in_range(t.max_rate_mc_per_s, 2150, 2270);
	assert_false(rise_could_reach(&t, SWITCH_ON, IDLE_MS, BAND));
}

/* A sensor glitch (a 150 °C spike) keeps the zone fast only within the band below switch-on. */
static void test_band_limit(void **unused)
{
	struct rise_tracker t = { 0 };

	(void)unused;
	rise_track(&t, 50000, 0);
	rise_track(&t, 150000, S / 10);
	rise_track(&t, 54000, 2 * S / 10);
	assert_true(t.max_rate_mc_per_s > 900000);
	assert_false(rise_could_reach(&t, SWITCH_ON, IDLE_MS, BAND));	/* 16 °C below */
	rise_track(&t, 56000, 3 * S / 10);
	assert_true(rise_could_reach(&t, SWITCH_ON, IDLE_MS, BAND));	/* 14 °C below */
}

/* Readings at the same time (or a clock that went back) replace the last one. */
static void test_same_time(void **unused)
{
	struct rise_tracker t = { 0 };

	(void)unused;
	rise_track(&t, 60000, 5 * S);
	rise_track(&t, 69000, 5 * S);
	assert_int_equal(t.max_rate_mc_per_s, 0);
	assert_int_equal(t.last_temp_mc, 69000);
	rise_track(&t, 69500, 4 * S);
	assert_int_equal(t.max_rate_mc_per_s, 0);
	rise_track(&t, 69600, 6 * S);
	assert_in_range(t.max_rate_mc_per_s, 90, 110);
	assert_true(rise_could_reach(&t, SWITCH_ON, 5 * IDLE_MS, BAND));
}

/* After a sleep the first reading only primes: a drop or a jump across the gap is no rate. */
static void test_restart(void **unused)
{
	struct rise_tracker t = { 0 };

	(void)unused;
	rise_track(&t, 60000, 100 * S);
	rise_track(&t, 61000, 101 * S);
	assert_in_range(t.max_rate_mc_per_s, 990, 1000);
	rise_restart(&t);
	assert_false(rise_could_reach(&t, SWITCH_ON, IDLE_MS, BAND));
	/* 10 °C more 0.1 s of monotonic time later (the sleep is not in it). */
	rise_track(&t, 71000, 101 * S + S / 10);
	assert_in_range(t.max_rate_mc_per_s, 990, 1000);
	assert_int_equal(t.last_temp_mc, 71000);
	rise_track(&t, 72000, 102 * S + S / 10);
	assert_in_range(t.max_rate_mc_per_s, 990, 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_restart),
		cmocka_unit_test(test_unprimed_and_first_reading),
		cmocka_unit_test(test_rate_and_reach),
		cmocka_unit_test(test_out_of_reach),
		cmocka_unit_test(test_forgets),
		cmocka_unit_test(test_band_limit),
		cmocka_unit_test(test_same_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
