/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Dividing a budget: worked examples, then properties over many random
 * inputs, then agreement with a direct transcription of the kernel's
 * two-pass divvy_up_power() to rounding.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "control/divvy.h"
#include "control/floors.h"

#define W1 DIVVY_WEIGHT_ONE

static void test_single_requester_gets_budget(void **unused)
{
	struct divvy_actor a[] = {
		{ .req_mw = 800, .weight_q10 = W1, .max_mw = 3000 },
		{ .req_mw = 0, .weight_q10 = W1, .max_mw = 3000 },
	};

	(void)unused;
	divvy(a, 2, 1200);
	assert_int_equal(a[0].granted_mw, 1200);
	assert_int_equal(a[1].granted_mw, 0);
}

static void test_equal_requests_share_equally(void **unused)
{
	struct divvy_actor a[] = {
		{ .req_mw = 1, .weight_q10 = W1, .max_mw = 1000 },
		{ .req_mw = 1, .weight_q10 = W1, .max_mw = 1000 },
		{ .req_mw = 1, .weight_q10 = W1, .max_mw = 1000 },
	};

	(void)unused;
	divvy(a, 3, 900);
	for (int i = 0; i < 3; i++)
		assert_int_equal(a[i].granted_mw, 300);
}

/*
 * The first pass divides by the weighted request.  From 6.8 to 6.13 the
 * kernel multiplied by the unweighted request but divided by the weighted
 * total, which gave A 100 mW here instead of 200.
 */
static void test_first_pass_uses_weighted_request(void **unused)
{
	struct divvy_actor a[] = {
		{ .req_mw = 100, .weight_q10 = 2 * W1, .max_mw = 1000 },
		{ .req_mw = 100, .weight_q10 = W1, .max_mw = 1000 },
	};

	(void)unused;
	divvy(a, 2, 300);
	assert_int_equal(a[0].granted_mw, 200);
	assert_int_equal(a[1].granted_mw, 100);
}

/* A is granted 1000 of 2000 but can use 500: its 500 surplus goes to B. */
static void test_surplus_goes_to_headroom(void **unused)
{
	struct divvy_actor a[] = {
		{ .req_mw = 1000, .weight_q10 = W1, .max_mw = 500 },
		{ .req_mw = 1000, .weight_q10 = W1, .max_mw = 2000 },
	};

	(void)unused;
	divvy(a, 2, 2000);
	assert_int_equal(a[0].granted_mw, 500);
	assert_int_equal(a[1].granted_mw, 1500);
}

/*
 * Surplus split by headroom: first pass 600 each (budget 1800, equal
 * requests); A capped at 200 gives back 400; B's headroom 1400 - 600 = 800
 * and C's 1000 - 600 = 400 take it 2:1 -> B 867, C 733 (rounded).
 */
static void test_surplus_divided_by_headroom(void **unused)
{
	struct divvy_actor a[] = {
		{ .req_mw = 10, .weight_q10 = W1, .max_mw = 200 },
		{ .req_mw = 10, .weight_q10 = W1, .max_mw = 1400 },
		{ .req_mw = 10, .weight_q10 = W1, .max_mw = 1000 },
	};

	(void)unused;
	divvy(a, 3, 1800);
	assert_int_equal(a[0].granted_mw, 200);
	assert_int_equal(a[1].granted_mw, 867);
	assert_int_equal(a[2].granted_mw, 733);
}

/*
 * Nothing requested (idle actors): the budget is divided by the maxima, 700
 * and 2000 of 2700: 100 mW -> 26 and 74 (the second pass: 2600 unused, cut
 * 2600 x 700 / 2700 = 674 and 1926).  A budget of 0 grants 0, the lowest
 * state, as it does to actors that request: idle periods in a hot zone must
 * not lift the limits to the maxima and back.
 */
static void test_zero_request_divides_by_max(void **unused)
{
	struct divvy_actor a[] = {
		{ .req_mw = 0, .weight_q10 = W1, .max_mw = 700 },
		{ .req_mw = 0, .weight_q10 = W1, .max_mw = 2000 },
	};

	(void)unused;
	divvy(a, 2, 100);
	assert_int_equal(a[0].granted_mw, 26);
	assert_int_equal(a[1].granted_mw, 74);
	divvy(a, 2, 0);
	assert_int_equal(a[0].granted_mw, 0);
	assert_int_equal(a[1].granted_mw, 0);
	/* Weight 0 turns a request into no request. */
	a[0].req_mw = 500;
	a[0].weight_q10 = 0;
	divvy(a, 2, 100);
	assert_int_equal(a[0].granted_mw, 26);
	/* And requests do not change a budget of 0. */
	a[0].weight_q10 = W1;
	a[1].req_mw = 1;
	divvy(a, 2, 0);
	assert_int_equal(a[0].granted_mw, 0);
	assert_int_equal(a[1].granted_mw, 0);
}

