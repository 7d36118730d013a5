/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Decimal numbers in text (lib/control/parse_number.c): a sysfs value whole
 * (one trailing newline allowed), and the digits at the start of a
 * /proc/stat column, each with its edge cases.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "control/parse_number.h"

static void test_parse_u64(void **unused)
{
	static const struct {
		const char *text;
		int error;
		uint64_t value;
	} cases[] = {
		{ "0", 0, 0 },
		{ "75000\n", 0, 75000 },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "", -EINVAL, 0 },
		{ "\n", -EINVAL, 0 },
		{ "abc", -EINVAL, 0 },
		{ "12abc", -EINVAL, 0 },
		{ "12 ", -EINVAL, 0 },
		{ " 12", -EINVAL, 0 },
		{ "12\n\n", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "+1", -EINVAL, 0 },
		{ "18446744073709551616", -ERANGE, 0 },
	};

	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 12345;

		assert_int_equal(parse_u64(cases[i].text, strlen(cases[i].text), &v), cases[i].error);
		if (!cases[i].error)
			assert_int_equal(v, cases[i].value);
		else
			assert_int_equal(v, 12345);
	}
}

static void test_parse_s64(void **unused)
{
	int64_t v;

	(void)unused;
	assert_int_equal(parse_s64("-40000\n", 7, &v), 0);
	assert_int_equal(v, -40000);
	assert_int_equal(parse_s64("-9223372036854775808", 20, &v), 0);
	assert_true(v == INT64_MIN);
	assert_int_equal(parse_s64("9223372036854775808", 19, &v), -ERANGE);
	assert_int_equal(parse_s64("-", 1, &v), -EINVAL);
	assert_int_equal(parse_s64("--1", 3, &v), -EINVAL);
	/* The length bounds the read: no NUL needed. */
	assert_int_equal(parse_s64("123456", 3, &v), 0);
	assert_int_equal(v, 123);
}

/* The digits at the start, the rest left to the caller; what the whole form refuses. */
static void test_parse_u64_prefix(void **unused)
{
	static const struct {
		const char *text;
		int error;
		uint64_t value;
		size_t used;
	} cases[] = {
		{ "0", 0, 0, 1 },
		{ "1234 5678", 0, 1234, 4 },
		{ "75000\n", 0, 75000, 5 },
		{ "12abc", 0, 12, 2 },
		{ "007", 0, 7, 3 },
		{ "18446744073709551615 ", 0, UINT64_MAX, 20 },
		{ "", -EINVAL, 0, 0 },
		{ " 12", -EINVAL, 0, 0 },
		{ "-1", -EINVAL, 0, 0 },
		{ "+1", -EINVAL, 0, 0 },
		{ "\n", -EINVAL, 0, 0 },
		{ "18446744073709551616", -ERANGE, 0, 0 },
		{ "99999999999999999999x", -ERANGE, 0, 0 },
	};

	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 12345;
		size_t used = 99;

		assert_int_equal(parse_u64_prefix(cases[i].text, strlen(cases[i].text), &v, &used),
				 cases[i].error);
		assert_int_equal(v, cases[i].error ? 12345 : cases[i].value);
		assert_int_equal(used, cases[i].error ? 99 : cases[i].used);
	}
	/* The length bounds the read: no NUL needed. */
	{
		uint64_t v;
		size_t used;

		assert_int_equal(parse_u64_prefix("123456", 3, &v, &used), 0);
		assert_int_equal(v, 123);
		assert_int_equal(used, 3);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_parse_s64),
		cmocka_unit_test(test_parse_u64_prefix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
