/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CPU lists as the config and sysfs write them ("0-3,6"). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "control/cpumask.h"

static void test_parse_list(void **unused)
{
	struct cpumask m;
	char buf[64];

	(void)unused;
	assert_int_equal(cpumask_parse_list("0-3,6", &m, NULL), 0);
	assert_int_equal(cpumask_weight(&m), 5);
	for (unsigned int c = 0; c < 8; c++)
		assert_int_equal(cpumask_test(&m, c), c <= 3 || c == 6);
	assert_int_equal(cpumask_format_list(&m, buf, sizeof(buf)), 5);
	assert_string_equal(buf, "0-3,6");
	assert_int_equal(cpumask_parse_list(" 4 - 5 , 0 ", &m, NULL), 0);
	assert_int_equal(cpumask_format_list(&m, buf, sizeof(buf)), 5);
	assert_string_equal(buf, "0,4-5");
	assert_int_equal(cpumask_parse_list("4095", &m, NULL), 0);
	assert_true(cpumask_test(&m, 4095));
	assert_int_equal(cpumask_next(&m, 0), 4095);
	assert_int_equal(cpumask_next(&m, 4096), CPUMASK_MAX_CPUS);
	assert_int_equal(cpumask_parse_list("0-4095", &m, NULL), 0);
	assert_int_equal(cpumask_weight(&m), 4096);
}

/* The union of two masks, across words (CPUs 63/64 and 4095). */
static void test_or(void **unused)
{
	struct cpumask a, b;
	char buf[64];

	(void)unused;
	assert_int_equal(cpumask_parse_list("0-1,63", &a, NULL), 0);
	assert_int_equal(cpumask_parse_list("1-2,64,4095", &b, NULL), 0);
	cpumask_or(&a, &b);
	cpumask_format_list(&a, buf, sizeof(buf));
	assert_string_equal(buf, "0-2,63-64,4095");
	assert_int_equal(cpumask_weight(&a), 6);
	cpumask_format_list(&b, buf, sizeof(buf));
	assert_string_equal(buf, "1-2,64,4095");
}

static void test_parse_errors(void **unused)
{
	static const struct {
		const char *text;
		int error;
	} cases[] = {
		{ "", -EINVAL },
		{ "3-0", -EINVAL },		/* reversed */
		{ "4096", -ERANGE },
		{ "0-4096", -ERANGE },
		{ "99999999999999999999", -ERANGE },
		{ "0,", -EINVAL },
		{ ",0", -EINVAL },
		{ "0--3", -EINVAL },
		{ "a", -EINVAL },
		{ "1;2", -EINVAL },
		{ "-1", -EINVAL },
	};
	struct cpumask m;

	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *why = NULL;

		assert_int_equal(cpumask_parse_list(cases[i].text, &m, &why), cases[i].error);
		assert_non_null(why);
	}
}

static void test_set_and_format_limits(void **unused)
{
	struct cpumask m;
	char small[4];

	(void)unused;
	cpumask_clear(&m);
	assert_int_equal(cpumask_set(&m, 4096), -ERANGE);
	assert_false(cpumask_test(&m, 5000));
	assert_int_equal(cpumask_format_list(&m, small, sizeof(small)), 0);
	assert_string_equal(small, "");
	cpumask_set(&m, 1000);
	assert_int_equal(cpumask_format_list(&m, small, sizeof(small)), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_list),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_or),
		cmocka_unit_test(test_set_and_format_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