static void test_budget_above_total_max(void **unused)
{
	struct divvy_actor a[] = {
		{ .req_mw = 300, .weight_q10 = W1, .max_mw = 700 },
		{ .req_mw = 900, .weight_q10 = W1, .max_mw = 2000 },
	};

	(void)unused;
	divvy(a, 2, 5000);
	assert_int_equal(a[0].granted_mw, 700);
	assert_int_equal(a[1].granted_mw, 2000);
}

static void test_no_actors(void **unused)
{
	(void)unused;
	divvy(NULL, 0, 1000);	/* must not touch anything */
}

/* xorshift64*: deterministic, so a failure reproduces. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint32_t rnd(uint32_t bound)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dULL) >> 32) % bound;
}

/* A power spread over several magnitudes, including 0. */
static uint32_t rnd_power(void)
{
	static const uint32_t scale[] = { 1, 10, 1000, 10000, 100000, DIVVY_MAX_MW };

	return rnd(scale[rnd(6)] + 1);
}

static size_t random_actors(struct divvy_actor *a, uint32_t *budget)
{
	size_t n = 1 + rnd(8);

	for (size_t i = 0; i < n; i++) {
		a[i].req_mw = rnd_power();
		a[i].max_mw = rnd_power();
		a[i].weight_q10 = rnd(4) ? W1 : rnd(8 * W1);
	}
	*budget = rnd_power() * (uint32_t)(1 + rnd(4));
	return n;
}

static uint64_t total(const struct divvy_actor *a, size_t n, int field)
{
	uint64_t t = 0;

	for (size_t i = 0; i < n; i++)
		t += field == 0 ? a[i].granted_mw : field == 1 ? a[i].max_mw
		     : (uint64_t)a[i].weight_q10 * a[i].req_mw / W1;
	return t;
}

static void test_property_bounds(void **unused)
{
	(void)unused;
	for (int iter = 0; iter < 200000; iter++) {
		struct divvy_actor a[8];
		uint32_t budget;
		size_t n = random_actors(a, &budget);
		uint64_t granted, max;

		divvy(a, n, budget);
		granted = total(a, n, 0);
		max = total(a, n, 1);
		for (size_t i = 0; i < n; i++)
			assert_true(a[i].granted_mw <= a[i].max_mw);
		if (budget >= max) {
			for (size_t i = 0; i < n; i++)
				assert_int_equal(a[i].granted_mw, a[i].max_mw);
			continue;
		}
		/* The whole budget is handed out, to rounding, and no more. */
		assert_true(granted <= (uint64_t)budget + n);
		assert_true(granted + n >= budget);
		/* With nothing requested, by the maxima: within 1 mW of budget x max / sum. */
		for (size_t i = 0; i < n && total(a, n, 2) == 0; i++) {
			uint64_t share = (uint64_t)budget * a[i].max_mw / max;

			assert_true(a[i].granted_mw + 1 >= share && a[i].granted_mw <= share + 1);
		}
		/* A budget of 0 is the lowest state for every actor, whatever it requests. */
		for (size_t i = 0; i < n && budget == 0; i++)
			assert_int_equal(a[i].granted_mw, 0);
	}
}

static void test_property_monotonic_in_request(void **unused)
{
	(void)unused;
	for (int iter = 0; iter < 20000; iter++) {
		struct divvy_actor a[8], b[8];
		uint32_t budget, prev = 0;
		size_t n = random_actors(a, &budget);
		size_t j = rnd((uint32_t)n);

		a[j].weight_q10 = W1;
		for (uint32_t step = 0; step < 40; step++) {
			for (size_t i = 0; i < n; i++)
				b[i] = a[i];
			b[j].req_mw = step * (1 + a[j].max_mw / 16);	/* from idle */
			divvy(b, n, budget);
			assert_true(b[j].granted_mw >= prev);
			prev = b[j].granted_mw;
		}
	}
}

