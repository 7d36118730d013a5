/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Malformed sysfs values on the fixture trees (suite integration): each
 * gives exactly one logged message naming the file, and the rest of the zone
 * keeps working or the zone is left out with the reason.  Every test puts
 * the tree back as it found it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "config/config.h"
#include "platform/cpufreq_policy.h"
#include "engine/engine.h"
#include "engine/zone.h"
#include "platform/log.h"
#include "platform/opp_source.h"
#include "platform/sysfs.h"
#include "platform/thermal.h"
#include "tree.h"

/* How many messages name @file. */
static size_t naming(const char *file)
{
	return tree_log_count(file);
}

static bool logged(const char *words)
{
	return naming(words) > 0;
}

static bool on(const char *tree)
{
	return strcmp(getenv("FIXTURE"), tree) == 0;
}

static int reset_log(void **unused)
{
	(void)unused;
	tree_log_clear();
	return 0;
}

static int build_auto(struct engine *e)
{
	struct pa_config *cfg = pa_config_new_default();
	int n;

	assert_non_null(cfg);
	n = engine_build(e, cfg);
	pa_config_free(cfg);
	return n;
}

/*
 * An unreadable cur_state: the device is left out, and so is the zone that
 * needs it (gpu-thermal, one passive trip and no sustainable_power, is not
 * taken either).
 */
static void check_bad_cur_state(const char *value, const char *words)
{
	const char *file = "/sys/class/thermal/cooling_device0/cur_state";
	struct thermal_inventory inv;
	struct engine e;

	tree_put(file, value);
	assert_int_equal(thermal_scan(&inv), 0);
	assert_int_equal(inv.n_cdevs, 3);
	assert_null(thermal_find_cdev(&inv, 0));
	thermal_inventory_free(&inv);
	assert_int_equal(naming(file), 1);
	assert_true(logged(words));
	assert_true(logged("cooling device ignored"));
	tree_log_clear();
	assert_int_equal(build_auto(&e), 0);
	assert_true(logged("cooling_device0 on its control trip is not a usable power actor"));
	engine_free(&e);
	tree_put(file, "0\n");
}

static void test_empty_cur_state(void **unused)
{
	(void)unused;
	check_bad_cur_state("", "not a number");
}

static void test_negative_state(void **unused)
{
	(void)unused;
	check_bad_cur_state("-1\n", "-1 is outside [0, 5]");
}

static void test_state_above_max(void **unused)
{
	(void)unused;
	check_bad_cur_state("9\n", "9 is outside [0, 5]");
}

/*
 * "abc" as a temperature: logged once over many periods; the limits are held
 * for ZONE_FAULT_PERIODS periods, then the zone runs on its sustainable
 * power; recovery is noticed.  An absurd reading counts as a fault too.
 */
static void test_garbage_temperature(void **unused)
{
	const char *file = "/sys/class/thermal/thermal_zone0/temp";
	struct engine e;

	(void)unused;
	assert_int_equal(build_auto(&e), 1);
	tree_put(file, "80000\n");
	engine_cycle(&e, 0, NULL);
	assert_int_equal(e.zones[0].control.budget_mw, 0);
	tree_put(file, "abc\n");
	for (int k = 1; k < ZONE_FAULT_PERIODS; k++) {
		engine_cycle(&e, (uint64_t)k * 100000, NULL);
		assert_int_equal(e.zones[0].control.budget_mw, 0);	/* held */
	}
	for (int k = ZONE_FAULT_PERIODS; k < 6; k++)
		engine_cycle(&e, (uint64_t)k * 100000, NULL);
	assert_int_equal(e.zones[0].control.budget_mw, 350);
	assert_int_equal(naming(file), 1);
	assert_true(logged("holding the current limits"));
	assert_true(logged("limiting to the estimated sustainable power, 350 mW"));
	assert_true(e.zones[0].sensing.sensor_failed);
	tree_put(file, "45000\n");
	engine_cycle(&e, 600000, NULL);
	assert_false(e.zones[0].sensing.sensor_failed);
	assert_false(e.zones[0].control.active);
	assert_true(logged("reads again"));
	tree_log_clear();
	tree_put(file, "255000\n");
	engine_cycle(&e, 700000, NULL);
	assert_true(e.zones[0].sensing.sensor_failed);
	assert_true(logged("not a plausible temperature"));
	tree_put(file, "45000\n");
	assert_int_equal(engine_restore(&e), 0);
	engine_free(&e);
}

