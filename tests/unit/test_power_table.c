/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Power tables from OPPs: every entry of both RK3399 clusters and the GPU
 * must equal the kernel's value recorded in the board JSON, and the lookups
 * must behave as cpufreq_cooling.c does.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "board.h"
#include "control/power_table.h"

static void build_domain(const struct board_domain *d, struct power_table *t)
{
	struct opp opps[BOARD_MAX_OPPS];

	memset(opps, 0, sizeof(opps));
	/* Reversed, to show that the input order does not matter. */
	for (size_t i = 0; i < d->n_opps; i++) {
		opps[d->n_opps - 1 - i].freq_khz = d->opps[i].freq_khz;
		opps[d->n_opps - 1 - i].voltage_uv = d->opps[i].voltage_uv;
	}
	assert_int_equal(power_table_build(opps, d->n_opps, d->dynamic_power_coefficient, t), 0);
}

static void test_boards_match_kernel_power(void **unused)
{
	size_t checked = 0;

	(void)unused;
	for (size_t b = 0; boards[b]; b++) {
		for (size_t k = 0; k < boards[b]->n_domains; k++) {
			const struct board_domain *d = &boards[b]->domains[k];
			struct power_table t;

			build_domain(d, &t);
			assert_int_equal(t.n, d->n_opps);
			for (size_t i = 0; i < d->n_opps; i++) {
				print_message("%s %s %u kHz: %u uW (want %u)\n", boards[b]->name,
					      d->name, t.entry[i].freq_khz, t.entry[i].power_uw,
					      d->opps[i].power_uw);
				assert_int_equal(t.entry[i].freq_khz, d->opps[i].freq_khz);
				assert_int_equal(t.entry[i].power_uw, d->opps[i].power_uw);
				assert_int_equal(t.entry[i].power_mw, d->opps[i].power_mw);
				checked++;
			}
		}
	}
	/*
	 * rockpro64 and rock960: 6 + 8 + 6 each; odroid-xu4: 13 + 19; rock5b:
	 * 5 + 7 + 7; hikey960: 5 + 5; mt8183: 16 + 16; rk3288: 12; rk3576: 9 + 10
	 */
	assert_int_equal(checked, 40 + 32 + 19 + 10 + 32 + 12 + 19);
}

static void rockpro64_domain(const char *name, struct power_table *t)
{
	const struct board *b = board_find("rk3399-rockpro64");

	assert_non_null(b);
	for (size_t k = 0; k < b->n_domains; k++) {
		if (strcmp(b->domains[k].name, name) == 0) {
			build_domain(&b->domains[k], t);
			return;
		}
	}
	fail_msg("no domain %s", name);
}

/* A72 cluster: 408 121, 600 178, 816 242, 1008 336, 1200 472, 1416 648, 1608 848, 1800 1130. */
static void test_freq_to_power(void **unused)
{
	struct power_table t;

	(void)unused;
	rockpro64_domain("cluster1", &t);
	assert_int_equal(power_table_freq_to_power(&t, 1008000), 336);
	/* Between OPPs: the OPP above (cpu_freq_to_power()). */
	assert_int_equal(power_table_freq_to_power(&t, 1100000), 472);
	assert_int_equal(power_table_freq_to_power(&t, 100000), 121);
	assert_int_equal(power_table_freq_to_power(&t, 2000000), 1130);
}

/*
 * power2state: normalise the grant to one fully loaded CPU, take the highest
 * OPP whose power fits.  Two A72s at 100% (load 200) granted 1000 mW: 500 per
 * CPU -> 1200 MHz (472).  At 50% each (load 100): 1000 -> 1608 MHz (848).
 */
