/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /proc/stat parsing and per-CPU load.  Every input is copied into a heap
 * buffer of exactly its length (no NUL), so that under AddressSanitizer any
 * read past the end fails the test.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "control/cpu_load.h"

static struct cpu_stat *prev, *cur;

static int setup(void **unused)
{
	(void)unused;
	prev = calloc(1, sizeof(*prev));
	cur = calloc(1, sizeof(*cur));
	return prev && cur ? 0 : -1;
}

static int teardown(void **unused)
{
	(void)unused;
	free(prev);
	free(cur);
	return 0;
}

static int parse_exact(const char *text, size_t len, struct cpu_stat *st)
{
	char *buf = malloc(len ? len : 1);
	int r;

	assert_non_null(buf);
	memcpy(buf, text, len);
	r = cpu_stat_parse(buf, len, st);
	free(buf);
	return r;
}

static int parse(const char *text, struct cpu_stat *st)
{
	return parse_exact(text, strlen(text), st);
}

/* A real 6-CPU /proc/stat head (10 columns), followed by the other lines. */
static const char rk3399_stat[] =
	"cpu  2255 34 2290 22625563 6290 127 456 0 0 0\n"
	"cpu0 1132 34 1441 11311718 3675 127 438 0 0 0\n"
	"cpu1 123 0 249 2262617 614 0 6 0 0 0\n"
	"cpu2 300 0 200 2262000 500 0 4 0 0 0\n"
	"cpu3 200 0 100 2262100 400 0 3 0 0 0\n"
	"cpu4 300 0 150 2263564 600 0 3 0 0 0\n"
	"cpu5 200 0 150 2263564 501 0 2 0 0 0\n"
	"intr 114930548 113199788 3 0 5 263 0 4 [... a long line ...]\n"
	"ctxt 1990473\n"
	"btime 1062191376\n"
	"processes 2915\n"
	"procs_running 1\n"
	"procs_blocked 0\n"
	"softirq 183433 0 21755 12 39 1137 231 21459 2263\n";

static void test_parse_real_file(void **unused)
{
	(void)unused;
	assert_int_equal(parse(rk3399_stat, cur), 0);
	assert_int_equal(cpumask_weight(&cur->online), 6);
	/* cpu0: total = 1132+34+1441+11311718+3675+127+438+0 = 11318565; idle = 11311718+3675 */
	assert_int_equal(cur->cpu[0].total, 11318565);
	assert_int_equal(cur->cpu[0].idle, 11315393);
}

/* Four columns (kernels before 2.6) up to ten; guest columns are not added twice. */
static void test_column_counts(void **unused)
{
	(void)unused;
	assert_int_equal(parse("cpu 1 2 3 4\ncpu0 10 20 30 40\n", cur), 0);
	assert_int_equal(cur->cpu[0].total, 100);
	assert_int_equal(cur->cpu[0].idle, 40);
	assert_int_equal(parse("cpu 1 2 3 4 5 6 7 8 9 10\ncpu0 1 2 3 4 5 6 7 8 900 1000\n", cur), 0);
	assert_int_equal(cur->cpu[0].total, 36);
	assert_int_equal(cur->cpu[0].idle, 9);
}

/* Offline CPUs have no line: cpu2 and cpu3 are missing. */
static void test_offline_gaps(void **unused)
{
	(void)unused;
	assert_int_equal(parse("cpu 4 0 0 4\ncpu0 1 0 0 1\ncpu1 1 0 0 1\ncpu4 1 0 0 1\ncpu7 1 0 0 1\n", cur), 0);
	assert_int_equal(cpumask_weight(&cur->online), 4);
	assert_true(cpumask_test(&cur->online, 4));
	assert_false(cpumask_test(&cur->online, 2));
	assert_true(cpumask_test(&cur->online, 7));
}

/* Any CPU count: 256 CPUs, and a CPU numbered 4095. */
static void test_many_cpus(void **unused)
{
	size_t size = 256 * 64 + 128, len = 0;
	char *text = malloc(size);

	(void)unused;
	assert_non_null(text);
	len += (size_t)snprintf(text + len, size - len, "cpu 0 0 0 0\n");
	for (int c = 0; c < 255; c++)
		len += (size_t)snprintf(text + len, size - len, "cpu%d %d 0 0 100\n", c, c);
	len += (size_t)snprintf(text + len, size - len, "cpu4095 7 0 0 100\n");
	assert_int_equal(parse_exact(text, len, cur), 0);
	assert_int_equal(cpumask_weight(&cur->online), 256);
	assert_int_equal(cur->cpu[254].total, 354);
	assert_int_equal(cur->cpu[4095].total, 107);
	free(text);
}

