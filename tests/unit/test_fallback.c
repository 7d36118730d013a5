/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The step_wise fallback for cooling devices without a power model (lib/control/fallback.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "control/fallback.h"

/* The Odroid-XU4 fan: max_state 3, bound to active trips 50, 60, 70 °C, hysteresis 5 °C. */
static void xu4_fan(struct fallback_device *f)
{
	memset(f, 0, sizeof(*f));
	/* Out of order on purpose: the trips are kept ascending. */
	assert_int_equal(fallback_add_trip(f, 70000, 5000), 0);
	assert_int_equal(fallback_add_trip(f, 50000, 5000), 0);
	assert_int_equal(fallback_add_trip(f, 60000, 5000), 0);
	assert_int_equal(f->trip_mc[0], 50000);
	assert_int_equal(f->trip_mc[1], 60000);
	assert_int_equal(f->trip_mc[2], 70000);
}

/* Runs periods at @temps (m°C, after @prev) and checks the state after each against @want. */
static void expect_states(struct fallback_device *f, int32_t prev, const int32_t *temps,
			  const unsigned long *want, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned long state = fallback_step(f, temps[i], prev, 3);

		print_message("%d m°C: state %lu (want %lu)\n", temps[i], state, want[i]);
		assert_int_equal(state, want[i]);
		prev = temps[i];
	}
}

/* One level per trip crossed, one step per period, only while not cooling. */
static void test_levels_follow_trips(void **unused)
{
	const int32_t temps[] = { 45000, 52000, 53000, 54000, 61000, 62000, 63000, 71000, 72000 };
	const unsigned long want[] = { 0, 1, 1, 1, 2, 2, 2, 3, 3 };
	struct fallback_device f;

	(void)unused;
	xu4_fan(&f);
	expect_states(&f, 40000, temps, want, 9);
}

/* A jump over every trip is taken one state per period, not at once. */
static void test_one_step_per_period(void **unused)
{
	const int32_t temps[] = { 80000, 80000, 80000, 80000 };
	const unsigned long want[] = { 1, 2, 3, 3 };
	struct fallback_device f;

	(void)unused;
	xu4_fan(&f);
	expect_states(&f, 40000, temps, want, 4);
	assert_int_equal(fallback_upper(&f, 3), 3);
}

/* The fan at state 3 with every trip crossed, as after a hot spell. */
static void hot_fan(struct fallback_device *f)
{
	xu4_fan(f);
	f->state = 3;
	f->crossed[0] = f->crossed[1] = f->crossed[2] = true;
}

/*
 * Cooling: a trip stays crossed down to trip - hysteresis (70 °C down to
 * 65, 60 to 55, 50 to 45), and the state follows one step per period.
 */
static void test_hysteresis(void **unused)
{
	const int32_t temps[] = { 66000, 64000, 58000, 54000, 50000, 46000, 47000, 44000, 40000 };
	const unsigned long want[] = { 3, 2, 2, 1, 1, 1, 1, 0, 0 };
	struct fallback_device f;

	(void)unused;
	hot_fan(&f);
	expect_states(&f, 75000, temps, want, 9);
}

/* Over the limit, the state steps down only while the temperature is not rising. */
static void test_step_down_holds_while_warming(void **unused)
{
	const int32_t temps[] = { 40000, 42000, 41000, 41000, 41000 };
	const unsigned long want[] = { 2, 2, 1, 0, 0 };
	struct fallback_device f;

	(void)unused;
	hot_fan(&f);
	expect_states(&f, 75000, temps, want, 5);
}

/* Two trips for a 10-state device: 5 states per trip crossed (rounded up). */
static void test_upper_rounds_up(void **unused)
{
	struct fallback_device f;

	(void)unused;
	memset(&f, 0, sizeof(f));
	assert_int_equal(fallback_upper(&f, 10), 0);	/* no trips: nothing to do */
	assert_int_equal(fallback_add_trip(&f, 90000, -1), 0);
	assert_int_equal(f.hyst_mc[0], 0);		/* a negative hysteresis counts as 0 */
	assert_int_equal(fallback_add_trip(&f, 95000, 0), 0);
	f.crossed[0] = true;
	assert_int_equal(fallback_upper(&f, 10), 5);
	assert_int_equal(fallback_upper(&f, 3), 2);
	f.crossed[1] = true;
	assert_int_equal(fallback_upper(&f, 3), 3);
}

/*
 * The highest max_state taken (THERMAL_MAX_STATE, 2^31 - 1) on three trips:
 * max_state x crossed needs more than 32 bits, which an unsigned long on a
 * 32-bit machine cut (715827882 for all three crossed; issue 41, 2).
 */
static void test_upper_largest_max_state(void **unused)
{
	struct fallback_device f;

	(void)unused;
	memset(&f, 0, sizeof(f));
	for (int i = 0; i < 3; i++)
		assert_int_equal(fallback_add_trip(&f, 90000 + 1000 * i, 0), 0);
	f.crossed[0] = f.crossed[1] = f.crossed[2] = true;
	assert_int_equal(fallback_upper(&f, INT32_MAX), INT32_MAX);
	f.crossed[2] = false;
	assert_int_equal(fallback_upper(&f, INT32_MAX), 1431655765);
}

static void test_full(void **unused)
{
	struct fallback_device f;

	(void)unused;
	memset(&f, 0, sizeof(f));
	for (int i = 0; i < FALLBACK_MAX_TRIPS; i++)
		assert_int_equal(fallback_add_trip(&f, 30000 + 1000 * i, 0), 0);
	assert_int_equal(fallback_add_trip(&f, 20000, 0), -E2BIG);
	assert_int_equal(f.trip_mc[0], 30000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels_follow_trips),
		cmocka_unit_test(test_one_step_per_period),
		cmocka_unit_test(test_hysteresis),
		cmocka_unit_test(test_step_down_holds_while_warming),
		cmocka_unit_test(test_upper_rounds_up),
		cmocka_unit_test(test_upper_largest_max_state),
		cmocka_unit_test(test_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