/*
 * The blind fallback in the first approach (issue 34, 2): a zone configured
 * at 2200 mW feeds forward its actors' lowest power until its model is
 * confident (status says so), but a sensor that fails then holds it to the
 * configured 2200 mW, not to that floor, and the journal says which.
 */
static void test_blind_first_approach(void **unused)
{
	const char *file = "/sys/class/thermal/thermal_zone0/temp";
	struct pa_config *cfg = tree_config(
		"zones = ( { name = \"cpu\"; sensor = \"cpu-thermal\"; sustainable_power = 2200;\n"
		"  actors = ( { type = \"cpufreq\"; cpus = \"0-3\"; },\n"
		"             { type = \"cpufreq\"; cpus = \"4-5\"; } ); } );\n");
	struct zone *z;
	struct engine e;
	int k;

	(void)unused;
	assert_int_equal(engine_build(&e, cfg), 1);
	z = &e.zones[0];
	tree_put(file, "80000\n");
	assert_int_equal(engine_cycle(&e, 100000, NULL), 0);
	assert_true(z->control.active);
	assert_true(zone_first_approach(z));
	assert_true(zone_estimate_sustainable_power(z) < 2200);
	assert_int_equal(z->control.pid_run.sustainable_power_mw, zone_estimate_sustainable_power(z));
	assert_int_equal(zone_feed_forward_mw(z), zone_estimate_sustainable_power(z));
	assert_string_equal(zone_sp_in_use_source_name(z), "lowest");
	tree_put(file, "abc\n");
	for (k = 2; k <= ZONE_FAULT_PERIODS + 2; k++)
		engine_cycle(&e, (uint64_t)k * 100000, NULL);
	assert_true(z->sensing.sensor_failed);
	assert_true(z->control.active);
	assert_false(z->control.tuning.engaged);
	assert_int_equal(z->control.budget_mw, 2200);
	assert_true(logged("no temperature for 3 periods; limiting to the configured "
			   "sustainable power, 2200 mW"));
	tree_put(file, "45000\n");
	assert_int_equal(engine_restore(&e), 0);
	engine_free(&e);
	pa_config_free(cfg);
}

/*
 * A reading outside -40..150 °C is a sensor fault like a failed read: said
 * once an episode with the value and the range, limits held, then the
 * sustainable power; a new episode is said again.
 */
static void test_implausible_temperature(void **unused)
{
	const char *file = "/sys/class/thermal/thermal_zone0/temp";
	struct engine e;
	uint64_t t = 0;

	(void)unused;
	assert_int_equal(build_auto(&e), 1);
	tree_put(file, "80000\n");
	engine_cycle(&e, t, NULL);
	assert_int_equal(e.zones[0].control.budget_mw, 0);
	tree_put(file, "151000\n");
	for (int k = 1; k < ZONE_FAULT_PERIODS; k++) {
		engine_cycle(&e, t += 100000, NULL);
		assert_true(e.zones[0].sensing.sensor_failed);
		assert_int_equal(e.zones[0].sensing.temp_mc, 80000);
		assert_int_equal(e.zones[0].control.budget_mw, 0);	/* held */
	}
	tree_put(file, "-41000\n");
	for (int k = ZONE_FAULT_PERIODS; k < 6; k++)
		engine_cycle(&e, t += 100000, NULL);
	assert_int_equal(e.zones[0].control.budget_mw, 350);
	assert_int_equal(naming(file), 1);
	assert_int_equal(naming("not a plausible temperature: 151000 m°C is outside "
				"-40000..150000 m°C; holding the current limits"), 1);
	tree_put(file, "45000\n");
	engine_cycle(&e, t += 100000, NULL);
	assert_false(e.zones[0].sensing.sensor_failed);
	assert_true(logged("reads again (45000 m°C)"));
	tree_put(file, "-41000\n");
	engine_cycle(&e, t += 100000, NULL);
	assert_true(e.zones[0].sensing.sensor_failed);
	assert_int_equal(naming("-41000 m°C is outside -40000..150000 m°C"), 1);
	/* The bounds themselves are temperatures. */
	tree_put(file, "-40000\n");
	engine_cycle(&e, t += 100000, NULL);
	assert_false(e.zones[0].sensing.sensor_failed);
	assert_int_equal(e.zones[0].sensing.temp_mc, -40000);
	tree_put(file, "45000\n");
	assert_int_equal(engine_restore(&e), 0);
	engine_free(&e);
}

