/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * When each zone runs (lib/engine/zone_schedule.c): at its period while it
 * is active, limiting, blind or rising towards switch-on; else at the idle
 * poll, which a fallback fan shortens and which no trip event can replace
 * where switch-on is not a trip; and when the daemon's timer fires and how
 * far it may move.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "control/time_units.h"
#include "engine/zone_schedule.h"

#define NOW_US (1000 * USEC_PER_SEC)	/* any monotonic time, µs */
#define PERIOD_MS 100
#define IDLE_POLL_MS 500

/* Two idle zones at 50 °C, switch-on 70 °C, control 85 °C, each with one actor at its maximum. */
struct two_zones {
	struct actor cpu, gpu;
	struct actor *actors[2];
	struct zone zones[2];
	struct engine e;
	struct schedule s;
};

static void build(struct two_zones *t)
{
	memset(t, 0, sizeof(*t));
	t->cpu = (struct actor){ .max_mw = 4000, .granted_mw = 4000 };
	t->gpu = (struct actor){ .max_mw = 2000, .granted_mw = 2000 };
	t->actors[0] = &t->cpu;
	t->actors[1] = &t->gpu;
	for (size_t i = 0; i < 2; i++) {
		struct zone *z = &t->zones[i];

		z->setup.n_actors = 1;
		z->setup.actors[0] = t->actors[i];
		z->setup.switch_on_mc = 70000;
		z->setup.control_mc = 85000;
		z->setup.switch_on_trip = true;
		z->sensing.temp_mc = 50000;
		z->setup.pid.period_ms = PERIOD_MS;
	}
	t->e.zones = t->zones;
	t->e.n_zones = 2;
	t->e.actors = t->actors;
	t->e.n_actors = 2;
	t->s.idle_poll_ms = IDLE_POLL_MS;
	assert_int_equal(schedule_reset(&t->s, t->e.n_zones), 0);
}

/* When zone 0 runs next after running at NOW_US, µs from NOW_US (SCHEDULE_NEVER: on an event). */
static uint64_t ran_next_in_us(struct two_zones *t)
{
	schedule_ran(&t->s, &t->e, 0, NOW_US);
	if (t->s.next_due_us[0] == SCHEDULE_NEVER)
		return SCHEDULE_NEVER;
	return t->s.next_due_us[0] - NOW_US;
}

/* A new schedule has every zone due now; one for no zone still has room for one. */
static void test_reset_all_due(void **unused)
{
	struct two_zones t;

	(void)unused;
	build(&t);
	t.s.next_due_us[0] = NOW_US;
	assert_int_equal(schedule_reset(&t.s, 2), 0);
	assert_int_equal(t.s.next_due_us[0], 0);
	assert_int_equal(t.s.next_due_us[1], 0);
	assert_int_equal(t.s.idle_poll_ms, IDLE_POLL_MS);
	schedule_mark_due(&t.s, &t.e, NOW_US);
	assert_true(t.s.due[0] && t.s.due[1]);
	assert_int_equal(schedule_reset(&t.s, 0), 0);
	assert_non_null(t.s.next_due_us);
	schedule_free(&t.s);
	assert_null(t.s.next_due_us);
	assert_null(t.s.due);
	assert_int_equal(t.s.idle_poll_ms, IDLE_POLL_MS);
}

/* An idle zone runs again one idle poll later; active, limiting or blind, one period later. */
static void test_fast_or_idle(void **unused)
{
	struct two_zones t;

	(void)unused;
	build(&t);
	assert_false(schedule_fast(&t.s, &t.zones[0]));
	assert_int_equal(ran_next_in_us(&t), IDLE_POLL_MS * USEC_PER_MSEC);

	t.zones[0].control.active = true;
	assert_true(schedule_fast(&t.s, &t.zones[0]));
	assert_int_equal(ran_next_in_us(&t), PERIOD_MS * USEC_PER_MSEC);
	t.zones[0].control.active = false;

	/* Below switch-on but still holding an actor under its maximum. */
	t.cpu.granted_mw = 3999;
	assert_true(schedule_fast(&t.s, &t.zones[0]));
	assert_int_equal(ran_next_in_us(&t), PERIOD_MS * USEC_PER_MSEC);
	t.cpu.granted_mw = 4000;

	t.zones[0].sensing.sensor_failed = true;
	assert_true(schedule_fast(&t.s, &t.zones[0]));
	assert_int_equal(ran_next_in_us(&t), PERIOD_MS * USEC_PER_MSEC);
	t.zones[0].sensing.sensor_failed = false;

	assert_int_equal(ran_next_in_us(&t), IDLE_POLL_MS * USEC_PER_MSEC);
	/* The other zone's due time is not touched. */
	assert_int_equal(t.s.next_due_us[1], 0);
	schedule_free(&t.s);
}

