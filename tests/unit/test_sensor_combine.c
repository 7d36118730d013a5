/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Combining a zone's inputs (lib/control/sensor_combine.c): the hottest that read,
 * a weighted sum whose weights are scaled to the configured total when an
 * input is left out, the offset, and nothing from no input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "control/sensor_combine.h"

static const double ones[] = { 1, 1, 1 };

static void test_one(void **unused)
{
	const int64_t t[] = { 45123 };
	const bool read[] = { true };

	(void)unused;
	assert_int_equal(sensor_combine_mc(SENSOR_ONE, t, read, ones, 1, 0), 45123);
}

static void test_max(void **unused)
{
	const int64_t t[] = { -5000, 61000, 58000 };
	bool read[] = { true, true, true };

	(void)unused;
	assert_int_equal(sensor_combine_mc(SENSOR_MAX, t, read, ones, 3, 0), 61000);
	assert_int_equal(sensor_combine_mc(SENSOR_MAX, t, read, ones, 3, 1500), 62500);
	read[1] = false;
	assert_int_equal(sensor_combine_mc(SENSOR_MAX, t, read, ones, 3, 0), 58000);
	read[2] = false;	/* below zero is a temperature too */
	assert_int_equal(sensor_combine_mc(SENSOR_MAX, t, read, ones, 3, 0), -5000);
	read[0] = false;
	assert_int_equal(sensor_combine_mc(SENSOR_MAX, t, read, ones, 3, 0), 0);
}

static void test_sum(void **unused)
{
	const int64_t t[] = { 50000, 40000, 30000 };
	const double w[] = { 0.5, 0.3, 0.2 };
	bool read[] = { true, true, true };

	(void)unused;
	assert_int_equal(sensor_combine_mc(SENSOR_SUM, t, read, w, 3, -2000),
			 25000 + 12000 + 6000 - 2000);
	/* Without the second: 0.5 and 0.2 scaled by 1 / 0.7. */
	read[1] = false;
	assert_int_equal(sensor_combine_mc(SENSOR_SUM, t, read, w, 3, 0), 44286);
	/* Weights that do not add up to 1 keep their total: a scale, not an average. */
	read[1] = true;
	assert_int_equal(sensor_combine_mc(SENSOR_SUM, t, read, ones, 3, 0), 120000);
	read[0] = false;
	assert_int_equal(sensor_combine_mc(SENSOR_SUM, t, read, ones, 3, 0), 105000);
	read[1] = read[2] = false;
	assert_int_equal(sensor_combine_mc(SENSOR_SUM, t, read, w, 3, -2000), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one),
		cmocka_unit_test(test_max),
		cmocka_unit_test(test_sum),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
