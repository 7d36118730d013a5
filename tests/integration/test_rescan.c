/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An engine built again over a running one (a rescan, a reload) on the
 * RK3399 fixture trees (suite integration): engine_adopt_state() carries
 * each zone's controller and each device's state over, so that a rebuild
 * does not reset a running zone, even when a device appeared; the values to
 * restore stay the ones found before the first takeover.  Also what every
 * period gives a zone's thermal model, and when a rebuild keeps it.
 */
#include <fcntl.h>
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
#include "tree.h"

#define ZONE0 "/sys/class/thermal/thermal_zone0/"
#define GPU_DIR "/sys/devices/virtual/thermal/cooling_device2"
#define PERIOD_US 100000ULL

static const char *const two_clusters =
	"zones = ( { name = \"cpu\"; sensor = \"cpu-thermal\"; sustainable_power = 1500;\n"
	"  actors = ( { type = \"cpufreq\"; cpus = \"0-3\"; },\n"
	"             { type = \"cpufreq\"; cpus = \"4-5\"; } ); } );\n";

static const char *const with_gpu =
	"zones = ( { name = \"cpu\"; sensor = \"cpu-thermal\"; sustainable_power = 1500;\n"
	"  actors = ( { type = \"cpufreq\"; cpus = \"0-3\"; },\n"
	"             { type = \"cpufreq\"; cpus = \"4-5\"; },\n"
	"             { type = \"devfreq\"; device = \"ff9a0000.gpu\"; } ); } );\n";

/* The GPU marked optional: the zone runs without it while it is missing. */
static const char *const with_optional_gpu =
	"zones = ( { name = \"cpu\"; sensor = \"cpu-thermal\"; sustainable_power = 1500;\n"
	"  actors = ( { type = \"cpufreq\"; cpus = \"0-3\"; },\n"
	"             { type = \"cpufreq\"; cpus = \"4-5\"; },\n"
	"             { type = \"devfreq\"; device = \"ff9a0000.gpu\"; optional = true; } ); } );\n";

/* The same zone aiming 10 °C higher: its controller is not the same one. */
static const char *const hotter_control =
	"zones = ( { name = \"cpu\"; sensor = \"cpu-thermal\"; sustainable_power = 1500;\n"
	"  switch_on_temp = 70000; control_temp = 85000;\n"
	"  actors = ( { type = \"cpufreq\"; cpus = \"0-3\"; },\n"
	"             { type = \"cpufreq\"; cpus = \"4-5\"; } ); } );\n";

static uint64_t now_us;
static unsigned int busy;

/* @n periods of all the engine's zones, with every CPU busy. */
static void run(struct engine *e, int n)
{
	for (int k = 0; k < n; k++) {
		busy += 100;
		tree_busy_cpus(6, busy);
		now_us += PERIOD_US;
		assert_int_equal(engine_cycle(e, now_us, NULL), 0);
	}
}

/* A hot zone, running for 2 s. */
static void start_hot(struct engine *e, struct pa_config *cfg)
{
	tree_put(ZONE0 "temp", "80000\n");
	assert_int_equal(engine_build(e, cfg), 1);
	run(e, 20);
	assert_true(e->zones[0].control.active);
}

struct saved_files {
	char text[4096];
};

static int save_one(void *userdata, const char *path, const char *value, const char *ours)
{
	struct saved_files *s = userdata;
	size_t len = strlen(s->text);

	(void)ours;
	snprintf(s->text + len, sizeof(s->text) - len, "%s=%s\n", path, value);
	return 0;
}

/* What engine_save() reports, one "path=value" line per file. */
static const char *saved(const struct engine *e, struct saved_files *s)
{
	s->text[0] = '\0';
	assert_int_equal(engine_save(e, save_one, s), 0);
	return s->text;
}

static void assert_same_controller(const struct zone *z, const struct zone *o)
{
	assert_memory_equal(&z->control.pid_state, &o->control.pid_state, sizeof(z->control.pid_state));
	assert_int_equal(z->control.budget_mw, o->control.budget_mw);
	assert_int_equal(z->control.active, o->control.active);
	assert_int_equal(z->sensing.prev_temp_mc, o->sensing.prev_temp_mc);
	assert_memory_equal(&z->sensing.rise, &o->sensing.rise, sizeof(z->sensing.rise));
}

/*
 * The same config built again over a hot zone: the controller goes on from
 * its integral (a reset would take it back to one period's error), and what
 * is to be restored is what the first engine found, not the limits and the
 * user_space policy the new one found.
 */