/* Puts @value in thermal_zone0's temp and runs one period at @t_us. */
static void read_at(struct engine *e, const char *value, uint64_t t_us)
{
	tree_put("/sys/class/thermal/thermal_zone0/temp", value);
	engine_cycle(e, t_us, NULL);
}

/*
 * A reading more than ZONE_SPIKE_MC from the previous one (tools/sim
 * --fault spike: one 150 °C reading at 75 °C) is a sensor fault for that
 * period, said once; the next reading is taken whatever it is, so a real
 * jump costs one period; a jump within the bound is taken at once; a
 * spike is said at most once in SPIKE_QUIET_MS, the ones between counted.
 */
static void test_spike(void **unused)
{
	struct engine e;
	uint64_t t = 0;

	(void)unused;
	assert_int_equal(build_auto(&e), 1);
	read_at(&e, "75000\n", t);
	assert_int_equal(e.zones[0].sensing.temp_mc, 75000);
	read_at(&e, "150000\n", t += 100000);
	assert_true(e.zones[0].sensing.sensor_failed);
	assert_int_equal(e.zones[0].sensing.temp_mc, 75000);
	assert_int_equal(naming("a spike: 150000 m°C, +75000 m°C from the previous reading, more "
				"than the 40000 m°C a zone can change in one period"), 1);
	read_at(&e, "75000\n", t += 100000);
	assert_false(e.zones[0].sensing.sensor_failed);
	assert_true(logged("reads again (75000 m°C)"));

	/* A real step of 41 °C: dismissed once, then taken; 39 °C at once. */
	read_at(&e, "34000\n", t += 100000);
	assert_true(e.zones[0].sensing.sensor_failed);
	assert_int_equal(e.zones[0].sensing.temp_mc, 75000);
	read_at(&e, "34000\n", t += 100000);
	assert_false(e.zones[0].sensing.sensor_failed);
	assert_int_equal(e.zones[0].sensing.temp_mc, 34000);
	read_at(&e, "73000\n", t += 100000);
	assert_false(e.zones[0].sensing.sensor_failed);
	assert_int_equal(e.zones[0].sensing.temp_mc, 73000);

	/*
	 * A sensor that spikes every other period, then every 15 s (150 sane
	 * readings apart): within SPIKE_QUIET_MS of the first spike said
	 * above, none is said, each counted (the 41 °C step above too).
	 */
	tree_log_clear();
	for (int k = 0; k < 20; k++) {
		read_at(&e, k % 2 ? "73000\n" : "140000\n", t += 100000);
		assert_int_equal(e.zones[0].sensing.sensor_failed, k % 2 == 0);
		assert_int_equal(e.zones[0].sensing.temp_mc, 73000);
	}
	for (int spike = 0; spike < 4; spike++) {
		for (int k = 0; k < 149; k++)
			read_at(&e, "73000\n", t += 100000);
		read_at(&e, "140000\n", t += 100000);
		assert_true(e.zones[0].sensing.sensor_failed);
	}
	read_at(&e, "73000\n", t += 100000);
	assert_false(e.zones[0].sensing.sensor_failed);
	assert_int_equal(tree_log_n(), 0);
	/* SPIKE_QUIET_MS after the first one said, a spike is said, with the count. */
	read_at(&e, "73000\n", 100000 + SPIKE_QUIET_MS * 1000ULL);
	read_at(&e, "140000\n", 200000 + SPIKE_QUIET_MS * 1000ULL);
	assert_true(e.zones[0].sensing.sensor_failed);
	read_at(&e, "73000\n", 300000 + SPIKE_QUIET_MS * 1000ULL);
	assert_int_equal(tree_log_n(), 2);	/* the spike, and "reads again" */
	assert_int_equal(naming("a spike: 140000 m°C, +67000 m°C"), 1);
	assert_int_equal(naming("(and 15 spikes since the last one said, not said: one is said "
				"at most every 10 min)"), 1);
	tree_put("/sys/class/thermal/thermal_zone0/temp", "45000\n");
	assert_int_equal(engine_restore(&e), 0);
	engine_free(&e);
}

/* /proc/stat's counters so far, every CPU alike (busy_period(), load_period()). */
static unsigned int busy_ticks, idle_ticks;

