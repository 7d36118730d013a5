/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The simulator's limit-cycle detector (tools/simulator/sim_trace.c) on
 * written traces: the budget's swings between the bottom and the top
 * 15 % of the actors' maximum, counted in active periods once settled,
 * the verdict (a swing every 2.5 s or more often, 4 at least), and the
 * temperature at the first active period; the plant's clock added to a
 * kept trace.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sim_io.h"

/* A trace of @n periods, 100 ms apart, two actor rows each, budgets from @budget_mw. */
static void run(struct sim *sim, const long *budget_mw, size_t n, int active)
{
	char path[600];
	FILE *f;

	memset(sim, 0, sizeof(*sim));
	snprintf(sim->dir, sizeof(sim->dir), "/tmp/test_sim_trace.XXXXXX");
	assert_non_null(mkdtemp(sim->dir));
	sim->trace_fd = -1;
	sim->trace_last_ms = -1;
	sim->max_budget_mw = 5000;
	sim->trace_settled = true;
	snprintf(path, sizeof(path), "%s/trace.csv", sim->dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "time_ms,zone,temp_mc,active,err_mc,err_integral_mc,p_mw,i_mw,d_mw,budget_mw,"
		"actor,load_pct,freq_khz,req_mw,granted_mw,max_mw,state,switch_on_mc,control_mc\n");
	for (size_t i = 0; i < n; i++)
		for (int a = 0; a < 2; a++)
			fprintf(f, "%zu,soc,75000,%d,0,0,0,0,0,%ld,cpu%d,100,1000000,1,1,1,0,70000,"
				"75000\n", i * 100, active, budget_mw[i], a);
	assert_int_equal(fclose(f), 0);
	sim_read_trace(sim);
	close(sim->trace_fd);
	unlink(path);
	rmdir(sim->dir);
}

static void test_swings_counted(void **unused)
{
	/* 0 -> max -> middle (no band change) -> 0 -> max: three swings. */
	const long budget[] = { 0, 5000, 2500, 600, 4300, 4500 };
	struct sim sim;

	(void)unused;
	run(&sim, budget, 6, 1);
	assert_int_equal(sim.budget_swings, 3);
	assert_int_equal(sim.budget_mw, 4500);
	assert_int_equal(sim.first_active_mc, 75000);
	/* Inactive periods are not counted. */
	run(&sim, budget, 6, 0);
	assert_int_equal(sim.budget_swings, 0);
	assert_int_equal(sim.first_active_mc, 0);
}

static void test_limit_cycle_verdict(void **unused)
{
	long budget[100];
	struct sim sim;

	(void)unused;
	/* A full cycle every second (10 periods): two swings a second. */
	for (size_t i = 0; i < 100; i++)
		budget[i] = i % 10 < 5 ? 100 : 4900;
	run(&sim, budget, 100, 1);
	assert_int_equal(sim.budget_swings, 19);
	assert_true(sim_limit_cycle(&sim, 10));
	/* The same swings over 60 s: one every 3.2 s, no cycle. */
	assert_false(sim_limit_cycle(&sim, 60));
	/* Few swings are no cycle however short the time. */
	sim.budget_swings = 3;
	assert_false(sim_limit_cycle(&sim, 1));
}

/*
 * A kept trace gains sim_time_ms: (time_ms - the daemon's ms at the plant's
 * 0) x speed, negative before the plant started; a row cut at the daemon's
 * stop is left out; an unknown plant start leaves the trace as it was.
 */
static void test_plant_clock_column(void **unused)
{
	const char *header = "time_ms,zone,temp_mc,actor\n";
	const char *rows = "40,soc,60000,cpu0\n40,soc,60000,cpu4\n145,soc,61000,cpu0\n150,so";
	char path[600], text[512];
	struct sim sim = { 0 };
	FILE *f;
	size_t n;

	(void)unused;
	snprintf(sim.dir, sizeof(sim.dir), "/tmp/test_sim_trace.XXXXXX");
	assert_non_null(mkdtemp(sim.dir));
	snprintf(path, sizeof(path), "%s/trace.csv", sim.dir);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "%s%s", header, rows);
	assert_int_equal(fclose(f), 0);
	sim.plant_start_daemon_ms = -1;
	assert_int_equal(sim_trace_add_plant_clock(&sim, 5), -1);
	sim.plant_start_daemon_ms = 45.2;
	assert_int_equal(sim_trace_add_plant_clock(&sim, 5), 0);
	assert_non_null(f = fopen(path, "r"));
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	assert_string_equal(text, "time_ms,zone,temp_mc,actor,sim_time_ms\n"
			    "40,soc,60000,cpu0,-26\n40,soc,60000,cpu4,-26\n145,soc,61000,cpu0,499\n");
	unlink(path);
	rmdir(sim.dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_swings_counted),
		cmocka_unit_test(test_limit_cycle_verdict),
		cmocka_unit_test(test_plant_clock_column),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
