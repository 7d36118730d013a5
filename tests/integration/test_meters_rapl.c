/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RAPL's energy counters as power meters on the x86-laptop tree (suite
 * integration): the powercap actor's own energy_uj without configuration,
 * and the core's energy_uj by path, whose wrap at max_energy_range_uj is
 * counted through and whose unexpected step back is a fault; a zone's meter
 * over a powercap actor judged by what the actor's counter says it draws;
 * a counter that fails its reads said once.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "config/config.h"
#include "engine/engine.h"
#include "platform/log.h"
#include "tree.h"

#define PERIOD_US 100000ULL
#define RAPL "/sys/class/powercap/intel-rapl:0"
#define RAPL_CORE "/sys/class/powercap/intel-rapl:0:0"
#define RAPL_RANGE 262143328850ULL

/* A powercap actor is metered by its own energy_uj, unasked: 3 J in 100 ms is 30 W. */
static void test_powercap_implicit(void **unused)
{
	struct pa_config *cfg;
	struct actor *a;
	struct engine e;

	(void)unused;
	cfg = pa_config_new_default();
	tree_put_u64(RAPL "/energy_uj", 1000000000ULL);
	assert_int_equal(engine_build(&e, cfg), 1);
	a = tree_actor_named(&e, "intel-rapl:0");
	assert_non_null(a->meter);
	assert_int_equal(a->meter->unit, METER_ENERGY_UJ);
	assert_int_equal(a->meter->track.range_uj, RAPL_RANGE);
	tree_put("/sys/class/thermal/thermal_zone1/temp", "95000\n");
	tree_put_u64(RAPL "/energy_uj", 1001000000ULL);
	assert_int_equal(engine_cycle(&e, 1000000, NULL), 0);
	tree_put_u64(RAPL "/energy_uj", 1004000000ULL);
	assert_int_equal(engine_cycle(&e, 1100000, NULL), 0);
	assert_true(a->measured_valid);
	assert_int_equal(a->measured_mw, 30000);
	assert_int_equal(a->req_mw, 28000);	/* the request stays within its limit */
	engine_free(&e);
	pa_config_free(cfg);
}

static const char core_metered[] =
	"zones = ( { name = \"package\"; sensor = \"x86_pkg_temp\";\n"
	"  switch_on_temp = 80000; control_temp = 90000; sustainable_power = 15000;\n"
	"  actors = ( { type = \"cpufreq_cap\"; cpus = \"0-7\";\n"
	"               power_meter = \"" RAPL_CORE "/energy_uj\";\n"
	"               opps = ( { freq_khz = 800000; power_mw = 400; },\n"
	"                        { freq_khz = 4700000; power_mw = 5200; } ); } ); } );\n";

/*
 * RAPL's core counter by path: through its wrap at max_energy_range_uj
 * (0.5 J before it, 1 J after, in 100 ms: 15 W), then back by 0.1 J far
 * from the wrap: an unexpected wrap, dropped.
 */
static void test_rapl_core_wrap(void **unused)
{
	struct pa_config *cfg;
	struct actor *a;
	struct engine e;

	(void)unused;
	cfg = tree_config(core_metered);
	assert_int_equal(engine_build(&e, cfg), 1);
	a = e.zones[0].setup.actors[0];
	assert_int_equal(a->meter->track.range_uj, RAPL_RANGE);
	tree_put("/sys/class/thermal/thermal_zone1/temp", "95000\n");
	tree_busy_cpus(8, 100);
	tree_put_u64(RAPL_CORE "/energy_uj", RAPL_RANGE - 500000);
	assert_int_equal(engine_cycle(&e, 1000000, NULL), 0);
	tree_put_u64(RAPL_CORE "/energy_uj", 1000000);
	tree_busy_cpus(8, 200);
	assert_int_equal(engine_cycle(&e, 1100000, NULL), 0);
	assert_true(a->measured_valid);
	assert_int_equal(a->measured_mw, 15000);
	tree_put_u64(RAPL_CORE "/energy_uj", 900000);
	tree_busy_cpus(8, 300);
	assert_int_equal(engine_cycle(&e, 1200000, NULL), 0);
	assert_null(a->meter);
	assert_int_equal(tree_log_count(RAPL_CORE "/energy_uj went backwards; dropped until a "
					"reload, going on from the power table"), 1);
	engine_free(&e);
	pa_config_free(cfg);
}

