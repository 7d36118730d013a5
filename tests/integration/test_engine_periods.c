/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Control cycles on the RK3399 fixture trees (suite integration, under
 * umockdev-wrapper): zones and actors built from the config or from the
 * kernel's bindings, the cooling states a period writes (checked against
 * numbers computed here from the formulas and the board's power tables), and
 * restore.
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

#include "actors/actor_file.h"
#include "board.h"
#include "config/config.h"
#include "engine/engine.h"
#include "platform/log.h"
#include "tree.h"

/* Every cooling device of the RK3399 tree but the fan at @state. */
static void assert_states(long state)
{
	for (int c = 0; c < 3; c++) {
		char path[64];

		snprintf(path, sizeof(path), "/sys/class/thermal/cooling_device%d/cur_state", c);
		assert_int_equal(tree_get(path), state);
	}
}

static const struct board_domain *domain(const char *name)
{
	const struct board *b = board_find("rk3399-rockpro64");

	for (size_t k = 0; k < b->n_domains; k++)
		if (strcmp(b->domains[k].name, name) == 0)
			return &b->domains[k];
	fail_msg("no domain %s", name);
	return NULL;
}

/* The cooling state the kernel's power2state gives @granted_mw at 100% on @n CPUs. */
static long expected_state(const struct board_domain *d, long granted_mw, unsigned int n)
{
	long per_cpu = granted_mw * 100 / (100 * (long)n);
	size_t k = d->n_opps - 1;

	while (k > 0 && (long)d->opps[k].power_mw > per_cpu)
		k--;
	return (long)(d->n_opps - 1 - k);
}

/* Q10 arithmetic shift as the kernel does it (floor). */
static long floor_q10(long long x)
{
	return (long)(x >= 0 ? x / 1024 : -((-x + 1023) / 1024));
}

/*
 * No zones in the config: cpu-thermal (two passive trips) is taken over;
 * gpu-thermal (one passive trip, and the tree gives it no sustainable_power)
 * is not, with a notice that says which keys would control it (with a
 * sustainable_power it is: test_single_passive_trip()).
 */
static void test_auto_configuration(void **unused)
{
	struct pa_config *cfg = tree_config("");
	struct engine e;
	char policy[32];

	(void)unused;
	tree_log_capture();
	assert_int_equal(engine_build(&e, cfg), 1);
	assert_int_equal(tree_log_count("thermal_zone1 (gpu-thermal): one passive trip (trip 0, "
					"75.0 °C) and no sustainable_power: "), 1);
	assert_int_equal(tree_log_count("a zone in powerallocd.conf with sensor = \"thermal_zone1\" "
					"and sustainable_power (mW) controls it, or switch_on_temp "
					"and control_temp; not controlled"), 1);
	pa_log_set_handler(NULL, NULL);
	assert_string_equal(e.zones[0].setup.name, "cpu-thermal");
	assert_false(e.zones[0].setup.always_on);
	assert_int_equal(e.zones[0].setup.switch_on_mc, 70000);
	assert_int_equal(e.zones[0].setup.control_mc, 75000);
	/* Switch-on is the first passive trip: the kernel's trip event marks it. */
	assert_true(e.zones[0].setup.switch_on_trip);
	assert_int_equal(e.zones[0].setup.n_actors, 2);
	assert_string_equal(e.zones[0].setup.actors[0]->name, "cpufreq-cpu0");
	assert_string_equal(e.zones[0].setup.actors[1]->name, "cpufreq-cpu4");
	/* No sustainable power in the tree: the kernel's estimate, 4 x 27 + 2 x 121. */
	assert_int_equal(e.zones[0].setup.sp_source, SP_ESTIMATED);
	assert_int_equal(e.zones[0].setup.pid.sustainable_power_mw, 350);
	/* The default controller's gains until its model is confident: the kernel's
	 * (350 << 10) / 5000 = 71 times 3, (700 << 10) / 5000 = 143 and 143 / 10 = 14. */
	assert_int_equal(e.zones[0].setup.pid.gains.k_po, 3 * 71);
	assert_int_equal(e.zones[0].setup.pid.gains.k_pu, 143);
	assert_int_equal(e.zones[0].setup.pid.gains.k_i, 14);
	assert_false(e.zones[0].control.tuning.engaged);
	assert_false(e.zones[0].control.tuning.gains_fixed);
	assert_int_equal(e.zones[0].setup.pid.fixes.control_margin_mc, 50);
	/* The fan on the active trips (55 and 65 °C) goes to the step_wise fallback. */
	assert_int_equal(e.n_actors, 3);
	assert_string_equal(e.actors[2]->name, "pwm-fan");
	assert_int_equal(e.actors[2]->kind, ACTOR_COOLING_DEVICE);
	assert_int_equal(e.zones[0].setup.n_fallback, 1);
	assert_int_equal(e.zones[0].setup.fallback[0].n_trips, 2);
	assert_int_equal(e.zones[0].setup.fallback[0].trip_mc[0], 55000);
	assert_int_equal(e.zones[0].setup.fallback[0].trip_mc[1], 65000);
	tree_get_str("/sys/class/thermal/thermal_zone0/policy", policy, sizeof(policy));
	assert_string_equal(policy, "user_space");
	assert_int_equal(engine_restore(&e), 0);
	tree_get_str("/sys/class/thermal/thermal_zone0/policy", policy, sizeof(policy));
	assert_string_equal(policy, "step_wise");
	engine_free(&e);
	pa_config_free(cfg);
}

/*
 * gpu-thermal has one passive trip (75 °C) with the GPU bound to it, and
 * here a sustainable_power in sysfs (1500 mW, as a device tree's
 * sustainable-power gives it).  As the kernel's power_allocator takes such
 * a zone (get_governor_trips()), it is controlled with that trip as control
 * and no switch-on: always on, with the kernel's gains for a switch-on of 0
 * (dT = 75000 m°C).  At 40 °C it runs: its budget is the sustainable power
 * plus k_pu times the 35 °C it is under control (less the margin), which is
 * over what the busy GPU can draw, so the GPU keeps its top OPP; at 80 °C
 * it gives less and the GPU is capped.
 */