/* Linux 6.13's divvy_up_power(), for comparison (weights applied by the caller). */
static void kernel_divvy(struct divvy_actor *a, size_t n, uint32_t budget)
{
	uint64_t total_req = total(a, n, 2), extra = 0, capped_extra = 0, headroom[8];

	if (!total_req) {
		/* Nobody requested anything: everybody gets the maximum power. */
		for (size_t i = 0; i < n; i++)
			a[i].granted_mw = a[i].max_mw;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t wreq = (uint64_t)a[i].weight_q10 * a[i].req_mw / W1;
		uint64_t g = (wreq * budget + total_req / 2) / total_req;

		if (g > a[i].max_mw) {
			extra += g - a[i].max_mw;
			g = a[i].max_mw;
		}
		a[i].granted_mw = (uint32_t)g;
		headroom[i] = a[i].max_mw - g;
		capped_extra += headroom[i];
	}
	if (!extra || !capped_extra)
		return;
	if (extra > capped_extra)
		extra = capped_extra;
	for (size_t i = 0; i < n; i++)
		a[i].granted_mw += (uint32_t)((headroom[i] * extra + capped_extra / 2) / capped_extra);
}

/*
 * divvy_kernel() is the kernel's division to rounding for every input;
 * divvy() too but where nothing is requested (it divides by the maxima).
 */
static void test_matches_kernel_to_rounding(void **unused)
{
	(void)unused;
	for (int iter = 0; iter < 100000; iter++) {
		struct divvy_actor a[8], k[8], ours[8];
		uint32_t budget;
		size_t n = random_actors(a, &budget);
		bool idle = total(a, n, 2) == 0;

		for (size_t i = 0; i < n; i++)
			k[i] = ours[i] = a[i];
		divvy_kernel(a, n, budget);
		divvy(ours, n, budget);
		kernel_divvy(k, n, budget);
		for (size_t i = 0; i < n; i++) {
			int64_t diff = (int64_t)a[i].granted_mw - k[i].granted_mw;
			int64_t ours_diff = (int64_t)ours[i].granted_mw - k[i].granted_mw;

			assert_true(diff <= (int64_t)n && diff >= -(int64_t)n);
			if (idle && budget < total(k, n, 1))
				continue;	/* divvy() divides by the maxima */
			assert_true(ours_diff <= (int64_t)n && ours_diff >= -(int64_t)n);
		}
	}
}

/* The kernel's law with nothing requested: every actor at its max, at any budget. */
static void test_kernel_idle_gets_max(void **unused)
{
	struct divvy_actor a[] = {
		{ .req_mw = 0, .weight_q10 = W1, .max_mw = 700 },
		{ .req_mw = 0, .weight_q10 = W1, .max_mw = 2000 },
	};

	(void)unused;
	divvy_kernel(a, 2, 0);
	assert_int_equal(a[0].granted_mw, 700);
	assert_int_equal(a[1].granted_mw, 2000);
	a[0].req_mw = 100;
	divvy_kernel(a, 2, 0);
	assert_int_equal(a[0].granted_mw, 0);
	assert_int_equal(a[1].granted_mw, 0);
}

/*
 * A budget that bounds what is drawn (floors.h): no actor granted under what
 * its lowest state draws, the others sharing what is left.
 */
static void test_floors_held_and_the_rest_shared(void **unused)
{
	struct divvy_actor a[] = {
		{ .req_mw = 900, .weight_q10 = W1, .max_mw = 3000 },
		{ .req_mw = 100, .weight_q10 = W1, .max_mw = 3000 },
		{ .req_mw = 0, .weight_q10 = W1, .max_mw = 3000 },
	};
	const uint32_t floor_mw[] = { 100, 200, 300 };

	(void)unused;
	/* By request: 900, 100, 0; the second and third held at 200 and 300. */
	floors_divvy(a, 3, floor_mw, 1000, false);
	assert_int_equal(a[0].granted_mw, 500);
	assert_int_equal(a[1].granted_mw, 200);
	assert_int_equal(a[2].granted_mw, 300);
	/* Under the floors' 600 mW: each at its floor, however it asks. */
	floors_divvy(a, 3, floor_mw, 400, false);
	assert_int_equal(a[0].granted_mw, 100);
	assert_int_equal(a[1].granted_mw, 200);
	assert_int_equal(a[2].granted_mw, 300);
	/* Nobody under a floor: divvy()'s grants. */
	floors_divvy(a, 3, floor_mw, 5000, false);
	assert_int_equal(a[0].granted_mw, 3000);
	assert_int_equal(a[1].granted_mw, 1182);
	assert_int_equal(a[2].granted_mw, 818);
}

