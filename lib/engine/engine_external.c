/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Other writers on the actors' files, each period: every actor reads back
 * what it writes (pread on the descriptors it keeps, no open), and what the
 * read-back means (lib/control/external_write.h) is said and acted on here;
 * and each taken-over zone's policy, read the same way: another governor
 * there gives the zone up (not fought over).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "platform/log.h"
#include "platform/thermal.h"
#include "zone_sensor.h"

/* Says what @e means for @a; @f is the file found changed (when it was). */
static void say(const struct actor *a, enum external_write_event e, const struct external_found *f)
{
	const struct external_write *w = &a->external;

	switch (e) {
	case EXTERNAL_WRITE_FOUND:
		pa_log(PA_LOG_NOTICE, "%s: another writer set %" PRIu64 " where %" PRIu64 " was "
		       "(%s); writing ours back", f->path, f->there, f->known, a->name);
		break;
	case EXTERNAL_WRITE_FOUGHT:
		/* Once an episode: the back-off bounds the fights to one a minute or so. */
		if (w->fights == 1)
			pa_log(PA_LOG_WARNING, "%s: fought over: set to %" PRIu64 " again after ours "
			       "was written back (%s, %" PRIu32 " external writes); ours is written "
			       "back after %" PRIu32 " ms, then doubling up to %u s while it goes on",
			       f->path, f->there, a->name, w->count, w->backoff_ms,
			       EXTERNAL_WRITE_MAX_MS / 1000);
		break;
	case EXTERNAL_WRITE_SETTLED:
		pa_log(PA_LOG_INFO, "%s: ours has held %u s: the other writer is done (%" PRIu32
		       " external writes, %" PRIu32 " fights)", a->name,
		       EXTERNAL_WRITE_FIGHT_MS / 1000, w->count, w->fights);
		break;
	case EXTERNAL_WRITE_YIELD:
		pa_log(PA_LOG_WARNING, "%s: another writer set %" PRIu64 " where %" PRIu64 " was; "
		       "on_external_write = \"yield\": %s is left to it, not written again until a "
		       "restart or a reload that no longer yields it; its zones divide their "
		       "budgets among their other actors", f->path, f->there, f->known, a->name);
		break;
	default:
		break;
	}
}

/* Whether a zone still controlled holds @a, as a power actor or on its fallback. */
static bool held_by_controlled_zone(const struct engine *e, const struct actor *a)
{
	for (size_t z = 0; z < e->n_zones; z++) {
		const struct zone *zone = &e->zones[z];

		if (zone->setup.given_up_to[0])
			continue;
		if (zone_has_actor(zone, a))
			return true;
		for (size_t i = 0; i < zone->setup.n_fallback; i++)
			if (zone->setup.fallback[i].actor == a)
				return true;
	}
	return false;
}

/*
 * Puts @a back as it was found when no controlled zone holds it any more,
 * and leaves it (yielded: never written again).  Return: 1 when it did.
 */
static size_t release_actor(const struct engine *e, struct actor *a)
{
	if (a->external.yielded || held_by_controlled_zone(e, a))
		return 0;
	actor_restore(a);	/* a file another writer set is left; failures logged */
	a->external.yielded = a->given_up = true;
	return 1;
}

void engine_give_up_zone(struct engine *e, struct zone *z, const char *policy, bool say)
{
	size_t released = 0;

	snprintf(z->setup.given_up_to, sizeof(z->setup.given_up_to), "%s", policy);
	z->setup.original_policy[0] = '\0';	/* theirs now: not put back at stop */
	z->control.active = z->period.cap_limited = false;
	z->control.budget_mw = 0;
	/* Its grants and states hold nothing back of a device another zone shares. */
	for (size_t i = 0; i < z->setup.n_actors; i++) {
		z->control.grant_mw[i] = z->setup.actors[i]->max_mw;
		z->control.step_state[i] = 0;
	}
	for (size_t i = 0; i < z->setup.n_fallback; i++)
		z->setup.fallback[i].state = 0;
	for (size_t i = 0; i < z->setup.n_actors; i++)
		released += release_actor(e, z->setup.actors[i]);
	for (size_t i = 0; i < z->setup.n_fallback; i++)
		released += release_actor(e, z->setup.fallback[i].actor);
	engine_note_given_up_bound(e, z);	/* those still held: the kernel writes them too */
	if (say)
		pa_log(PA_LOG_WARNING,
		       "zone %s: another program set thermal_zone%d/policy to "
		       "\"%s\": the zone is given up to it, not fought over; %zu of its %zu devices "
		       "put back as they were found (the others serve zones still controlled); "
		       "not controlled again until powerallocd restarts",
		       z->setup.name, z->setup.tz_id, policy, released,
		       z->setup.n_actors + z->setup.n_fallback);
}

/* A zone whose policy another writer changed from user_space is given up. */
static void check_policies(struct engine *e)
{
	char policy[sizeof(e->zones[0].setup.given_up_to)];

	for (size_t z = 0; z < e->n_zones; z++) {
		struct zone *zone = &e->zones[z];

		if (!zone->setup.policy_open || zone->setup.given_up_to[0] ||
		    thermal_zone_read_policy(&zone->setup.policy, policy, sizeof(policy)) < 0 ||
		    !policy[0] || strcmp(policy, "user_space") == 0)
			continue;
		engine_give_up_zone(e, zone, policy, true);
	}
}

void engine_zone_close(struct zone *z)
{
	zone_sensor_close(z);
	engine_zone_free_meter(z);
	if (z->setup.policy_open)
		sysfs_attr_close(&z->setup.policy);
	z->setup.policy_open = false;
}

void engine_check_writes(struct engine *e, uint64_t now_us)
{
	check_policies(e);
	for (size_t i = 0; i < e->n_actors; i++) {
		struct actor *a = e->actors[i];
		struct external_found found = { 0 };
		bool changed = !a->external.yielded && actor_check(a, &found) > 0;

		if (changed && engine_leave_to_kernel(a, &found))
			continue;
		say(a, external_write_step(&a->external, changed, a->yield_external, now_us), &found);
	}
}

void engine_leave_yielded(struct engine *e)
{
	for (size_t i = 0; i < e->n_actors; i++) {
		struct actor *a = e->actors[i];

		/* Not ours: no request and no room in the division; its heat is the plant's. */
		if (a->external.yielded)
			a->req_mw = a->max_mw = a->min_mw = a->load_pct = a->saturated = 0;
	}
}