static void test_single_passive_trip(void **unused)
{
	const char *temp = "/sys/class/thermal/thermal_zone1/temp";
	const char *sp_file = "/sys/class/thermal/thermal_zone1/sustainable_power";
	struct pa_config *cfg = tree_config("");
	const struct zone *gpu;
	uint32_t budget_cool;
	char policy[32];
	struct engine e;

	(void)unused;
	tree_put(sp_file, "1500\n");
	assert_int_equal(engine_build(&e, cfg), 2);
	gpu = &e.zones[1];
	assert_string_equal(gpu->setup.name, "gpu-thermal");
	assert_true(gpu->setup.always_on);
	assert_int_equal(gpu->setup.switch_on_mc, 0);
	assert_int_equal(gpu->setup.control_mc, 75000);
	assert_int_equal(gpu->setup.n_actors, 1);
	assert_string_equal(gpu->setup.actors[0]->name, "devfreq-ff9a0000.gpu");
	assert_int_equal(gpu->setup.sp_source, SP_FROM_SYSFS);
	assert_int_equal(gpu->setup.pid.sustainable_power_mw, 1500);
	assert_int_equal(gpu->setup.pid.gains.k_pu, (3000 << 10) / 75000);
	assert_int_equal(gpu->setup.pid.gains.k_po, 3 * ((1500 << 10) / 75000));
	tree_get_str("/sys/class/thermal/thermal_zone1/policy", policy, sizeof(policy));
	assert_string_equal(policy, "user_space");

	tree_put("/sys/class/thermal/thermal_zone0/temp", "40000\n");
	tree_put(temp, "40000\n");
	tree_busy_cpus(6, 100);
	assert_int_equal(engine_cycle(&e, 100000, NULL), 0);
	assert_true(gpu->control.active);
	assert_false(e.zones[0].control.active);
	budget_cool = gpu->control.budget_mw;
	/* The law's budget, 1500 + 40 x 34.95 = 2865 mW, cut to the most the GPU draws. */
	assert_true(1500u + gpu->setup.pid.gains.k_pu * (75000 - 50 - 40000) / 1024 >
		    gpu->setup.actors[0]->max_mw);
	assert_int_equal(budget_cool, gpu->setup.actors[0]->max_mw);
	assert_int_equal(tree_get("/sys/class/thermal/cooling_device2/cur_state"), 0);

	tree_put(temp, "80000\n");
	tree_busy_cpus(6, 200);
	assert_int_equal(engine_cycle(&e, 200000, NULL), 0);
	assert_true(gpu->control.active);
	assert_true(gpu->control.budget_mw < budget_cool);
	assert_true(tree_get("/sys/class/thermal/cooling_device2/cur_state") > 0);
	/*
	 * Always on, its default controller feeds forward the device tree's
	 * 1500 mW, not the GPU's lowest power as a zone with a switch-on would
	 * in its first approach (issue 34, 3; model_tuning.h says why), and
	 * status says so.
	 */
	assert_int_equal(gpu->setup.pid.mode, PID_MODE_DEFAULT);
	assert_false(gpu->control.tuning.engaged);
	assert_true(zone_estimate_sustainable_power(gpu) < 1500);
	assert_int_equal(gpu->control.pid_run.sustainable_power_mw, 1500);
	assert_int_equal(gpu->control.pid_out.sustainable_power_mw, 1500);
	assert_int_equal(zone_feed_forward_mw(gpu), 1500);
	assert_false(zone_first_approach(gpu));
	assert_string_equal(zone_sp_in_use_source_name(gpu), "sysfs");

	assert_int_equal(engine_restore(&e), 0);
	assert_states(0);
	tree_get_str("/sys/class/thermal/thermal_zone1/policy", policy, sizeof(policy));
	assert_string_equal(policy, "step_wise");
	tree_put(temp, "45000\n");
	tree_put(sp_file, "0\n");
	tree_busy_cpus(6, 0);	/* the next tests count their load from 0 */
	engine_free(&e);
	pa_config_free(cfg);
}

/*
 * A configured zone on gpu-thermal (one passive trip) needs no
 * temperatures: without switch_on_temp it is always on, its control the
 * trip or control_temp; a switch_on_temp makes it switch on as any other.
 * The kernel's law keeps its integral when the zone cools, as the kernel
 * does without a switch-on to reset it.
 */
static void test_single_passive_trip_configured(void **unused)
{
	static const char *const text =
		"zones = ( { name = \"gpu\"; sensor = \"gpu-thermal\"; %s\n"
		"  actors = ( { type = \"devfreq\"; device = \"ff9a0000.gpu\"; } ); } );\n";
	static const struct { const char *keys; bool always_on; int32_t on_mc, control_mc; } c[] = {
		{ "controller = \"kernel\";", true, 0, 75000 },
		{ "control_temp = 70000;", true, 0, 70000 },
		{ "switch_on_temp = 60000;", false, 60000, 75000 },
	};
	const char *temp = "/sys/class/thermal/thermal_zone1/temp";
	char config[512];

	(void)unused;
	for (size_t k = 0; k < 3; k++) {
		struct pa_config *cfg;
		struct engine e;

		snprintf(config, sizeof(config), text, c[k].keys);
		cfg = tree_config(config);
		assert_int_equal(engine_build(&e, cfg), 1);
		assert_int_equal(e.zones[0].setup.always_on, c[k].always_on);
		assert_int_equal(e.zones[0].setup.switch_on_mc, c[k].on_mc);
		assert_int_equal(e.zones[0].setup.control_mc, c[k].control_mc);
		tree_put(temp, "50000\n");
		assert_int_equal(engine_cycle(&e, 100000, NULL), 0);
		assert_int_equal(e.zones[0].control.active, c[k].always_on);
		engine_restore(&e);
		engine_free(&e);
		pa_config_free(cfg);
	}

	/* The kernel's law: 1 °C over control for 5 periods, then 40 °C. */
	snprintf(config, sizeof(config), text, c[0].keys);
	{
		struct pa_config *cfg = tree_config(config);
		struct engine e;

		assert_int_equal(engine_build(&e, cfg), 1);
		tree_put(temp, "76000\n");
		for (uint64_t t = 1; t <= 5; t++)
			assert_int_equal(engine_cycle(&e, t * 100000, NULL), 0);
		assert_true(e.zones[0].control.pid_state.err_integral < 0);
		tree_put(temp, "40000\n");
		assert_int_equal(engine_cycle(&e, 600000, NULL), 0);
		assert_true(e.zones[0].control.active);
		assert_int_equal(e.zones[0].control.pid_state.err_integral, -5 * 1000 * 1024);
		assert_int_equal(engine_restore(&e), 0);
		tree_put(temp, "45000\n");
		engine_free(&e);
		pa_config_free(cfg);
	}
}

/*
 * A margin the file cannot check (the temperatures come from the trips, 70
 * and 75 °C) is cut to half the passive range, 2500 m°C, when the zone is
 * built; one that fits is kept.
 */
