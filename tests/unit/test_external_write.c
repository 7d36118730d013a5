/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Another writer on our files: episodes, back-off, yield (lib/control/external_write.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "control/external_write.h"

#define MS 1000ULL	/* us */
#define PERIOD (100 * MS)
/* Periods in the fight window, less one. */
#define HOLD_PERIODS ((int)(EXTERNAL_WRITE_FIGHT_MS * MS / PERIOD) - 1)

/* Rewritten once: found, ours written back at once, then the episode ends once ours held 5 min. */
static void test_once(void **unused)
{
	struct external_write w = { 0 };
	uint64_t t = 1000 * MS;

	(void)unused;
	assert_int_equal(external_write_step(&w, false, false, t), EXTERNAL_WRITE_NONE);
	assert_int_equal(external_write_step(&w, true, false, t += PERIOD), EXTERNAL_WRITE_FOUND);
	assert_false(external_write_holds(&w));
	assert_int_equal(w.count, 1);
	for (int k = 0; k < HOLD_PERIODS; k++)
		assert_int_equal(external_write_step(&w, false, false, t += PERIOD),
				 EXTERNAL_WRITE_NONE);
	assert_true(w.episode);
	assert_int_equal(external_write_step(&w, false, false, t += PERIOD), EXTERNAL_WRITE_SETTLED);
	assert_false(w.episode);
	assert_int_equal(w.count, 1);
	assert_int_equal(w.fights, 0);
	/* A later write is a new episode, logged again. */
	assert_int_equal(external_write_step(&w, true, false, t += PERIOD), EXTERNAL_WRITE_FOUND);
	assert_int_equal(w.count, 2);
}

/* Steps until the wait is over; returns the periods waited and checks nothing reasserts early. */
static unsigned int wait_out(struct external_write *w, uint64_t *t)
{
	unsigned int periods = 0;
	enum external_write_event e;

	while ((e = external_write_step(w, false, false, *t += PERIOD)) == EXTERNAL_WRITE_NONE) {
		assert_true(external_write_holds(w));
		periods++;
	}
	assert_int_equal(e, EXTERNAL_WRITE_REASSERT);
	assert_false(external_write_holds(w));
	return periods + 1;
}

/* Fought over: 1 s, 2 s, 4 s ... up to 64 s between reasserts, counted. */
static void test_fight_backs_off(void **unused)
{
	static const uint32_t want_ms[] = { 1000, 2000, 4000, 8000, 16000, 32000, 64000, 64000 };
	struct external_write w = { 0 };
	uint64_t t = 1000 * MS;

	(void)unused;
	assert_int_equal(external_write_step(&w, true, false, t), EXTERNAL_WRITE_FOUND);
	for (size_t k = 0; k < sizeof(want_ms) / sizeof(want_ms[0]); k++) {
		/* Rewritten one period after our reassert. */
		assert_int_equal(external_write_step(&w, true, false, t += PERIOD),
				 EXTERNAL_WRITE_FOUGHT);
		assert_int_equal(w.backoff_ms, want_ms[k]);
		assert_int_equal(w.fights, k + 1);
		assert_true(external_write_holds(&w));
		/* Changed again while we wait: counted, the wait goes on. */
		assert_int_equal(external_write_step(&w, true, false, t += PERIOD),
				 EXTERNAL_WRITE_CHANGED);
		assert_int_equal(wait_out(&w, &t), want_ms[k] / 100 - 1);
	}
	assert_int_equal(w.count, 1 + 2 * 8);
	/* Ours holds 5 min: over, and the next episode starts without back-off. */
	for (int k = 0; k < HOLD_PERIODS; k++)
		assert_int_equal(external_write_step(&w, false, false, t += PERIOD),
				 EXTERNAL_WRITE_NONE);
	assert_int_equal(external_write_step(&w, false, false, t += PERIOD), EXTERNAL_WRITE_SETTLED);
	assert_int_equal(external_write_step(&w, true, false, t += PERIOD), EXTERNAL_WRITE_FOUND);
	assert_int_equal(external_write_step(&w, true, false, t += PERIOD), EXTERNAL_WRITE_FOUGHT);
	assert_int_equal(w.backoff_ms, EXTERNAL_WRITE_FIRST_MS);
}

/* A rewrite after ours held the fight window, in a period that came late, is no fight. */
static void test_late_rewrite_is_new_episode(void **unused)
{
	struct external_write w = { 0 };

	(void)unused;
	assert_int_equal(external_write_step(&w, true, false, 0), EXTERNAL_WRITE_FOUND);
	assert_int_equal(external_write_step(&w, true, false, 301000 * MS), EXTERNAL_WRITE_FOUND);
	assert_int_equal(w.fights, 0);
	assert_false(external_write_holds(&w));
}

/*
 * A writer that rewrites every @every_s (auto-cpufreq, a TLP loop) for an
 * hour: one episode (found once, the fight said once: fights counted from
 * 1 once), its back-off grown to the longest, never settled in between.
 */
static void rewritten_every(uint64_t every_s)
{
	struct external_write w = { 0 };
	unsigned int found = 0, fought_first = 0, settled = 0;
	uint64_t next_us = 1000 * MS;

	for (uint64_t t = 1000 * MS; t < 3600000 * MS; t += PERIOD) {
		bool changed = t >= next_us;
		enum external_write_event e = external_write_step(&w, changed, false, t);

		next_us += changed ? every_s * 1000 * MS : 0;
		found += e == EXTERNAL_WRITE_FOUND;
		fought_first += e == EXTERNAL_WRITE_FOUGHT && w.fights == 1;
		settled += e == EXTERNAL_WRITE_SETTLED;
	}
	assert_int_equal(found, 1);
	assert_int_equal(fought_first, 1);
	assert_int_equal(settled, 0);
	assert_int_equal(w.backoff_ms, EXTERNAL_WRITE_MAX_MS);
	assert_true(w.fights > 10);
}

static void test_writer_every_6_to_60_s_is_one_fight(void **unused)
{
	(void)unused;
	rewritten_every(6);
	rewritten_every(10);
	rewritten_every(60);
}

/* Yield: handed over at the first external write, for good. */
static void test_yield(void **unused)
{
	struct external_write w = { 0 };

	(void)unused;
	assert_int_equal(external_write_step(&w, false, true, 0), EXTERNAL_WRITE_NONE);
	assert_false(external_write_holds(&w));
	assert_int_equal(external_write_step(&w, true, true, PERIOD), EXTERNAL_WRITE_YIELD);
	assert_true(external_write_holds(&w));
	for (uint64_t t = 2; t < 10000; t++)
		assert_int_equal(external_write_step(&w, t % 2, true, t * PERIOD),
				 EXTERNAL_WRITE_NONE);
	assert_true(external_write_holds(&w));
	assert_int_equal(w.count, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_once),
		cmocka_unit_test(test_fight_backs_off),
		cmocka_unit_test(test_late_rewrite_is_new_episode),
		cmocka_unit_test(test_writer_every_6_to_60_s_is_one_fight),
		cmocka_unit_test(test_yield),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