/*
 * Rising at 6 °C/s from 66 °C, 4 °C under switch-on: an idle poll of
 * 1000 ms could carry it past (6 °C), one of 500 ms could not (3 °C).
 * From 50 °C, 20 °C under, it is never fast: that is past the band of
 * control - switch-on (15 °C), however fast it rose.
 */
static void test_rising_towards_switch_on(void **unused)
{
	struct two_zones t;
	struct zone *z;

	(void)unused;
	build(&t);
	z = &t.zones[0];
	z->sensing.rise = (struct rise_tracker){ .last_temp_mc = 66000, .max_rate_mc_per_s = 6000,
					 .primed = true };
	t.s.idle_poll_ms = 500;
	assert_false(schedule_fast(&t.s, z));
	assert_int_equal(ran_next_in_us(&t), 500 * USEC_PER_MSEC);
	t.s.idle_poll_ms = 1000;
	assert_true(schedule_fast(&t.s, z));
	assert_int_equal(ran_next_in_us(&t), PERIOD_MS * USEC_PER_MSEC);

	z->sensing.rise.last_temp_mc = 50000;
	z->sensing.rise.max_rate_mc_per_s = 1000000;
	assert_false(schedule_fast(&t.s, z));
	assert_int_equal(ran_next_in_us(&t), 1000 * USEC_PER_MSEC);

	/* Waiting for events (no idle poll): no horizon to rise within. */
	z->sensing.rise.last_temp_mc = 69000;
	t.s.idle_poll_ms = 0;
	assert_false(schedule_fast(&t.s, z));
	assert_int_equal(ran_next_in_us(&t), SCHEDULE_NEVER);
	schedule_free(&t.s);
}

/*
 * idle_poll_ms = 0 waits for a trip event where switch-on is a trip; else
 * (not a trip, a combined sensor) the zone is polled every
 * SCHEDULE_NO_EVENTS_POLL_MS.  An always-on zone needs no switch-on event.
 */
static void test_waits_for_events(void **unused)
{
	struct two_zones t;
	struct zone *z;

	(void)unused;
	build(&t);
	z = &t.zones[0];
	t.s.idle_poll_ms = 0;
	assert_false(schedule_polls_untripped(&t.s, z));
	assert_int_equal(schedule_idle_ms(&t.s, z), 0);
	assert_int_equal(ran_next_in_us(&t), SCHEDULE_NEVER);

	z->setup.switch_on_trip = false;
	assert_true(schedule_polls_untripped(&t.s, z));
	assert_int_equal(schedule_idle_ms(&t.s, z), SCHEDULE_NO_EVENTS_POLL_MS);
	assert_int_equal(ran_next_in_us(&t), SCHEDULE_NO_EVENTS_POLL_MS * USEC_PER_MSEC);

	z->setup.always_on = true;
	assert_false(schedule_polls_untripped(&t.s, z));
	assert_int_equal(ran_next_in_us(&t), SCHEDULE_NEVER);
	z->setup.always_on = false;

	/* With an idle poll configured, the poll is the configured one either way. */
	t.s.idle_poll_ms = IDLE_POLL_MS;
	assert_false(schedule_polls_untripped(&t.s, z));
	assert_int_equal(schedule_idle_ms(&t.s, z), IDLE_POLL_MS);
	schedule_free(&t.s);
}