static void test_control_margin_from_trips(void **unused)
{
	static const char *const keys[] = { "control_margin = 10000;", "control_margin = 2500;" };
	char text[256];

	(void)unused;
	for (size_t k = 0; k < 2; k++) {
		struct pa_config *cfg;
		struct engine e;

		snprintf(text, sizeof(text),
			 "zones = ( { name = \"cpu\"; sensor = \"cpu-thermal\"; %s\n"
			 "  actors = ( { type = \"cpufreq\"; cpus = \"4-5\"; } ); } );\n", keys[k]);
		cfg = tree_config(text);
		assert_int_equal(engine_build(&e, cfg), 1);
		assert_int_equal(e.zones[0].setup.control_mc, 75000);
		assert_int_equal(e.zones[0].setup.pid.fixes.control_margin_mc, 2500);
		assert_int_equal(engine_restore(&e), 0);
		engine_free(&e);
		pa_config_free(cfg);
	}
}

/*
 * Request division, the kernel's gains and power2state, its sustainable
 * power fed forward from the first period: the numbers below are the kernel's.
 */
static const char two_zones[] =
	"zones = (\n"
	"  { name = \"cpu\"; sensor = \"cpu-thermal\"; sustainable_power = 1500;\n"
	"    division = \"request\"; tuned_gains = false; dither_grants = false;\n"
	"    control_margin = 0; trust_sustainable_power = true;\n"
	"    actors = ( { type = \"cpufreq\"; cpus = \"0-3\"; },\n"
	"               { type = \"cpufreq\"; cpus = \"4-5\"; } ); },\n"
	"  { name = \"gpu\"; sensor = \"gpu-thermal\"; switch_on_temp = 65000; control_temp = 75000;\n"
	"    sustainable_power = 1000;\n"
	"    actors = ( { type = \"devfreq\"; device = \"ff9a0000.gpu\"; },\n"
	"               { type = \"cpufreq\"; cpus = \"4-5\"; } ); }\n"
	");\n";

/*
 * cpu zone at 75.5 °C, every CPU busy at its highest frequency.  Expected,
 * from the formulas: dT = 5000 m°C, k_po = (1500 << 10) / 5000 = 307,
 * k_i = ((3000 << 10) / 5000) / 10 = 61; err = -500 m°C (-512000 in Q10);
 * p = 307 * -512000 >> 10, i = 61 * -512000 >> 10, budget = 1500 + ((p + i) >> 10).
 * Requests: 4 x 179 = 716 and 2 x 1130 = 2260 mW, divided in proportion.
 */
static void test_cycle_above_control(void **unused)
{
	struct pa_config *cfg = tree_config(two_zones);
	const struct board_domain *little = domain("cluster0"), *big = domain("cluster1");
	long long p = 307LL * -512000 / 1024, i = 61LL * -512000 / 1024;
	long budget = 1500 + floor_q10(p + i);
	long req_l = 4 * little->opps[5].power_mw, req_b = 2 * big->opps[7].power_mw;
	long grant_l = (budget * req_l + (req_l + req_b) / 2) / (req_l + req_b);
	long grant_b = budget - grant_l;
	struct engine e;

	(void)unused;
	assert_int_equal(engine_build(&e, cfg), 2);
	assert_int_equal(e.n_actors, 4);	/* the fan too */
	/* gpu-thermal's trips are at 75 and 95 °C: no kernel event marks its 65 °C switch-on. */
	assert_true(e.zones[0].setup.switch_on_trip);
	assert_false(e.zones[1].setup.switch_on_trip);
	assert_int_equal(e.zones[0].setup.pid.gains.k_po, 307);
	assert_int_equal(e.zones[0].setup.pid.gains.k_i, 61);
	tree_put("/sys/class/thermal/thermal_zone0/temp", "75500\n");
	tree_put("/sys/class/thermal/thermal_zone1/temp", "40000\n");
	tree_busy_cpus(6, 100);
	assert_int_equal(engine_cycle(&e, 100000, NULL), 0);

	print_message("budget %ld: little %ld mW -> state %ld, big %ld mW -> state %ld\n", budget,
		      grant_l, expected_state(little, grant_l, 4), grant_b,
		      expected_state(big, grant_b, 2));
	assert_int_equal(e.zones[0].control.budget_mw, budget);
	assert_true(e.zones[0].control.active);
	assert_false(e.zones[1].control.active);
	assert_int_equal(e.actors[0]->load_pct, 400);
	assert_int_equal(e.actors[0]->req_mw, req_l);
	assert_int_equal(e.actors[0]->granted_mw, grant_l);
	assert_int_equal(tree_get("/sys/class/thermal/cooling_device0/cur_state"),
			 expected_state(little, grant_l, 4));
	assert_int_equal(tree_get("/sys/class/thermal/cooling_device1/cur_state"),
			 expected_state(big, grant_b, 2));
	assert_int_equal(tree_get("/sys/class/thermal/cooling_device2/cur_state"), 0);
	/* Something is actually throttled, not just state 0 or the deepest. */
	assert_true(tree_get("/sys/class/thermal/cooling_device1/cur_state") > 0);
	assert_true(tree_get("/sys/class/thermal/cooling_device1/cur_state") < 7);

	/* Same temperature and load: the integral moves the grant a little but not
	 * the state; a value put there behind our back is another writer's, found
	 * by the cycle's read-back and written over with ours (counted). */
	tree_put("/sys/class/thermal/cooling_device0/cur_state", "5\n");
	tree_busy_cpus(6, 200);
	assert_int_equal(engine_cycle(&e, 200000, NULL), 0);
	assert_true((long)e.actors[0]->granted_mw < grant_l);
	assert_int_equal(e.actors[0]->state, expected_state(little, grant_l, 4));
	assert_int_equal(tree_get("/sys/class/thermal/cooling_device0/cur_state"),
			 expected_state(little, grant_l, 4));
	assert_int_equal(e.actors[0]->external.count, 1);

	assert_int_equal(engine_restore(&e), 0);
	assert_states(0);
	engine_free(&e);
	pa_config_free(cfg);
}

/*
 * The big cluster serves both zones: when only the gpu zone is hot, it takes
 * the gpu zone's grant; when the zones cool down, every state goes back to 0.
 */
