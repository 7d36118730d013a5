/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "divvy.h"

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t div_round_closest(uint64_t x, uint64_t d)
{
	return (x + d / 2) / d;
}

static void grant_max(struct divvy_actor *actors, size_t n)
{
	for (size_t i = 0; i < n; i++)
		actors[i].granted_mw = actors[i].max_mw;
}

static uint64_t weighted_request(const struct divvy_actor *a)
{
	uint64_t w = min_u64(a->weight_q10, DIVVY_MAX_WEIGHT);

	return (w * min_u64(a->req_mw, DIVVY_MAX_MW)) / DIVVY_WEIGHT_ONE;
}

/*
 * The kernel's second pass gives an uncapped actor g + E * h / C, where E is
 * the surplus of the capped actors, h = max - g its headroom and C the sum of
 * headrooms.  Since the uncapped actors share exactly budget - sum(capped max),
 * that equals max - R * h / C with R = sum(max) - budget, the power that must
 * stay unused.  Computing it in this form, with R taken from the budget
 * rather than from the rounded first pass, keeps each grant monotonic in its
 * request while giving the kernel's result (to rounding).
 */
void divvy(struct divvy_actor *actors, size_t n, uint32_t budget_mw)
{
	if (n > DIVVY_MAX_ACTORS)
		n = DIVVY_MAX_ACTORS;
	uint64_t budget = budget_mw;
	uint64_t total_wreq = 0, total_max = 0, total_headroom = 0, unused;

	for (size_t i = 0; i < n; i++) {
		actors[i].max_mw = (uint32_t)min_u64(actors[i].max_mw, DIVVY_MAX_MW);
		total_wreq += weighted_request(&actors[i]);
		total_max += actors[i].max_mw;
	}
	if (budget >= total_max) {
		grant_max(actors, n);
		return;
	}

	/*
	 * First pass: the share of the weighted request, kept as headroom.  With
	 * no request at all every share is 0 and the second pass divides the
	 * budget by the maxima.
	 */
	for (size_t i = 0; i < n; i++) {
		uint64_t share = total_wreq ? div_round_closest(weighted_request(&actors[i]) *
								budget, total_wreq) : 0;

		actors[i].granted_mw = (uint32_t)min_u64(share, actors[i].max_mw);
		total_headroom += actors[i].max_mw - actors[i].granted_mw;
	}
	if (total_headroom == 0) {
		/* Only rounding let the first pass fill every max. */
		return;
	}

	/* Second pass: every actor gives up its headroom's share of the unused power. */
	unused = total_max - budget;
	for (size_t i = 0; i < n; i++) {
		uint64_t headroom = actors[i].max_mw - actors[i].granted_mw;
		uint64_t cut = div_round_closest(unused * headroom, total_headroom);

		actors[i].granted_mw = (uint32_t)(actors[i].max_mw - min_u64(cut, actors[i].max_mw));
	}
}

void divvy_kernel(struct divvy_actor *actors, size_t n, uint32_t budget_mw)
{
	for (size_t i = 0; i < n; i++) {
		if (weighted_request(&actors[i])) {
			divvy(actors, n, budget_mw);
			return;
		}
	}
	grant_max(actors, n);
}
