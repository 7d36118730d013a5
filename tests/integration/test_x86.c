/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The x86 laptop tree (suite integration): automatic configuration takes
 * x86_pkg_temp with its RAPL package (acpitz has one passive trip and
 * Processor cooling devices have no power model); a config names the package
 * zone with a RAPL actor and a scaling_max_freq cap on every CPU; both limit
 * and restore.
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

#include "config/config.h"
#include "engine/engine.h"
#include "platform/log.h"
#include "tree.h"

#define RAPL "/sys/class/powercap/intel-rapl:0"

static const char package_zone[] =
	"zones = ( { name = \"package\"; sensor = \"x86_pkg_temp\";\n"
	"  switch_on_temp = 80000; control_temp = 90000; sustainable_power = 15000;\n"
	"  trust_sustainable_power = true;\n"
	"  actors = ( { type = \"powercap\"; zone = \"intel-rapl:0\"; },\n"
	"             { type = \"cpufreq_cap\"; cpus = \"0-7\";\n"
	"               opps = ( { freq_khz = 800000; power_mw = 400; },\n"
	"                        { freq_khz = 1600000; power_mw = 900; },\n"
	"                        { freq_khz = 2400000; power_mw = 1700; },\n"
	"                        { freq_khz = 3200000; power_mw = 2900; },\n"
	"                        { freq_khz = 4700000; power_mw = 5200; } ); } ); } );\n";

/*
 * Without zones configured, x86_pkg_temp is controlled through RAPL (acpitz's
 * Processor devices have no power model): 80 and 90 °C from coretemp's TjMax
 * (100 °C), the firmware's 28 W long-term limit as sustainable power and the
 * most it writes.  Cool, the limit stays at 28 W (never the 45 W TDP); hot,
 * it falls to the floor; restore puts 28 W back.
 */
static void test_automatic_package_zone(void **unused)
{
	struct pa_config *cfg = pa_config_new_default();
	unsigned long long energy = 1000000000ULL;
	struct engine e;

	(void)unused;
	tree_put_u64(RAPL "/constraint_0_power_limit_uw", 28000000);
	tree_put_u64("/sys/class/thermal/thermal_zone1/temp", 50000);
	assert_int_equal(engine_build(&e, cfg), 1);
	assert_string_equal(e.zones[0].setup.name, "x86_pkg_temp");
	assert_int_equal(e.zones[0].setup.switch_on_mc, 80000);
	assert_int_equal(e.zones[0].setup.control_mc, 90000);
	assert_int_equal(e.zones[0].setup.pid.sustainable_power_mw, 28000);
	assert_int_equal(e.zones[0].setup.sp_source, SP_FROM_RAPL);
	assert_int_equal(e.n_actors, 1);
	assert_string_equal(e.actors[0]->name, "intel-rapl:0");
	assert_int_equal(e.actors[0]->max_mw, 28000);
	for (int k = 0; k < 5; k++) {
		energy += 3000000;	/* 30 W */
		tree_put_u64(RAPL "/energy_uj", energy);
		assert_int_equal(engine_cycle(&e, 1000000 + 100000 * (uint64_t)k, NULL), 0);
		assert_int_equal(tree_get(RAPL "/constraint_0_power_limit_uw"), 28000000);
	}
	tree_put_u64("/sys/class/thermal/thermal_zone1/temp", 95000);
	for (int k = 5; k < 15; k++) {
		energy += 3000000;
		tree_put_u64(RAPL "/energy_uj", energy);
		assert_int_equal(engine_cycle(&e, 1000000 + 100000 * (uint64_t)k, NULL), 0);
	}
	assert_true(e.zones[0].control.active);
	assert_int_equal(tree_get(RAPL "/constraint_0_power_limit_uw"), 4500000);
	/* PL1 is trusted: fed forward from the first active period, not a tenth of the maximum. */
	assert_int_equal(e.zones[0].control.pid_run.sustainable_power_mw, 28000);
	assert_int_equal(zone_feed_forward_mw(&e.zones[0]), 28000);
	assert_string_equal(zone_sp_in_use_source_name(&e.zones[0]), "rapl");
	assert_int_equal(engine_restore(&e), 0);
	assert_int_equal(tree_get(RAPL "/constraint_0_power_limit_uw"), 28000000);
	engine_free(&e);
	pa_config_free(cfg);
}

/*
 * Hot package drawing 30 W: the RAPL limit drops below its original 28 W and
 * every policy's scaling_max_freq below 4.7 GHz; restore puts both back.
 */