static void test_most_restrictive_grant(void **unused)
{
	struct pa_config *cfg = tree_config(two_zones);
	struct engine e;
	long big_state;

	(void)unused;
	assert_int_equal(engine_build(&e, cfg), 2);
	tree_put("/sys/class/thermal/thermal_zone0/temp", "50000\n");
	tree_put("/sys/class/thermal/thermal_zone1/temp", "80000\n");
	tree_busy_cpus(6, 100);
	assert_int_equal(engine_cycle(&e, 100000, NULL), 0);
	big_state = tree_get("/sys/class/thermal/cooling_device1/cur_state");
	assert_true(big_state > 0);
	assert_int_equal(tree_get("/sys/class/thermal/cooling_device0/cur_state"), 0);
	assert_true(tree_get("/sys/class/thermal/cooling_device2/cur_state") > 0);
	assert_int_equal(e.actors[1]->granted_mw, e.zones[1].control.grant_mw[1]);

	tree_put("/sys/class/thermal/thermal_zone1/temp", "50000\n");
	tree_busy_cpus(6, 200);
	assert_int_equal(engine_cycle(&e, 200000, NULL), 0);
	assert_states(0);
	engine_free(&e);
	pa_config_free(cfg);
}

/*
 * The GPU's load comes from the devfreq "load" attribute where the kernel
 * has one ("busy@freqHz"); without it the GPU counts as fully busy.
 */
static void test_devfreq_load(void **unused)
{
	struct pa_config *cfg = tree_config(two_zones);
	struct engine e;

	(void)unused;
	assert_int_equal(engine_build(&e, cfg), 2);
	assert_string_equal(e.actors[3]->name, "devfreq-ff9a0000.gpu");
	tree_busy_cpus(6, 100);
	engine_cycle(&e, 100000, NULL);
	assert_int_equal(e.actors[3]->load_pct, 100);
	assert_int_equal(e.actors[3]->saturated, 1);
	assert_int_equal(e.actors[3]->req_mw, 2555);
	engine_free(&e);

	tree_put("/sys/class/devfreq/ff9a0000.gpu/load", "37@800000000Hz\n");
	assert_int_equal(engine_build(&e, cfg), 2);
	engine_cycle(&e, 200000, NULL);
	assert_int_equal(e.actors[3]->load_pct, 37);
	assert_int_equal(e.actors[3]->saturated, 0);
	assert_int_equal(e.actors[3]->req_mw, 2555 * 37 / 100);
	engine_free(&e);
	pa_config_free(cfg);
}

/* @e built on two_zones and run two periods with every CPU busy: the big cluster at 200 %. */
static void build_busy(struct engine *e, const struct pa_config *cfg)
{
	assert_int_equal(engine_build(e, cfg), 2);
	tree_busy_cpus(6, 1000);
	engine_cycle(e, 100000, NULL);
	tree_busy_cpus(6, 1100);
	engine_cycle(e, 150000, NULL);
	assert_int_equal(e->actors[1]->load_pct, 200);
}

/*
 * CPU 5 goes offline (no line in /proc/stat): the big cluster counts one CPU,
 * so its maximum and its request halve; back online, both return.
 */
static void test_cpu_hotplug(void **unused)
{
	struct pa_config *cfg = tree_config(two_zones);
	char stat[512];
	size_t len = 0;
	struct engine e;

	(void)unused;
	build_busy(&e, cfg);
	assert_int_equal(e.actors[1]->max_mw, 2 * 1130);
	len += (size_t)snprintf(stat + len, sizeof(stat) - len, "cpu  0 0 0 0 0 0 0 0 0 0\n");
	for (int c = 0; c < 5; c++)
		len += (size_t)snprintf(stat + len, sizeof(stat) - len,
					"cpu%d 1300 0 50 1000 0 0 0 0 0 0\n", c);
	tree_put("/proc/stat", stat);
	engine_cycle(&e, 200000, NULL);
	assert_int_equal(e.actors[1]->n_cpus, 1);
	assert_int_equal(e.actors[1]->max_mw, 1130);
	assert_int_equal(e.actors[1]->load_pct, 100);
	assert_int_equal(e.actors[1]->req_mw, 1130);
	/* Back online: counted again, its load from its own counters. */
	tree_busy_cpus(6, 1300);
	engine_cycle(&e, 300000, NULL);
	assert_int_equal(e.actors[1]->max_mw, 2 * 1130);
	assert_int_equal(e.actors[1]->n_cpus, 2);
	assert_true(e.actors[1]->load_pct <= 200);
	engine_free(&e);
	pa_config_free(cfg);
}

/*
 * The big cluster's counters do not move for a period (no tick counted: a
 * period under the kernel's tick, or a busy CPU whose tick is stopped) while
 * the little cluster's do: its CPUs keep their load, 100 % each, and its
 * request with it (issue 41, 4: it read 0 %, asked its lowest power under
 * the kernel's law and was held at its lowest OPP for 80 s).
 */
static void test_stalled_counters_keep_load(void **unused)
{
	struct pa_config *cfg = tree_config(two_zones);
	const unsigned int stalled[6] = { 1200, 1200, 1200, 1200, 1100, 1100 };
	uint32_t req_mw;
	struct engine e;

	(void)unused;
	build_busy(&e, cfg);
	req_mw = e.actors[1]->req_mw;
	assert_true(req_mw > 0);
	tree_busy_each(6, stalled);
	engine_cycle(&e, 200000, NULL);
	assert_int_equal(e.actors[0]->load_pct, 400);
	assert_int_equal(e.actors[1]->load_pct, 200);
	assert_int_equal(e.actors[1]->req_mw, req_mw);
	tree_busy_cpus(6, 1300);
	engine_cycle(&e, 250000, NULL);
	assert_int_equal(e.actors[1]->load_pct, 200);
	engine_free(&e);
	pa_config_free(cfg);
}

/*
 * step_wise: one state more per period above control while rising, hold when
 * steady, one less below control while falling; never past max_state.
 */
