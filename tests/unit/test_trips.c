/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's trips are data (lib/platform/thermal.c, issue 42, 2): a
 * passive trip below 0 °C, at or above the zone's hot or critical trip, or
 * under a passive trip taken before it is not taken as a switch-on or
 * control temperature (thermald's users were throttled 17-fold by a
 * passive trip at -274 °C); the rest are the kernel's power allocator's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "platform/thermal.h"

#define P TRIP_PASSIVE
#define A TRIP_ACTIVE
#define H TRIP_HOT
#define C TRIP_CRITICAL

/* A zone with the trips @types[k] at @temps_mc[k], index k. */
static struct thermal_zone_info zone(size_t n, const enum trip_type *types,
				     const int32_t *temps_mc)
{
	struct thermal_zone_info z;

	memset(&z, 0, sizeof(z));
	z.n_trips = n;
	for (size_t k = 0; k < n; k++)
		z.trips[k] = (struct trip_info){ .index = (unsigned int)k, .type = types[k],
						 .temp_mc = temps_mc[k] };
	return z;
}

#define ZONE(types, temps) zone(sizeof(temps) / sizeof(temps[0]), types, temps)

/* thermal_trip_doubt() of trip @i: the doubt, and the index of the trip it refers to (-1: none). */
static void expect_doubt(const struct thermal_zone_info *z, size_t i, enum trip_doubt doubt,
			 int ref_index)
{
	const struct trip_info *ref = (const struct trip_info *)0x1;

	assert_int_equal(thermal_trip_doubt(z, i, &ref), doubt);
	if (ref_index < 0)
		assert_null(ref);
	else
		assert_int_equal(ref->index, ref_index);
}

static void test_sound_trips_are_all_taken(void **unused)
{
	/* The RockPro64's cpu-thermal. */
	static const enum trip_type types[] = { P, P, C, A, A };
	static const int32_t temps[] = { 70000, 75000, 95000, 55000, 65000 };
	struct thermal_zone_info z = ZONE(types, temps);
	int32_t on = 0, control = 0;

	(void)unused;
	expect_doubt(&z, 0, TRIP_TAKEN, -1);
	expect_doubt(&z, 1, TRIP_TAKEN, -1);
	assert_int_equal(thermal_passive_range(&z, &on, &control), 2);
	assert_int_equal(on, 70000);
	assert_int_equal(control, 75000);
	assert_int_equal(thermal_control_trip(&z)->index, 1);
	assert_int_equal(thermal_limit_trip(&z)->index, 2);
}

static void test_below_zero_is_not_taken(void **unused)
{
	static const enum trip_type types[] = { P, P, C };
	static const int32_t temps[] = { -273000, 75000, 95000 };
	struct thermal_zone_info z = ZONE(types, temps);
	int32_t on = 12345, control = 0;

	(void)unused;
	expect_doubt(&z, 0, TRIP_BELOW_ZERO, -1);
	expect_doubt(&z, 1, TRIP_TAKEN, -1);
	/* One left: control at it, no switch-on (always on). */
	assert_int_equal(thermal_passive_range(&z, &on, &control), 1);
	assert_int_equal(on, 12345);
	assert_int_equal(control, 75000);
	assert_int_equal(thermal_control_trip(&z)->index, 1);
}

static void test_at_or_above_the_hot_or_critical_trip_is_not_taken(void **unused)
{
	static const enum trip_type types[] = { P, P, C };
	static const int32_t temps[] = { 70000, 120000, 95000 };
	static const enum trip_type hot_types[] = { C, H, P, P };
	static const int32_t hot_temps[] = { 105000, 90000, 80000, 90000 };
	struct thermal_zone_info z = ZONE(types, temps), hot = ZONE(hot_types, hot_temps);
	int32_t on = 0, control = 0;

	(void)unused;
	expect_doubt(&z, 1, TRIP_AT_LIMIT, 2);
	assert_int_equal(thermal_passive_range(&z, &on, &control), 1);
	assert_int_equal(control, 70000);
	/* The lowest of hot and critical is the limit; at it is not taken either. */
	assert_int_equal(thermal_limit_trip(&hot)->index, 1);
	expect_doubt(&hot, 2, TRIP_TAKEN, -1);
	expect_doubt(&hot, 3, TRIP_AT_LIMIT, 1);
	assert_int_equal(thermal_control_trip(&hot)->index, 2);
}

static void test_out_of_order_is_not_taken(void **unused)
{
	/* The later, lower one: which was meant cannot be told, and the kernel would
	 * take 85 °C as switch-on and 70 °C as control. */
	static const enum trip_type types[] = { P, P, P, C };
	static const int32_t temps[] = { 85000, 70000, 90000, 95000 };
	struct thermal_zone_info z = ZONE(types, temps);
	int32_t on = 0, control = 0;

	(void)unused;
	expect_doubt(&z, 1, TRIP_OUT_OF_ORDER, 0);
	expect_doubt(&z, 2, TRIP_TAKEN, -1);
	assert_int_equal(thermal_passive_range(&z, &on, &control), 2);
	assert_int_equal(on, 85000);
	assert_int_equal(control, 90000);
	/* Judged after the last trip taken: a trip out of order does not judge the next. */
	static const enum trip_type types2[] = { P, P, P };
	static const int32_t temps2[] = { -5000, 60000, 50000 };
	struct thermal_zone_info z2 = ZONE(types2, temps2);

	expect_doubt(&z2, 1, TRIP_TAKEN, -1);
	expect_doubt(&z2, 2, TRIP_OUT_OF_ORDER, 1);
}

static void test_unset_values_are_no_limit(void **unused)
{
	/* x86_pkg_temp's unset trips read 0: taken (engine_x86.c tells them apart); a
	 * critical trip at 0 limits nothing; equal passive trips are in order. */
	static const enum trip_type types[] = { P, P, C };
	static const int32_t temps[] = { 0, 0, 0 };
	struct thermal_zone_info z = ZONE(types, temps);
	int32_t on = 1, control = 1;

	(void)unused;
	assert_null(thermal_limit_trip(&z));
	assert_int_equal(thermal_passive_range(&z, &on, &control), 2);
	assert_int_equal(on, 0);
	assert_int_equal(control, 0);
	/* No passive trip at all. */
	static const enum trip_type none_types[] = { A, C };
	static const int32_t none_temps[] = { 50000, 95000 };
	struct thermal_zone_info none = ZONE(none_types, none_temps);

	assert_int_equal(thermal_passive_range(&none, &on, &control), 0);
	assert_null(thermal_control_trip(&none));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sound_trips_are_all_taken),
		cmocka_unit_test(test_below_zero_is_not_taken),
		cmocka_unit_test(test_at_or_above_the_hot_or_critical_trip_is_not_taken),
		cmocka_unit_test(test_out_of_order_is_not_taken),
		cmocka_unit_test(test_unset_values_are_no_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