/* Idle or busy ticks on every CPU for one period, then the period at @t_us. */
static void load_period(struct engine *e, bool busy, uint64_t t_us)
{
	if (busy)
		busy_ticks += 10;
	else
		idle_ticks += 10;
	tree_stat_cpus(6, busy_ticks, idle_ticks);
	engine_cycle(e, t_us, NULL);
}

/* The zone's maximum power, mW. */
static uint32_t zone_max_mw(const struct zone *z)
{
	uint32_t mw = 0;

	for (size_t i = 0; i < z->setup.n_actors; i++)
		mw += z->setup.actors[i]->max_mw;
	return mw;
}

/*
 * A sensor that holds one value (60 °C, below switch-on) while the load goes
 * from idle to flat out: stuck once the power was far from its idle one for
 * STUCK_MOVED_MS, said once with the value and the power, handled as a
 * failed read (limits held, then the sustainable power); a reading that
 * moves by 1 m°C ends it.  A steady load on the same value for as long is
 * no fault.
 */
static void test_stuck_sensor(void **unused)
{
	const char *file = "/sys/class/thermal/thermal_zone0/temp";
	struct engine e;
	uint64_t t = 0;
	int k;

	(void)unused;
	assert_int_equal(build_auto(&e), 1);
	tree_put(file, "60000\n");
	for (k = 0; k < 400; k++)
		load_period(&e, false, t += 100000);
	assert_false(e.zones[0].sensing.sensor_failed);
	for (k = 0; k < 400 && !e.zones[0].sensing.sensor_failed; k++)
		load_period(&e, true, t += 100000);
	/* 30 s of periods far from the idle power, the first busy one partly idle. */
	assert_in_range(k, STUCK_MOVED_MS / 100, STUCK_MOVED_MS / 100 + 2);
	assert_int_equal(e.zones[0].sensing.sensor_fault, SENSOR_FAULT_STUCK);
	assert_int_equal(naming(file), 1);
	assert_int_equal(naming("stuck: 60000 m°C for "), 1);
	assert_true(logged("% of its "));
	assert_true(logged("mW maximum) for 30 s; holding the current limits"));
	for (k = 0; k < 5; k++)
		load_period(&e, true, t += 100000);
	assert_true(e.zones[0].sensing.sensor_failed);
	assert_true(e.zones[0].control.active);	/* blind: the estimated sustainable power */
	assert_int_equal(e.zones[0].control.budget_mw, e.zones[0].setup.pid.sustainable_power_mw);
	assert_int_equal(naming(file), 1);
	tree_put(file, "60001\n");
	load_period(&e, true, t += 100000);
	assert_false(e.zones[0].sensing.sensor_failed);
	assert_int_equal(e.zones[0].sensing.sensor_fault, SENSOR_FAULT_NONE);
	assert_int_equal(e.zones[0].sensing.fault_shown, SENSOR_FAULT_STUCK);	/* held */
	assert_true(logged("reads again (60001 m°C)"));
	/* Flat out on one value for 60 s: the power does not move. */
	tree_log_clear();
	for (k = 0; k < 600; k++)
		load_period(&e, true, t += 100000);
	assert_false(e.zones[0].sensing.sensor_failed);
	assert_int_equal(tree_log_n(), 0);
	tree_put(file, "45000\n");
	assert_int_equal(engine_restore(&e), 0);
	engine_free(&e);
}

/*
 * The first reading has no power measured since a previous one: it is no
 * reference (taken as 0 mW, a zone busy from its start looked 30 s away
 * from it and stuck; the many-zones tree under valgrind showed it).
 */
static void test_stuck_sensor_first_reading(void **unused)
{
	struct engine e;
	uint64_t t = 0;

	(void)unused;
	assert_int_equal(build_auto(&e), 1);
	tree_put("/sys/class/thermal/thermal_zone0/temp", "60000\n");
	for (int k = 0; k < 600; k++)
		load_period(&e, true, t += 100000);
	assert_false(e.zones[0].sensing.sensor_failed);
	assert_int_equal(e.zones[0].sensing.sensor_fault, SENSOR_FAULT_NONE);
	tree_put("/sys/class/thermal/thermal_zone0/temp", "45000\n");
	assert_int_equal(engine_restore(&e), 0);
	engine_free(&e);
}

