/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An external power cap over every zone (Manager.SetPowerLimit): the cap is
 * divided among the zones by divvy(), each zone asking for what its actors
 * asked of its last division and holding at most its actors' maximum, and
 * none given less than its actors draw at their lowest states
 * (floors_divide()); each zone's budget is then the lower of its
 * controller's and its share (zone.c), divided among its actors as usual
 * (efficiency-aware by default), again none under its lowest state's draw.
 */
#include "engine.h"

#include <stdio.h>

#include "control/floors.h"

/* How many of @e's zones hold @a as a power actor (an actor may serve several). */
static unsigned int holders(const struct engine *e, const struct actor *a)
{
	unsigned int n = 0;

	for (size_t z = 0; z < e->n_zones; z++)
		for (size_t i = 0; i < e->zones[z].setup.n_actors; i++)
			n += e->zones[z].setup.actors[i] == a;
	return n ? n : 1;
}

/*
 * Zone @z's request of the cap, its most and its least, mW: its actors'
 * requests as its last division took them, their maxima and what they draw
 * at their lowest states now, an actor shared with other zones counted
 * once among them all.
 */
static void zone_demand(const struct engine *e, const struct zone *z, uint64_t *req_mw,
			uint64_t *max_mw, uint64_t *floor_mw)
{
	*req_mw = *max_mw = *floor_mw = 0;
	for (size_t i = 0; i < z->setup.n_actors; i++) {
		unsigned int n = holders(e, z->setup.actors[i]);

		*req_mw += z->control.request_mw[i] / n;
		*max_mw += z->setup.actors[i]->max_mw / n;
		*floor_mw += actor_lowest_mw(z->setup.actors[i]) / n;
	}
}

static uint32_t clamp_mw(uint64_t mw)
{
	return mw > DIVVY_MAX_MW ? DIVVY_MAX_MW : (uint32_t)mw;
}

void engine_share_cap(struct engine *e)
{
	struct divvy_actor d[DIVVY_MAX_ACTORS];
	uint32_t zone_floor_mw[DIVVY_MAX_ACTORS] = { 0 };
	size_t n = e->n_zones < DIVVY_MAX_ACTORS ? e->n_zones : DIVVY_MAX_ACTORS;
	uint64_t req, max, least, floor_mw = 0, top_mw = 0;

	for (size_t i = 0; i < e->n_actors; i++) {
		floor_mw += e->actors[i]->min_mw;
		top_mw += e->actors[i]->max_mw;
	}
	e->lowest_mw = clamp_mw(floor_mw);
	for (size_t z = 0; z < e->n_zones; z++)
		e->zones[z].period.capped = false;
	/* A cap at or over every actor flat out holds nothing: the zones divide as uncapped. */
	if (!e->cap_mw || e->cap_mw >= top_mw)
		return;
	for (size_t z = 0; z < n; z++) {
		zone_demand(e, &e->zones[z], &req, &max, &least);
		d[z] = (struct divvy_actor){ .req_mw = clamp_mw(req), .weight_q10 = DIVVY_WEIGHT_ONE,
					     .max_mw = clamp_mw(max) };
		zone_floor_mw[z] = clamp_mw(least);
	}
	/* Nothing asked (no division ran yet, or idle zones): divvy() divides by the maxima. */
	floors_divvy(d, n, zone_floor_mw, e->cap_mw, false);
	for (size_t z = 0; z < n; z++) {
		e->zones[z].period.capped = true;
		e->zones[z].period.cap_mw = d[z].granted_mw;
	}
}

/* Appends @name to the list in @buf (@size bytes) whose length is *@len. */
static void list_add(char *buf, size_t size, size_t *len, const char *name)
{
	int r;

	if (*len >= size)
		return;
	r = snprintf(buf + *len, size - *len, "%s%s", *len ? ", " : "", name);
	*len += r > 0 ? (size_t)r : 0;
}

const char *engine_lowest_text(const struct engine *e, char *buf, size_t size)
{
	char lowest[256] = "", above[256] = "";
	size_t n_lowest = 0, n_above = 0;

	for (size_t i = 0; i < e->n_actors; i++) {
		const struct actor *a = e->actors[i];

		if (!a->max_mw)
			continue;	/* no power of its own: a fan */
		if (actor_at_lowest(a))
			list_add(lowest, sizeof(lowest), &n_lowest, a->name);
		else
			list_add(above, sizeof(above), &n_above, a->name);
	}
	if (!n_above)
		snprintf(buf, size, "every actor is held at its lowest state");
	else if (!n_lowest)
		snprintf(buf, size, "no actor is at its lowest state (%s): the loads now draw less "
			 "than at full load", above);
	else
		snprintf(buf, size, "held at their lowest states: %s; above theirs: %s (the loads "
			 "now draw less than at full load)", lowest, above);
	return buf;
}
