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