/* A fallback fan on: polled at least every SCHEDULE_FALLBACK_POLL_MS, a faster poll kept. */
static void test_fallback_fan_on(void **unused)
{
	struct two_zones t;
	struct zone *z;

	(void)unused;
	build(&t);
	z = &t.zones[0];
	z->setup.n_fallback = 1;
	t.s.idle_poll_ms = 5000;
	assert_int_equal(schedule_idle_ms(&t.s, z), 5000);
	z->setup.fallback[0].state = 1;
	assert_int_equal(schedule_idle_ms(&t.s, z), SCHEDULE_FALLBACK_POLL_MS);
	assert_int_equal(ran_next_in_us(&t), SCHEDULE_FALLBACK_POLL_MS * USEC_PER_MSEC);
	t.s.idle_poll_ms = 0;
	assert_int_equal(ran_next_in_us(&t), SCHEDULE_FALLBACK_POLL_MS * USEC_PER_MSEC);
	t.s.idle_poll_ms = 250;
	assert_int_equal(ran_next_in_us(&t), 250 * USEC_PER_MSEC);
	schedule_free(&t.s);
}

/* A zone is due when its time is at most 1 ms away, so timer slack does not skip a tick. */
static void test_mark_due_within_1ms(void **unused)
{
	struct two_zones t;

	(void)unused;
	build(&t);
	t.s.next_due_us[0] = NOW_US + USEC_PER_MSEC;
	t.s.next_due_us[1] = NOW_US + USEC_PER_MSEC + 1;
	schedule_mark_due(&t.s, &t.e, NOW_US);
	assert_true(t.s.due[0]);
	assert_false(t.s.due[1]);
	t.s.next_due_us[1] = SCHEDULE_NEVER;
	schedule_mark_due(&t.s, &t.e, NOW_US + 10 * USEC_PER_SEC);
	assert_true(t.s.due[0]);
	assert_false(t.s.due[1]);
	schedule_free(&t.s);
}

/*
 * The timer: at the earliest due time, off when every zone waits for an
 * event; 1 ms of slack while a zone runs fast or one is due now, else a
 * quarter of the idle poll.
 */
static void test_next_and_accuracy(void **unused)
{
	struct two_zones t;
	uint64_t accuracy_us = 7;

	(void)unused;
	build(&t);
	t.s.next_due_us[0] = SCHEDULE_NEVER;
	t.s.next_due_us[1] = SCHEDULE_NEVER;
	assert_int_equal(schedule_next(&t.s, &t.e, NOW_US, &accuracy_us), SCHEDULE_NEVER);
	assert_int_equal(accuracy_us, 7);

	t.s.next_due_us[0] = NOW_US + 400 * USEC_PER_MSEC;
	t.s.next_due_us[1] = NOW_US + 300 * USEC_PER_MSEC;
	assert_int_equal(schedule_next(&t.s, &t.e, NOW_US, &accuracy_us),
			 NOW_US + 300 * USEC_PER_MSEC);
	assert_int_equal(accuracy_us, IDLE_POLL_MS * USEC_PER_MSEC / 4);

	t.s.idle_poll_ms = 0;
	schedule_next(&t.s, &t.e, NOW_US, &accuracy_us);
	assert_int_equal(accuracy_us, SCHEDULE_NO_EVENTS_POLL_MS * USEC_PER_MSEC / 4);
	t.s.idle_poll_ms = IDLE_POLL_MS;

	/* Due now (an event, a new power limit): not a quarter of a poll late. */
	t.s.next_due_us[1] = NOW_US + USEC_PER_MSEC;
	schedule_next(&t.s, &t.e, NOW_US, &accuracy_us);
	assert_int_equal(accuracy_us, USEC_PER_MSEC);
	t.s.next_due_us[1] = NOW_US + 300 * USEC_PER_MSEC;

	/* One zone running fast keeps the timer tight for all. */
	t.zones[1].control.active = true;
	schedule_next(&t.s, &t.e, NOW_US, &accuracy_us);
	assert_int_equal(accuracy_us, USEC_PER_MSEC);
	schedule_free(&t.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reset_all_due),
		cmocka_unit_test(test_fast_or_idle),
		cmocka_unit_test(test_rising_towards_switch_on),
		cmocka_unit_test(test_waits_for_events),
		cmocka_unit_test(test_fallback_fan_on),
		cmocka_unit_test(test_mark_due_within_1ms),
		cmocka_unit_test(test_next_and_accuracy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