static void test_rapl_and_cap_limit_and_restore(void **unused)
{
	struct pa_config *cfg = tree_config(package_zone);
	unsigned long long energy = 1000000000ULL;
	struct engine e;
	char path[128];

	(void)unused;
	assert_int_equal(engine_build(&e, cfg), 1);
	assert_int_equal(e.n_actors, 2);
	assert_string_equal(e.actors[0]->name, "intel-rapl:0");
	assert_string_equal(e.actors[1]->name, "cpufreq-cap-0-7");
	assert_int_equal(e.actors[0]->max_mw, 45000);
	tree_put_u64("/sys/class/thermal/thermal_zone1/temp", 95000);
	tree_busy_cpus(8, 0);
	engine_cycle(&e, 1000000, NULL);
	for (int k = 1; k <= 5; k++) {
		energy += 3000000;	/* 3 J per 100 ms: 30 W */
		tree_put_u64(RAPL "/energy_uj", energy);
		tree_busy_cpus(8, 100U * (unsigned int)k);
		assert_int_equal(engine_cycle(&e, 1000000 + 100000 * (uint64_t)k, NULL), 0);
	}
	assert_int_equal(e.actors[0]->req_mw, 30000);
	assert_int_equal(e.actors[1]->load_pct, 800);
	/* Its 8 policies' CPUs, each busy all the period, are all saturated. */
	assert_int_equal(e.actors[1]->saturated, 8);
	assert_true(e.zones[0].control.active);
	print_message("budget %u mW: RAPL %llu uW, cap %llu kHz\n", e.zones[0].control.budget_mw,
		      tree_get(RAPL "/constraint_0_power_limit_uw"),
		      tree_get("/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq"));
	/* 5 °C above control for half a second: the budget is gone, the limit is at
	 * its floor, a tenth of the 45 W maximum, and the cap at the lowest step. */
	assert_int_equal(e.zones[0].control.budget_mw, 0);
	assert_int_equal(tree_get(RAPL "/constraint_0_power_limit_uw"), 4500000);
	assert_int_equal(tree_get("/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq"), 800000);
	for (int c = 0; c < 8; c++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpufreq/policy%d/scaling_max_freq", c);
		assert_true(tree_get(path) < 4700000);
		assert_int_equal(tree_get(path), tree_get("/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq"));
	}
	assert_int_equal(engine_restore(&e), 0);
	assert_int_equal(tree_get(RAPL "/constraint_0_power_limit_uw"), 28000000);
	for (int c = 0; c < 8; c++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpufreq/policy%d/scaling_max_freq", c);
		assert_int_equal(tree_get(path), 4700000);
	}
	engine_free(&e);
	pa_config_free(cfg);
}

/*
 * energy_uj wraps at max_energy_range_uj: the power across the wrap is still
 * right.  Just above control, the grant lands between floor and maximum and
 * is written as it is.
 */
static void test_energy_wrap(void **unused)
{
	struct pa_config *cfg = tree_config(package_zone);
	const unsigned long long range = 262143328850ULL;
	struct engine e;

	(void)unused;
	assert_int_equal(engine_build(&e, cfg), 1);
	assert_int_equal(e.actors[0]->min_mw, 4500);
	tree_put_u64(RAPL "/energy_uj", range - 1000000);
	/* Below switch-on first, whatever the tests before left there: no integral
	 * yet (and within the 40 °C a reading may move in a period: not a spike). */
	tree_put_u64("/sys/class/thermal/thermal_zone1/temp", 60000);
	engine_cycle(&e, 1000000, NULL);
	tree_put_u64(RAPL "/energy_uj", 1500000);	/* 2.5 J later, across the wrap */
	tree_put_u64("/sys/class/thermal/thermal_zone1/temp", 90200);
	tree_busy_cpus(8, 100);
	engine_cycle(&e, 1100000, NULL);
	assert_int_equal(e.actors[0]->req_mw, 25000);
	assert_true(e.zones[0].control.budget_mw > 10000 && e.zones[0].control.budget_mw < 20000);
	assert_true(e.actors[0]->granted_mw > 4500 && e.actors[0]->granted_mw < 28000);
	assert_int_equal(tree_get(RAPL "/constraint_0_power_limit_uw"),
			 (unsigned long long)e.actors[0]->granted_mw * 1000);
	engine_free(&e);
	pa_config_free(cfg);
}

/* Two caps on the package zone, as on a machine with acpi-cpufreq and no RAPL. */
static const char two_caps[] =
	"zones = ( { name = \"package\"; sensor = \"x86_pkg_temp\";\n"
	"  switch_on_temp = 80000; control_temp = 90000; sustainable_power = 15000;\n"
	"  actors = ( { type = \"cpufreq_cap\"; cpus = \"0-3\";\n"
	"               opps = ( { freq_khz = 800000; power_mw = 400; },\n"
	"                        { freq_khz = 2400000; power_mw = 1700; },\n"
	"                        { freq_khz = 4700000; power_mw = 5200; } ); },\n"
	"             { type = \"cpufreq_cap\"; cpus = \"4-7\";\n"
	"               opps = ( { freq_khz = 800000; power_mw = 400; },\n"
	"                        { freq_khz = 2400000; power_mw = 1700; },\n"
	"                        { freq_khz = 4700000; power_mw = 5200; } ); } ); } );\n";

#define POLICY_MAX(c) "/sys/devices/system/cpu/cpufreq/policy" #c "/scaling_max_freq"

/*
 * Issue 31, 5: a package 5 °C over control whose budget is 0 mW, with CPUs
 * that are idle (0 % load: only idle ticks grow) in every other period and
 * 10 % busy in the others.  Every period keeps both caps at the lowest step,
 * 800 MHz: an idle period granted every actor its maximum (4.7 GHz) before,
 * so scaling_max_freq flipped each period.  Once the package is cool the
 * caps are lifted, idle or not.
 */
