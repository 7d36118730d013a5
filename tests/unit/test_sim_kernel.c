/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The simulated kernel's thermal core at the trips (tools/simulator/
 * sim_kernel.c): when it updates a zone (the sensor's alarm or its poll)
 * and which trip events it sends, with handle_thermal_trip()'s hysteresis.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sim_kernel.h"

static const struct sim_kernel_params rising = { SIM_ALARM_RISING, 1000, 100 };
static const struct sim_kernel_params both = { SIM_ALARM_BOTH, 0, 0 };
static const struct sim_kernel_params polled = { SIM_ALARM_NONE, 500, 100 };

/* A zone with a passive trip at 70 °C (2 °C of hysteresis) and an active one at 65 °C. */
static void zone(struct sim_tz *tz, const struct sim_kernel_params *k, int32_t start_mc)
{
	*tz = (struct sim_tz){ .id = 3 };
	sim_tz_add_trip(tz, 0, 70000, 2000, true);
	sim_tz_add_trip(tz, 1, 0, 0, false);		/* unset: left out */
	sim_tz_add_trip(tz, 2, 65000, 2000, false);
	sim_tz_start(tz, k, start_mc, 0);
}

static void test_alarm_sends_the_crossing_at_once(void **unused)
{
	struct sim_trip_event ev[SIM_KERNEL_MAX_TRIPS];
	struct sim_tz tz;

	(void)unused;
	zone(&tz, &rising, 66000);
	assert_int_equal(tz.n_trips, 2);
	assert_int_equal(sim_tz_step(&tz, &rising, 69990, 10, ev), 0);
	assert_int_equal(sim_tz_step(&tz, &rising, 70000, 20, ev), 1);
	assert_int_equal(ev[0].tz_id, 3);
	assert_int_equal(ev[0].trip_id, 0);
	assert_true(ev[0].up);
	assert_int_equal(ev[0].temp_mc, 70000);
	/* Crossed: back into the band and over again is no new event. */
	assert_int_equal(sim_tz_step(&tz, &rising, 68500, 30, ev), 0);
	assert_int_equal(sim_tz_step(&tz, &rising, 70500, 40, ev), 0);
	/*
	 * Under 68 °C: the rising alarm does not fire; the passive poll does,
	 * 100 ms after the update at 20 ms.
	 */
	assert_int_equal(sim_tz_step(&tz, &rising, 67900, 50, ev), 0);
	assert_int_equal(sim_tz_step(&tz, &rising, 67900, 119, ev), 0);
	assert_int_equal(sim_tz_step(&tz, &rising, 67900, 120, ev), 1);
	assert_false(ev[0].up);
	assert_int_equal(ev[0].trip_id, 0);
	/* Not crossed any more: the next rise to 70 °C is a new event. */
	assert_int_equal(sim_tz_step(&tz, &rising, 70000, 150, ev), 1);
	assert_true(ev[0].up);
}

static void test_both_ways_alarm(void **unused)
{
	struct sim_trip_event ev[SIM_KERNEL_MAX_TRIPS];
	struct sim_tz tz;

	(void)unused;
	zone(&tz, &both, 71000);
	/* Both trips crossed before: none at the start, nor at 68 °C (in the band). */
	assert_int_equal(sim_tz_step(&tz, &both, 68000, 10, ev), 0);
	assert_int_equal(sim_tz_step(&tz, &both, 67999, 20, ev), 1);
	assert_false(ev[0].up);
	assert_int_equal(ev[0].trip_id, 0);
	assert_int_equal(ev[0].temp_mc, 67999);
	/* No poll at all: nothing more while nothing is crossed. */
	assert_int_equal(sim_tz_step(&tz, &both, 66000, 100000, ev), 0);
}

static void test_polled_zone_sees_the_crossing_late(void **unused)
{
	struct sim_trip_event ev[SIM_KERNEL_MAX_TRIPS];
	struct sim_tz tz;

	(void)unused;
	zone(&tz, &polled, 60000);
	assert_int_equal(tz.next_poll_ms, 500);
	/* Over both trips at 130 ms: the core sees it at its poll, 500 ms, lowest trip first. */
	assert_int_equal(sim_tz_step(&tz, &polled, 72000, 130, ev), 0);
	assert_int_equal(sim_tz_step(&tz, &polled, 72000, 490, ev), 0);
	assert_int_equal(sim_tz_step(&tz, &polled, 72000, 500, ev), 2);
	assert_true(ev[0].up && ev[1].up);
	assert_int_equal(ev[0].trip_id, 2);
	assert_int_equal(ev[1].trip_id, 0);
	/* A passive trip crossed: polled every 100 ms. */
	assert_int_equal(tz.next_poll_ms, 600);
	assert_int_equal(sim_tz_step(&tz, &polled, 62000, 600, ev), 2);
	/* Down, highest first. */
	assert_false(ev[0].up || ev[1].up);
	assert_int_equal(ev[0].trip_id, 0);
	assert_int_equal(ev[1].trip_id, 2);
	assert_int_equal(tz.next_poll_ms, 1100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alarm_sends_the_crossing_at_once),
		cmocka_unit_test(test_both_ways_alarm),
		cmocka_unit_test(test_polled_zone_sees_the_crossing_late),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