static void test_step_wise(void **unused)
{
	static const struct {
		int32_t temp;
		long state;
	} steps[] = {
		{ 76000, 1 }, { 77000, 2 }, { 78000, 3 }, { 78000, 3 }, { 77500, 3 },
		{ 74000, 2 }, { 73000, 1 }, { 72000, 0 }, { 71000, 0 },
	};
	struct pa_config *cfg = tree_config(
		"zones = ( { name = \"cpu\"; sensor = \"cpu-thermal\"; controller = \"step_wise\";\n"
		"  actors = ( { type = \"cpufreq\"; cpus = \"0-3\"; },\n"
		"             { type = \"cpufreq\"; cpus = \"4-5\"; } ); } );\n");
	struct engine e;
	char temp[16];

	(void)unused;
	assert_int_equal(engine_build(&e, cfg), 1);
	assert_int_equal(e.zones[0].setup.pid.mode, PID_MODE_STEP_WISE);
	tree_put("/sys/class/thermal/thermal_zone0/temp", "74000\n");
	engine_cycle(&e, 0, NULL);
	for (size_t k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
		snprintf(temp, sizeof(temp), "%d\n", steps[k].temp);
		tree_put("/sys/class/thermal/thermal_zone0/temp", temp);
		tree_busy_cpus(6, 2000 + 100 * (unsigned int)k);
		assert_int_equal(engine_cycle(&e, 100000 * (k + 1), NULL), 0);
		print_message("%d m°C -> states %lld %lld\n", steps[k].temp,
			      tree_get("/sys/class/thermal/cooling_device0/cur_state"),
			      tree_get("/sys/class/thermal/cooling_device1/cur_state"));
		assert_int_equal(tree_get("/sys/class/thermal/cooling_device0/cur_state"), steps[k].state);
		assert_int_equal(tree_get("/sys/class/thermal/cooling_device1/cur_state"), steps[k].state);
	}
	/* Held above control while rising: capped at the A53s' 5 states. */
	for (int k = 0; k < 10; k++) {
		snprintf(temp, sizeof(temp), "%d\n", 80000 + 100 * k);
		tree_put("/sys/class/thermal/thermal_zone0/temp", temp);
		engine_cycle(&e, 2000000 + 100000 * (uint64_t)k, NULL);
	}
	assert_int_equal(tree_get("/sys/class/thermal/cooling_device0/cur_state"), 5);
	assert_int_equal(tree_get("/sys/class/thermal/cooling_device1/cur_state"), 7);
	assert_int_equal(engine_restore(&e), 0);
	engine_free(&e);
	pa_config_free(cfg);
}

/* A "cpu" zone with the request division, @controller, @sp_mw, more @keys and @actors. */
static struct pa_config *request_zone(const char *controller, unsigned int sp_mw, const char *keys,
				      const char *actors)
{
	char text[512];

	/* At control the budget is the sustainable power: fed forward from the first period. */
	snprintf(text, sizeof(text),
		 "zones = ( { name = \"cpu\"; sensor = \"cpu-thermal\"; controller = \"%s\";\n"
		 "  sustainable_power = %u; division = \"request\"; %s %s\n"
		 "  actors = ( %s ); } );\n", controller, sp_mw, keys,
		 strcmp(controller, "default") ? "" : "trust_sustainable_power = true;", actors);
	return tree_config(text);
}

/*
 * Periods at control with both A72s busy and the A72 cluster the zone's only
 * actor: the budget is the sustainable power, 2000 mW, between 1608 MHz
 * (2 x 848 = 1696 mW, state 1) and 1800 MHz (2 x 1130 = 2260 mW, state 0).
 * @keys: more zone keys.  Returns the periods of @periods spent in state 0;
 * fails on any state but 0 and 1, or a grant other than the budget.
 */
static unsigned int periods_at_top(const char *controller, const char *keys,
				   unsigned int periods)
{
	static unsigned int busy = 10000;
	struct pa_config *cfg = request_zone(controller, 2000, keys,
					     "{ type = \"cpufreq\"; cpus = \"4-5\"; }");
	struct engine e;
	unsigned int top = 0;

	assert_int_equal(engine_build(&e, cfg), 1);
	tree_put("/sys/class/thermal/thermal_zone0/temp", "75000\n");
	for (unsigned int k = 0; k < periods; k++) {
		long state;

		/* Past what earlier tests and calls wrote: ticks only go forward. */
		busy += 100;
		tree_busy_cpus(6, busy);
		assert_int_equal(engine_cycle(&e, 100000 * (uint64_t)(k + 1), NULL), 0);
		assert_int_equal(e.zones[0].control.budget_mw, 2000);
		assert_int_equal(e.actors[0]->granted_mw, 2000);
		state = tree_get("/sys/class/thermal/cooling_device1/cur_state");
		assert_in_range(state, 0, 1);
		top += state == 0;
	}
	assert_int_equal(engine_restore(&e), 0);
	engine_free(&e);
	pa_config_free(cfg);
	return top;
}

/*
 * With dither_grants the default controller dithers the grant: (2000 -
 * 1696) / (2260 - 1696) = 54 % of the periods at 1800 MHz, so the cluster
 * spends its 2000 mW on average.  Without it (the default), and with the
 * kernel's law, it takes 1608 MHz every period and leaves 304 mW of every
 * grant unspent.
 */
static void test_dither_grants(void **unused)
{
	unsigned int dithered, plain, kernel;

	(void)unused;
	dithered = periods_at_top("default", "dither_grants = true; control_margin = 0;", 100);
	plain = periods_at_top("default", "control_margin = 0;", 100);
	kernel = periods_at_top("kernel", "", 100);
	print_message("periods at 1800 MHz of 100: dithered %u, default %u, kernel %u\n",
		      dithered, plain, kernel);
	assert_in_range(dithered, 53, 54);
	assert_int_equal(plain, 0);
	assert_int_equal(kernel, 0);
}

/*
 * /proc/stat after @periods periods of 100 ticks in which CPU c was busy
 * @busy_pct[c] % of the time (6 CPUs), continuing from what earlier calls
 * wrote so that the counters only go forward.
 */
static void put_loads(const unsigned int busy_pct[6], unsigned int periods)
{
	static unsigned long long busy[6], idle[6];
	FILE *f = fopen("/proc/stat", "w");

	assert_non_null(f);
	fprintf(f, "cpu  0 0 0 0 0 0 0 0 0 0\n");
	for (unsigned int c = 0; c < 6; c++) {
		busy[c] += busy_pct[c] * periods;
		idle[c] += (100 - busy_pct[c]) * periods;
		fprintf(f, "cpu%u %llu 0 0 %llu 0 0 0 0 0 0\n", c, busy[c], idle[c]);
	}
	fprintf(f, "intr 0\nctxt 0\n");
	fclose(f);
}

/* Two periods at control (75 °C) with CPU c @busy_pct[c] % busy: the first primes the loads. */
static void two_periods_at_control(struct engine *e, const unsigned int busy_pct[6])
{
	tree_put("/sys/class/thermal/thermal_zone0/temp", "75000\n");
	put_loads(busy_pct, 1);
	assert_int_equal(engine_cycle(e, 100000, NULL), 0);
	put_loads(busy_pct, 1);
	assert_int_equal(engine_cycle(e, 200000, NULL), 0);
}

/*
 * Efficiency division with both A72s saturated at 1608 MHz and the A53s at
 * 10 %, budget 2400 mW (at control).  A saturated CPU may want more than
 * its 100 % shows, so the A72s count as asking for all of 1800 MHz: they
 * get its 2 x 1130 mW and run there.  Valued at what they ran, they would
 * get 1696 mW plus a share of the spare and stay at 1608 MHz.  At 90 %
 * busy they are not saturated: their work fits 1608 MHz and they stay.
 */
