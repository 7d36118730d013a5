/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The simulator's plant and its variations (tools/simulator): the die's
 * and the case's time constants measured from a power step, the share of
 * the resistance with the total kept, the true sustainable power and the
 * settled start, the silicon's power scale (the plant's, and each domain's
 * own with --power-scale-domain), the ambient step; and the
 * sensor model: exact, quantised to its resolution, gaussian noise of the
 * given deviation, the same readings for the same seed.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "board.h"
#include "plant.h"
#include "plant_vary.h"
#include "sensor_model.h"

/* The RockPro64's description (tools/simulator/rk3399-rockpro64.sim). */
static const struct thermal_params rockpro64 = {
	.ambient_c = 25, .initial_c = 25, .die_capacity_j_per_k = 0.5, .die_to_case_k_per_w = 2,
	.case_capacity_j_per_k = 3, .case_to_ambient_k_per_w = 18, .static_power_w = 0.3,
	.power_scale = 1,
};

static void init(struct plant *pl, const struct plant_variation *v, enum workload w)
{
	struct thermal_params p = rockpro64;

	plant_vary(&p, v);
	plant_init(pl, board_find("rk3399-rockpro64"), &p, w, 60);
}

/*
 * Seconds until @node (the die or the case) has risen by 63.2 % of @rise_k
 * after a step of @power_w from ambient.
 */
static double rise_time_s(struct plant *pl, const double *node, double power_w, double rise_k)
{
	const double dt_s = 0.0005;
	double t_s = 0;

	while (*node - pl->p.ambient_c < (1 - exp(-1)) * rise_k && t_s < 1000) {
		plant_heat(pl, power_w, dt_s);
		t_s += dt_s;
	}
	return t_s;
}

static void test_die_time_constant(void **unused)
{
	/* The case held (a huge time constant): the die alone, tau = C_die R_die. */
	struct plant_variation v = { .die_tau_s = 2.0, .case_tau_s = 1e7 };
	struct plant pl;

	(void)unused;
	init(&pl, &v, WORKLOAD_STEADY);
	assert_float_equal(plant_die_tau_s(&pl.p), 2.0, 1e-9);
	assert_float_equal(rise_time_s(&pl, &pl.die_c, 1.0, 1.0 * 2), 2.0, 0.02);
	/* Not given: the description's 0.5 J/K x 2 K/W. */
	v.die_tau_s = 0;
	init(&pl, &v, WORKLOAD_STEADY);
	assert_float_equal(rise_time_s(&pl, &pl.die_c, 1.0, 1.0 * 2), 1.0, 0.01);
}

static void test_case_time_constant(void **unused)
{
	struct plant_variation v = { .die_tau_s = 0.1, .case_tau_s = 90 };
	struct plant pl;

	(void)unused;
	init(&pl, &v, WORKLOAD_STEADY);
	assert_float_equal(plant_case_tau_s(&pl.p), 90, 1e-9);
	/*
	 * The die's capacity is small: the case sees the step at once, its
	 * time constant C_case R_case plus about C_die (R_die + R_case), 1 s.
	 */
	assert_float_equal(rise_time_s(&pl, &pl.case_c, 1.0, 1.0 * 18), 91, 0.5);
}

static void test_share_keeps_total(void **unused)
{
	struct plant_variation v = { .die_share = 0.4 };
	struct plant pl;

	(void)unused;
	init(&pl, &v, WORKLOAD_STEADY);
	assert_float_equal(pl.p.die_to_case_k_per_w, 8, 1e-9);
	assert_float_equal(pl.p.case_to_ambient_k_per_w, 12, 1e-9);
	/* The time constants stay the description's: 1 s and 54 s. */
	assert_float_equal(plant_die_tau_s(&pl.p), 1.0, 1e-9);
	assert_float_equal(plant_case_tau_s(&pl.p), 54, 1e-9);
	assert_float_equal(plant_sustainable_w(&pl.p, 75, 25), 2.2, 1e-9);
	/* A new total keeps the share (0.1). */
	v = (struct plant_variation){ .resistance_k_per_w = 30 };
	init(&pl, &v, WORKLOAD_STEADY);
	assert_float_equal(pl.p.die_to_case_k_per_w, 3, 1e-9);
	assert_float_equal(pl.p.case_to_ambient_k_per_w, 27, 1e-9);
}

static void test_sustainable_settles_at_control(void **unused)
{
	struct plant_variation v = { 0 };
	double sp_w;
	struct plant pl;

	(void)unused;
	init(&pl, &v, WORKLOAD_STEADY);
	sp_w = plant_sustainable_w(&pl.p, 75, 25);
	assert_float_equal(sp_w, 50.0 / 20 - 0.3, 1e-9);
	/* Started settled: the case at 25 + 2.5 W x 18 K/W, the die with it. */
	plant_start_settled(&pl, 75);
	assert_float_equal(pl.case_c, 70, 1e-9);
	assert_float_equal(pl.die_c, 70, 1e-9);
	for (int i = 0; i < 30000; i++)
		plant_heat(&pl, sp_w + pl.p.static_power_w, 0.01);
	assert_float_equal(pl.case_c, 70, 0.01);
	assert_float_equal(pl.die_c, 75, 0.01);
}

