/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The default controller's feed-forward and gains from the zone's model (lib/control/model_tuning.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "control/model_tuning.h"

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
	assert_false(model_tuning_apply(&t, &prior, &est, 75000, &run));
	assert_int_equal(run.sustainable_power_mw, 8800);
	assert_int_equal(run.gains.k_po, prior.gains.k_po);

	est.confidence = MODEL_TUNING_ENGAGE;
	assert_true(model_tuning_apply(&t, &prior, &est, 75000, &run));
	assert_true(t.engaged);
	assert_int_equal(run.sustainable_power_mw, 2200);
	assert_int_equal(run.gains.k_po, rule.k_po);
	assert_int_equal(run.gains.k_i, rule.k_i);
	assert_int_equal(run.period_ms, 100);

	/* Between the two thresholds it stays engaged, and follows the estimate. */
	est.confidence = (MODEL_TUNING_ENGAGE + MODEL_TUNING_RELEASE) / 2;
	est.sustainable_w = 2.0;
	assert_false(model_tuning_apply(&t, &prior, &est, 75000, &run));
	assert_int_equal(run.sustainable_power_mw, 2000);

	est.confidence = MODEL_TUNING_RELEASE / 2;
	assert_true(model_tuning_apply(&t, &prior, &est, 75000, &run));
	assert_false(t.engaged);
	assert_int_equal(run.sustainable_power_mw, 8800);
	assert_int_equal(run.gains.k_pu, prior.gains.k_pu);

	/* Below the release threshold and below the engage one: the prior. */
	est.confidence = (MODEL_TUNING_ENGAGE + MODEL_TUNING_RELEASE) / 2;
	assert_false(model_tuning_apply(&t, &prior, &est, 75000, &run));
	assert_int_equal(run.sustainable_power_mw, 8800);
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
	assert_true(model_tuning_apply(&t, &prior, &est, 75000, &run));
	assert_int_equal(run.sustainable_power_mw, 2200);
	assert_int_equal(run.gains.k_po, 12345);
	assert_int_equal(run.gains.k_pu, prior.gains.k_pu);

	est.sustainable_w = 0;
	assert_true(model_tuning_apply(&t, &prior, &est, 75000, &run));
	assert_false(t.engaged);
	assert_int_equal(run.sustainable_power_mw, 8800);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gains_rule),
		cmocka_unit_test(test_engage_release),
		cmocka_unit_test(test_fixed_gains_and_nothing_learnt),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