static void test_saturated_demand(void **unused)
{
	static const unsigned int saturated[6] = { 10, 10, 10, 10, 100, 100 };
	static const unsigned int partial[6] = { 10, 10, 10, 10, 90, 90 };
	struct pa_config *cfg = tree_config(
		"zones = ( { name = \"cpu\"; sensor = \"cpu-thermal\"; sustainable_power = 2400;\n"
		"  division = \"efficiency\"; control_margin = 0; trust_sustainable_power = true;\n"
		"  actors = ( { type = \"cpufreq\"; cpus = \"0-3\"; },\n"
		"             { type = \"cpufreq\"; cpus = \"4-5\"; } ); } );\n");
	struct engine e;

	(void)unused;
	assert_int_equal(engine_build(&e, cfg), 1);
	tree_put("/sys/devices/system/cpu/cpufreq/policy4/scaling_cur_freq", "1608000\n");
	two_periods_at_control(&e, saturated);
	assert_int_equal(e.zones[0].control.budget_mw, 2400);
	assert_int_equal(e.actors[1]->saturated, 2);
	assert_int_equal(e.actors[0]->saturated, 0);
	print_message("saturated A72s at 1608 MHz: granted %u mW\n", e.actors[1]->granted_mw);
	assert_int_equal(e.actors[1]->granted_mw, 2260);
	assert_int_equal(tree_get("/sys/class/thermal/cooling_device1/cur_state"), 0);
	/* Granted their maximum: nothing saturated is held back (integral_under). */
	assert_false(e.zones[0].control.pid_state.held_back);
	/* saturated_request is the request division's: this zone shows what they use. */
	assert_int_equal(e.zones[0].control.request_mw[1], e.actors[1]->req_mw);
	assert_int_equal(e.actors[1]->req_mw, 2 * 848);

	put_loads(partial, 1);
	assert_int_equal(engine_cycle(&e, 300000, NULL), 0);
	assert_int_equal(e.actors[1]->saturated, 0);
	print_message("A72s 90 %% busy at 1608 MHz: granted %u mW\n", e.actors[1]->granted_mw);
	assert_true(e.actors[1]->granted_mw < 2260);
	assert_int_equal(tree_get("/sys/class/thermal/cooling_device1/cur_state"), 1);
	assert_int_equal(engine_restore(&e), 0);
	engine_free(&e);
	pa_config_free(cfg);
	tree_put("/sys/devices/system/cpu/cpufreq/policy4/scaling_cur_freq", "1800000\n");
}

/*
 * Request division, every CPU saturated, the A53s throttled to 408 MHz (27
 * mW each) and the A72s to 1416 MHz (648 mW each), at control with a
 * budget of 1856 mW: what both clusters would use one OPP up (4 x 40 + 2 x
 * 848).  The kernel's requests (108 and 1296 mW, what they use) give the
 * A53s 143 mW, still 408 MHz, and the A72s 1713 mW, 1608 MHz: the slack
 * lifts the cluster with the smaller step first, and the little one is
 * kept where it is.  With saturated_request both ask for their next OPP
 * (160 and 1696 mW) and both climb.  Returns the A53s' cooling state.
 */
static long little_state_when_saturated(const char *controller, const char *keys,
					uint32_t *little_request_mw)
{
	static const unsigned int all_busy[6] = { 100, 100, 100, 100, 100, 100 };
	struct pa_config *cfg = request_zone(controller, 1856, keys,
					     "{ type = \"cpufreq\"; cpus = \"0-3\"; },\n"
					     "{ type = \"cpufreq\"; cpus = \"4-5\"; }");
	struct engine e;
	long state;

	assert_int_equal(engine_build(&e, cfg), 1);
	tree_put("/sys/devices/system/cpu/cpufreq/policy0/scaling_cur_freq", "408000\n");
	tree_put("/sys/devices/system/cpu/cpufreq/policy4/scaling_cur_freq", "1416000\n");
	two_periods_at_control(&e, all_busy);
	assert_int_equal(e.zones[0].control.budget_mw, 1856);
	assert_int_equal(e.actors[0]->req_mw, 4 * 27);
	assert_int_equal(e.actors[1]->req_mw, 2 * 648);
	*little_request_mw = e.zones[0].control.request_mw[0];
	print_message("%s %s: requests %u + %u mW, granted %u + %u mW\n", controller, keys,
		      e.zones[0].control.request_mw[0], e.zones[0].control.request_mw[1], e.actors[0]->granted_mw,
		      e.actors[1]->granted_mw);
	/* The A72s climb to 1608 MHz either way. */
	assert_int_equal(tree_get("/sys/class/thermal/cooling_device1/cur_state"), 1);
	/* Saturated and held under 1800 MHz: the next period may learn (integral_under). */
	assert_true(e.zones[0].control.pid_state.held_back);
	state = tree_get("/sys/class/thermal/cooling_device0/cur_state");
	assert_int_equal(engine_restore(&e), 0);
	engine_free(&e);
	pa_config_free(cfg);
	tree_put("/sys/devices/system/cpu/cpufreq/policy0/scaling_cur_freq", "1416000\n");
	tree_put("/sys/devices/system/cpu/cpufreq/policy4/scaling_cur_freq", "1800000\n");
	return state;
}

static void test_saturated_request(void **unused)
{
	uint32_t req;

	(void)unused;
	/* 600 MHz is the A53s' state 4; 408 MHz their deepest, 5. */
	assert_int_equal(little_state_when_saturated("default", "control_margin = 0;", &req), 4);
	assert_int_equal(req, 4 * 40);
	assert_int_equal(little_state_when_saturated("default", "control_margin = 0; "
						     "saturated_request = false;", &req), 5);
	assert_int_equal(req, 4 * 27);
	assert_int_equal(little_state_when_saturated("kernel", "", &req), 5);
	assert_int_equal(req, 4 * 27);
}

/* Builds the two clusters' zone with @keys; the zones built (a refused one is counted). */
static int build_clusters(struct engine *e, const char *keys, const char *more_actors)
{
	char text[512];
	struct pa_config *cfg;
	int n;

	snprintf(text, sizeof(text), "zones = ( { name = \"cpu\"; sensor = \"cpu-thermal\"; %s\n"
		 "  actors = ( { type = \"cpufreq\"; cpus = \"0-3\"; },\n"
		 "             { type = \"cpufreq\"; cpus = \"4-5\"; }%s ); } );\n", keys, more_actors);
	cfg = tree_config(text);
	tree_log_clear();
	n = engine_build(e, cfg);
	pa_config_free(cfg);
	return n;
}

