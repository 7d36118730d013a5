/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Power meters that lie (lib/control/meter_fault.c): the mean power of an
 * energy counter, through a wrap that is due and not through one that is
 * not; a counter that does not count while the model draws, a power that
 * holds while the model moves, and neither for a steady power under a
 * steady model nor a coarse meter within its steps; a jump; the fault
 * names.  Figures by hand: µJ / ms = mW.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "control/meter_fault.h"

/* meter_track_step() at @ms, ms (the track counts µs), the model at @model_mw. */
static int step_ms(struct meter_track *t, int64_t value, uint64_t ms, uint32_t model_mw,
		   uint32_t *mw)
{
	return meter_track_step(t, value, ms * 1000, model_mw, mw);
}

/* A model drawing 2 W, for the tests where only whether it draws matters. */
#define DRAWS 2000

/*
 * A period's length counts to the µs: 1 J over 100.001 ms is 9999 mW, as the
 * powercap actor reckoned its request before it read through a meter (ms
 * would give 9900 mW for readings at 1000.999 and 1101.000 ms).
 */
static void test_energy_us(void **unused)
{
	struct meter_track t = { .energy = true };
	uint32_t mw = 0;

	(void)unused;
	assert_int_equal(meter_track_step(&t, 5000000, 1000999, DRAWS, &mw), 0);
	assert_int_equal(meter_track_step(&t, 6000000, 1101000, DRAWS, &mw), 1);
	assert_int_equal(mw, 9999);
}

/* 1 s of 2.5 W on an energy counter: 2 500 000 µJ over 1000 ms is 2500 mW. */
static void test_energy_mean_power(void **unused)
{
	struct meter_track t = { .energy = true, .max_mw = 30000 };
	uint32_t mw = 0;

	(void)unused;
	assert_int_equal(step_ms(&t, 1000000, 5000, DRAWS, &mw), 0);
	assert_int_equal(step_ms(&t, 3500000, 6000, DRAWS, &mw), 1);
	assert_int_equal(mw, 2500);
	/* Unmoved: no reading; the next move averages over both periods (1 J in 200 ms). */
	assert_int_equal(step_ms(&t, 3500000, 6100, DRAWS, &mw), 0);
	assert_int_equal(step_ms(&t, 4500000, 6200, DRAWS, &mw), 1);
	assert_int_equal(mw, 5000);
}

/* A wrap at max_energy_range_uj near its end is counted through; elsewhere it is a fault. */
static void test_energy_wrap(void **unused)
{
	struct meter_track t = { .energy = true, .range_uj = 10000000, .max_mw = 30000 };
	uint32_t mw = 0;

	(void)unused;
	assert_int_equal(energy_delta(9900000, 100000, 10000000), 200000);
	assert_int_equal(energy_delta(100, 300, 10000000), 200);
	assert_int_equal(step_ms(&t, 9900000, 0, DRAWS, &mw), 0);
	/* 100 000 µJ to the wrap, 100 000 after it, in 100 ms: 2000 mW. */
	assert_int_equal(step_ms(&t, 100000, 100, DRAWS, &mw), 1);
	assert_int_equal(mw, 2000);
	/* Back by 50 000 µJ, 9.95 J away from the wrap: 99 500 mW in 100 ms, not plausible. */
	assert_int_equal(step_ms(&t, 50000, 200, DRAWS, &mw), -METER_BACKWARDS);
}

/* Without a range, any step back is an unexpected wrap. */
static void test_energy_backwards_without_range(void **unused)
{
	struct meter_track t = { .energy = true };
	uint32_t mw = 0;

	(void)unused;
	assert_int_equal(step_ms(&t, 5000000, 0, DRAWS, &mw), 0);
	assert_int_equal(step_ms(&t, 4999000, 100, DRAWS, &mw), -METER_BACKWARDS);
}

/* Reads at 100 ms in METER_STOP_US (3 s): 30. */
#define STOP_READS_100MS ((int)(METER_STOP_US / 100000))

