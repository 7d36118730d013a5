/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An external power cap over every zone (Manager.SetPowerLimit): the cap is
 * divided among the zones by divvy(), each zone asking for what its actors
 * asked of its last division and holding at most its actors' maximum, and
 * each zone's budget is then the lower of its controller's and its share
 * (zone.c), divided among its actors as usual (efficiency-aware by default).
 */
#include "engine.h"

#include "control/divvy.h"

/* How many of @e's zones hold @a as a power actor (an actor may serve several). */
static unsigned int holders(const struct engine *e, const struct actor *a)
{
	unsigned int n = 0;

	for (size_t z = 0; z < e->n_zones; z++)
		for (size_t i = 0; i < e->zones[z].n_actors; i++)
			n += e->zones[z].actors[i] == a;
	return n ? n : 1;
}

/*
 * Zone @z's request of the cap and its most, mW: its actors' requests as
 * its last division took them and their maxima, an actor shared with other
 * zones counted once among them all.
 */
static void zone_demand(const struct engine *e, const struct zone *z, uint64_t *req_mw,
			uint64_t *max_mw)
{
	*req_mw = *max_mw = 0;
	for (size_t i = 0; i < z->n_actors; i++) {
		unsigned int n = holders(e, z->actors[i]);

		*req_mw += z->request_mw[i] / n;
		*max_mw += z->actors[i]->max_mw / n;
	}
}

static uint32_t clamp_mw(uint64_t mw)
{
	return mw > DIVVY_MAX_MW ? DIVVY_MAX_MW : (uint32_t)mw;
}

void engine_share_cap(struct engine *e)
{
	struct divvy_actor d[DIVVY_MAX_ACTORS];
	size_t n = e->n_zones < DIVVY_MAX_ACTORS ? e->n_zones : DIVVY_MAX_ACTORS;
	uint64_t req, max, floor_mw = 0;

	for (size_t i = 0; i < e->n_actors; i++)
		floor_mw += e->actors[i]->min_mw;
	e->lowest_mw = clamp_mw(floor_mw);
	for (size_t z = 0; z < e->n_zones; z++)
		e->zones[z].capped = false;
	if (!e->cap_mw)
		return;
	for (size_t z = 0; z < n; z++) {
		zone_demand(e, &e->zones[z], &req, &max);
		d[z] = (struct divvy_actor){ .req_mw = clamp_mw(req), .weight_q10 = DIVVY_WEIGHT_ONE,
					     .max_mw = clamp_mw(max) };
	}
	/* Nothing asked (no division ran yet, or idle zones): divvy() divides by the maxima. */
	divvy(d, n, e->cap_mw);
	for (size_t z = 0; z < n; z++) {
		e->zones[z].capped = true;
		e->zones[z].cap_mw = d[z].granted_mw;
	}
}