/* The kernel's law grants every maximum to idle actors; not once some are held. */
static void test_floors_kernel_rest_still_bound(void **unused)
{
	struct divvy_actor a[] = {
		{ .req_mw = 500, .weight_q10 = W1, .max_mw = 3000 },
		{ .req_mw = 0, .weight_q10 = W1, .max_mw = 3000 },
	};
	const uint32_t floor_mw[] = { 1200, 0 };

	(void)unused;
	/* 1000 mW to the first, under its floor: held there, the idle one gets nothing. */
	floors_divvy(a, 2, floor_mw, 1000, true);
	assert_int_equal(a[0].granted_mw, 1200);
	assert_int_equal(a[1].granted_mw, 0);
	a[0].req_mw = 0;	/* nobody asks: divvy_kernel()'s maxima, no floor under them */
	floors_divvy(a, 2, floor_mw, 1000, true);
	assert_int_equal(a[0].granted_mw, 3000);
	assert_int_equal(a[1].granted_mw, 3000);
}

static void test_property_floors(void **unused)
{
	(void)unused;
	for (int iter = 0; iter < 100000; iter++) {
		struct divvy_actor a[8], b[8];
		uint32_t budget, floor_mw[8] = { 0 };
		size_t n = random_actors(a, &budget);
		uint64_t floors = 0, granted;

		memcpy(b, a, sizeof(a));
		/* No floors: exactly divvy()'s grants. */
		divvy(b, n, budget);
		floors_divvy(a, n, floor_mw, budget, false);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(a[i].granted_mw, b[i].granted_mw);
		for (size_t i = 0; i < n; i++) {
			floor_mw[i] = rnd(4) ? rnd(a[i].max_mw + 1) : 0;
			floors += floor_mw[i];
		}
		floors_divvy(a, n, floor_mw, budget, false);
		granted = total(a, n, 0);
		for (size_t i = 0; i < n; i++)
			assert_true(a[i].granted_mw >= floor_mw[i] && a[i].granted_mw <= a[i].max_mw);
		/* The budget, or the floors where they take more, to rounding. */
		assert_true(granted <= (budget > floors ? budget : floors) + n);
	}
}

/* Between OPPs a grant is not spent: lowered to its OPP, the rest buys whole steps. */
static void test_fill_opps(void **unused)
{
	struct power_table a = { .n = 3 }, b = { .n = 3 }, none = { .n = 0 };
	const struct power_table *tables[] = { &a, &b, &none };
	const uint32_t load_pct[] = { 100, 100, 0 };
	uint32_t grants[3] = { 250, 250, 40 };

	(void)unused;
	for (size_t k = 0; k < 3; k++) {
		a.entry[k] = (struct power_entry){ .freq_khz = 1000 * (k + 1), .power_mw = 100 * (k + 1) };
		b.entry[k] = (struct power_entry){ .freq_khz = 1000 * (k + 1),
						   .power_mw = (uint32_t[]){ 50, 150, 400 }[k] };
	}
	/* 200 + 150 at their OPPs, 40 kept (no OPPs): 150 left buys a's 300 mW (+100), not b's. */
	floors_fill_opps(tables, load_pct, 3, 540, grants);
	assert_int_equal(grants[0], 300);
	assert_int_equal(grants[1], 150);
	assert_int_equal(grants[2], 40);
	/* Under the lowest OPPs: they stay there, nothing bought. */
	grants[0] = 100;
	grants[1] = 50;
	floors_fill_opps(tables, load_pct, 3, 100, grants);
	assert_int_equal(grants[0], 100);
	assert_int_equal(grants[1], 50);
	/* Half loaded: an OPP's least grant is its power x load, rounded up. */
	grants[0] = grants[1] = 0;
	floors_fill_opps(tables, (const uint32_t[]){ 33, 33, 0 }, 3, 200, grants);
	assert_int_equal(grants[0], 99);	/* 300 x 0.33: a's top */
	assert_int_equal(grants[1], 50);	/* 49.5 rounded up; its top, 132 mW, would not fit */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_requester_gets_budget),
		cmocka_unit_test(test_kernel_idle_gets_max),
		cmocka_unit_test(test_equal_requests_share_equally),
		cmocka_unit_test(test_first_pass_uses_weighted_request),
		cmocka_unit_test(test_surplus_goes_to_headroom),
		cmocka_unit_test(test_surplus_divided_by_headroom),
		cmocka_unit_test(test_zero_request_divides_by_max),
		cmocka_unit_test(test_budget_above_total_max),
		cmocka_unit_test(test_no_actors),
		cmocka_unit_test(test_property_bounds),
		cmocka_unit_test(test_property_monotonic_in_request),
		cmocka_unit_test(test_matches_kernel_to_rounding),
		cmocka_unit_test(test_floors_held_and_the_rest_shared),
		cmocka_unit_test(test_floors_kernel_rest_still_bound),
		cmocka_unit_test(test_property_floors),
		cmocka_unit_test(test_fill_opps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