/* A counter that does not move for 3 s (30 reads at 100 ms) while the actor draws has stopped. */
static void test_energy_stopped(void **unused)
{
	struct meter_track t = { .energy = true };
	uint32_t mw = 0;
	uint64_t ms = 0;

	(void)unused;
	assert_int_equal(step_ms(&t, 7000, ms, DRAWS, &mw), 0);
	/* Idle: never stopped, however long. */
	for (int k = 0; k < 3 * STOP_READS_100MS; k++)
		assert_int_equal(step_ms(&t, 7000, ms += 100, 0, &mw), 0);
	for (int k = 1; k < STOP_READS_100MS; k++)
		assert_int_equal(step_ms(&t, 7000, ms += 100, DRAWS, &mw), 0);
	assert_int_equal(step_ms(&t, 7000, ms += 100, DRAWS, &mw), -METER_STOPPED);
}

/*
 * A counter with 1 J steps (a coarse hwmon energyN_input) under a 100 mW
 * model: one step takes it 10 s; it counts from its first step on, then
 * holds.  Not stopped at 3 s: the model owed it no two steps (2 J) until
 * 20 s; stopped then.  Before, it was dropped at 3 s.
 */
static void test_energy_coarse_steps(void **unused)
{
	struct meter_track t = { .energy = true };
	uint32_t mw = 0;
	uint64_t ms = 0;

	(void)unused;
	assert_int_equal(step_ms(&t, 0, ms, 100, &mw), 0);
	assert_int_equal(step_ms(&t, 1000000, ms += 10000, 100, &mw), 1);
	assert_int_equal(mw, 100);
	while ((ms += 100) < 30000)
		assert_int_equal(step_ms(&t, 1000000, ms, 100, &mw), 0);
	assert_int_equal(step_ms(&t, 1000000, ms, 100, &mw), -METER_STOPPED);
}

/*
 * Reads of a power meter at @uw every @period_ms from *@ms (left at the
 * first read not made) until @until_ms, the model at @model_mw: the ms of
 * the read that found it stopped, or 0 where each gave a reading.
 */
static uint64_t hold_power(struct meter_track *t, int64_t uw, uint64_t *ms, uint64_t until_ms,
			   uint32_t period_ms, uint32_t model_mw)
{
	uint32_t mw = 0;

	for (; *ms < until_ms; *ms += period_ms) {
		int r = step_ms(t, uw, *ms, model_mw, &mw);

		if (r != 1) {
			assert_int_equal(r, -METER_STOPPED);
			return *ms;
		}
	}
	return 0;
}

/*
 * A power that holds one exact value while the model moved from 1234 to
 * 2000 mW (its state changed): its mean is 25 % away under a second on,
 * and stopped 3 s of reads after (not before 3 s).  A move of the value
 * counts from the model's mean then: held for a minute under it, stopped
 * once the model is back at 1234 mW.  A model that flips between the two
 * every period (a bursty load) is judged by its mean: held.
 */
static void test_power_held_while_the_model_moved(void **unused)
{
	struct meter_track t = { .max_mw = 20000 }, u = t, flips = t;
	uint32_t mw = 0;
	uint64_t ms = 0, at;

	(void)unused;
	/* 4 s at 1234 mW: the model's mean settles there, where the value is judged from. */
	assert_int_equal(hold_power(&t, 1234567, &ms, 4000, 100, 1234), 0);
	at = hold_power(&t, 1234567, &ms, 20000, 100, 2000);
	assert_in_range(at, 4000 + 3000, 4000 + 4500);
	ms = 0;
	assert_int_equal(hold_power(&u, 1234567, &ms, 4000, 100, 1234), 0);
	assert_int_equal(hold_power(&u, 1234567, &ms, 6000, 100, 2000), 0);
	assert_int_equal(hold_power(&u, 1234568, &ms, 64000, 100, 2000), 0);
	at = hold_power(&u, 1234568, &ms, 80000, 100, 1234);
	assert_in_range(at, 64000 + 3000, 64000 + 4500);
	for (ms = 0; ms < 60000; ms += 100)
		assert_int_equal(step_ms(&flips, 1617000, ms, ms % 200 ? 2000 : 1234, &mw), 1);
}

/*
 * The first read after a start or a resume has no load sampled yet
 * (METER_MODEL_UNKNOWN, or 0 where the load reads 0 before a window has
 * passed): a steady meter under a steady busy model is held, judged from
 * the model's settled mean, not from that read.  Before, a hot start with
 * 250 mW rail meters dropped them 3 s in.
 */
