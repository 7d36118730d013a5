/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Retrying a device whose writes fail while it is there (lib/control/write_retry.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "control/write_retry.h"

#define MS 1000ULL	/* us */

/* 100 ms, doubling, at most 2 s. */
static void test_delays(void **unused)
{
	static const uint32_t want[] = { 100, 200, 400, 800, 1600, 2000, 2000 };

	(void)unused;
	for (uint32_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
		assert_int_equal(write_retry_delay_ms(k + 1), want[k]);
	assert_int_equal(write_retry_delay_ms(UINT32_MAX), WRITE_RETRY_MAX_MS);
}

/* A failure on a device still there: handled (0), counted, and no write until the delay is over. */
static void test_backoff(void **unused)
{
	struct write_retry w = { 0 };

	(void)unused;
	assert_true(write_retry_due(&w, 0));
	assert_int_equal(write_retry_note(&w, -EAGAIN, 1000 * MS), 0);
	assert_int_equal(w.errors, 1);
	assert_int_equal(w.failures, 1);
	assert_false(write_retry_due(&w, 1050 * MS));
	/* A timer a little early is on time. */
	assert_true(write_retry_due(&w, 1100 * MS - WRITE_RETRY_EARLY_US));
	assert_false(write_retry_due(&w, 1100 * MS - WRITE_RETRY_EARLY_US - 1));
	assert_int_equal(write_retry_note(&w, -EAGAIN, 1100 * MS), 0);
	assert_false(write_retry_due(&w, 1250 * MS));
	assert_true(write_retry_due(&w, 1300 * MS));
	assert_int_equal(w.errors, 2);
}

/* A write that takes ends the episode; the count of errors stays. */
static void test_success_ends_episode(void **unused)
{
	struct write_retry w = { 0 };

	(void)unused;
	for (int k = 0; k < 4; k++)
		write_retry_note(&w, -EAGAIN, (uint64_t)k * 10000 * MS);
	assert_int_equal(write_retry_note(&w, 0, 40000 * MS), 0);
	assert_int_equal(w.failures, 0);
	assert_int_equal(w.errors, 4);
	assert_true(write_retry_due(&w, 40000 * MS));
	/* The next episode starts from the first delay. */
	write_retry_note(&w, -EAGAIN, 50000 * MS);
	assert_true(write_retry_due(&w, 50100 * MS));
	assert_int_equal(w.errors, 5);
}

/* A device that is gone: counted, passed on for the caller to rescan, no backoff. */
static void test_gone_is_passed_on(void **unused)
{
	struct write_retry w = { 0 };

	(void)unused;
	assert_int_equal(write_retry_note(&w, -ENODEV, 0), -ENODEV);
	assert_int_equal(w.errors, 1);
	assert_int_equal(w.failures, 0);
	assert_true(write_retry_due(&w, 0));
}

/* The counts saturate instead of wrapping to "no errors". */
static void test_saturates(void **unused)
{
	struct write_retry w = { .errors = UINT32_MAX, .failures = UINT32_MAX };

	(void)unused;
	write_retry_note(&w, -EAGAIN, 0);
	assert_int_equal(w.errors, UINT32_MAX);
	assert_int_equal(w.failures, UINT32_MAX);
	assert_false(write_retry_due(&w, WRITE_RETRY_MAX_MS * MS - WRITE_RETRY_EARLY_US - 1));
	assert_true(write_retry_due(&w, WRITE_RETRY_MAX_MS * MS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delays),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_success_ends_episode),
		cmocka_unit_test(test_gone_is_passed_on),
		cmocka_unit_test(test_saturates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
