/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Grant dithering: over a run of periods an actor spends its grant on
 * average, alternating between the two OPPs around it, where power2state
 * alone spends the lower OPP's power every period; the carry never exceeds
 * one OPP gap and never winds up at the ends of the table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "control/dither.h"

/* The RK3399's A72 cluster, mW per CPU at full load (its power table). */
static const uint32_t a72_khz[] = { 408000, 600000, 816000, 1008000, 1200000, 1416000,
				    1608000, 1800000 };
static const uint32_t a72_mw[] = { 121, 178, 242, 336, 472, 648, 848, 1130 };
#define A72_OPPS (sizeof(a72_khz) / sizeof(a72_khz[0]))

static void a72_table(struct power_table *t)
{
	struct opp opps[A72_OPPS] = { { 0 } };

	for (size_t i = 0; i < A72_OPPS; i++) {
		opps[i].freq_khz = a72_khz[i];
		opps[i].power_mw = a72_mw[i];
	}
	assert_int_equal(power_table_build(opps, A72_OPPS, 0, t), 0);
}

/* What an actor spends at the OPP power2state picks for @grant_mw, mW. */
static uint32_t spent(const struct power_table *t, uint32_t grant_mw, uint32_t load_pct)
{
	return power_table_requested_power(t, power_table_power_to_freq(t, grant_mw, load_pct),
					   load_pct);
}

/*
 * Two busy A72s granted 2220 mW: 1608 MHz costs 1696 mW, 1800 MHz 2260.
 * Without the carry they spend 1696 every period (524 mW a period unspent);
 * with it, (2220 - 1696) / (2260 - 1696) = 93 % of the periods run at
 * 1800 MHz and the mean is the grant.
 */
static void test_mean_is_grant(void **unused)
{
	struct power_table t;
	uint32_t carry = 0, top = 0;
	uint64_t total = 0;
	const int periods = 1000;

	(void)unused;
	a72_table(&t);
	assert_int_equal(spent(&t, 2220, 200), 1696);
	for (int i = 0; i < periods; i++) {
		uint32_t g = dither_grant(&t, 200, 2220, &carry);
		uint32_t p = spent(&t, g, 200);

		assert_true(p == 1696 || p == 2260);
		top += p == 2260;
		total += p;
	}
	print_message("mean %.1f mW, %u of %d periods at 1800 MHz\n",
		      (double)total / periods, top, periods);
	/* Within one gap over the whole run: the mean is the grant to 0.6 mW. */
	assert_true(total <= 2220ULL * periods);
	assert_true(total + (2260 - 1696) >= 2220ULL * periods);
	assert_in_range(top, 928, 930);
}

/* Nothing is carried at the top OPP nor below the lowest: no windup. */
static void test_ends_carry_nothing(void **unused)
{
	struct power_table t;
	uint32_t carry = 0;

	(void)unused;
	a72_table(&t);
	/* Above the top: the grant as it is, nothing to spend the rest on. */
	for (int i = 0; i < 50; i++)
		assert_int_equal(dither_grant(&t, 200, 3000, &carry), 3000);
	assert_int_equal(carry, 0);
	/* Below the lowest (242 mW for two): the lowest OPP, nothing owed. */
	for (int i = 0; i < 50; i++)
		assert_int_equal(dither_grant(&t, 200, 100, &carry), 100);
	assert_int_equal(carry, 0);
	/* So a grant between OPPs afterwards starts from nothing: 1696 + 100 spends 1696. */
	assert_int_equal(dither_grant(&t, 200, 1796, &carry), 1796);
	assert_int_equal(carry, 100);
	assert_int_equal(dither_grant(&t, 200, 1796, &carry), 1896);
	assert_int_equal(carry, 200);
}

/*
 * Any grants at any loads: each call returns the grant plus the carry it
 * was given, and the carry left is what that OPP leaves unspent: less than
 * the widest gap between adjacent OPPs at that load, or (at the top OPP,
 * after a heavier load) than the carry it was given.
 */
static void test_carry_bounded(void **unused)
{
	struct power_table t;
	uint32_t carry = 0, seed = 12345, worst = 0;

	(void)unused;
	a72_table(&t);
	for (int i = 0; i < 100000; i++) {
		uint32_t load, grant, before = carry, g;

		seed = seed * 1103515245u + 12345u;
		load = (seed >> 8) % 201;	/* 0..200 %: two CPUs */
		seed = seed * 1103515245u + 12345u;
		grant = (seed >> 8) % 2600;
		g = dither_grant(&t, load, grant, &carry);
		assert_int_equal(g, grant + before);
		/* 1130 - 848 = 282 mW is the widest gap of one CPU. */
		assert_true(carry <= 282u * (load ? load : 1) / 100 + 1 || carry < before);
		if (carry)
			assert_int_equal(carry, g - spent(&t, g, load ? load : 1));
		if (carry > worst)
			worst = carry;
	}
	print_message("largest carry %u mW\n", worst);
	assert_true(worst > 0);
}

static void test_saturates_and_empty(void **unused)
{
	struct power_table t, empty = { 0 };
	uint32_t carry = 400;

	(void)unused;
	a72_table(&t);
	assert_int_equal(dither_grant(&t, 200, UINT32_MAX, &carry), UINT32_MAX);
	assert_int_equal(carry, 0);
	carry = 50;
	assert_int_equal(dither_grant(&empty, 200, 1000, &carry), 1050);
	assert_int_equal(carry, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mean_is_grant),
		cmocka_unit_test(test_ends_carry_nothing),
		cmocka_unit_test(test_carry_bounded),
		cmocka_unit_test(test_saturates_and_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