static void test_load(void **unused)
{
	(void)unused;
	assert_int_equal(parse("cpu 0 0 0 0\ncpu0 100 0 0 900 0\ncpu1 0 0 0 1000\ncpu2 500 0 0 500\n", prev), 0);
	/* cpu0: +300 busy, +100 idle -> 75%; cpu1: +0 busy +100 idle (iowait) -> 0%;
	 * cpu2: +100 busy, +0 idle -> 100% */
	assert_int_equal(parse("cpu 0 0 0 0\ncpu0 400 0 0 1000 0\ncpu1 0 0 0 1000 100\ncpu2 600 0 0 500\n", cur), 0);
	assert_int_equal(cpu_load_pct(prev, cur, 0, 0), 75);
	assert_int_equal(cpu_load_pct(prev, cur, 1, 100), 0);
	assert_int_equal(cpu_load_pct(prev, cur, 2, 0), 100);
	/* A CPU not in either sample: 0, whatever it had. */
	assert_int_equal(cpu_load_pct(prev, cur, 3, 80), 0);
	/* No tick counted: the last load, at most 100. */
	assert_int_equal(cpu_load_pct(cur, cur, 0, 0), 0);
	assert_int_equal(cpu_load_pct(cur, cur, 0, 80), 80);
	assert_int_equal(cpu_load_pct(cur, cur, 0, 250), 100);
}

/* Two reads within one tick see the same counters: no time elapsed. */
static void test_elapsed(void **unused)
{
	(void)unused;
	assert_int_equal(parse("cpu 0 0 0 0\ncpu0 100 0 0 900\ncpu1 50 0 0 950\n", prev), 0);
	assert_false(cpu_stat_elapsed(prev, prev));
	/* One CPU counting a tick is enough. */
	assert_int_equal(parse("cpu 0 0 0 0\ncpu0 100 0 0 900\ncpu1 50 0 0 951\n", cur), 0);
	assert_true(cpu_stat_elapsed(prev, cur));
	/* Counters that restarted lower (offline and back) changed: time passed. */
	assert_int_equal(parse("cpu 0 0 0 0\ncpu0 100 0 0 900\ncpu1 1 0 0 1\n", cur), 0);
	assert_true(cpu_stat_elapsed(prev, cur));
	/* Nothing to compare (an empty first sample, or no CPU in both): not
	 * held back. */
	memset(cur, 0, sizeof(*cur));
	assert_true(cpu_stat_elapsed(cur, prev));
	assert_int_equal(parse("cpu 0 0 0 0\ncpu2 100 0 0 900\n", cur), 0);
	assert_true(cpu_stat_elapsed(prev, cur));
}

/* cpu1 went offline and came back: its counters restarted below the old ones. */
static void test_counter_backwards(void **unused)
{
	(void)unused;
	assert_int_equal(parse("cpu 0 0 0 0\ncpu0 100 0 0 100\ncpu1 5000 0 0 9000\n", prev), 0);
	assert_int_equal(parse("cpu 0 0 0 0\ncpu0 200 0 0 100\ncpu1 10 0 0 20\n", cur), 0);
	/* Backwards or offline: 0, not the last load. */
	assert_int_equal(cpu_load_pct(prev, cur, 1, 100), 0);
	assert_int_equal(cpu_load_pct(prev, cur, 0, 0), 100);
	/* Only idle went backwards while total grew: still 0, never > 100. */
	assert_int_equal(parse("cpu 0 0 0 0\ncpu1 6000 0 0 8999\n", cur), 0);
	assert_int_equal(cpu_load_pct(prev, cur, 1, 100), 0);
	/* Total equal but idle backwards: 0, not kept. */
	assert_int_equal(parse("cpu 0 0 0 0\ncpu1 5001 0 0 8999\n", cur), 0);
	assert_int_equal(cpu_load_pct(prev, cur, 1, 100), 0);
	/* CPU offline in the new sample. */
	assert_int_equal(parse("cpu 0 0 0 0\ncpu0 300 0 0 100\n", cur), 0);
	assert_int_equal(cpu_load_pct(prev, cur, 1, 100), 0);
}