static void test_rescan_keeps_the_controller(void **unused)
{
	struct pa_config *cfg = tree_config(two_clusters);
	struct engine old, next;
	struct saved_files s;
	int64_t integral;

	(void)unused;
	start_hot(&old, cfg);
	integral = old.zones[0].control.pid_state.err_integral;
	assert_true(integral < old.zones[0].control.pid_state.prev_err);	/* more than one period in */
	assert_true(tree_get("/sys/class/thermal/cooling_device1/cur_state") > 0);
	assert_int_equal(engine_build(&next, cfg), 1);
	assert_non_null(strstr(saved(&next, &s), ZONE0 "policy=user_space"));
	engine_adopt_state(&next, &old);
	assert_same_controller(&next.zones[0], &old.zones[0]);
	assert_memory_equal(next.zones[0].control.grant_mw, old.zones[0].control.grant_mw,
			    sizeof(next.zones[0].control.grant_mw));
	assert_string_equal(saved(&next, &s),
			    "/sys/class/thermal/cooling_device0/cur_state=0\n"
			    "/sys/class/thermal/cooling_device1/cur_state=0\n"
			    "/sys/class/thermal/cooling_device3/cur_state=0\n"
			    ZONE0 "policy=step_wise\n");
	engine_free(&old);
	run(&next, 1);
	assert_true(next.zones[0].control.pid_state.err_integral <= integral);
	assert_int_equal(engine_restore(&next), 0);
	assert_int_equal(tree_get("/sys/class/thermal/cooling_device1/cur_state"), 0);
	engine_free(&next);
	pa_config_free(cfg);
}

/*
 * An optional GPU missing at the first build and there at the next: it
 * joins the running controller, whose state is carried over; the division
 * gives it its share at once.
 */
static void test_device_that_appears(void **unused)
{
	struct pa_config *cfg = tree_config(with_optional_gpu);
	char away[512];
	struct engine old, next;
	int64_t integral;

	(void)unused;
	snprintf(away, sizeof(away), "%s-away", tree_real_path(GPU_DIR));
	assert_int_equal(rename(tree_real_path(GPU_DIR), away), 0);
	start_hot(&old, cfg);
	assert_int_equal(old.n_missing, 1);
	assert_int_equal(old.zones[0].setup.n_actors, 2);
	assert_int_equal(rename(away, tree_real_path(GPU_DIR)), 0);
	assert_int_equal(engine_build(&next, cfg), 1);
	assert_int_equal(next.n_missing, 0);
	assert_int_equal(next.zones[0].setup.n_actors, 3);
	engine_adopt_state(&next, &old);
	assert_same_controller(&next.zones[0], &old.zones[0]);
	assert_int_equal(next.zones[0].control.grant_mw[1], old.zones[0].control.grant_mw[1]);
	integral = old.zones[0].control.pid_state.err_integral;
	engine_free(&old);
	run(&next, 1);
	assert_true(next.zones[0].control.pid_state.err_integral <= integral);
	assert_true(tree_get("/sys/class/thermal/cooling_device2/cur_state") > 0);
	assert_int_equal(engine_restore(&next), 0);
	assert_int_equal(tree_get("/sys/class/thermal/cooling_device2/cur_state"), 0);
	engine_free(&next);
	pa_config_free(cfg);
}

/*
 * A reload that moves the zone's control temperature: its controller starts
 * afresh (the error it integrated was against another aim); the devices'
 * state and the zone's readings and original policy are carried all the same.
 */
static void test_new_aim_resets_the_controller(void **unused)
{
	struct pa_config *cfg = tree_config(two_clusters), *hotter = tree_config(hotter_control);
	struct engine old, next;
	struct saved_files s;

	(void)unused;
	start_hot(&old, cfg);
	old.actors[1]->retry.errors = 3;
	assert_int_equal(engine_build(&next, hotter), 1);
	engine_adopt_state(&next, &old);
	assert_false(next.zones[0].control.pid_state.primed);
	assert_int_equal(next.zones[0].control.pid_state.err_integral, 0);
	assert_false(next.zones[0].control.active);
	assert_memory_equal(&next.zones[0].sensing.rise, &old.zones[0].sensing.rise, sizeof(old.zones[0].sensing.rise));
	assert_int_equal(next.actors[1]->retry.errors, 3);
	assert_int_equal(next.actors[0]->retry.errors, 0);
	assert_non_null(strstr(saved(&next, &s), ZONE0 "policy=step_wise"));
	assert_non_null(strstr(s.text, "cooling_device1/cur_state=0\n"));
	engine_free(&old);
	assert_int_equal(engine_restore(&next), 0);
	engine_free(&next);
	pa_config_free(cfg);
	pa_config_free(hotter);
}

/* The power the zone's actors draw now (their requests), mW. */
static uint32_t zone_power_mw(const struct zone *z)
{
	uint32_t mw = 0;

	for (size_t i = 0; i < z->setup.n_actors; i++)
		mw += z->setup.actors[i]->req_mw;
	return mw;
}

/*
 * Every period feeds the zone's thermal model its reading and its actors'
 * power: a block of 50 periods is the mean of their requests, a period the
 * zone is not due counts towards its next one, and a failed read breaks the
 * chain of blocks.
 */
