/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Discovery and one control period on the boards beyond the RK3399 (suite
 * integration, under umockdev-wrapper): the Odroid-XU4 (Exynos5422, 4+4
 * big.LITTLE, a pwm-fan on active trips) and the ROCK 5B (RK3588, three CPU
 * clusters, zones with a single passive trip).  FIXTURE names the tree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "board.h"
#include "config/config.h"
#include "engine/engine.h"
#include "platform/log.h"
#include "tree.h"

/* The board's top-OPP power of cluster @k, all its CPUs, mW. */
static uint32_t cluster_max_mw(const struct board *b, size_t k)
{
	const struct board_domain *d = &b->domains[k];

	return d->opps[d->n_opps - 1].power_mw * d->n_cpus;
}

/*
 * No config: the four CPU zones (passive trips 70 and 85 °C) are taken over
 * with both clusters, from the device tree's OPPs and coefficients; the GPU
 * zone has no power actor (the Mali node has no coefficient) and is not.
 */
static void test_xu4_auto_configuration(void **unused)
{
	const struct board *b = board_find("odroid-xu4");
	struct pa_config *cfg = tree_config("");
	struct engine e;

	(void)unused;
	assert_int_equal(engine_build(&e, cfg), 4);
	for (size_t z = 0; z < 4; z++) {
		char name[32];

		snprintf(name, sizeof(name), "cpu%zu-thermal", z);
		assert_string_equal(e.zones[z].setup.name, name);
		assert_int_equal(e.zones[z].setup.switch_on_mc, 70000);
		assert_int_equal(e.zones[z].setup.control_mc, 85000);
		assert_int_equal(e.zones[z].setup.n_actors, 2);
	}
	/* The clusters and the fan are shared by the four zones: three actors in all. */
	assert_int_equal(e.n_actors, 3);
	assert_string_equal(e.actors[0]->name, "cpufreq-cpu0");
	assert_string_equal(e.actors[1]->name, "cpufreq-cpu4");
	assert_string_equal(e.actors[2]->name, "pwm-fan");
	assert_int_equal(e.actors[0]->table.n, 13);
	assert_int_equal(e.actors[1]->table.n, 19);
	assert_int_equal(e.actors[0]->table.entry[12].power_mw, b->domains[0].opps[12].power_mw);
	assert_int_equal(e.actors[1]->table.entry[18].power_mw, b->domains[1].opps[18].power_mw);
	/* capacity-dmips-mhz 539 x 1400 MHz against 1024 x 2000 MHz */
	assert_int_equal(e.actors[0]->capacity, 539ULL * 1400000 * 1024 / (1024ULL * 2000000));
	assert_int_equal(e.actors[1]->capacity, 1024);

	tree_busy_cpus(8, 100);
	assert_int_equal(engine_cycle(&e, 100000, NULL), 0);
	assert_int_equal(e.actors[0]->max_mw, cluster_max_mw(b, 0));
	assert_int_equal(e.actors[1]->max_mw, cluster_max_mw(b, 1));
	assert_int_equal(engine_restore(&e), 0);
	engine_free(&e);
	pa_config_free(cfg);
}

/*
 * The XU4 tree's cpu0-thermal at @temp0, its other CPU zones at @temp, then
 * one period (busy CPUs); the fan's state after it.
 */
static long xu4_fan_after(struct engine *e, const char *temp0, const char *temp, uint64_t now_us)
{
	for (int z = 0; z < 4; z++) {
		char path[64];

		snprintf(path, sizeof(path), "/sys/class/thermal/thermal_zone%d/temp", z);
		tree_put(path, z ? temp : temp0);
	}
	tree_busy_cpus(8, (unsigned int)(now_us / 1000));
	assert_int_equal(engine_cycle(e, now_us, NULL), 0);
	return tree_get("/sys/class/thermal/cooling_device2/cur_state");
}