/*
 * sustainable_power against what the actors draw together, from their power
 * tables (which differ between the trees): outside the range it is said
 * with the range and the zone runs; more than ten times the most or less
 * than a tenth of the least (a zero too many or too few) the zone is
 * refused, not taken over, and counted as refused (no retry fixes it); so
 * is one whose gains round to zero.  An optional actor missing leaves the
 * most unknown; step_wise uses none of it.
 */
static void test_sustainable_power_range(void **unused)
{
	const char *policy_path = "/sys/class/thermal/thermal_zone0/policy";
	uint32_t min_mw = 0, max_mw = 0;
	struct engine e;
	char keys[160], policy[32];
	struct { uint32_t sp_mw; int zones; const char *said; } c[8];

	(void)unused;
	tree_log_capture();
	tree_put(policy_path, "step_wise\n");	/* what a refused zone keeps */
	assert_int_equal(build_clusters(&e, "", ""), 1);
	for (size_t i = 0; i < e.zones[0].setup.n_actors; i++) {
		const struct actor *a = e.zones[0].setup.actors[i];

		min_mw += a->table.entry[0].power_mw * cpumask_weight(&a->cpus);
		max_mw += a->table.entry[a->table.n - 1].power_mw * cpumask_weight(&a->cpus);
	}
	engine_restore(&e);
	engine_free(&e);
	c[0] = (typeof(c[0])){ max_mw, 1, NULL };
	c[1] = (typeof(c[0])){ min_mw, 1, NULL };
	c[2] = (typeof(c[0])){ max_mw + 1, 1, "is more than the most its actors draw together" };
	c[3] = (typeof(c[0])){ 10 * max_mw, 1, "is more than the most its actors draw together" };
	c[4] = (typeof(c[0])){ 10 * max_mw + 1, 0, "is more than ten times the most its actors" };
	c[5] = (typeof(c[0])){ min_mw - 1, 1, "is less than the least its actors draw together" };
	c[6] = (typeof(c[0])){ min_mw / 10 - 1, 0, "is less than a tenth of the least its actors" };
	c[7] = (typeof(c[0])){ 2, 0, "is less than a tenth of the least its actors" };
	for (size_t k = 0; k < 8; k++) {
		snprintf(keys, sizeof(keys), "sustainable_power = %u;", c[k].sp_mw);
		assert_int_equal(build_clusters(&e, keys, ""), c[k].zones);
		assert_int_equal(e.n_refused, 1 - c[k].zones);
		assert_int_equal(tree_log_count("sustainable_power"), c[k].said ? 1 : 0);
		if (c[k].said) {
			snprintf(keys, sizeof(keys), "this zone's range is %u to %u mW", min_mw, max_mw);
			assert_int_equal(tree_log_count(c[k].said), 1);
			assert_int_equal(tree_log_count(keys), c[k].zones);
			snprintf(keys, sizeof(keys), "give %u to %u mW", min_mw, max_mw);
			assert_int_equal(tree_log_count(keys), 1 - c[k].zones);
			assert_int_equal(tree_log_count("zone skipped"), 1 - c[k].zones);
		}
		tree_get_str(policy_path, policy, sizeof(policy));
		assert_string_equal(policy, c[k].zones ? "user_space" : "step_wise");
		engine_restore(&e);
		engine_free(&e);
	}
	/* The kernel's law is held to the same; step_wise uses neither. */
	snprintf(keys, sizeof(keys), "sustainable_power = %u; controller = \"kernel\";", 2);
	assert_int_equal(build_clusters(&e, keys, ""), 0);
	engine_free(&e);
	snprintf(keys, sizeof(keys), "sustainable_power = 2; controller = \"step_wise\";");
	assert_int_equal(build_clusters(&e, keys, ""), 1);
	assert_int_equal(tree_log_count("sustainable_power"), 0);
	engine_restore(&e);
	engine_free(&e);
	/* An optional actor missing: the most is unknown, the least still counts. */
	snprintf(keys, sizeof(keys), "sustainable_power = %u;", 10 * max_mw + 1);
	assert_int_equal(build_clusters(&e, keys, ",\n { type = \"devfreq\"; device = \"gpu9\"; "
					"optional = true; }"), 1);
	assert_int_equal(tree_log_count("sustainable_power"), 0);
	engine_restore(&e);
	engine_free(&e);
	snprintf(keys, sizeof(keys), "sustainable_power = %u;", min_mw / 10 - 1);
	assert_int_equal(build_clusters(&e, keys, ",\n { type = \"devfreq\"; device = \"gpu9\"; "
					"optional = true; }"), 0);
	snprintf(keys, sizeof(keys), "give %u mW or more (its actors' lowest power together)",
		 min_mw);	/* no most to give */
	assert_int_equal(tree_log_count(keys), 1);
	engine_free(&e);
	/* Gains that round to zero: 50 mW over 140 °C from switch-on to control gives k_pu 0
	 * (control under the zone's critical trip, 95 °C). */
	assert_int_equal(build_clusters(&e, "switch_on_temp = -50000; control_temp = 90000; "
					"sustainable_power = 50; k_po = 10;", ""), 0);
	assert_int_equal(tree_log_count("over the 140000 m°C from switch-on to control gives k_po "
					"9.8 and k_pu 0.0 mW/°C (under 69 mW over this span they "
					"round to zero)"), 1);
	engine_free(&e);
	pa_log_set_handler(NULL, NULL);
}

#define CDEV0 "/sys/class/thermal/cooling_device0/cur_state"

/*
 * After a sleep (engine_resume()): each zone is read afresh (step_wise's
 * and the fallback's trend start from the new reading), its controller
 * forgets its trend but keeps its integral, its model drops the block it
 * was filling, its rise and the CPU load start anew; the next cycle writes
 * every state once, changed or not, over what the firmware put there, and
 * the one after writes only changes again.
 */
