/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A log line folded for a terminal (daemon/log_wrap.c): no line wider than
 * the terminal, in characters (°C is two bytes and one column), the words
 * and their order kept, the lines after the first indented.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "log_wrap.h"

/* The acpitz notice of the x86 laptop, 290 characters on one line. */
static const char NOTICE[] =
	"notice: thermal_zone0 (acpitz): the cooling devices on its control trip (trip 0, "
	"95.0 °C) have no power model (8 Processor); a zone in powerallocd.conf with sensor = "
	"\"acpitz\" and a cpufreq_cap actor (cpus = \"0-7\", with their opps) or a powercap "
	"actor (powercap zones: intel-rapl:0 (package-0)) can control it; not controlled";

/* The widest line of @text, in characters. */
static size_t widest(const char *text)
{
	size_t w = 0, n = 0;

	for (const char *p = text; ; p++) {
		if (*p == '\n' || !*p) {
			w = n > w ? n : w;
			n = 0;
			if (!*p)
				return w;
		} else if (((unsigned char)*p & 0xc0) != 0x80) {
			n++;
		}
	}
}

/* @text with each fold ("\n  ") back to the space it replaced. */
static void unfold(char *text)
{
	size_t indent = strlen(LOG_WRAP_INDENT);
	char *p;

	while ((p = strstr(text, "\n" LOG_WRAP_INDENT))) {
		*p = ' ';
		memmove(p + 1, p + 1 + indent, strlen(p + 1 + indent) + 1);
	}
}

static void test_folded_to_the_width(void **unused)
{
	char out[1024];

	(void)unused;
	for (unsigned int columns = 20; columns <= 120; columns += 10) {
		size_t len = log_wrap(NOTICE, columns, out, sizeof(out));

		assert_int_equal(len, strlen(out));
		assert_true(widest(out) <= columns);
		assert_true(widest(out) >= columns - 16);	/* the longest word here is 15 */
		assert_null(strstr(out, " \n"));
		assert_null(strstr(out, "\n   "));	/* indent, then a word */
		unfold(out);
		assert_string_equal(out, NOTICE);
	}
	/* °C counted as two columns would fold "95.0 °C)" one word early at 80. */
	log_wrap(NOTICE, 80, out, sizeof(out));
	assert_non_null(strstr(out, "(trip 0,\n  95.0 °C)"));
}

static void test_short_and_long_words(void **unused)
{
	char out[256];

	(void)unused;
	assert_int_equal(log_wrap("info: short", 80, out, sizeof(out)), 11);
	assert_string_equal(out, "info: short");
	/* A word wider than the line stays whole on a line of its own. */
	log_wrap("err: /sys/devices/platform/ff3d0000.i2c/i2c-4/4-0040/hwmon/hwmon0/in1_input: gone",
		 20, out, sizeof(out));
	assert_string_equal(out, "err:\n  /sys/devices/platform/ff3d0000.i2c/i2c-4/4-0040/hwmon/hwmon0/"
			    "in1_input:\n  gone");
	/* Under 20 columns, 20; trailing spaces dropped. */
	log_wrap("warning: one two three four five   ", 5, out, sizeof(out));
	assert_string_equal(out, "warning: one two\n  three four five");
}

static void test_cut_where_out_is_short(void **unused)
{
	char out[16];

	(void)unused;
	assert_int_equal(log_wrap(NOTICE, 80, out, sizeof(out)), 15);
	assert_string_equal(out, "notice: thermal");
	assert_int_equal(log_wrap(NOTICE, 80, out, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_folded_to_the_width),
		cmocka_unit_test(test_short_and_long_words),
		cmocka_unit_test(test_cut_where_out_is_short),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
