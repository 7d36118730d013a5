/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "floors.h"

void floors_divide(size_t n, const uint32_t *floor_mw, uint32_t budget_mw,
		   floors_divide_fn *divide, const void *ctx, uint32_t *grants_mw)
{
	size_t idx[DIVVY_MAX_ACTORS], k;
	uint32_t sub_mw[DIVVY_MAX_ACTORS], left_mw = budget_mw;
	bool held[DIVVY_MAX_ACTORS] = { false }, again = true;

	if (n > DIVVY_MAX_ACTORS)
		n = DIVVY_MAX_ACTORS;
	while (again) {
		again = false;
		k = 0;
		for (size_t i = 0; i < n; i++)
			if (!held[i])
				idx[k++] = i;
		if (!k)
			return;
		divide(ctx, idx, k, left_mw, sub_mw);
		for (size_t j = 0; j < k; j++) {
			size_t i = idx[j];

			grants_mw[i] = sub_mw[j];
			if (sub_mw[j] >= floor_mw[i])
				continue;
			/* Held at its floor: the others share what is left. */
			grants_mw[i] = floor_mw[i];
			held[i] = true;
			left_mw = left_mw > floor_mw[i] ? left_mw - floor_mw[i] : 0;
			again = true;
		}
	}
}

/* divvy()'s actors, and whether a division of all of them is divvy_kernel()'s. */
struct divvy_set {
	const struct divvy_actor *actors;
	size_t n;
	bool kernel;
};

static void divvy_some(const void *ctx, const size_t *idx, size_t n, uint32_t budget_mw,
		       uint32_t *grants_mw)
{
	const struct divvy_set *s = ctx;
	struct divvy_actor sub[DIVVY_MAX_ACTORS];

	for (size_t j = 0; j < n; j++)
		sub[j] = s->actors[idx[j]];
	if (s->kernel && n == s->n)
		divvy_kernel(sub, n, budget_mw);
	else
		divvy(sub, n, budget_mw);
	for (size_t j = 0; j < n; j++)
		grants_mw[j] = sub[j].granted_mw;
}

void floors_divvy(struct divvy_actor *actors, size_t n, const uint32_t *floor_mw,
		  uint32_t budget_mw, bool kernel)
{
	uint32_t grants_mw[DIVVY_MAX_ACTORS];
	struct divvy_set s = { actors, n < DIVVY_MAX_ACTORS ? n : DIVVY_MAX_ACTORS, kernel };

	floors_divide(s.n, floor_mw, budget_mw, divvy_some, &s, grants_mw);
	for (size_t i = 0; i < s.n; i++)
		actors[i].granted_mw = grants_mw[i];
}

/* The least grant that reaches OPP @k at @load_pct, mW (the lowest OPP: any grant does). */
static uint32_t opp_grant_mw(const struct power_table *t, size_t k, uint32_t load_pct)
{
	uint64_t p = (uint64_t)t->entry[k].power_mw * (load_pct ? load_pct : 1);
	uint64_t mw = k ? (p + 99) / 100 : p / 100;

	return mw > UINT32_MAX ? UINT32_MAX : (uint32_t)mw;
}

/* The OPP @grant_mw reaches at @load_pct (power_table_power_to_freq()'s). */
static size_t opp_of(const struct power_table *t, uint32_t grant_mw, uint32_t load_pct)
{
	uint32_t khz = power_table_power_to_freq(t, grant_mw, load_pct);
	size_t k = t->n - 1;

	while (k > 0 && t->entry[k].freq_khz != khz)
		k--;
	return k;
}

void floors_fill_opps(const struct power_table *const *tables, const uint32_t *load_pct, size_t n,
		      uint32_t budget_mw, uint32_t *grants_mw)
{
	size_t opp[DIVVY_MAX_ACTORS];
	uint64_t used_mw = 0;

	if (n > DIVVY_MAX_ACTORS)
		n = DIVVY_MAX_ACTORS;
	for (size_t i = 0; i < n; i++) {
		if (tables[i]->n) {
			opp[i] = opp_of(tables[i], grants_mw[i], load_pct[i]);
			grants_mw[i] = opp_grant_mw(tables[i], opp[i], load_pct[i]);
		}
		used_mw += grants_mw[i];
	}
	for (;;) {
		size_t best = n;
		uint32_t best_mw = 0, step_mw;

		for (size_t i = 0; i < n; i++) {
			if (!tables[i]->n || opp[i] + 1 >= tables[i]->n)
				continue;
			step_mw = opp_grant_mw(tables[i], opp[i] + 1, load_pct[i]) - grants_mw[i];
			if (used_mw + step_mw <= budget_mw && step_mw >= best_mw) {
				best = i;
				best_mw = step_mw;
			}
		}
		if (best == n)
			return;
		opp[best]++;
		grants_mw[best] += best_mw;
		used_mw += best_mw;
	}
}
