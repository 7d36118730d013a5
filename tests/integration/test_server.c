/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The 256-CPU server tree (suite integration): discovery of 16 policies and
 * their cooling devices, a hot period that throttles them, and how long one
 * period takes (printed).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "config/config.h"
#include "engine/engine.h"
#include "platform/log.h"
#include "tree.h"

#define N_CPUS 256

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void test_server_discovery_and_cycle(void **unused)
{
	struct pa_config *cfg = pa_config_new_default();
	struct engine e;
	double start, elapsed, best = 1e9;

	(void)unused;
	assert_int_equal(engine_build(&e, cfg), 1);
	assert_int_equal(e.zones[0].setup.n_actors, 16);
	assert_int_equal(e.n_actors, 16);
	assert_int_equal(e.zones[0].setup.sp_source, SP_FROM_SYSFS);
	assert_int_equal(e.zones[0].setup.pid.sustainable_power_mw, 150000);
	for (size_t i = 0; i < e.n_actors; i++) {
		assert_int_equal(e.actors[i]->source, OPP_SOURCE_ENERGY_MODEL);
		assert_int_equal(e.actors[i]->table.n, 8);
	}
	tree_put("/sys/class/thermal/thermal_zone0/temp", "93000\n");
	for (int k = 1; k <= 20; k++) {
		tree_busy_cpus(N_CPUS, 100U * (unsigned int)k);
		start = now_us();
		assert_int_equal(engine_cycle(&e, 100000 * (uint64_t)k, NULL), 0);
		elapsed = now_us() - start;
		if (elapsed < best)
			best = elapsed;
	}
	print_message("one period on 256 CPUs, 16 actors: %.0f us (best of 20)\n", best);
	assert_int_equal(e.actors[0]->load_pct, 1600);
	for (int p = 0; p < 16; p++) {
		char path[80];

		snprintf(path, sizeof(path), "/sys/class/thermal/cooling_device%d/cur_state", p);
		assert_true(tree_get(path) > 0);
	}
	assert_int_equal(engine_restore(&e), 0);
	assert_int_equal(tree_get("/sys/class/thermal/cooling_device7/cur_state"), 0);
	engine_free(&e);
	pa_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_server_discovery_and_cycle),
	};

	if (tree_main_guard())
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
