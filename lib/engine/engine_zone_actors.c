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

/*
 * A required actor of a configured zone that cannot be used: said once the
 * zone's other actors are known, so that the hint fits them.
 */
struct refused_actor {
	size_t index, n;	/* the last one, and how many there were */
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
 * The optional actors of a zone that cannot be used, said once the zone's
 * fate is known: "the zone runs without it" only where it does.  @why: an
 * array of @cap reasons, allocated at the first (NULL where that failed:
 * each is then said at once, without the zone's fate).
 */
struct missing_actors {
	size_t n, cap;
	bool tried;
	size_t *index;
	char (*why)[BUILD_WHY_MAX];
};

static void say_missing_one(const struct zone_config *zc, size_t i, const char *why,
			    const char *fate)
{
	const struct actor_config *ac = &zc->actors[i];

	pa_log(PA_LOG_WARNING, "zone %s: actors[%zu] (line %u, %s): %s; optional: %s", zc->name,
	       i, ac->line, actor_kind_name(ac->kind), why, fate);
}

/* Keeps actors[@i] of @zc, unusable for @why, to say with the zone's fate. */
static void note_missing(struct missing_actors *m, const struct zone_config *zc, size_t i,
			 const char *why)
{
	if (!m->tried) {
		m->tried = true;
		m->index = calloc(zc->n_actors, sizeof(*m->index));
		m->why = calloc(zc->n_actors, sizeof(*m->why));
		m->cap = m->index && m->why ? zc->n_actors : 0;
	}
	if (m->n >= m->cap) {
		say_missing_one(zc, i, why, "left out");
		return;
	}
	m->index[m->n] = i;
	snprintf(m->why[m->n++], BUILD_WHY_MAX, "%s", why);
}

/* Says @m's actors: the zone @runs without them, or it is skipped (said next); frees @m. */
static void say_missing(struct missing_actors *m, const struct zone_config *zc, bool runs)
{
	for (size_t k = 0; k < m->n; k++)
		say_missing_one(zc, m->index[k], m->why[k], runs ? "the zone runs without it"
				: "left out, and the zone is skipped (below)");
	free(m->index);
	free(m->why);
	*m = (struct missing_actors){ .n = 0 };
}

int build_configured_actors(struct build *b, const struct zone_config *zc, struct zone *z)
{
	struct refused_actor refused = { .n = 0 };
	struct missing_actors missing = { .n = 0 };
	size_t from_config[ZONE_MAX_ACTORS];	/* the config's index of each actor added */

	for (size_t i = 0; i < zc->n_actors; i++) {
		const struct actor_config *ac = &zc->actors[i];
		char why[BUILD_WHY_MAX];
		struct actor *a = build_actor_for_config(b, ac, why, sizeof(why));

		/* The same device by another name ("intel-rapl:0" and "package-0"). */
		if (a && build_zone_has_actor(z, a)) {
			snprintf(why, sizeof(why), "%s is an actor above too, named another way; "
				 "list it once", a->name);
			a = NULL;
		}
		if (a && build_add_zone_actor(z, a, ac->weight_q10) < 0) {
			snprintf(why, sizeof(why), "more than %d actors", ZONE_MAX_ACTORS);
			a = NULL;
		}
		if (a) {
			from_config[z->setup.n_actors - 1] = i;
			continue;
		}
		if (!ac->optional) {
			if (refused.n)
				say_refused(zc, &refused, SIZE_MAX);
			refused.index = i;
			refused.n++;
			memcpy(refused.why, why, sizeof(why));
			continue;
		}
		note_missing(&missing, zc, i, why);
		b->e->n_missing++;
	}
	say_missing(&missing, zc, !refused.n && z->setup.n_actors);
	if (refused.n) {
		say_refused(zc, &refused, z->setup.n_actors);
		return -ENODEV;
	}
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