/*
 * A zone with a confident thermal model judges spikes by it: a jump of
 * 20 °C in 100 ms, within the fixed 40 °C, is more than twice what its
 * model allows plus 5 °C (a die of 1 K/W over its case at the zone's
 * maximum power) and is dismissed; one within the model's bound is taken.
 * An unsure model leaves the fixed bound.
 */
static void test_spike_by_the_model(void **unused)
{
	struct thermal_estimate est = { .time_constant_s = 20, .gain_k_per_w = 5,
					.fast_gain_k_per_w = 1, .offset_c = 40,
					.confidence = 0.95 };
	struct engine e;
	uint64_t t = 0;
	int32_t bound_mc;
	char words[160];

	(void)unused;
	assert_int_equal(build_auto(&e), 1);
	read_at(&e, "60000\n", t);
	read_at(&e, "60000\n", t += 100000);
	e.zones[0].learning.model.est = est;
	bound_mc = 2 * thermal_model_max_change_mc(&est, 60000, zone_max_mw(&e.zones[0]), 0.1) +
		   ZONE_SPIKE_MARGIN_MC;
	assert_in_range(bound_mc, 6000, 19000);
	read_at(&e, "80000\n", t += 100000);
	assert_true(e.zones[0].sensing.sensor_failed);
	assert_int_equal(e.zones[0].sensing.sensor_fault, SENSOR_FAULT_SPIKE);
	assert_int_equal(e.zones[0].sensing.temp_mc, 60000);
	snprintf(words, sizeof(words), "a spike: 80000 m°C, +20000 m°C from the previous reading, "
		 "more than the %d m°C its thermal model allows in 100 ms", bound_mc);
	assert_int_equal(naming(words), 1);
	read_at(&e, "60000\n", t += 100000);
	assert_false(e.zones[0].sensing.sensor_failed);
	e.zones[0].learning.model.est = est;
	read_at(&e, bound_mc >= 7000 ? "55000\n" : "59000\n", t += 100000);
	assert_false(e.zones[0].sensing.sensor_failed);
	e.zones[0].learning.model.est.confidence = 0.5;
	read_at(&e, "85000\n", t += 100000);
	assert_false(e.zones[0].sensing.sensor_failed);
	assert_int_equal(e.zones[0].sensing.temp_mc, 85000);
	tree_put("/sys/class/thermal/thermal_zone0/temp", "45000\n");
	assert_int_equal(engine_restore(&e), 0);
	engine_free(&e);
}

/* A trip without its temperature is left out; the zone keeps the others. */
static void test_missing_trip_file(void **unused)
{
	const char *file = "/sys/class/thermal/thermal_zone0/trip_point_3_temp";
	struct thermal_inventory inv;
	struct engine e;

	(void)unused;
	assert_int_equal(unlink(tree_real_path("/sys/devices/virtual/thermal/thermal_zone0/trip_point_3_temp")), 0);
	assert_int_equal(thermal_scan(&inv), 0);
	thermal_zone_load(&inv.zones[0]);
	assert_int_equal(inv.zones[0].n_trips, 4);
	thermal_inventory_free(&inv);
	assert_int_equal(naming(file), 1);
	assert_true(logged("trip ignored"));
	assert_int_equal(build_auto(&e), 1);
	assert_int_equal(engine_restore(&e), 0);
	engine_free(&e);
	tree_put(file, "65000\n");

	/*
	 * Without the control trip's temperature the zone has one passive trip
	 * left (70 °C): with no sustainable_power it is not taken, and said so.
	 */
	tree_log_clear();
	assert_int_equal(unlink(tree_real_path("/sys/devices/virtual/thermal/thermal_zone0/trip_point_1_temp")), 0);
	assert_int_equal(build_auto(&e), 0);
	assert_int_equal(naming("/sys/class/thermal/thermal_zone0/trip_point_1_temp"), 1);
	assert_true(logged("thermal_zone0 (cpu-thermal): one passive trip (trip 0, 70.0 °C) and no "
			   "sustainable_power: "));
	engine_free(&e);

	/*
	 * With one (the device tree's sustainable-power), as the kernel would, it
	 * is run always on with that trip as control and the big cluster, bound
	 * to it, as its actor.
	 */
	tree_put("/sys/class/thermal/thermal_zone0/sustainable_power", "2000\n");
	assert_int_equal(build_auto(&e), 1);
	tree_put("/sys/class/thermal/thermal_zone0/sustainable_power", "0\n");
	tree_assert_always_on(&e.zones[0], "cpu-thermal", 70000, 2000, "cpufreq-cpu4");
	assert_int_equal(engine_restore(&e), 0);
	engine_free(&e);
	tree_put("/sys/class/thermal/thermal_zone0/trip_point_1_temp", "75000\n");
}

