/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Power meters on the rk3399-meters tree (suite integration): an INA3221
 * rail monitor and SCMI energy and power sensors, meters named by hwmon
 * name and label and by path, read once each active period; a meter that
 * does not exist said with what does; each fault dropping the meter with
 * one warning (one value is stopped only once the cluster's model moved).
 * RAPL's meters are test_meters_rapl.c's.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "config/config.h"
#include "engine/engine.h"
#include "platform/log.h"
#include "platform/sysfs.h"
#include "tree.h"

#define INA "/sys/class/hwmon/hwmon0"
#define SCMI "/sys/class/hwmon/hwmon1"
#define CPU_TEMP "/sys/class/thermal/thermal_zone0/temp"
#define BIG_CUR_FREQ "/sys/devices/system/cpu/cpufreq/policy4/scaling_cur_freq"
#define PERIOD_US 100000ULL

/* The RK3399's CPU zone, each cluster and the GPU metered, and the board's SoC power. */
static const char metered[] =
	"zones = ( { name = \"soc\"; sensor = \"cpu-thermal\";\n"
	"  switch_on_temp = 60000; control_temp = 75000; sustainable_power = 2500;\n"
	"  power_meter = { hwmon = \"scmi_sensors\"; label = \"SOC_POWER\"; };\n"
	"  actors = ( { type = \"cpufreq\"; cpus = \"0-3\";\n"
	"               power_meter = { hwmon = \"ina3221\"; label = \"VDD_CPU_L\"; }; },\n"
	"             { type = \"cpufreq\"; cpus = \"4-5\";\n"
	"               power_meter = { hwmon = \"ina3221\"; label = \"%s\"; }; },\n"
	"             { type = \"devfreq\"; device = \"ff9a0000.gpu\";\n"
	"               power_meter = \"%s\"; } ); } );\n";

static struct pa_config *metered_config(const char *big_label, const char *gpu_path)
{
	char text[sizeof(metered) + 256];

	snprintf(text, sizeof(text), metered, big_label, gpu_path);
	return tree_config(text);
}

static unsigned int busy_ticks;

/* A period of busy CPUs: the clusters draw power by their tables. */
static void busy_period(void)
{
	busy_ticks += 100;
	tree_stat_cpus(6, busy_ticks, 0);
}

static void put_defaults(void)
{
	tree_put_u64(INA "/in1_input", 900);
	tree_put_u64(INA "/curr1_input", 1500);
	tree_put_u64(SCMI "/energy2_input", 2000000000ULL);
	tree_put_u64(SCMI "/power1_input", 3200000);
	tree_put(BIG_CUR_FREQ, "1800000\n");
}

static int setup(void **unused)
{
	(void)unused;
	tree_log_clear();
	put_defaults();
	return 0;
}

/*
 * By label: the INA3221's channels are volts times amps (850 mV x 400 mA =
 * 340 mW; 900 mV x 1500 mA = 1350 mW); SCMI's SOC_POWER is 3.2 W for the
 * zone; by path, the GPU's energy counter gives 100 000 µJ in 100 ms = 1000
 * mW from its second reading.  A zone below switch-on reads none.
 */
static void test_by_label_and_path(void **unused)
{
	struct pa_config *cfg;
	struct actor *little, *big, *gpu;
	struct engine e;

	(void)unused;
	cfg = metered_config("VDD_CPU_B", SCMI "/energy2_input");
	assert_int_equal(engine_build(&e, cfg), 1);
	assert_int_equal(e.n_bad_meters, 0);
	little = tree_actor_named(&e, "cpufreq-cpu0");
	big = tree_actor_named(&e, "cpufreq-cpu4");
	gpu = tree_actor_named(&e, "devfreq-ff9a0000.gpu");
	assert_int_equal(big->meter->unit, METER_VOLT_AMP);
	assert_int_equal(gpu->meter->unit, METER_ENERGY_UJ);
	/* The INA3221's update_interval is its samples' period; an energy counter has none. */
	assert_int_equal(big->meter->sample_ms, 100);
	assert_int_equal(gpu->meter->sample_ms, 0);
	assert_true(big->calibrating && gpu->calibrating && little->calibrating);
	assert_int_equal(big->power_scale.delay_us, 100000);
	/* Named across boots without the hwmonN its path has. */
	assert_int_equal(big->meter->id_len, strlen("hwmon \"ina3221\" label \"VDD_CPU_B\""));
	tree_put(CPU_TEMP, "70000\n");
	busy_period();
	assert_int_equal(engine_cycle(&e, 1 * PERIOD_US, NULL), 0);
	assert_true(e.zones[0].control.active);
	assert_true(little->measured_valid && big->measured_valid && e.zones[0].period.measured_valid);
	assert_int_equal(little->measured_mw, 340);
	assert_int_equal(big->measured_mw, 1350);
	assert_int_equal(e.zones[0].period.measured_mw, 3200);
	assert_false(gpu->measured_valid);	/* an energy counter's first value */
	tree_put_u64(SCMI "/energy2_input", 2000100000ULL);
	busy_period();
	assert_int_equal(engine_cycle(&e, 2 * PERIOD_US, NULL), 0);
	assert_true(gpu->measured_valid);
	assert_int_equal(gpu->measured_mw, 1000);
	/* Below switch-on: not read, no reading this period. */
	tree_put(CPU_TEMP, "40000\n");
	tree_put_u64(SCMI "/power1_input", 5000000);
	assert_int_equal(engine_cycle(&e, 3 * PERIOD_US, NULL), 0);
	assert_false(e.zones[0].control.active);
	assert_false(little->measured_valid || big->measured_valid || e.zones[0].period.measured_valid);
	assert_int_equal(tree_log_count("dropped until a reload"), 0);
	engine_free(&e);
	pa_config_free(cfg);
}

/*
 * A label one letter off: said with the nearest and every device's labels,
 * counted, and the actor runs from its table (the zone is still built).
 * A hwmon name nothing has, and a path that does not exist, likewise.
 */
static void test_missing_meters(void **unused)
{
	struct pa_config *cfg;
	struct engine e;

	(void)unused;
	cfg = metered_config("VDD_CPU_BB", SCMI "/energy9_input");
	assert_int_equal(engine_build(&e, cfg), 1);
	assert_int_equal(e.n_bad_meters, 2);
	assert_null(tree_actor_named(&e, "cpufreq-cpu4")->meter);
	assert_null(tree_actor_named(&e, "devfreq-ff9a0000.gpu")->meter);
	assert_int_equal(tree_log_count("hwmon \"ina3221\" has no channel labelled \"VDD_CPU_BB\" "
					"(did you mean \"VDD_CPU_B\"?)"), 1);
	assert_int_equal(tree_log_count("hwmon devices: ina3221 (hwmon0): VDD_CPU_B, VDD_CPU_L, "
					"VDD_GPU; scmi_sensors (hwmon1): SOC_POWER, BIG_CPU_ENERGY, "
					"GPU_ENERGY; going on"), 2);
	assert_int_equal(tree_log_count(SCMI "/energy9_input\": No such file or directory"), 1);
	assert_int_equal(tree_log_count("going on from the power table"), 2);
	engine_free(&e);
	pa_config_free(cfg);
	cfg = tree_config("zones = ( { name = \"soc\"; sensor = \"cpu-thermal\";\n"
			  "  power_meter = { hwmon = \"ina3222\"; label = \"VDD_CPU_B\"; };\n"
			  "  actors = ( { type = \"cpufreq\"; cpus = \"4-5\"; } ); } );\n");
	tree_log_clear();
	assert_int_equal(engine_build(&e, cfg), 1);
	assert_int_equal(e.n_bad_meters, 1);
	assert_null(e.zones[0].setup.meter);
	assert_int_equal(tree_log_count("no hwmon device is named \"ina3222\"; hwmon devices: "
					"ina3221 (hwmon0): VDD_CPU_B"), 1);
	engine_free(&e);
	pa_config_free(cfg);
}

/* Runs @n hot, busy periods from *@t_us. */
static void run_hot(struct engine *e, int n, uint64_t *t_us)
{
	tree_put(CPU_TEMP, "70000\n");
	for (int k = 0; k < n; k++) {
		busy_period();
		*t_us += PERIOD_US;
		engine_cycle(e, *t_us, NULL);
	}
}

/*
 * The big cluster's meter faults: dropped at once with one warning naming
 * the actor, the meter, the fault and what it goes on from; never read
 * again (20 more periods say nothing more), and the others still read.
 * The fault is kept for the status (meter_dropped).
 */
static void check_dropped(struct engine *e, uint64_t *t_us, const char *fault)
{
	struct actor *big = tree_actor_named(e, "cpufreq-cpu4");
	const char *name = meter_fault_name(big->meter_dropped);
	char words[256];

	assert_int_not_equal(big->meter_dropped, METER_OK);
	assert_int_equal(strncmp(fault, name, strlen(name)), 0);
	assert_int_equal(tree_actor_named(e, "cpufreq-cpu0")->meter_dropped, METER_OK);

	snprintf(words, sizeof(words), "cpufreq-cpu4: power meter hwmon \"ina3221\" label "
		 "\"VDD_CPU_B\" (" INA "/in1_input) %s", fault);
	assert_null(big->meter);
	assert_false(big->measured_valid);
	assert_int_equal(tree_log_count(words), 1);
	assert_int_equal(tree_log_count("dropped until a reload, going on from the power table"), 1);
	run_hot(e, 20, t_us);
	assert_int_equal(tree_log_count("dropped until a reload"), 1);
	assert_null(big->meter);
	assert_true(tree_actor_named(e, "cpufreq-cpu0")->measured_valid);
}

/* Builds the metered zone, runs a hot period, breaks the big meter with @breaks, runs one more. */
static void fault_case(void (*breaks)(void), const char *fault)
{
	struct pa_config *cfg = metered_config("VDD_CPU_B", SCMI "/energy2_input");
	uint64_t t_us = 0;
	struct engine e;

	assert_int_equal(engine_build(&e, cfg), 1);
	run_hot(&e, 1, &t_us);
	assert_true(tree_actor_named(&e, "cpufreq-cpu4")->measured_valid);
	breaks();
	run_hot(&e, 1, &t_us);
	check_dropped(&e, &t_us, fault);
	tree_fail_reads(NULL, 0);
	engine_free(&e);
	pa_config_free(cfg);
}

static void gone(void)
{
	static char moved[SYSFS_PATH_MAX];

	snprintf(moved, sizeof(moved), "%s.gone", tree_real_path(INA "/in1_input"));
	assert_int_equal(rename(tree_real_path(INA "/in1_input"), moved), 0);
	tree_fail_reads(INA "/in1_input", -ENODEV);
}

static void eio(void)
{
	tree_fail_reads(INA "/curr1_input", -EIO);
}

static void huge(void)
{
	tree_put_u64(INA "/curr1_input", 100000);	/* 90 W on a 2-CPU cluster's rail */
}

static void negative(void)
{
	tree_put(INA "/curr1_input", "-20\n");
}

static void test_vanished(void **unused)
{
	char moved[SYSFS_PATH_MAX];

	(void)unused;
	fault_case(gone, "vanished (No such device)");
	snprintf(moved, sizeof(moved), "%s.gone", tree_real_path(INA "/in1_input"));
	assert_int_equal(rename(moved, tree_real_path(INA "/in1_input")), 0);
}

static void test_unreadable(void **unused)
{
	(void)unused;
	fault_case(eio, "unreadable (Input/output error)");
}

static void test_jump(void **unused)
{
	(void)unused;
	fault_case(huge, "jumped");
	tree_log_clear();
	put_defaults();
	fault_case(negative, "jumped");
}

/* A hot, busy period in which every meter but the big cluster's moves. */
static void run_others_moving(struct engine *e, int k, uint64_t *t_us)
{
	tree_put_u64(INA "/curr2_input", 400 + (unsigned int)k % 2);
	tree_put_u64(SCMI "/power1_input", 3200000 + (unsigned int)k % 2);
	tree_put_u64(SCMI "/energy2_input", 2000000000ULL + 100000ULL * (unsigned int)k);
	run_hot(e, 1, t_us);
}

/*
 * The big cluster's meter holds one exact power.  Under a steady model (the
 * cluster busy at its top OPP, under control, never throttled) that is a
 * steady power: kept and read for 10 s (100 reads); before, it was dropped
 * as stopped at the 30th repeat.  Then its model moves: the frequency falls
 * from 1800 to 1416 MHz (as the kernel would put it under a deeper state),
 * 2 x 648 mW from over 2 x 1000 by its table: stopped 3 s of reads
 * (METER_STOP_US: the INA3221 samples every 100 ms) after the model's mean
 * (over a second) is 25 % away, so not at the 30th read since and by the
 * 45th; the meters that move go on.
 */
static void test_stopped(void **unused)
{
	struct pa_config *cfg;
	struct actor *big;
	uint64_t t_us = 0;
	struct engine e;
	int k;

	(void)unused;
	cfg = metered_config("VDD_CPU_B", SCMI "/energy2_input");
	assert_int_equal(engine_build(&e, cfg), 1);
	big = tree_actor_named(&e, "cpufreq-cpu4");
	for (k = 0; k < 100; k++) {
		run_others_moving(&e, k, &t_us);
		assert_true(big->measured_valid);
		assert_int_equal(big->measured_mw, 1350);
	}
	tree_put(BIG_CUR_FREQ, "1416000\n");
	for (int n = 1; n <= (int)(METER_STOP_US / PERIOD_US); n++)
		run_others_moving(&e, k++, &t_us);
	assert_int_equal(big->model_mw, 2 * 648);
	assert_non_null(big->meter);
	assert_int_equal(tree_log_count("dropped until a reload"), 0);
	for (int n = 0; n < 15 && big->meter; n++)
		run_others_moving(&e, k++, &t_us);
	assert_int_equal(tree_log_count("\"VDD_CPU_B\" (" INA "/in1_input) stopped; dropped "
					"until a reload, going on from the power table"), 1);
	assert_null(big->meter);
	for (int n = 0; n < 20; n++)
		run_others_moving(&e, k++, &t_us);
	assert_int_equal(tree_log_count("dropped until a reload"), 1);
	assert_true(tree_actor_named(&e, "devfreq-ff9a0000.gpu")->measured_valid);
	assert_true(e.zones[0].period.measured_valid);
	engine_free(&e);
	pa_config_free(cfg);
}

/* A hwmon energy counter (no range: it never wraps) that goes back is dropped. */
static void test_backwards(void **unused)
{
	struct pa_config *cfg;
	struct actor *gpu;
	uint64_t t_us = 0;
	struct engine e;

	(void)unused;
	cfg = metered_config("VDD_CPU_B", SCMI "/energy2_input");
	assert_int_equal(engine_build(&e, cfg), 1);
	gpu = tree_actor_named(&e, "devfreq-ff9a0000.gpu");
	run_hot(&e, 1, &t_us);
	tree_put_u64(SCMI "/energy2_input", 1999000000ULL);
	run_hot(&e, 1, &t_us);
	assert_null(gpu->meter);
	assert_int_equal(tree_log_count("devfreq-ff9a0000.gpu: power meter " SCMI "/energy2_input "
					"went backwards; dropped until a reload, going on from "
					"the power table"), 1);
	run_hot(&e, 20, &t_us);
	assert_int_equal(tree_log_count("dropped until a reload"), 1);
	engine_free(&e);
	pa_config_free(cfg);
}

/* The board's meter says 100 W, more than ten times its actors' most together: dropped. */
static void test_zone_meter_jump(void **unused)
{
	struct pa_config *cfg;
	uint64_t t_us = 0;
	struct engine e;

	(void)unused;
	cfg = metered_config("VDD_CPU_B", SCMI "/energy2_input");
	assert_int_equal(engine_build(&e, cfg), 1);
	run_hot(&e, 1, &t_us);
	assert_true(e.zones[0].period.measured_valid);
	tree_put_u64(SCMI "/power1_input", 100000000);
	run_hot(&e, 1, &t_us);
	assert_null(e.zones[0].setup.meter);
	assert_false(e.zones[0].period.measured_valid);
	assert_int_equal(tree_log_count("zone soc: power meter hwmon \"scmi_sensors\" label "
					"\"SOC_POWER\" (" SCMI "/power1_input) jumped; dropped until "
					"a reload, going on from the power table"), 1);
	run_hot(&e, 20, &t_us);
	assert_int_equal(tree_log_count("dropped until a reload"), 1);
	assert_true(tree_actor_named(&e, "cpufreq-cpu4")->measured_valid);
	engine_free(&e);
	pa_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_by_label_and_path, setup),
		cmocka_unit_test_setup(test_missing_meters, setup),
		cmocka_unit_test_setup(test_vanished, setup),
		cmocka_unit_test_setup(test_unreadable, setup),
		cmocka_unit_test_setup(test_jump, setup),
		cmocka_unit_test_setup(test_stopped, setup),
		cmocka_unit_test_setup(test_backwards, setup),
		cmocka_unit_test_setup(test_zone_meter_jump, setup),
	};

	if (tree_main_guard())
		return 1;
	tree_log_capture();
	pa_log_set_level(PA_LOG_NOTICE);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
