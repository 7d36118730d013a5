// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The arm64 benchmark's plant (tools/guest-plant): the power of a cluster from
 * its Energy Model at a frequency, its work, the first-order die, the sensor's
 * register word.  Numbers by hand.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "guest_plant.h"

/* Two CPUs of capacity 1024, three states: 400/800/1200 MHz at 50/150/400 mW. */
static const struct gp_cluster big = {
	.n_cpus = 2, .cpu = { 2, 3 }, .capacity = { 1024, 1024 },
	.n_states = 3, .freq_khz = { 400000, 800000, 1200000 }, .power_uw = { 50000, 150000, 400000 },
};

static void test_state_power_is_the_state_at_or_under(void **unused)
{
	(void)unused;
	assert_true(fabs(gp_state_power_mw(&big, 800000) - 150.0) < 1e-9);
	assert_true(fabs(gp_state_power_mw(&big, 1199999) - 150.0) < 1e-9);
	assert_true(fabs(gp_state_power_mw(&big, 1200000) - 400.0) < 1e-9);
	/* Under the lowest state (a frequency the table does not have): the lowest. */
	assert_true(fabs(gp_state_power_mw(&big, 100000) - 50.0) < 1e-9);
}

static void test_power_and_work_follow_busy_time(void **unused)
{
	const double busy[] = { 1.0, 0.5 };

	(void)unused;
	assert_true(fabs(gp_cluster_power_mw(&big, 1200000, busy) - 600.0) < 1e-9);
	/* 1024 * 2/3 * 1 + 1024 * 2/3 * 0.5 = 1024 */
	assert_true(fabs(gp_cluster_work(&big, 800000, busy) - 1024.0) < 1e-9);
	assert_true(fabs(gp_cluster_capacity(&big) - 2048.0) < 1e-9);
}

static void test_die_settles_at_ambient_plus_r_times_p(void **unused)
{
	const struct gp_thermal th = { 45.0, 13.67, 10.0 };
	double t = 45.0;

	(void)unused;
	/* One time constant at 2195 mW: 63.2 % of the way to 75.0 °C. */
	t = gp_thermal_step(&th, t, 2195.0, 10.0);
	assert_true(fabs(t - (45.0 + 30.006 * (1 - exp(-1.0)))) < 1e-3);
	/* Steps add up as one: 100 of 0.1 s equal one of 10 s. */
	t = 45.0;
	for (int i = 0; i < 100; i++)
		t = gp_thermal_step(&th, t, 2195.0, 0.1);
	assert_true(fabs(t - gp_thermal_step(&th, 45.0, 2195.0, 10.0)) < 1e-9);
	t = gp_thermal_step(&th, 90.0, 0.0, 1000.0);
	assert_true(fabs(t - 45.0) < 1e-9);
}

static void test_sensor_word(void **unused)
{
	(void)unused;
	assert_int_equal(gp_sensor_word(75000), 750 | GP_SENSOR_VALID);
	assert_int_equal(gp_sensor_word(74951), 750 | GP_SENSOR_VALID);
	assert_int_equal(gp_sensor_word(74949), 749 | GP_SENSOR_VALID);
	assert_int_equal(gp_sensor_word(-5000), GP_SENSOR_VALID);
	assert_int_equal(gp_sensor_word(200000), GP_SENSOR_VALUE_MASK | GP_SENSOR_VALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_power_is_the_state_at_or_under),
		cmocka_unit_test(test_power_and_work_follow_busy_time),
		cmocka_unit_test(test_die_settles_at_ambient_plus_r_times_p),
		cmocka_unit_test(test_sensor_word),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