/*
 * The fan's cur_state holds garbage: one message naming it, however many
 * trips bind the fan; the zone is controlled without its fallback.
 */
static void test_fan_state_unreadable(void **unused)
{
	const char *file = "/sys/class/thermal/cooling_device3/cur_state";
	struct engine e;

	(void)unused;
	tree_put(file, "abc\n");
	assert_int_equal(build_auto(&e), 1);
	assert_int_equal(e.zones[0].setup.n_fallback, 0);
	assert_int_equal(e.n_actors, 2);
	assert_int_equal(naming(file), 1);
	assert_int_equal(engine_restore(&e), 0);
	engine_free(&e);
	tree_put(file, "0\n");
}

/* A cdevK link to a cooling device that is gone: the binding is left out. */
static void test_dangling_cdev_link(void **unused)
{
	const char *link = tree_real_path("/sys/devices/virtual/thermal/thermal_zone0/cdev4");
	struct thermal_inventory inv;
	struct engine e;

	(void)unused;
	assert_int_equal(unlink(link), 0);
	assert_int_equal(symlink("../cooling_device9", link), 0);
	assert_int_equal(thermal_scan(&inv), 0);
	thermal_zone_load(&inv.zones[0]);
	assert_int_equal(inv.zones[0].n_bindings, 4);
	thermal_inventory_free(&inv);
	assert_int_equal(naming("thermal_zone0/cdev4"), 1);
	assert_true(logged("dangling link"));
	assert_int_equal(build_auto(&e), 1);
	assert_int_equal(engine_restore(&e), 0);
	engine_free(&e);
	assert_int_equal(unlink(link), 0);
	assert_int_equal(symlink("../cooling_device3", link), 0);
}

static enum opp_source load_cpu(unsigned int cpu, struct power_table *t)
{
	struct cpufreq_inventory inv;
	const struct cpufreq_policy_info *p;
	char name[16], of_node[64];
	enum opp_source s;

	assert_int_equal(cpufreq_scan(&inv), 0);
	p = cpufreq_policy_of_cpu(&inv, cpu);
	assert_non_null(p);
	snprintf(name, sizeof(name), "cpu%u", cpu);
	snprintf(of_node, sizeof(of_node), CPU_DIR "/cpu%u/of_node", cpu);
	{
		struct opp_device dev = { .name = name, .of_node = of_node,
					  .freq_khz = p->freq_khz, .n_freqs = p->n_freqs };

		s = opp_load(&dev, t);
	}
	cpufreq_inventory_free(&inv);
	return s;
}

/* An OPP directory without its voltage: that OPP is left out, the others kept. */
static void test_opp_without_voltage(void **unused)
{
	const char *file = "/sys/kernel/debug/opp/cpu0/opp:408000000/supply-0/u_volt_target";
	struct power_table t;

	(void)unused;
	if (!on("rk3399-opp-debugfs"))
		skip();
	assert_int_equal(unlink(tree_real_path(file)), 0);
	assert_int_equal(load_cpu(0, &t), OPP_SOURCE_OPP_DEBUGFS);
	assert_int_equal(t.n, 5);
	assert_int_equal(t.entry[0].freq_khz, 600000);
	assert_int_equal(naming(file), 1);
	tree_put(file, "825000\n");
}

/* An energy-model state of 0 uW: left out, the others kept. */
static void test_em_power_zero(void **unused)
{
	const char *file = "/sys/kernel/debug/energy_model/cpu4/ps:408000/power";
	struct power_table t;

	(void)unused;
	if (!on("rk3399-em"))
		skip();
	tree_put(file, "0\n");
	assert_int_equal(load_cpu(4, &t), OPP_SOURCE_ENERGY_MODEL);
	assert_int_equal(t.n, 7);
	assert_int_equal(naming(file), 1);
	assert_true(logged("is not a power"));
	tree_put(file, "121075\n");
}

#define CDEV1_STATE "/sys/class/thermal/cooling_device1/cur_state"
#define CDEV1_DIR "/sys/devices/virtual/thermal/cooling_device1"