static void test_power_scale(void **unused)
{
	struct plant_variation v = { 0 };
	struct plant table, silicon;

	(void)unused;
	init(&table, &v, WORKLOAD_STEADY);
	v.power_scale = 1.4;
	init(&silicon, &v, WORKLOAD_STEADY);
	plant_step(&table, 0.01);
	plant_step(&silicon, 0.01);
	assert_float_equal(silicon.power_w - 0.3, 1.4 * (table.power_w - 0.3), 1e-9);
	/* The limit: 1.4 W of the silicon's buys what 1 W of the table's does. */
	assert_float_equal(plant_best_work_rate(&silicon, 1.4), plant_best_work_rate(&table, 1.0),
			   1e-6);
	assert_true(plant_best_work_rate(&silicon, 1.0) < plant_best_work_rate(&table, 1.0));
}

/*
 * --power-scale-domain cluster1=1.4,gpu=0.7: each domain draws its own
 * multiple of its table (cluster0 the plant's 1.0), and the limit buys
 * with the silicon's watts of each.
 */
static void test_domain_scale(void **unused)
{
	const struct board *b = board_find("rk3399-rockpro64");
	struct plant_variation v = { 0 };
	struct plant table, mixed, uniform;
	double all_big[PLANT_MAX_DOMAINS] = { 0 };

	(void)unused;
	init(&table, &v, WORKLOAD_STEADY);
	init(&mixed, &v, WORKLOAD_STEADY);
	assert_int_equal(plant_vary_domains(&mixed.p, b, "cluster1=1.4,gpu=0.7", "test"), 0);
	plant_step(&table, 0.01);
	plant_step(&mixed, 0.01);
	assert_float_equal(mixed.dom[0].power_w, table.dom[0].power_w, 1e-12);
	assert_float_equal(mixed.dom[1].power_w, 1.4 * table.dom[1].power_w, 1e-9);
	assert_float_equal(mixed.dom[2].power_w, 0.7 * table.dom[2].power_w, 1e-9);
	assert_float_equal(mixed.power_w - 0.3, table.dom[0].power_w + 1.4 * table.dom[1].power_w +
			   0.7 * table.dom[2].power_w, 1e-9);
	assert_float_equal(plant_domain_scale(&mixed.p, 0), 1, 0);
	assert_float_equal(plant_domain_scale(&mixed.p, 1), 1.4, 0);
	/* Every domain at 1.4 by its own scale: the limit of --power-scale 1.4. */
	v.power_scale = 1.4;
	init(&uniform, &v, WORKLOAD_STEADY);
	plant_step(&uniform, 0.01);
	for (size_t k = 0; k < b->n_domains; k++)
		all_big[k] = 1.4;
	memcpy(table.p.domain_scale, all_big, sizeof(all_big));
	assert_float_equal(plant_best_work_rate(&table, 2.0), plant_best_work_rate(&uniform, 2.0),
			   1e-3 * plant_best_work_rate(&uniform, 2.0));
	/* The mixed plant: the big cluster dearer, the GPU cheaper than their tables. */
	memset(table.p.domain_scale, 0, sizeof(table.p.domain_scale));
	assert_true(plant_best_work_rate(&mixed, 2.0) != plant_best_work_rate(&table, 2.0));
	assert_true(plant_best_work_rate(&mixed, 2.0) > plant_best_work_rate(&uniform, 2.0));
	/* The plant's scale still applies to the domains without their own. */
	mixed.p.power_scale = 0.5;
	plant_step(&mixed, 0.01);
	assert_float_equal(mixed.dom[0].power_w, 0.5 * table.dom[0].power_w, 1e-12);
	assert_float_equal(mixed.dom[1].power_w, 1.4 * table.dom[1].power_w, 1e-9);
}