/* Counters near 2^64 do not overflow the percentage. */
static void test_huge_counters(void **unused)
{
	(void)unused;
	assert_int_equal(parse("cpu 0 0 0 0\ncpu0 0 0 0 0\n", prev), 0);
	assert_int_equal(parse("cpu 0 0 0 0\ncpu0 18000000000000000000 0 0 400000000000000000\n", cur), 0);
	assert_int_equal(cpu_load_pct(prev, cur, 0, 0), 97);
	assert_int_equal(parse("cpu 0 0 0 0\ncpu0 18446744073709551615 0 0 0\n", cur), 0);
	assert_int_equal(cpu_load_pct(prev, cur, 0, 0), 100);
}

static void test_load_sum(void **unused)
{
	static struct cpu_loads loads;
	struct cpumask mask;
	unsigned int saturated;

	(void)unused;
	assert_int_equal(parse("cpu 0 0 0 0\ncpu0 0 0 0 0\ncpu1 0 0 0 0\ncpu2 0 0 0 0\n", prev), 0);
	assert_int_equal(parse("cpu 0 0 0 0\ncpu0 100 0 0 0\ncpu1 50 0 0 50\ncpu2 100 0 0 0\n", cur), 0);
	assert_int_equal(cpumask_parse_list("0-1,3", &mask, NULL), 0);
	cpu_loads_update(&loads, prev, cur);
	assert_int_equal(cpu_loads_sum_pct(&loads, &mask, NULL), 150);
	assert_int_equal(cpu_loads_sum_pct(&loads, &mask, &saturated), 150);
	assert_int_equal(saturated, 1);
	/* 95 % is saturated, 94 % is not; CPU 3 has no line and counts as idle. */
	assert_int_equal(parse("cpu 0 0 0 0\ncpu0 95 0 0 5\ncpu1 94 0 0 6\ncpu2 0 0 0 0\n", cur), 0);
	cpu_loads_update(&loads, prev, cur);
	assert_int_equal(cpu_loads_sum_pct(&loads, &mask, &saturated), 189);
	assert_int_equal(saturated, 1);
}

/* Parses @text into @next, the sample after @last, and updates @loads from the pair. */
static void next_sample(struct cpu_loads *loads, const struct cpu_stat *last,
			struct cpu_stat *next, const char *text)
{
	assert_int_equal(parse(text, next), 0);
	cpu_loads_update(loads, last, next);
}

/*
 * A sample in which a busy CPU's counters did not move (no tick: HZ = 100
 * and a short period, or a tickless busy CPU), between two busy ones: its
 * load stays 100 (issue 41, 4; it read 0).  One that goes offline reads 0,
 * and back online with restarted counters 0 until they move again.
 */
static void test_stalled_keeps_load(void **unused)
{
	static struct cpu_loads loads;
	struct cpumask both;

	(void)unused;
	assert_int_equal(cpumask_parse_list("0-1", &both, NULL), 0);
	assert_int_equal(parse("cpu 0 0 0 0\ncpu0 100 0 0 900\ncpu1 100 0 0 900\n", prev), 0);
	next_sample(&loads, prev, cur, "cpu 0 0 0 0\ncpu0 200 0 0 900\ncpu1 200 0 0 900\n");
	assert_int_equal(cpu_loads_sum_pct(&loads, &both, NULL), 200);
	/* cpu0 stalled, cpu1 ticked: cpu0 keeps 100. */
	next_sample(&loads, cur, prev, "cpu 0 0 0 0\ncpu0 200 0 0 900\ncpu1 300 0 0 900\n");
	assert_int_equal(loads.pct[0], 100);
	assert_int_equal(cpu_loads_sum_pct(&loads, &both, NULL), 200);
	/* Busy again over the two periods. */
	next_sample(&loads, prev, cur, "cpu 0 0 0 0\ncpu0 400 0 0 900\ncpu1 400 0 0 900\n");
	assert_int_equal(cpu_loads_sum_pct(&loads, &both, NULL), 200);
	/* cpu1 offline: 0; back with counters lower than before: 0; then its own. */
	next_sample(&loads, cur, prev, "cpu 0 0 0 0\ncpu0 500 0 0 900\n");
	assert_int_equal(loads.pct[1], 0);
	next_sample(&loads, prev, cur, "cpu 0 0 0 0\ncpu0 600 0 0 900\ncpu1 5 0 0 5\n");
	assert_int_equal(loads.pct[1], 0);
	next_sample(&loads, cur, prev, "cpu 0 0 0 0\ncpu0 700 0 0 900\ncpu1 10 0 0 10\n");
	assert_int_equal(loads.pct[1], 50);
	assert_int_equal(loads.pct[0], 100);
}

