/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The default controller's feed-forward and gains from the zone's model (lib/control/model_tuning.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "control/model_tuning.h"
#include "engine/zone.h"

/* 12.5 x 2200 mW / (75 - 25) °C = 550 mW per °C; k_i a tenth of it per period. */
static void test_gains_rule(void **unused)
{
	struct pid_gains g;

	(void)unused;
	model_tuning_gains(2200, 75000, &g);
	assert_int_equal(g.k_po, 563);	/* 550 mW/°C in Q10 mW per m°C: 550 x 1.024 */
	assert_int_equal(g.k_pu, 563);
	assert_int_equal(g.k_i, 56);	/* per period, whatever the period */
	assert_int_equal(g.k_d, 0);
	assert_int_equal(g.integral_cutoff_mc, 0);
	/* Control near the assumed ambient: the gap is taken as 10 °C, not 5. */
	model_tuning_gains(2200, 30000, &g);
	assert_int_equal(g.k_po, 2816);
	/* Huge powers saturate, tiny ones keep a gain of at least 1. */
	model_tuning_gains(UINT32_MAX, 35000, &g);
	assert_int_equal(g.k_po, INT32_MAX);
	model_tuning_gains(0, 75000, &g);
	assert_int_equal(g.k_po, 1);
}

/* The actors' lowest power in these tests, mW: the first approach's feed-forward. */
#define LOWEST_MW 700

static void prior_params(struct pid_params *pp)
{
	pp->mode = PID_MODE_DEFAULT;
	pp->sustainable_power_mw = 8800;
	pp->period_ms = 100;
	assert_int_equal(pid_default_gains(8800, 70000, 75000, &pp->gains), 0);
	pid_default_fixes(&pp->fixes);
}

/* The prior until the confidence reaches ENGAGE, the model until it falls under RELEASE. */
static void test_engage_release(void **unused)
{
	struct model_tuning t = { 0 };
	struct pid_params prior, run;
	struct thermal_estimate est = { .sustainable_w = 2.2, .confidence = 0 };
	struct pid_gains rule;

	(void)unused;
	prior_params(&prior);
	model_tuning_gains(2200, 75000, &rule);
	assert_false(model_tuning_apply(&t, &prior, &est, 75000, LOWEST_MW, &run));
	assert_int_equal(run.sustainable_power_mw, LOWEST_MW);
	assert_int_equal(run.gains.k_po, prior.gains.k_po);

	est.confidence = MODEL_TUNING_ENGAGE;
	assert_true(model_tuning_apply(&t, &prior, &est, 75000, LOWEST_MW, &run));
	assert_true(t.engaged);
	assert_int_equal(run.sustainable_power_mw, 2200);
	assert_int_equal(run.gains.k_po, rule.k_po);
	assert_int_equal(run.gains.k_i, rule.k_i);
	assert_int_equal(run.period_ms, 100);

	/* Between the two thresholds it stays engaged, and follows the estimate. */
	est.confidence = (MODEL_TUNING_ENGAGE + MODEL_TUNING_RELEASE) / 2;
	est.sustainable_w = 2.0;
	assert_false(model_tuning_apply(&t, &prior, &est, 75000, LOWEST_MW, &run));
	assert_int_equal(run.sustainable_power_mw, 2000);

	est.confidence = MODEL_TUNING_RELEASE / 2;
	assert_true(model_tuning_apply(&t, &prior, &est, 75000, LOWEST_MW, &run));
	assert_false(t.engaged);
	assert_int_equal(run.sustainable_power_mw, LOWEST_MW);
	assert_int_equal(run.gains.k_pu, prior.gains.k_pu);

	/* Below the release threshold and below the engage one: the prior's gains. */
	est.confidence = (MODEL_TUNING_ENGAGE + MODEL_TUNING_RELEASE) / 2;
	assert_false(model_tuning_apply(&t, &prior, &est, 75000, LOWEST_MW, &run));
	assert_int_equal(run.sustainable_power_mw, LOWEST_MW);
}

/* Configured gains stay; a model that finds no power at all is not taken. */
static void test_fixed_gains_and_nothing_learnt(void **unused)
{
	struct model_tuning t = { .gains_fixed = true };
	struct pid_params prior, run;
	struct thermal_estimate est = { .sustainable_w = 2.2, .confidence = 1 };

	(void)unused;
	prior_params(&prior);
	prior.gains.k_po = 12345;
	assert_true(model_tuning_apply(&t, &prior, &est, 75000, LOWEST_MW, &run));
	assert_int_equal(run.sustainable_power_mw, 2200);
	assert_int_equal(run.gains.k_po, 12345);
	assert_int_equal(run.gains.k_pu, prior.gains.k_pu);

	est.sustainable_w = 0;
	assert_true(model_tuning_apply(&t, &prior, &est, 75000, LOWEST_MW, &run));
	assert_false(t.engaged);
	assert_int_equal(run.sustainable_power_mw, LOWEST_MW);
}

/*
 * The first approach (issue 34, 1): until the model is confident the
 * feed-forward is the actors' lowest power, not the prior, with the
 * prior's gains.  At the aim a prior of 8800 mW (4 x the truth) fed
 * forward keeps the budget at the actors' 5000 mW maximum, and the zone
 * heats on through control; the lowest power gives 700 mW there, and the
 * proportional term brings the zone up to the aim from below.
 */
static void test_first_approach_lowest_power(void **unused)
{
	struct model_tuning t = { 0 };
	struct pid_params prior, run;
	struct pid_state state = { 0 };
	struct thermal_estimate est = { .sustainable_w = 2.2, .confidence = 0 };
	int32_t aim_mc;

	(void)unused;
	prior_params(&prior);
	assert_false(model_tuning_apply(&t, &prior, &est, 75000, LOWEST_MW, &run));
	assert_int_equal(run.sustainable_power_mw, LOWEST_MW);
	assert_memory_equal(&run.gains, &prior.gains, sizeof(run.gains));
	aim_mc = pid_aim_mc(&run, 75000);
	assert_int_equal(pid_step(&run, &state, 75000, aim_mc, LOWEST_MW, 5000, NULL), LOWEST_MW);
	pid_reset(&state);
	assert_int_equal(pid_step(&prior, &state, 75000, aim_mc, LOWEST_MW, 5000, NULL), 5000);
	/* 2 °C under the aim: the lowest power and p on the prior's k_pu, 2 x 8800 mW / 5 °C. */
	pid_reset(&state);
	assert_in_range(pid_step(&run, &state, 75000, aim_mc - 2000, LOWEST_MW, 9000, NULL),
			LOWEST_MW + 7040 - 10, LOWEST_MW + 7040 + 10);

	/* A prior already under the lowest power is kept (pid_step() clamps it up). */
	prior.sustainable_power_mw = 500;
	assert_false(model_tuning_apply(&t, &prior, &est, 75000, LOWEST_MW, &run));
	assert_int_equal(run.sustainable_power_mw, 500);

	/* A sustainable power the configuration trusts is fed forward, as the kernel does. */
	prior.sustainable_power_mw = 8800;
	prior.fixes.trust_sustainable_power = true;
	assert_false(model_tuning_apply(&t, &prior, &est, 75000, LOWEST_MW, &run));
	assert_int_equal(run.sustainable_power_mw, 8800);
	prior.fixes.trust_sustainable_power = false;

	/* Once confident, the model's; released, the lowest power again. */
	prior.sustainable_power_mw = 8800;
	est.confidence = 1;
	assert_true(model_tuning_apply(&t, &prior, &est, 75000, LOWEST_MW, &run));
	assert_int_equal(run.sustainable_power_mw, 2200);
	est.confidence = 0;
	assert_true(model_tuning_apply(&t, &prior, &est, 75000, LOWEST_MW, &run));
	assert_int_equal(run.sustainable_power_mw, LOWEST_MW);
}

/*
 * What status shows of a zone's sustainable power and model (issue 32, 3):
 * learning under the confidence the controller takes a model at; learnt
 * once it is that sure; in use, with the learnt power, once the default
 * controller runs on it.  Until then the power in use is the first
 * approach's, the actors' lowest, source "lowest" (issue 34, 1), as
 * model_tuning_apply() gives it; the prior where it is kept (always on,
 * trusted, another controller, a prior under the lowest power).
 */
static void test_zone_model_state(void **unused)
{
	struct zone *z = calloc(1, sizeof(*z));
	struct actor a[2] = { { .min_mw = 300 }, { .min_mw = LOWEST_MW - 300 } };
	struct pid_params run;

	(void)unused;
	z->setup.n_actors = 2;
	z->setup.actors[0] = &a[0];
	z->setup.actors[1] = &a[1];
	z->setup.pid.mode = PID_MODE_DEFAULT;
	z->setup.pid.sustainable_power_mw = 2200;
	z->setup.sp_source = SP_FROM_CONFIG;
	z->learning.model.est = (struct thermal_estimate){ .sustainable_w = 2.2, .confidence = 0 };
	assert_int_equal(zone_model_state(z), ZONE_MODEL_LEARNING);
	assert_string_equal(zone_model_state_name(zone_model_state(z)), "learning");
	assert_int_equal(zone_estimate_sustainable_power(z), LOWEST_MW);
	assert_int_equal(zone_feed_forward_mw(z), LOWEST_MW);
	assert_true(zone_first_approach(z));
	assert_string_equal(zone_sp_in_use_source_name(z), "lowest");
	/* What the controller runs on: the same. */
	model_tuning_apply(&z->control.tuning, &z->setup.pid, &z->learning.model.est, 75000,
			   zone_approach_mw(z, LOWEST_MW), &run);
	assert_int_equal(run.sustainable_power_mw, zone_feed_forward_mw(z));
	z->learning.model.est.confidence = MODEL_TUNING_ENGAGE * 0.99;
	assert_int_equal(zone_model_state(z), ZONE_MODEL_LEARNING);
	/* The prior where it is fed forward, as its source. */
	z->setup.always_on = true;
	assert_int_equal(zone_feed_forward_mw(z), 2200);
	assert_false(zone_first_approach(z));
	assert_string_equal(zone_sp_in_use_source_name(z), "config");
	z->setup.always_on = false;
	z->setup.pid.fixes.trust_sustainable_power = true;
	assert_int_equal(zone_feed_forward_mw(z), 2200);
	assert_string_equal(zone_sp_in_use_source_name(z), "config");
	z->setup.pid.fixes.trust_sustainable_power = false;
	z->setup.pid.mode = PID_MODE_KERNEL;
	assert_int_equal(zone_feed_forward_mw(z), 2200);
	assert_string_equal(zone_sp_in_use_source_name(z), "config");
	z->setup.pid.mode = PID_MODE_DEFAULT;
	z->setup.pid.sustainable_power_mw = 500;
	assert_int_equal(zone_feed_forward_mw(z), 500);
	assert_string_equal(zone_sp_in_use_source_name(z), "config");
	z->setup.pid.sustainable_power_mw = 2200;
	/* Sure enough to be taken, not taken yet (idle since): its next active period takes it. */
	z->learning.model.est = (struct thermal_estimate){ .sustainable_w = 2.764,
						  .confidence = MODEL_TUNING_ENGAGE };
	assert_string_equal(zone_model_state_name(zone_model_state(z)), "learnt");
	assert_int_equal(zone_feed_forward_mw(z), 2764);
	assert_false(zone_first_approach(z));
	assert_string_equal(zone_sp_in_use_source_name(z), "learnt");
	/* The controller runs on it: the learnt power is the one in use. */
	assert_true(model_tuning_apply(&z->control.tuning, &z->setup.pid, &z->learning.model.est,
				       75000, LOWEST_MW, &z->control.pid_run));
	assert_string_equal(zone_model_state_name(zone_model_state(z)), "in-use");
	assert_int_equal(zone_feed_forward_mw(z), 2764);
	assert_string_equal(zone_sp_in_use_source_name(z), "learnt");
	/* Kept down to the release threshold, as the controller keeps it. */
	z->learning.model.est.confidence = MODEL_TUNING_RELEASE;
	assert_false(model_tuning_apply(&z->control.tuning, &z->setup.pid, &z->learning.model.est,
					75000, LOWEST_MW, &z->control.pid_run));
	assert_int_equal(zone_model_state(z), ZONE_MODEL_IN_USE);
	z->setup.sp_source = SP_FROM_SYSFS;
	z->learning.model.est.confidence = 0;
	assert_true(model_tuning_apply(&z->control.tuning, &z->setup.pid, &z->learning.model.est,
				       75000, LOWEST_MW, &z->control.pid_run));
	assert_int_equal(zone_model_state(z), ZONE_MODEL_LEARNING);
	assert_int_equal(zone_feed_forward_mw(z), LOWEST_MW);
	assert_string_equal(zone_sp_in_use_source_name(z), "lowest");
	z->setup.always_on = true;
	assert_string_equal(zone_sp_in_use_source_name(z), "sysfs");
	free(z);
}

/*
 * Review (issue 34, 1): zone_feed_forward_mw() and SustainablePowerInUse
 * say they give what the controller feeds forward "now, or will at its
 * first active period".  A zone whose model is already confident but that
 * has not run since (the second boot: the saved model resumed, the zone
 * idle) shows the first approach's lowest power, while its first active
 * period engages the model and feeds forward the learnt power.
 */
static void test_shown_is_what_first_active_period_runs(void **unused)
{
	struct zone *z = calloc(1, sizeof(*z));
	struct actor a[2] = { { .min_mw = 300 }, { .min_mw = LOWEST_MW - 300 } };
	uint32_t shown;

	(void)unused;
	z->setup.n_actors = 2;
	z->setup.actors[0] = &a[0];
	z->setup.actors[1] = &a[1];
	prior_params(&z->setup.pid);
	z->setup.pid.sustainable_power_mw = 2200;
	z->setup.sp_source = SP_FROM_CONFIG;
	z->learning.model.est = (struct thermal_estimate){ .sustainable_w = 2.764,
						  .confidence = MODEL_TUNING_ENGAGE };
	shown = zone_feed_forward_mw(z);
	/* The zone's first active period (period_params()). */
	model_tuning_apply(&z->control.tuning, &z->setup.pid, &z->learning.model.est, 75000,
			   zone_approach_mw(z, LOWEST_MW), &z->control.pid_run);
	assert_int_equal(shown, z->control.pid_run.sustainable_power_mw);
	free(z);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gains_rule),
		cmocka_unit_test(test_engage_release),
		cmocka_unit_test(test_fixed_gains_and_nothing_learnt),
		cmocka_unit_test(test_first_approach_lowest_power),
		cmocka_unit_test(test_zone_model_state),
		cmocka_unit_test(test_shown_is_what_first_active_period_runs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