static void test_power_to_freq(void **unused)
{
	struct power_table t;

	(void)unused;
	rockpro64_domain("cluster1", &t);
	assert_int_equal(power_table_power_to_freq(&t, 1000, 200), 1200000);
	assert_int_equal(power_table_power_to_freq(&t, 1000, 100), 1608000);
	assert_int_equal(power_table_power_to_freq(&t, 944, 200), 1200000);	/* 472 exactly */
	assert_int_equal(power_table_power_to_freq(&t, 943, 200), 1008000);
	/* Nothing fits: the lowest OPP. */
	assert_int_equal(power_table_power_to_freq(&t, 10, 200), 408000);
	/* Idle (load 0 is taken as 1): any grant fits the top. */
	assert_int_equal(power_table_power_to_freq(&t, 12, 0), 1800000);
	assert_int_equal(power_table_power_to_freq(&t, 11, 0), 1608000);
	assert_int_equal(power_table_power_to_freq(&t, 0, 0), 408000);
}

static void test_states(void **unused)
{
	struct power_table t;

	(void)unused;
	rockpro64_domain("cluster1", &t);
	assert_int_equal(power_table_max_state(&t), 7);
	assert_int_equal(power_table_freq_to_state(&t, 1800000), 0);
	assert_int_equal(power_table_freq_to_state(&t, 1608000), 1);
	assert_int_equal(power_table_freq_to_state(&t, 408000), 7);
	/* Between OPPs: the state of the OPP below; below all: the deepest. */
	assert_int_equal(power_table_freq_to_state(&t, 1700000), 1);
	assert_int_equal(power_table_freq_to_state(&t, 100000), 7);
	assert_int_equal(power_table_freq_to_state(&t, 5000000), 0);
	for (unsigned int s = 0; s <= 7; s++)
		assert_int_equal(power_table_freq_to_state(&t, power_table_state_to_freq(&t, s)), s);
	assert_int_equal(power_table_state_to_freq(&t, 99), 408000);
}

/* get_dynamic_power(): P(f) * load / 100; the GPU at 600 MHz, 70% busy. */
static void test_requested_power(void **unused)
{
	struct power_table t;

	(void)unused;
	rockpro64_domain("gpu", &t);
	assert_int_equal(power_table_requested_power(&t, 600000, 70), 1355 * 70 / 100);
	rockpro64_domain("cluster0", &t);
	/* Four A53s at 1416 MHz, loads 100+100+50+0 = 250: 179 * 250 / 100. */
	assert_int_equal(power_table_requested_power(&t, 1416000, 250), 447);
}

/* One OPP up from each A53 OPP; between OPPs the current one is the one above. */
static void test_step_up(void **unused)
{
	struct power_table t, empty = { 0 };

	(void)unused;
	rockpro64_domain("cluster0", &t);
	assert_int_equal(power_table_step_up_mw(&t, 408000), 40 - 27);
	assert_int_equal(power_table_step_up_mw(&t, 1000000), 120 - 86);	/* 1008 -> 1200 */
	assert_int_equal(power_table_step_up_mw(&t, 1200000), 179 - 120);
	assert_int_equal(power_table_step_up_mw(&t, 1416000), 0);	/* the top */
	assert_int_equal(power_table_step_up_mw(&t, 3000000), 0);
	assert_int_equal(power_table_step_up_mw(&empty, 408000), 0);
}

static void test_static_power_and_given_power(void **unused)
{
	struct opp opps[] = {
		{ .freq_khz = 1000000, .voltage_uv = 900000, .static_power_mw = 15 },
		{ .freq_khz = 500000, .power_mw = 40, .static_power_mw = 5 },
	};
	struct power_table t;

	(void)unused;
	assert_int_equal(power_table_build(opps, 2, 200, &t), 0);
	/* 200 * 900 * 900 * 1000 / 1e6 = 162000 uW + 15 mW */
	assert_int_equal(t.entry[1].power_uw, 177000);
	assert_int_equal(t.entry[1].power_mw, 177);
	assert_int_equal(t.entry[0].power_mw, 45);
	/* Without a coefficient, an OPP with only a voltage has no power. */
	assert_int_equal(power_table_build(opps, 2, 0, &t), -EINVAL);
}