/*
 * The pwm-fan is bound to the zones' active trips (50, 60, 70 °C), which the
 * kernel stops serving once the zones are taken over: the step_wise
 * fallback turns it up a level per trip, a step per period, takes the
 * deepest state any zone asks for, and puts it back at exit.  With
 * step_wise_fallback = false the fan is left alone.
 */
static void test_xu4_fan(void **unused)
{
	struct pa_config *cfg = tree_config("");
	struct engine e;

	(void)unused;
	assert_int_equal(engine_build(&e, cfg), 4);
	pa_config_free(cfg);
	assert_int_equal(e.zones[0].setup.n_fallback, 1);
	assert_int_equal(e.zones[0].setup.fallback[0].n_trips, 3);
	assert_int_equal(xu4_fan_after(&e, "45000\n", "45000\n", 100000), 0);
	assert_int_equal(xu4_fan_after(&e, "52000\n", "52000\n", 200000), 1);
	assert_int_equal(xu4_fan_after(&e, "53000\n", "53000\n", 300000), 1);
	assert_int_equal(xu4_fan_after(&e, "80000\n", "80000\n", 400000), 2);
	assert_int_equal(xu4_fan_after(&e, "81000\n", "81000\n", 500000), 3);
	/* One hot zone is enough: the others' lower asks do not win. */
	assert_int_equal(xu4_fan_after(&e, "82000\n", "45000\n", 600000), 3);
	assert_int_equal(xu4_fan_after(&e, "45000\n", "45000\n", 700000), 2);
	assert_int_equal(engine_restore(&e), 0);
	assert_int_equal(tree_get("/sys/class/thermal/cooling_device2/cur_state"), 0);
	engine_free(&e);

	cfg = tree_config("zones = ( { name = \"cpu\"; sensor = \"cpu0-thermal\";\n"
			  "  step_wise_fallback = false;\n"
			  "  actors = ( { type = \"cpufreq\"; cpus = \"0-3\"; },\n"
			  "             { type = \"cpufreq\"; cpus = \"4-7\"; } ); } );\n");
	assert_int_equal(engine_build(&e, cfg), 1);
	pa_config_free(cfg);
	assert_int_equal(e.zones[0].setup.n_fallback, 0);
	assert_int_equal(e.n_actors, 2);
	assert_int_equal(xu4_fan_after(&e, "80000\n", "80000\n", 800000), 0);
	assert_int_equal(engine_restore(&e), 0);
	engine_free(&e);
}

static const char rock5b_zone[] =
	"zones = ( { name = \"soc\"; sensor = \"package-thermal\";\n"
	"  switch_on_temp = 75000; control_temp = 85000; sustainable_power = 2500;\n"
	"  division = \"%s\"; trust_sustainable_power = true;\n"
	"  actors = ( { type = \"cpufreq\"; cpus = \"0-3\"; },\n"
	"             { type = \"cpufreq\"; cpus = \"4-5\"; },\n"
	"             { type = \"cpufreq\"; cpus = \"6-7\"; } ); } );\n";

/*
 * Builds the configured three-cluster zone and runs one period at 85.5 °C
 * with every CPU busy (@busy ticks past the fixture's sample: it must grow
 * from one call to the next, or the CPUs look idle).
 */
static void rock5b_period(struct engine *e, const char *division, unsigned int busy)
{
	char text[sizeof(rock5b_zone) + 16];
	struct pa_config *cfg;

	snprintf(text, sizeof(text), rock5b_zone, division);
	cfg = tree_config(text);
	assert_int_equal(engine_build(e, cfg), 1);
	pa_config_free(cfg);
	assert_int_equal(e->zones[0].setup.n_actors, 3);
	tree_put("/sys/class/thermal/thermal_zone0/temp", "86000\n");
	tree_busy_cpus(8, busy);
	assert_int_equal(engine_cycle(e, 100000, NULL), 0);
	assert_true(e->zones[0].control.active);
}

