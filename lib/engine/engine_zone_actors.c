/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The actors of a configured zone: each entry of its actors list made an
 * actor of the zone, or said with why and what exists; the zone's fate
 * (runs, skipped) said once every entry is known, so that each hint fits.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_build.h"
#include "platform/log.h"

/* An actor of a configured zone that cannot be used, and how many required ones were up to it. */
struct refused_actor {
	size_t index, n;
	char why[BUILD_WHY_MAX];
};

/*
 * Says @r's actor of @zc.  @z_actors: the zone's usable actors, once all
 * are known; SIZE_MAX while more follow (the line then says what alone).
 * optional = true is offered only where it runs the zone: where the zone
 * has another usable actor; where it has none, marking the actors
 * optional would leave it none either ("none of its optional actors").
 */
static void say_refused(const struct zone_config *zc, const struct refused_actor *r,
			size_t z_actors)
{
	const struct actor_config *ac = &zc->actors[r->index];
	char outcome[200] = "";

	if (z_actors == 0)
		snprintf(outcome, sizeof(outcome), "; zone skipped: the kernel's governor keeps it "
			 "(it has no other usable actor, so optional = true would not run it)");
	else if (z_actors != SIZE_MAX && r->n == 1)
		snprintf(outcome, sizeof(outcome), "; zone skipped: the kernel's governor keeps it "
			 "(optional = true on this actor runs the zone without it)");
	else if (z_actors != SIZE_MAX)
		snprintf(outcome, sizeof(outcome), "; zone skipped: the kernel's governor keeps it "
			 "(optional = true on this actor and the %zu above runs the zone without "
			 "them)", r->n - 1);
	pa_log(PA_LOG_ERR, "zone %s: actors[%zu] (line %u, %s): %s%s", zc->name, r->index,
	       ac->line, actor_kind_name(ac->kind), r->why, outcome);
}

/*
 * The actors of a zone that cannot be used, said in the config's order once
 * the zone's fate is known: an optional one "the zone runs without it" only
 * where it does, the last required one with the hint that fits the others.
 * @list: @n of them, allocated at the first (where that failed, @lost: each
 * is said at once, without the zone's fate); @n_refused: the required ones.
 */
struct unusable_actors {
	struct refused_actor *list;
	size_t n, n_refused;
	bool tried, lost;
};

static void say_missing(const struct zone_config *zc, size_t i, const char *why, const char *fate)
{
	const struct actor_config *ac = &zc->actors[i];

	pa_log(PA_LOG_WARNING, "zone %s: actors[%zu] (line %u, %s): %s; optional: %s", zc->name,
	       i, ac->line, actor_kind_name(ac->kind), why, fate);
}

/* Keeps actors[@i] of @zc, unusable for @why, to say with the zone's fate. */
static void note_unusable(struct unusable_actors *u, const struct zone_config *zc, size_t i,
			  const char *why)
{
	bool optional = zc->actors[i].optional;
	struct refused_actor *r;

	if (!u->tried) {
		u->tried = true;
		u->list = calloc(zc->n_actors, sizeof(*u->list));
	}
	if (!optional)
		u->n_refused++;
	if (!u->list) {
		struct refused_actor at_once = { .index = i, .n = u->n_refused };

		u->lost = true;
		snprintf(at_once.why, sizeof(at_once.why), "%s", why);
		if (optional)
			say_missing(zc, i, why, "left out");
		else
			say_refused(zc, &at_once, SIZE_MAX);
		return;
	}
	r = &u->list[u->n++];
	*r = (struct refused_actor){ .index = i, .n = u->n_refused };
	snprintf(r->why, sizeof(r->why), "%s", why);
}

/* Says @u's actors of @zc, whose usable actors are @z_actors; frees @u. */
static void say_unusable(struct unusable_actors *u, const struct zone_config *zc, size_t z_actors)
{
	bool runs = !u->n_refused && z_actors;

	for (size_t k = 0; k < u->n; k++) {
		const struct refused_actor *r = &u->list[k];

		if (zc->actors[r->index].optional)
			say_missing(zc, r->index, r->why, runs ? "the zone runs without it"
				    : "left out, and the zone is skipped");
		else
			say_refused(zc, r, r->n == u->n_refused ? z_actors : SIZE_MAX);
	}
	if (u->lost && u->n_refused)
		pa_log(PA_LOG_ERR, "zone %s: an actor above cannot be used; zone skipped", zc->name);
	free(u->list);
	*u = (struct unusable_actors){ .n = 0 };
}

int build_configured_actors(struct build *b, const struct zone_config *zc, struct zone *z)
{
	struct unusable_actors unusable = { .n = 0 };
	size_t from_config[ZONE_MAX_ACTORS];	/* the config's index of each actor added */
	bool refused;

	for (size_t i = 0; i < zc->n_actors; i++) {
		const struct actor_config *ac = &zc->actors[i];
		char why[BUILD_WHY_MAX];
		struct actor *a = build_actor_for_config(b, ac, why, sizeof(why));
		int r = a ? build_add_zone_actor(z, a, ac->weight_q10) : 0;

		/* The same device by another name ("intel-rapl:0" and "package-0"). */
		if (r == 1)
			snprintf(why, sizeof(why), "%s is an actor above too, named another way; "
				 "list it once", a->name);
		else if (r < 0)
			snprintf(why, sizeof(why), "more than %d actors", ZONE_MAX_ACTORS);
		if (r != 0)
			a = NULL;
		if (a) {
			from_config[z->setup.n_actors - 1] = i;
			continue;
		}
		if (ac->optional)
			b->e->n_missing++;
		note_unusable(&unusable, zc, i, why);
	}
	refused = unusable.n_refused > 0;
	say_unusable(&unusable, zc, z->setup.n_actors);
	if (refused)
		return -ENODEV;
	if (z->setup.n_actors == 0) {
		pa_log(PA_LOG_ERR, "zone %s: none of its optional actors is usable; zone skipped",
		       zc->name);
		return -ENODEV;
	}
	/* Meters only for a zone that runs: a skipped zone's would calibrate an actor shared
	 * with another zone from a meter that zone never asked for. */
	for (size_t k = 0; k < z->setup.n_actors; k++)
		build_open_actor_meter(b, zc, from_config[k], z->setup.actors[k]);
	return 0;
}