static void test_build_errors(void **unused)
{
	struct opp opps[POWER_TABLE_MAX_OPPS + 1];
	struct power_table t;

	(void)unused;
	memset(opps, 0, sizeof(opps));
	for (size_t i = 0; i <= POWER_TABLE_MAX_OPPS; i++) {
		opps[i].freq_khz = (uint32_t)(100000 + i * 1000);
		opps[i].voltage_uv = 800000;
	}
	assert_int_equal(power_table_build(opps, 0, 100, &t), -EINVAL);
	assert_int_equal(power_table_build(opps, POWER_TABLE_MAX_OPPS + 1, 100, &t), -E2BIG);
	assert_int_equal(power_table_build(opps, POWER_TABLE_MAX_OPPS, 100, &t), 0);
	opps[1].freq_khz = opps[0].freq_khz;
	assert_int_equal(power_table_build(opps, 2, 100, &t), -EINVAL);
	opps[1].freq_khz = 0;
	assert_int_equal(power_table_build(opps, 2, 100, &t), -EINVAL);
	/* A power past 4294 W of uW does not wrap. */
	opps[0].voltage_uv = 5000000;
	opps[0].freq_khz = 10000000;
	assert_int_equal(power_table_build(opps, 1, 1000000, &t), -ERANGE);
	/* Lookups on an empty table answer 0 rather than reading garbage. */
	memset(&t, 0, sizeof(t));
	assert_int_equal(power_table_freq_to_power(&t, 1000), 0);
	assert_int_equal(power_table_power_to_freq(&t, 1000, 100), 0);
	assert_int_equal(power_table_state_to_freq(&t, 0), 0);
}

/* Power rises with frequency in every board's table; where it falls, the entry. */
static void test_falling(void **unused)
{
	/* The issue's: 27000 mW at 408 MHz, 179 mW at 1416 MHz (given in any order). */
	struct opp given[] = { { .freq_khz = 1416000, .power_mw = 179 },
			       { .freq_khz = 408000, .power_mw = 27000 } };
	struct opp volts[] = { { .freq_khz = 408000, .voltage_uv = 850000 },
			       { .freq_khz = 816000, .voltage_uv = 925000 },
			       { .freq_khz = 1008000, .voltage_uv = 800000 } };
	size_t voltage_dips = 0;
	struct power_table t;

	(void)unused;
	for (size_t b = 0; boards[b]; b++)
		for (size_t k = 0; k < boards[b]->n_domains; k++) {
			build_domain(&boards[b]->domains[k], &t);
			assert_int_equal(power_table_falling(&t, false), 0);
			voltage_dips += power_table_falling(&t, true) != 0;
		}
	/* Exynos5422's A15s: 1.8 GHz on less than 1.7 GHz's voltage, at more power. */
	assert_int_equal(voltage_dips, 1);
	assert_int_equal(power_table_build(given, 2, 0, &t), 0);
	assert_int_equal(power_table_falling(&t, false), 1);
	assert_int_equal(power_table_falling(&t, true), 0);
	assert_int_equal(t.entry[1].freq_khz, 1416000);
	/* The voltage at 1008 MHz falls, and the power with it (f V^2). */
	assert_int_equal(power_table_build(volts, 3, 100, &t), 0);
	assert_int_equal(power_table_falling(&t, true), 2);
	assert_int_equal(power_table_falling(&t, false), 2);
	/* Equal powers are no fall (a table in whole mW repeats them). */
	given[0].power_mw = 27000;
	assert_int_equal(power_table_build(given, 2, 0, &t), 0);
	assert_int_equal(power_table_falling(&t, false), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_falling),
		cmocka_unit_test(test_boards_match_kernel_power),
		cmocka_unit_test(test_freq_to_power),
		cmocka_unit_test(test_power_to_freq),
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_requested_power),
		cmocka_unit_test(test_step_up),
		cmocka_unit_test(test_static_power_and_given_power),
		cmocka_unit_test(test_build_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