static void test_resume(void **unused)
{
	struct pa_config *cfg = tree_config(two_zones);
	struct engine e;
	int64_t integral;

	(void)unused;
	assert_int_equal(engine_build(&e, cfg), 2);
	tree_put("/sys/class/thermal/thermal_zone0/temp", "80000\n");
	tree_put("/sys/class/thermal/thermal_zone1/temp", "40000\n");
	for (unsigned int k = 1; k <= 20; k++) {
		tree_busy_cpus(6, 100 * k);
		assert_int_equal(engine_cycle(&e, k * 100000ULL, NULL), 0);
	}
	integral = e.zones[0].control.pid_state.err_integral;
	assert_true(integral != 0);
	assert_true(e.zones[0].learning.model.block_elapsed_s > 0);
	assert_true(e.zones[0].sensing.rise.primed);
	assert_true(e.actors[0]->state > 0);
	assert_int_equal(tree_get(CDEV0), e.actors[0]->state);
	/* The firmware lifted the cap; the zone cooled by 50 °C while asleep:
	 * not a spike (40 °C), the reading before the sleep is no reference. */
	tree_put(CDEV0, "0\n");
	tree_put("/sys/class/thermal/thermal_zone0/temp", "30000\n");
	assert_int_equal(engine_resume(&e, 2100000), 2);
	assert_int_equal(e.zones[0].sensing.temp_mc, 30000);
	assert_int_equal(e.zones[0].sensing.prev_temp_mc, 30000);
	assert_int_equal(e.zones[0].sensing.sensor_fault, SENSOR_FAULT_NONE);
	assert_false(e.zones[0].sensing.stuck.primed);
	assert_true(e.zones[0].control.pid_state.trend_lost);
	assert_int_equal(e.zones[0].control.pid_state.err_integral, integral);
	assert_false(e.zones[0].learning.model.primed);
	assert_true(e.zones[0].learning.model.block_elapsed_s == 0);
	assert_int_equal(e.zones[0].learning.observed_us, 2100000);
	assert_false(e.zones[0].sensing.rise.primed);
	assert_memory_equal(e.stat_prev, e.stat_cur, sizeof(struct cpu_stat));
	assert_true(e.force_writes);
	/* Hot again at once: the state the daemon holds is written over the 0. */
	tree_put("/sys/class/thermal/thermal_zone0/temp", "80000\n");
	tree_busy_cpus(6, 2200);
	assert_int_equal(engine_cycle(&e, 2200000, NULL), 0);
	assert_false(e.force_writes);
	assert_true(e.actors[0]->state > 0);
	assert_int_equal(tree_get(CDEV0), e.actors[0]->state);
	/* Once: a state put there later is another program's, written over and
	 * counted (the firmware's reset in the sleep was not). */
	assert_int_equal(e.actors[0]->external.count, 0);
	tree_put(CDEV0, "0\n");
	tree_busy_cpus(6, 2300);
	assert_int_equal(engine_cycle(&e, 2300000, NULL), 0);
	assert_int_equal(e.actors[0]->external.count, 1);
	assert_int_equal(tree_get(CDEV0), e.actors[0]->state);
	assert_int_equal(engine_restore(&e), 0);
	assert_states(0);
	engine_free(&e);
	pa_config_free(cfg);
}

/*
 * A file an actor writes (struct actor_file) after another writer's value:
 * once ours is that same value it is read back as ours, so a stop puts the
 * original back (it was left as "another writer's" while ours went stale);
 * at stop a lighter limit than ours is another program's and left, a heavier
 * one is put back.
 */
static void test_actor_file_after_another_writer(void **unused)
{
	struct actor_file f;
	struct external_found found;

	(void)unused;
	tree_put(CDEV0, "0\n");
	actor_file_init(&f);
	assert_int_equal(actor_file_open(&f, CDEV0, true), 0);
	assert_int_equal(actor_file_set(&f, 3), 0);
	tree_put(CDEV0, "2\n");
	assert_int_equal(actor_file_check(&f, &found), 1);
	assert_int_equal(actor_file_set(&f, 2), 0);
	assert_int_equal(f.ours, 2);
	assert_int_equal(actor_file_restore(&f), 0);
	assert_int_equal(tree_get(CDEV0), 0);
	/* Lighter than ours (3): another program's, left. */
	assert_int_equal(actor_file_set(&f, 3), 0);
	tree_put(CDEV0, "1\n");
	assert_int_equal(actor_file_restore(&f), 0);
	assert_int_equal(tree_get(CDEV0), 1);
	/* Heavier than ours: put back. */
	assert_int_equal(actor_file_set(&f, 3), 0);
	tree_put(CDEV0, "5\n");
	assert_int_equal(actor_file_restore(&f), 0);
	assert_int_equal(tree_get(CDEV0), 0);
	actor_file_close(&f);
}

/*
 * scaling_max_freq shows the lowest of every limit on the policy: a value
 * under ours (the kernel's clamp) is not another writer, nor ours coming
 * back when the clamp lifts; a higher one (our cap lifted) is.  At stop the
 * clamp, heavier than ours, is no reason to leave our cap.
 */
static void test_actor_file_under_a_clamp(void **unused)
{
	const char *path = "/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq";
	struct actor_file f;
	struct external_found found;

	(void)unused;
	tree_put(path, "1416000\n");
	actor_file_init(&f);
	assert_int_equal(actor_file_open(&f, path, false), 0);
	f.shows_lowest = true;
	assert_int_equal(actor_file_set(&f, 1200000), 0);
	tree_put(path, "600000\n");		/* clamped under ours */
	assert_int_equal(actor_file_check(&f, &found), 0);
	assert_int_equal(actor_file_set(&f, 1200000), 0);
	assert_int_equal(f.ours, 1200000);
	tree_put(path, "1200000\n");		/* the clamp lifted */
	assert_int_equal(actor_file_check(&f, &found), 0);
	tree_put(path, "1416000\n");		/* our cap lifted: another writer */
	assert_int_equal(actor_file_check(&f, &found), 1);
	assert_int_equal(found.there, 1416000);
	assert_int_equal(actor_file_set(&f, 1200000), 0);
	tree_put(path, "600000\n");
	assert_int_equal(actor_file_restore(&f), 0);
	assert_int_equal(tree_get(path), 1416000);
	actor_file_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_auto_configuration),
		cmocka_unit_test(test_single_passive_trip),
		cmocka_unit_test(test_single_passive_trip_configured),
		cmocka_unit_test(test_control_margin_from_trips),
		cmocka_unit_test(test_cycle_above_control),
		cmocka_unit_test(test_resume),
		cmocka_unit_test(test_actor_file_after_another_writer),
		cmocka_unit_test(test_actor_file_under_a_clamp),
		cmocka_unit_test(test_most_restrictive_grant),
		cmocka_unit_test(test_devfreq_load),
		cmocka_unit_test(test_cpu_hotplug),
		cmocka_unit_test(test_stalled_counters_keep_load),
		cmocka_unit_test(test_step_wise),
		cmocka_unit_test(test_dither_grants),
		cmocka_unit_test(test_saturated_demand),
		cmocka_unit_test(test_saturated_request),
		cmocka_unit_test(test_sustainable_power_range),
	};

	if (tree_main_guard())
		return 1;
	pa_log_set_level(PA_LOG_DEBUG);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