static const char package_metered[] =
	"zones = ( { name = \"package\"; sensor = \"x86_pkg_temp\";\n"
	"  switch_on_temp = 80000; control_temp = 90000; sustainable_power = 15000;\n"
	"  power_meter = \"" RAPL_CORE "/energy_uj\";\n"
	"  actors = ( { type = \"powercap\"; zone = \"intel-rapl:0\"; } ); } );\n";

/*
 * A zone's meter over a powercap actor, which has no table: what the
 * actor's own energy counter says it draws is the model it is judged by.
 * The package draws 10 W by RAPL's package counter; the zone's meter (the
 * core counter) does not count: stopped 3 s on.  Before, the actor counted
 * as drawing nothing and the meter was never judged.
 */
static void test_zone_meter_over_powercap_stopped(void **unused)
{
	struct pa_config *cfg;
	uint64_t t_us = 1000000;
	struct engine e;
	int k;

	(void)unused;
	cfg = tree_config(package_metered);
	assert_int_equal(engine_build(&e, cfg), 1);
	assert_non_null(e.zones[0].setup.meter);
	tree_put("/sys/class/thermal/thermal_zone1/temp", "95000\n");
	tree_put_u64(RAPL_CORE "/energy_uj", 5000000);
	for (k = 0; k < 60 && e.zones[0].setup.meter; k++, t_us += PERIOD_US) {
		tree_busy_cpus(8, 100 * (unsigned int)(k + 1));
		tree_put_u64(RAPL "/energy_uj", 1000000000ULL + 1000000ULL * (unsigned int)k);
		assert_int_equal(engine_cycle(&e, t_us, NULL), 0);
	}
	assert_null(e.zones[0].setup.meter);
	assert_in_range(k, 30, 40);
	assert_int_equal(tree_log_count("zone package: power meter " RAPL_CORE "/energy_uj stopped; "
					"dropped until a reload"), 1);
	engine_free(&e);
	pa_config_free(cfg);
}

/*
 * RAPL's energy_uj failing its reads: said once however long it lasts; the
 * actor keeps its meter (its request has nothing else to go on) and
 * measures again once it reads.
 */
static void test_powercap_fault_said_once(void **unused)
{
	struct pa_config *cfg;
	unsigned long long energy = 1000000000ULL;
	uint64_t t_us = 1000000;
	struct actor *a;
	struct engine e;

	(void)unused;
	cfg = pa_config_new_default();
	tree_put_u64(RAPL "/energy_uj", energy);
	assert_int_equal(engine_build(&e, cfg), 1);
	a = tree_actor_named(&e, "intel-rapl:0");
	tree_put("/sys/class/thermal/thermal_zone1/temp", "95000\n");
	tree_fail_reads(RAPL "/energy_uj", -EIO);
	for (int k = 0; k < 10; k++, t_us += PERIOD_US)
		engine_cycle(&e, t_us, NULL);
	tree_fail_reads(NULL, 0);
	assert_int_equal(tree_log_count("intel-rapl:0: power meter " RAPL "/energy_uj unreadable "
					"(Input/output error); its request starts again from the "
					"next reading"), 1);
	assert_non_null(a->meter);
	assert_false(a->measured_valid);
	for (int k = 0; k < 2; k++, t_us += PERIOD_US) {
		tree_put_u64(RAPL "/energy_uj", energy += 2000000);	/* 20 W */
		assert_int_equal(engine_cycle(&e, t_us, NULL), 0);
	}
	assert_true(a->measured_valid);
	assert_int_equal(a->measured_mw, 20000);
	assert_int_equal(tree_log_count("energy_uj"), 1);
	engine_free(&e);
	pa_config_free(cfg);
}

/* The firmware's long-term limit, whatever a test before wrote. */
static int setup(void **unused)
{
	(void)unused;
	tree_log_clear();
	tree_put_u64(RAPL "/constraint_0_power_limit_uw", 28000000);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_powercap_fault_said_once, setup),
		cmocka_unit_test_setup(test_powercap_implicit, setup),
		cmocka_unit_test_setup(test_rapl_core_wrap, setup),
		cmocka_unit_test_setup(test_zone_meter_over_powercap_stopped, setup),
	};

	if (tree_main_guard())
		return 1;
	tree_log_capture();
	pa_log_set_level(PA_LOG_NOTICE);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
