/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Efficiency-aware division on the RK3399's power tables: bounds, the
 * little cores first when both clusters are busy, spare power spread, and
 * over random inputs never less throughput than request-proportional
 * division (evaluated on the same concave (power, throughput) curves).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "board.h"
#include "control/divvy.h"
#include "control/efficiency.h"
#include "control/power_table.h"

static struct power_table little, big, gpu;

static void build(const char *name, struct power_table *t)
{
	const struct board *b = board_find("rk3399-rockpro64");

	for (size_t k = 0; k < b->n_domains; k++) {
		const struct board_domain *d = &b->domains[k];
		struct opp opps[BOARD_MAX_OPPS] = { 0 };

		if (strcmp(d->name, name) != 0)
			continue;
		for (size_t i = 0; i < d->n_opps; i++) {
			opps[i].freq_khz = d->opps[i].freq_khz;
			opps[i].voltage_uv = d->opps[i].voltage_uv;
		}
		assert_int_equal(power_table_build(opps, d->n_opps, d->dynamic_power_coefficient, t), 0);
	}
}

static int setup(void **unused)
{
	(void)unused;
	build("cluster0", &little);
	build("cluster1", &big);
	build("gpu", &gpu);
	return 0;
}

static void actors(struct eff_actor *a, double d0, double d1, double d2)
{
	a[0] = (struct eff_actor){ &little, 4, d0, 381, 1024, 4 * 179 };
	a[1] = (struct eff_actor){ &big, 2, d1, 1024, 1024, 2 * 1130 };
	a[2] = (struct eff_actor){ &gpu, 1, d2, 1024, 1024, 2555 };
}

/* Power and throughput of @a at OPP @k for its demand; k = -1 is idle. */
static void point(const struct eff_actor *a, int k, double *p, double *v)
{
	double top = a->table->entry[a->table->n - 1].freq_khz, b;

	*p = *v = 0;
	if (k < 0)
		return;
	b = fmin(1, a->demand * top / a->table->entry[k].freq_khz);
	*p = (double)a->table->entry[k].power_mw * a->n_cpus * b;
	*v = b * a->table->entry[k].freq_khz / top * a->capacity * a->n_cpus;
}

/* Throughput an actor gets from @mw if it could time-share two OPPs (or idle). */
static double value_at(const struct eff_actor *a, double mw)
{
	double best = 0;

	for (int i = -1; i < (int)a->table->n; i++) {
		for (int j = -1; j < (int)a->table->n; j++) {
			double pi, vi, pj, vj;

			point(a, i, &pi, &vi);
			point(a, j, &pj, &vj);
			if (pi <= mw && mw <= pj && pj > pi)
				best = fmax(best, vi + (vj - vi) * (mw - pi) / (pj - pi));
			if (pj <= mw)
				best = fmax(best, vj);
		}
	}
	return best;
}

static void test_bounds_and_little_first(void **unused)
{
	struct eff_actor a[3];
	uint32_t g[3];

	(void)unused;
	actors(a, 1, 1, 0);
	efficiency_divide(a, 3, 1000, g);
	assert_true(g[0] + g[1] + g[2] <= 1000);
	/* The A53s deliver more per mW: they are fed first, up to their top OPPs. */
	assert_true(g[0] >= 4 * 120);
	assert_int_equal(g[2], 0);
	for (int i = 0; i < 3; i++)
		assert_true(g[i] <= a[i].max_mw);
}

static void test_no_demand_and_spare_power(void **unused)
{
	struct eff_actor a[3];
	uint32_t g[3];

	(void)unused;
	actors(a, 0, 0, 0);
	/* No demand: the budget by the maxima, 716, 2260 and 2555 of 5531 mW
	 * (100 mW: 12.9, 40.9 and 46.2, rounded down, the spare mW to the largest
	 * fraction), and a budget of 0 is the lowest state for all. */
	efficiency_divide(a, 3, 100, g);
	assert_int_equal(g[0], 13);
	assert_int_equal(g[1], 41);
	assert_int_equal(g[2], 46);
	efficiency_divide(a, 3, 0, g);
	for (int i = 0; i < 3; i++)
		assert_int_equal(g[i], 0);
	efficiency_divide(a, 3, 6000, g);
	assert_int_equal(g[0], 716);
	assert_int_equal(g[1], 2260);
	assert_int_equal(g[2], 2555);
	/* Little load, a lot of budget: the rest goes to headroom, no actor starves. */
	actors(a, 0.1, 0.1, 0);
	efficiency_divide(a, 3, 5000, g);
	assert_true(g[0] + g[1] + g[2] <= 5000);
	assert_true(g[2] > 0);
}

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static double rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (double)((rng * 0x2545f4914f6cdd1dULL) >> 11) / (double)(1ULL << 53);
}

static void test_never_worse_than_request_division(void **unused)
{
	(void)unused;
	for (int iter = 0; iter < 3000; iter++) {
		struct eff_actor a[3];
		struct divvy_actor d[3];
		uint32_t g[3], budget = (uint32_t)(rnd() * 6000);
		double eff = 0, req = 0;

		actors(a, rnd(), rnd(), rnd() < 0.3 ? 0 : rnd());
		efficiency_divide(a, 3, budget, g);
		for (int i = 0; i < 3; i++) {
			const struct power_table *t = a[i].table;
			double top = t->entry[t->n - 1].freq_khz;

			/* What the actor draws now, flat out at the top OPP for its demand. */
			d[i].req_mw = (uint32_t)(t->entry[t->n - 1].power_uw / 1000.0 * a[i].n_cpus *
						 fmin(1, a[i].demand * top / top));
			d[i].weight_q10 = 1024;
			d[i].max_mw = a[i].max_mw;
		}
		divvy(d, 3, budget);
		for (int i = 0; i < 3; i++) {
			assert_true(g[i] <= a[i].max_mw);
			eff += value_at(&a[i], g[i]);
			req += value_at(&a[i], d[i].granted_mw);
		}
		assert_true(g[0] + g[1] + g[2] <= budget);
		if (!(eff >= req * 0.999 - 1))
			print_message("budget %u demand %.3f %.3f %.3f eff %u %u %u = %.1f req %u %u %u = %.1f\n", budget, a[0].demand, a[1].demand, a[2].demand, g[0], g[1], g[2], eff, d[0].granted_mw, d[1].granted_mw, d[2].granted_mw, req);
		assert_true(eff >= req * 0.999 - 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bounds_and_little_first),
		cmocka_unit_test(test_no_demand_and_spare_power),
		cmocka_unit_test(test_never_worse_than_request_division),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
