/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Other writers on the actors' files, each period: every actor reads back
 * what it writes (pread on the descriptors it keeps, no open), and what the
 * read-back means (lib/control/external_write.h) is said and acted on here.
 */
#include <inttypes.h>

#include "engine.h"
#include "platform/log.h"

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

void engine_check_writes(struct engine *e, uint64_t now_us)
{
	for (size_t i = 0; i < e->n_actors; i++) {
		struct actor *a = e->actors[i];
		struct external_found found = { 0 };
		bool changed = !a->external.yielded && actor_check(a, &found) > 0;

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