static const char *const two_clusters =
	"zones = ( { name = \"cpu\"; sensor = \"cpu-thermal\"; sustainable_power = 1500;\n"
	"  actors = ( { type = \"cpufreq\"; cpus = \"0-3\"; },\n"
	"             { type = \"cpufreq\"; cpus = \"4-5\"; } ); } );\n";

/* The fault hook's error for writes to cooling_device1, and how many it failed. */
static int cdev1_error;
static unsigned int cdev1_failed;

static int cdev1_fault(const char *path, bool write)
{
	if (!write || !strstr(path, "cooling_device1/cur_state"))
		return 0;
	cdev1_failed++;
	return cdev1_error;
}

/* A period's worth of busy ticks on every CPU, more than any test before gave. */
static void busy_period(void)
{
	busy_ticks += 100;
	tree_stat_cpus(6, busy_ticks, idle_ticks);
}

static struct actor *actor_of_cdev(const struct engine *e, int cdev_id)
{
	for (size_t i = 0; i < e->n_actors; i++)
		if (e->actors[i]->cdev_id == cdev_id)
			return e->actors[i];
	fail_msg("no actor for cooling_device%d", cdev_id);
	return NULL;
}

/*
 * A cooling device that fails its writes with EIO while its directory is
 * there (a flaky driver): not an error for the caller (no rescan); tried
 * again after 100 ms, doubling to 2 s, not every period; counted on the
 * actor; logged once; the other actor keeps working; when the device takes
 * writes again its state is written and that is logged with the count.
 */
static void test_failing_write_backs_off(void **unused)
{
	struct pa_config *cfg = tree_config(two_clusters);
	struct engine e;
	struct actor *a;
	uint64_t t_us = 0;

	(void)unused;
	assert_int_equal(engine_build(&e, cfg), 1);
	a = actor_of_cdev(&e, 1);
	tree_put("/sys/class/thermal/thermal_zone0/temp", "76000\n");
	cdev1_error = -EIO;
	cdev1_failed = 0;
	sysfs_set_fault_hook(cdev1_fault);
	/* 3 s of 100 ms periods: tries at 0, 0.1, 0.3, 0.7 and 1.5 s, not 30. */
	for (int k = 1; k <= 30; k++, t_us += 100000) {
		busy_period();
		assert_int_equal(engine_cycle(&e, t_us, NULL), 0);
	}
	assert_int_equal(cdev1_failed, 5);
	assert_int_equal(a->retry.errors, 5);
	assert_int_equal(a->retry.failures, 5);
	assert_int_equal(naming(CDEV1_STATE), 1);
	assert_true(logged("Input/output error; retrying with backoff"));
	assert_true(tree_get("/sys/class/thermal/cooling_device0/cur_state") > 0);
	assert_int_equal(tree_get(CDEV1_STATE), 0);
	sysfs_set_fault_hook(NULL);
	/* The next try, at 3.1 s (1.6 s after the last), takes. */
	for (; t_us < 3100000; t_us += 100000) {
		busy_period();
		assert_int_equal(engine_cycle(&e, t_us, NULL), 0);
		assert_int_equal(tree_get(CDEV1_STATE), 0);
	}
	busy_period();
	assert_int_equal(engine_cycle(&e, t_us, NULL), 0);
	assert_true(tree_get(CDEV1_STATE) > 0);
	assert_true(logged("cooling_device1/cur_state: writable again after 5 failures"));
	assert_int_equal(a->retry.errors, 5);
	assert_int_equal(a->retry.failures, 0);
	assert_int_equal(engine_restore(&e), 0);
	engine_free(&e);
	pa_config_free(cfg);
}

/*
 * A cooling device that is removed (its directory gone, -ENODEV on the file
 * still open): the engine says so (-ENODEV, for the daemon to rescan), once
 * logged; while it is back in place a write takes again.
 */