static void test_idle_cpus_in_a_hot_zone_stay_capped(void **unused)
{
	struct pa_config *cfg = tree_config(two_caps);
	unsigned int busy = 0, idle = 0, lifted = 0;
	uint64_t now_us = 1000000;
	struct engine e;
	char path[128];

	(void)unused;
	/* The policies' own limit, whatever the tests before left there. */
	for (int c = 0; c < 8; c++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpufreq/policy%d/scaling_max_freq", c);
		tree_put_u64(path, 4700000);
	}
	assert_int_equal(engine_build(&e, cfg), 1);
	assert_int_equal(e.n_actors, 2);
	tree_put_u64("/sys/class/thermal/thermal_zone1/temp", 95000);
	for (int k = 0; k < 60; k++, now_us += 100000) {
		/* 10 ticks a period per CPU: 1 of them busy in odd periods, none in even. */
		busy += k % 2;
		idle += 10 - k % 2;
		tree_stat_cpus(8, busy, idle);
		assert_int_equal(engine_cycle(&e, now_us, NULL), 0);
		if (k < 5)
			continue;	/* the budget falls to 0 within a few periods */
		assert_true(e.zones[0].control.active);
		assert_int_equal(e.zones[0].control.budget_mw, 0);
		assert_int_equal(e.actors[0]->load_pct, k % 2 ? 40 : 0);
		lifted += tree_get(POLICY_MAX(0)) != 800000;
		lifted += tree_get(POLICY_MAX(4)) != 800000;
		lifted += tree_get(POLICY_MAX(7)) != 800000;
	}
	assert_int_equal(lifted, 0);
	/* Cool and idle: the caps go back to the policies' own limit. */
	tree_put_u64("/sys/class/thermal/thermal_zone1/temp", 60000);
	idle += 10;
	tree_stat_cpus(8, busy, idle);
	assert_int_equal(engine_cycle(&e, now_us, NULL), 0);
	assert_int_equal(tree_get(POLICY_MAX(0)), 4700000);
	assert_int_equal(tree_get(POLICY_MAX(7)), 4700000);
	assert_int_equal(engine_restore(&e), 0);
	engine_free(&e);
	pa_config_free(cfg);
}

/* CPUs that are not whole policies are refused with the reason. */
static void test_cap_needs_whole_policies(void **unused)
{
	struct pa_config *cfg = tree_config(
		"zones = ( { name = \"p\"; sensor = \"x86_pkg_temp\"; switch_on_temp = 80000;\n"
		"  control_temp = 90000; actors = ( { type = \"cpufreq_cap\"; cpus = \"0-9\";\n"
		"  opps = ( { freq_khz = 800000; power_mw = 400; } ); } ); } );\n");
	struct engine e;

	(void)unused;
	assert_int_equal(engine_build(&e, cfg), 0);
	engine_free(&e);
	pa_config_free(cfg);
}

/*
 * OPPs outside the policies' 0.4-4.7 GHz are left out of the power model:
 * the maximum and minimum powers are those of 4.7 and 0.8 GHz on 8 CPUs,
 * and the steps are the two OPPs the CPUs can run at.
 */
static void test_cap_table_within_limits(void **unused)
{
	struct pa_config *cfg = tree_config(
		"zones = ( { name = \"p\"; sensor = \"x86_pkg_temp\"; switch_on_temp = 80000;\n"
		"  control_temp = 90000; actors = ( { type = \"cpufreq_cap\"; cpus = \"0-7\";\n"
		"  opps = ( { freq_khz = 300000; power_mw = 100; },\n"
		"           { freq_khz = 800000; power_mw = 400; },\n"
		"           { freq_khz = 4700000; power_mw = 5200; },\n"
		"           { freq_khz = 5000000; power_mw = 6000; } ); } ); } );\n");
	struct engine e;

	(void)unused;
	assert_int_equal(engine_build(&e, cfg), 1);
	assert_string_equal(e.actors[0]->name, "cpufreq-cap-0-7");
	assert_int_equal(e.actors[0]->table.n, 2);
	assert_int_equal(e.actors[0]->table.entry[0].freq_khz, 800000);
	assert_int_equal(e.actors[0]->table.entry[1].freq_khz, 4700000);
	assert_int_equal(e.actors[0]->max_state, 1);
	assert_int_equal(e.actors[0]->max_mw, 8 * 5200);
	assert_int_equal(e.actors[0]->min_mw, 8 * 400);
	engine_free(&e);
	pa_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_automatic_package_zone),
		cmocka_unit_test(test_rapl_and_cap_limit_and_restore),
		cmocka_unit_test(test_energy_wrap),
		cmocka_unit_test(test_idle_cpus_in_a_hot_zone_stay_capped),
		cmocka_unit_test(test_cap_needs_whole_policies),
		cmocka_unit_test(test_cap_table_within_limits),
	};

	if (tree_main_guard())
		return 1;
	pa_log_set_level(PA_LOG_DEBUG);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