/*
 * Every zone of the RK3588 tree has one passive trip (85 °C) and its device
 * tree no sustainable-power: the three whose trip binds a cluster are not
 * taken over automatically (always on, their budget from the clusters'
 * lowest powers would hold a busy cluster down at any temperature), each
 * said with the keys that would control it; the package, center, GPU and
 * NPU zones bind nothing.  Given a sustainable_power, a cluster's zone is
 * taken as the kernel's power_allocator takes it: always on, its trip as
 * control.  A configured zone on the package sensor drives the three
 * clusters.  Both divisions stay within the budget; efficiency division
 * gives the A55s (more work per mW at their OPPs) more of it.
 */
static void test_rock5b(void **unused)
{
	static const char *const sp_file = "/sys/class/thermal/thermal_zone1/sustainable_power";
	const struct board *b = board_find("rk3588-rock5b");
	struct pa_config *cfg = tree_config("");
	uint32_t little_request, little_efficiency;
	struct engine e;

	(void)unused;
	tree_log_capture();
	assert_int_equal(engine_build(&e, cfg), 0);
	engine_free(&e);
	for (int k = 1; k <= 3; k++) {
		static const char *const zone[] = { "bigcore0-thermal", "bigcore2-thermal",
						    "littlecore-thermal" };
		char words[128];

		snprintf(words, sizeof(words), "thermal_zone%d (%s): one passive trip (trip 0, "
			 "85.0 °C) and no sustainable_power: ", k, zone[k - 1]);
		assert_int_equal(tree_log_count(words), 1);
	}
	pa_log_set_handler(NULL, NULL);

	tree_put(sp_file, "1500\n");
	assert_int_equal(engine_build(&e, cfg), 1);
	tree_put(sp_file, "0\n");
	tree_assert_always_on(&e.zones[0], "bigcore0-thermal", 85000, 1500, "cpufreq-cpu4");
	assert_int_equal(engine_restore(&e), 0);
	engine_free(&e);
	pa_config_free(cfg);

	rock5b_period(&e, "request", 100);
	for (size_t k = 0; k < 3; k++)
		assert_int_equal(e.actors[k]->max_mw, cluster_max_mw(b, k));
	assert_true(e.zones[0].control.budget_mw < 2500);
	assert_true(e.zones[0].control.grant_mw[0] + e.zones[0].control.grant_mw[1] + e.zones[0].control.grant_mw[2] <=
		    e.zones[0].control.budget_mw + 2);
	/* The two A76 pairs ask for the same and get the same. */
	assert_int_equal(e.zones[0].control.grant_mw[1], e.zones[0].control.grant_mw[2]);
	little_request = e.zones[0].control.grant_mw[0];
	assert_int_equal(engine_restore(&e), 0);
	engine_free(&e);

	rock5b_period(&e, "efficiency", 200);
	assert_true(e.zones[0].control.grant_mw[0] + e.zones[0].control.grant_mw[1] + e.zones[0].control.grant_mw[2] <=
		    e.zones[0].control.budget_mw);
	little_efficiency = e.zones[0].control.grant_mw[0];
	print_message("budget %u mW: A55 grant %u mW by request, %u mW by efficiency\n",
		      e.zones[0].control.budget_mw, little_request, little_efficiency);
	assert_true(little_efficiency > little_request);
	assert_int_equal(engine_restore(&e), 0);
	for (int c = 0; c < 3; c++) {
		char path[64];

		snprintf(path, sizeof(path), "/sys/class/thermal/cooling_device%d/cur_state", c);
		assert_int_equal(tree_get(path), 0);
	}
	engine_free(&e);
}

int main(void)
{
	const char *fixture = getenv("FIXTURE");
	const struct CMUnitTest xu4[] = { cmocka_unit_test(test_xu4_auto_configuration),
					  cmocka_unit_test(test_xu4_fan) };
	const struct CMUnitTest rock5b[] = { cmocka_unit_test(test_rock5b) };

	if (tree_main_guard())
		return 1;
	if (strcmp(fixture, "odroid-xu4") == 0)
		return cmocka_run_group_tests(xu4, NULL, NULL);
	return cmocka_run_group_tests(rock5b, NULL, NULL);
}