static void test_removed_device(void **unused)
{
	struct pa_config *cfg = tree_config(two_clusters);
	char away[512];
	struct engine e;

	(void)unused;
	snprintf(away, sizeof(away), "%s-away", tree_real_path(CDEV1_DIR));
	assert_int_equal(engine_build(&e, cfg), 1);
	tree_put("/sys/class/thermal/thermal_zone0/temp", "76000\n");
	cdev1_error = -ENODEV;
	sysfs_set_fault_hook(cdev1_fault);
	assert_int_equal(rename(tree_real_path(CDEV1_DIR), away), 0);
	for (int k = 1; k <= 3; k++) {
		busy_period();
		assert_int_equal(engine_cycle(&e, 100000 * (uint64_t)k, NULL), -ENODEV);
	}
	assert_int_equal(naming(CDEV1_STATE), 1);
	assert_true(logged("No such device; the device is gone"));
	assert_int_equal(rename(away, tree_real_path(CDEV1_DIR)), 0);
	assert_true(tree_get("/sys/class/thermal/cooling_device0/cur_state") > 0);
	sysfs_set_fault_hook(NULL);
	busy_period();
	assert_int_equal(engine_cycle(&e, 400000, NULL), 0);
	assert_true(tree_get(CDEV1_STATE) > 0);
	assert_true(logged("writable again after 3 failures"));
	assert_int_equal(engine_restore(&e), 0);
	engine_free(&e);
	pa_config_free(cfg);
}

/*
 * A configured actor whose device does not exist: the zone is not taken,
 * said with the devfreq devices there are; with optional = true it runs
 * without it, counted for the daemon to look again.
 */
static void test_missing_configured_device(void **unused)
{
	static const char *const text =
		"zones = ( { name = \"cpu\"; sensor = \"cpu-thermal\";\n"
		"  actors = ( { type = \"cpufreq\"; cpus = \"0-3\"; },\n"
		"             { type = \"devfreq\"; device = \"nonexistent.gpu\";%s } ); } );\n";
	char config[512], policy[64];
	struct pa_config *cfg;
	struct engine e;

	(void)unused;
	snprintf(config, sizeof(config), text, "");
	cfg = tree_config(config);
	assert_int_equal(engine_build(&e, cfg), 0);
	assert_int_equal(e.n_missing, 0);
	assert_int_equal(e.n_actors, 0);	/* none left open for a zone not taken */
	assert_true(logged("zone cpu: actors[1] (line 3, devfreq): no cooling device "
			   "devfreq-nonexistent.gpu; devfreq devices: ff9a0000.gpu (cooling_device2); "
			   "zone skipped"));
	tree_get_str("/sys/class/thermal/thermal_zone0/policy", policy, sizeof(policy));
	assert_string_equal(policy, "step_wise");	/* the kernel's governor keeps it */
	engine_free(&e);
	pa_config_free(cfg);

	tree_log_clear();
	snprintf(config, sizeof(config), text, " optional = true;");
	cfg = tree_config(config);
	assert_int_equal(engine_build(&e, cfg), 1);
	assert_int_equal(e.n_missing, 1);
	assert_int_equal(e.zones[0].setup.n_actors, 1);
	assert_true(logged("no cooling device devfreq-nonexistent.gpu; devfreq devices: "
			   "ff9a0000.gpu (cooling_device2); optional: the zone runs without it"));
	assert_int_equal(engine_restore(&e), 0);
	engine_free(&e);
	pa_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_empty_cur_state, reset_log),
		cmocka_unit_test_setup(test_negative_state, reset_log),
		cmocka_unit_test_setup(test_state_above_max, reset_log),
		cmocka_unit_test_setup(test_garbage_temperature, reset_log),
		cmocka_unit_test_setup(test_blind_first_approach, reset_log),
		cmocka_unit_test_setup(test_implausible_temperature, reset_log),
		cmocka_unit_test_setup(test_spike, reset_log),
		cmocka_unit_test_setup(test_stuck_sensor, reset_log),
		cmocka_unit_test_setup(test_stuck_sensor_first_reading, reset_log),
		cmocka_unit_test_setup(test_spike_by_the_model, reset_log),
		cmocka_unit_test_setup(test_missing_trip_file, reset_log),
		cmocka_unit_test_setup(test_fan_state_unreadable, reset_log),
		cmocka_unit_test_setup(test_dangling_cdev_link, reset_log),
		cmocka_unit_test_setup(test_opp_without_voltage, reset_log),
		cmocka_unit_test_setup(test_em_power_zero, reset_log),
		cmocka_unit_test_setup(test_failing_write_backs_off, reset_log),
		cmocka_unit_test_setup(test_removed_device, reset_log),
		cmocka_unit_test_setup(test_missing_configured_device, reset_log),
	};

	if (tree_main_guard())
		return 1;
	tree_log_capture();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