/* Bad --power-scale-domain text is refused and changes nothing. */
static void test_domain_scale_bad(void **unused)
{
	const struct board *b = board_find("rk3399-rockpro64");
	static const char *const bad[] = { "cluster9=1.4", "cluster1", "=1.4", "cluster1=",
					   "cluster1=0.05", "cluster1=11", "cluster1=1.4x",
					   "gpu=0.7,cpu=1" };
	struct thermal_params p = rockpro64;

	(void)unused;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(plant_vary_domains(&p, b, bad[i], "test"), -1);
		for (size_t k = 0; k < PLANT_MAX_DOMAINS; k++)
			assert_true(p.domain_scale[k] == 0);
	}
	assert_int_equal(plant_vary_domains(&p, b, "", "test"), 0);
	assert_int_equal(plant_vary_domains(&p, b, NULL, "test"), 0);
	assert_int_equal(plant_vary_domains(&p, b, "gpu=2,cluster0=0.1", "test"), 0);
	assert_true(p.domain_scale[2] == 2 && p.domain_scale[0] == 0.1 && p.domain_scale[1] == 0);
	/* Another text (the command line's over the description's) keeps the domains it does not name. */
	assert_int_equal(plant_vary_domains(&p, b, "cluster1=1.2,gpu=3", "test"), 0);
	assert_true(p.domain_scale[2] == 3 && p.domain_scale[0] == 0.1 && p.domain_scale[1] == 1.2);
}

static void test_ambient_step(void **unused)
{
	struct plant_variation v = { .ambient_step_c = -10 };
	struct plant pl;

	(void)unused;
	init(&pl, &v, WORKLOAD_BURST);
	assert_float_equal(plant_ambient_c(&pl), 25, 1e-9);
	pl.t_s = 30;	/* the middle third of 60 s */
	assert_float_equal(plant_ambient_c(&pl), 15, 1e-9);
	pl.t_s = 45;
	assert_float_equal(plant_ambient_c(&pl), 25, 1e-9);
	/* The ambient-step workload's own step when none is given. */
	v.ambient_step_c = 0;
	init(&pl, &v, WORKLOAD_AMBIENT_STEP);
	pl.t_s = 30;
	assert_float_equal(plant_ambient_c(&pl), 25 + PLANT_DEFAULT_AMBIENT_STEP_C, 1e-9);
}

static void test_sensor_exact(void **unused)
{
	struct sensor_model s;

	(void)unused;
	sensor_model_init(&s, 0, 0, 1);
	assert_int_equal(sensor_model_read_mc(&s, 75.1234), 75123);
	assert_int_equal(sensor_model_read_mc(&s, 74.9996), 75000);
}

static void test_sensor_quantised(void **unused)
{
	struct sensor_model s;
	int low = 0, high = 0;

	(void)unused;
	sensor_model_init(&s, 1.0, 0.2, 7);
	for (int i = 0; i < 2000; i++) {
		long mc = sensor_model_read_mc(&s, 75.37);

		assert_int_equal(mc % 1000, 0);
		low += mc == 75000;
		high += mc == 76000;
	}
	/* The noise moves 75.37 °C over 75.5 about a quarter of the time. */
	assert_true(low > 1200 && high > 300 && low + high > 1990);
	sensor_model_init(&s, 0.5, 0.2, 7);
	for (int i = 0; i < 2000; i++)
		assert_int_equal(sensor_model_read_mc(&s, 75.37) % 500, 0);
	/* Without noise: the nearest step. */
	sensor_model_init(&s, 0.5, 0, 7);
	assert_int_equal(sensor_model_read_mc(&s, 75.26), 75500);
	assert_int_equal(sensor_model_read_mc(&s, 75.24), 75000);
}

static void test_sensor_noise(void **unused)
{
	struct sensor_model s;
	double sum = 0, sum2 = 0;
	const int n = 20000;

	(void)unused;
	sensor_model_init(&s, 0, 0.2, 3);
	for (int i = 0; i < n; i++) {
		double e_c = (sensor_model_read_mc(&s, 70.0) - 70000) / 1000.0;

		sum += e_c;
		sum2 += e_c * e_c;
	}
	assert_float_equal(sum / n, 0, 0.01);
	assert_float_equal(sqrt(sum2 / n - (sum / n) * (sum / n)), 0.2, 0.006);
}

static void test_sensor_seeded(void **unused)
{
	struct sensor_model a, b, c;
	int differ = 0;

	(void)unused;
	sensor_model_init(&a, 0.5, 0.2, 42);
	sensor_model_init(&b, 0.5, 0.2, 42);
	sensor_model_init(&c, 0.5, 0.2, 43);
	for (int i = 0; i < 100; i++) {
		long ra = sensor_model_read_mc(&a, 80.2);

		assert_int_equal(ra, sensor_model_read_mc(&b, 80.2));
		differ += ra != sensor_model_read_mc(&c, 80.2);
	}
	assert_true(differ > 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_die_time_constant),
		cmocka_unit_test(test_case_time_constant),
		cmocka_unit_test(test_share_keeps_total),
		cmocka_unit_test(test_sustainable_settles_at_control),
		cmocka_unit_test(test_power_scale),
		cmocka_unit_test(test_domain_scale),
		cmocka_unit_test(test_domain_scale_bad),
		cmocka_unit_test(test_ambient_step),
		cmocka_unit_test(test_sensor_exact),
		cmocka_unit_test(test_sensor_quantised),
		cmocka_unit_test(test_sensor_noise),
		cmocka_unit_test(test_sensor_seeded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