static void test_power_first_read_without_a_load(void **unused)
{
	struct meter_track unknown = { .max_mw = 20000 }, zero = unknown;
	uint32_t mw = 0;
	uint64_t ms = 0;

	(void)unused;
	assert_int_equal(step_ms(&unknown, 750000, 0, METER_MODEL_UNKNOWN, &mw), 1);
	assert_int_equal(step_ms(&zero, 750000, 0, 0, &mw), 1);
	ms = 100;
	assert_int_equal(hold_power(&unknown, 750000, &ms, 60000, 100, 716), 0);
	ms = 100;
	assert_int_equal(hold_power(&zero, 750000, &ms, 60000, 100, 716), 0);
}

/*
 * One exact value for 60 s under a steady model (a cluster never throttled
 * under a steady load: 1900 to 2000 mW, its mean 1950): a steady power, not
 * a stopped meter; nor a model at 2400 mW (450 of 2400 mW: within 25 %),
 * nor one 40 mW away on an actor drawing 100 mW (within 50 mW).  The model
 * at 2700 mW (28 %) is a move: stopped 3 s of reads after its mean crosses
 * 25 %.  Before, every one of these was dropped at 3 s.
 */
static void test_power_steady_kept(void **unused)
{
	struct meter_track t = { .max_mw = 20000 }, low = t;
	uint32_t mw = 0;
	uint64_t ms, at;

	(void)unused;
	for (ms = 0; ms <= 60000; ms += 100) {
		assert_int_equal(step_ms(&t, 2100000, ms, 1900 + ms % 200, &mw), 1);
		assert_int_equal(step_ms(&low, 130000, ms, ms ? 140 : 100, &mw), 1);
	}
	assert_int_equal(hold_power(&t, 2100000, &ms, 66000, 100, 2400), 0);
	at = hold_power(&t, 2100000, &ms, 80000, 100, 2700);
	assert_in_range(at, 66000 + 3000, 66000 + 4500);
}

/*
 * A meter in 500 mW steps (a coarse rail monitor): once it has shown a
 * step, a model 300 mW up (800 to 1100 mW) is within two of its steps:
 * kept for 60 s; the model at 2200 mW (1100 mW up) leaves them: stopped
 * 3 s of reads after its mean does.  A first change of 1.2 W (idle to
 * busy, 300 to 1500 mW: 80 % of the larger) is no step.
 */
static void test_power_coarse_steps_kept(void **unused)
{
	struct meter_track t = { .max_mw = 20000 }, busy = t;
	uint32_t mw = 0;
	uint64_t ms = 0, at;

	(void)unused;
	assert_int_equal(step_ms(&t, 500000, ms, 700, &mw), 1);
	assert_int_equal(step_ms(&t, 1000000, ms += 100, 800, &mw), 1);
	assert_int_equal(t.step, 500000);
	ms += 100;
	assert_int_equal(hold_power(&t, 1000000, &ms, 60000, 100, 1100), 0);
	at = hold_power(&t, 1000000, &ms, 80000, 100, 2200);
	assert_in_range(at, 60000 + 3000, 60000 + 5000);
	assert_int_equal(step_ms(&busy, 300000, 0, 300, &mw), 1);
	assert_int_equal(step_ms(&busy, 1500000, 100, 1500, &mw), 1);
	assert_int_equal(busy.step, 0);
}

/*
 * Reads every @period_ms of a power meter sampled every @sample_ms whose
 * value holds between samples, for @for_ms: never stopped.
 */
static void assert_holds_not_stopped(uint32_t period_ms, uint32_t sample_ms, uint64_t for_ms)
{
	struct meter_track t = { .max_mw = 20000, .sample_us = 1000 * (uint64_t)sample_ms };
	uint32_t mw = 0;

	for (uint64_t ms = 0; ms <= for_ms; ms += period_ms) {
		int64_t uw = 1000000 + 1000 * (int64_t)(ms / sample_ms % 2);

		assert_int_equal(step_ms(&t, uw, ms, DRAWS, &mw), 1);
	}
}

/*
 * Stopped counts time, not reads: a 1 s meter read every 10 ms (100 reads
 * on one value), an INA226 at 4 s read every 100 ms (40) go on; a value
 * frozen for max(3 s, 3 samples) stops, not a read before.
 */
