/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Sleep seen in CLOCK_BOOTTIME - CLOCK_MONOTONIC (lib/control/sleep_gap.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "control/sleep_gap.h"

#define S 1000000ULL	/* µs */

/* The first call only takes the reference, whatever the clocks say. */
static void test_first_call_reports_nothing(void **unused)
{
	struct sleep_gap g = { 0 };

	(void)unused;
	assert_int_equal(sleep_gap_slept_us(&g, 5000 * S, 100 * S), 0);
	assert_int_equal(sleep_gap_check(&g, 5000 * S, 100 * S), 0);
	assert_true(g.primed);
	assert_int_equal(g.asleep_us, 4900 * S);
}

/* Both clocks advance alike while awake: periods of any length are no sleep. */
static void test_awake(void **unused)
{
	struct sleep_gap g = { 0 };

	(void)unused;
	sleep_gap_check(&g, 200 * S, 100 * S);
	assert_int_equal(sleep_gap_check(&g, 200 * S + S / 10, 100 * S + S / 10), 0);
	/* A period of 30 s (an idle poll) awake. */
	assert_int_equal(sleep_gap_check(&g, 230 * S + S / 10, 130 * S + S / 10), 0);
}

/* 12.5 s asleep between two periods 0.1 s apart in monotonic time: reported once. */
static void test_sleep_reported_once(void **unused)
{
	struct sleep_gap g = { 0 };

	(void)unused;
	sleep_gap_check(&g, 200 * S, 100 * S);
	assert_int_equal(sleep_gap_slept_us(&g, 212 * S + 6 * S / 10, 100 * S + S / 10),
			 12 * S + S / 2);
	assert_int_equal(sleep_gap_check(&g, 212 * S + 6 * S / 10, 100 * S + S / 10),
			 12 * S + S / 2);
	assert_int_equal(sleep_gap_check(&g, 212 * S + 7 * S / 10, 100 * S + 2 * S / 10), 0);
}

/* At the threshold, no; 1 µs beyond, yes; gaps under it add up to nothing. */
static void test_threshold(void **unused)
{
	struct sleep_gap g = { 0 };

	(void)unused;
	sleep_gap_check(&g, 200 * S, 100 * S);
	assert_int_equal(sleep_gap_check(&g, 200 * S + SLEEP_GAP_MIN_US, 100 * S), 0);
	assert_int_equal(sleep_gap_check(&g, 200 * S + 2 * SLEEP_GAP_MIN_US + 1, 100 * S),
			 SLEEP_GAP_MIN_US + 1);
}

/* A difference that shrinks (no clock does that) or clocks out of order: nothing. */
static void test_shrinking_difference(void **unused)
{
	struct sleep_gap g = { 0 };

	(void)unused;
	sleep_gap_check(&g, 200 * S, 100 * S);
	assert_int_equal(sleep_gap_check(&g, 150 * S, 100 * S), 0);
	assert_int_equal(sleep_gap_check(&g, 90 * S, 100 * S), 0);
	assert_int_equal(g.asleep_us, 0);
	/* From that reference, a real sleep of 5 s. */
	assert_int_equal(sleep_gap_check(&g, 105 * S, 100 * S), 5 * S);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_call_reports_nothing),
		cmocka_unit_test(test_awake),
		cmocka_unit_test(test_sleep_reported_once),
		cmocka_unit_test(test_threshold),
		cmocka_unit_test(test_shrinking_difference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