static void test_zone_feeds_its_model(void **unused)
{
	struct pa_config *cfg = tree_config(two_clusters);
	double sum_mw = 0, block_mw = 0;
	struct engine e;
	struct zone *z;
	bool due = false;

	(void)unused;
	start_hot(&e, cfg);
	z = &e.zones[0];
	assert_float_equal(z->learning.model.state.block_s, 5, 1e-9);
	while (z->learning.model.state.updates < 2) {
		uint32_t updates = z->learning.model.state.updates;

		run(&e, 1);
		sum_mw += zone_power_mw(z);
		if (z->learning.model.state.updates != updates) {	/* a block completed: its last 50 periods */
			block_mw = sum_mw / 50;
			sum_mw = 0;
		}
	}
	assert_float_equal(z->learning.model.prev_power_w * 1000, block_mw, 0.5);
	assert_float_equal(z->learning.model.prev_temp_c, 80, 1e-6);
	/* A period the zone is not due: its power waits for the next one. */
	busy += 100;
	tree_busy_cpus(6, busy);
	now_us += PERIOD_US;
	assert_int_equal(engine_cycle(&e, now_us, &due), 0);
	assert_int_equal(z->learning.model_elapsed_us, PERIOD_US);
	assert_float_equal(z->learning.model_energy_mj, zone_power_mw(z) * 0.1, 1e-6);
	run(&e, 1);
	assert_int_equal(z->learning.model_elapsed_us, 0);
	/* A failed read: the chain of blocks starts anew, what was learnt stays. */
	tree_put(ZONE0 "temp", "garbage\n");
	run(&e, 1);
	assert_false(z->learning.model.have_prev);
	assert_int_equal(z->learning.model.state.updates, 2);
	tree_put(ZONE0 "temp", "80000\n");
	engine_restore(&e);
	engine_free(&e);
	pa_config_free(cfg);
}

/*
 * A rebuild carries the model while the zone's actors, control temperature
 * and period are the same; another actor or another aim starts it afresh
 * from the prior.
 */
static void test_model_follows_the_zone(void **unused)
{
	struct pa_config *cfg = tree_config(two_clusters), *gpu = tree_config(with_gpu);
	struct pa_config *hotter = tree_config(hotter_control);
	struct pa_config *next_cfg[] = { cfg, gpu, hotter };
	struct engine old;

	(void)unused;
	start_hot(&old, cfg);
	run(&old, 120);
	assert_true(old.zones[0].learning.model.state.updates > 0);
	for (size_t k = 0; k < 3; k++) {
		struct engine next;

		assert_int_equal(engine_build(&next, next_cfg[k]), 1);
		engine_adopt_state(&next, &old);
		if (k == 0) {
			assert_memory_equal(&next.zones[0].learning.model, &old.zones[0].learning.model,
					    sizeof(old.zones[0].learning.model));
		} else {
			assert_int_equal(next.zones[0].learning.model.state.updates, 0);
			assert_int_equal(thermal_model_sustainable_mw(&next.zones[0].learning.model), 1500);
		}
		engine_free(&next);
	}
	engine_restore(&old);
	engine_free(&old);
	pa_config_free(cfg);
	pa_config_free(gpu);
	pa_config_free(hotter);
}

/*
 * An engine starts as ENGINE_INIT (/proc/stat closed, fd -1) and is left so
 * by engine_free(): freeing it again, or one never built, closes no
 * descriptor of the process (fd 0 stays open).
 */
static void test_engine_init(void **unused)
{
	struct pa_config *cfg = tree_config(two_clusters);
	struct engine e = ENGINE_INIT;

	(void)unused;
	assert_int_equal(e.proc_stat.fd, -1);
	assert_int_equal(e.n_zones + e.n_actors, 0);
	engine_free(&e);
	assert_true(fcntl(0, F_GETFD) >= 0);
	assert_int_equal(engine_build(&e, cfg), 1);
	assert_true(e.proc_stat.fd > 0);
	assert_int_equal(engine_restore(&e), 0);
	engine_free(&e);
	assert_int_equal(e.proc_stat.fd, -1);
	assert_null(e.zones);
	engine_free(&e);
	memset(&e, 0xff, sizeof(e));
	engine_init(&e);
	assert_int_equal(e.proc_stat.fd, -1);
	assert_null(e.actors);
	engine_free(&e);
	assert_true(fcntl(0, F_GETFD) >= 0);
	pa_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rescan_keeps_the_controller),
		cmocka_unit_test(test_device_that_appears),
		cmocka_unit_test(test_new_aim_resets_the_controller),
		cmocka_unit_test(test_zone_feeds_its_model),
		cmocka_unit_test(test_model_follows_the_zone),
		cmocka_unit_test(test_engine_init),
	};

	if (tree_main_guard())
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