static void test_stopped_counts_time(void **unused)
{
	static const struct { uint32_t period_ms, sample_ms; uint64_t stop_ms; } cases[] = {
		{ 10, 1000, 3000 },	/* hwmon power at 1 s, a 10 ms period */
		{ 10, 0, 3000 },	/* no update_interval given: 3 s */
		{ 100, 4000, 12000 },	/* INA226, update_interval 4 s */
		{ 2000, 0, 6000 },	/* a 2 s period: 4 s is 2 reads, 3 at least */
		{ 5000, 0, 15000 },	/* a 5 s period: 3 reads at least */
	};
	uint32_t mw = 0;

	(void)unused;
	assert_holds_not_stopped(10, 1000, 20000);
	assert_holds_not_stopped(100, 4000, 60000);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct meter_track p = { .max_mw = 20000, .sample_us = 1000 * (uint64_t)cases[i].sample_ms };
		struct meter_track e = p;
		uint64_t ms = 0;

		uint32_t period_ms = cases[i].period_ms;
		uint64_t switch_ms = 4 * (uint64_t)(period_ms > 1000 ? period_ms : 1000), at;

		e.energy = true;
		assert_int_equal(step_ms(&e, 7000, 0, DRAWS, &mw), 0);
		while ((ms += period_ms) < cases[i].stop_ms)
			assert_int_equal(step_ms(&e, 7000, ms, DRAWS, &mw), 0);
		assert_int_equal(ms, cases[i].stop_ms);
		assert_int_equal(step_ms(&e, 7000, ms, DRAWS, &mw), -METER_STOPPED);
		/* The power's model settled at 1000 mW, then 2000 from switch_ms: the
		 * same reads and time from where its mean is 25 % away (at once for a
		 * period of its time constant or more, within 0.6 s for shorter ones). */
		ms = 0;
		assert_int_equal(hold_power(&p, 1500000, &ms, switch_ms, period_ms, 1000), 0);
		at = hold_power(&p, 1500000, &ms, switch_ms + 60000, period_ms, DRAWS);
		assert_in_range(at, switch_ms + cases[i].stop_ms - period_ms,
				switch_ms + cases[i].stop_ms - period_ms + 600);
	}
}

/* Above the bound, or negative: a jump; at the bound, a reading. */
static void test_jump(void **unused)
{
	struct meter_track p = { .max_mw = 20000 };
	struct meter_track e = { .energy = true, .max_mw = 20000 };
	uint32_t mw = 0;

	(void)unused;
	assert_int_equal(step_ms(&p, 20000999, 0, DRAWS, &mw), 1);
	assert_int_equal(mw, 20000);
	assert_int_equal(step_ms(&p, 20001000, 100, DRAWS, &mw), -METER_JUMP);
	assert_int_equal(step_ms(&p, -5000, 200, DRAWS, &mw), -METER_JUMP);
	/* 2 000 100 µJ in 100 ms: 20 001 mW. */
	assert_int_equal(step_ms(&e, 0, 0, DRAWS, &mw), 0);
	assert_int_equal(step_ms(&e, 2000100, 100, DRAWS, &mw), -METER_JUMP);
}

static void test_names(void **unused)
{
	(void)unused;
	assert_string_equal(meter_fault_name(METER_VANISHED), "vanished");
	assert_string_equal(meter_fault_name(METER_UNREADABLE), "unreadable");
	assert_string_equal(meter_fault_name(METER_STOPPED), "stopped");
	assert_string_equal(meter_fault_name(METER_JUMP), "jumped");
	assert_string_equal(meter_fault_name(METER_BACKWARDS), "went backwards");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_energy_mean_power),
		cmocka_unit_test(test_energy_us),
		cmocka_unit_test(test_energy_wrap),
		cmocka_unit_test(test_energy_backwards_without_range),
		cmocka_unit_test(test_energy_stopped),
		cmocka_unit_test(test_energy_coarse_steps),
		cmocka_unit_test(test_power_held_while_the_model_moved),
		cmocka_unit_test(test_power_first_read_without_a_load),
		cmocka_unit_test(test_power_steady_kept),
		cmocka_unit_test(test_power_coarse_steps_kept),
		cmocka_unit_test(test_stopped_counts_time),
		cmocka_unit_test(test_jump),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