static void test_malformed(void **unused)
{
	static const struct {
		const char *text;
		int error;
	} cases[] = {
		{ "", -ENODATA },
		{ "intr 1 2 3\n", -ENODATA },
		{ "cpu 1 2 3 4\n", -ENODATA },				/* no per-CPU line */
		{ "cpu 1 2 3 4\ncpu0 1 2 3\n", -EINVAL },		/* missing column */
		{ "cpu 1 2 3 4\ncpu0 1 2 3 4 5 6 7 8 9 10 11\n", -EINVAL },	/* too many */
		{ "cpu 1 2 3 4\ncpu0 1 2 3 4", -EINVAL },		/* no newline */
		{ "cpu 1 2 3 4\ncpu0 1 2 3", -EINVAL },		/* truncated mid-line */
		{ "cpu 1 2 3 4", -EINVAL },				/* truncated first line */
		{ "cpu 1 2 3 4\ncpu0 1 2 x 4\n", -EINVAL },
		{ "cpu 1 2 3 4\ncpu0 1 2 -3 4\n", -EINVAL },
		{ "cpu 1 2 3 4\ncpu0 1 2 3 4x\n", -EINVAL },
		{ "cpu 1 2 3 4\ncpu0x 1 2 3 4\n", -EINVAL },
		{ "cpu 1 2 3 4\ncpu0 18446744073709551616 2 3 4\n", -ERANGE },
		{ "cpu 1 2 3 4\ncpu0 99999999999999999999999 2 3 4\n", -ERANGE },
		{ "cpu 1 2 3 4\ncpu0 18446744073709551615 1 0 0\n", -ERANGE },	/* sum overflows */
		{ "cpu 1 2 3 4\ncpu4096 1 2 3 4\n", -ERANGE },
		{ "cpu 1 2 3 4\ncpu1 1 2 3 4\ncpu1 1 2 3 4\n", -EINVAL },	/* duplicate */
		{ "cpu 1 2 3 4\ncpu2 1 2 3 4\ncpu1 1 2 3 4\n", -EINVAL },	/* out of order */
	};

	(void)unused;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		print_message("case %zu\n", i);
		assert_int_equal(parse(cases[i].text, cur), cases[i].error);
	}
}

/* A 1 MiB line, as a cpu line and as the first line; and one after the cpu lines. */
static void test_one_mib_line(void **unused)
{
	size_t len = 1 << 20;
	char *text = malloc(len);
	const char head[] = "cpu 1 2 3 4\ncpu0 1 2 3 4\n";

	(void)unused;
	assert_non_null(text);
	memset(text, '1', len);
	memcpy(text, "cpu 1 2 3 4\ncpu0 ", 17);
	text[len - 1] = '\n';
	assert_int_equal(parse_exact(text, len, cur), -E2BIG);
	memset(text, '7', len);
	assert_int_equal(parse_exact(text, len, cur), -E2BIG);
	/* The same line after the cpu lines is never read. */
	memset(text, 'x', len);
	memcpy(text, head, sizeof(head) - 1);
	assert_int_equal(parse_exact(text, len, cur), 0);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_real_file),
		cmocka_unit_test(test_column_counts),
		cmocka_unit_test(test_offline_gaps),
		cmocka_unit_test(test_many_cpus),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_elapsed),
		cmocka_unit_test(test_stalled_keeps_load),
		cmocka_unit_test(test_counter_backwards),
		cmocka_unit_test(test_huge_counters),
		cmocka_unit_test(test_load_sum),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_one_mib_line),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
