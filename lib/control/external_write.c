/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "external_write.h"

#define US_PER_MS 1000ULL

static void count(struct external_write *w)
{
	if (w->count < UINT32_MAX)
		w->count++;
}

/* Rewritten again: within the fight window of our reassert, back off (doubling). */
static enum external_write_event rewritten(struct external_write *w, uint64_t now_us)
{
	if (w->wait_until_us)
		return EXTERNAL_WRITE_CHANGED;
	if (now_us >= w->reasserted_us + EXTERNAL_WRITE_FIGHT_MS * US_PER_MS) {
		/* Ours held the window: this is a new episode, without back-off. */
		w->fights = 0;
		w->backoff_ms = 0;
		w->reasserted_us = now_us;
		return EXTERNAL_WRITE_FOUND;
	}
	if (w->fights < UINT32_MAX)
		w->fights++;
	w->backoff_ms = !w->backoff_ms ? EXTERNAL_WRITE_FIRST_MS
		      : w->backoff_ms >= EXTERNAL_WRITE_MAX_MS / 2 ? EXTERNAL_WRITE_MAX_MS
		      : 2 * w->backoff_ms;
	w->wait_until_us = now_us + w->backoff_ms * US_PER_MS;
	return EXTERNAL_WRITE_FOUGHT;
}

enum external_write_event external_write_step(struct external_write *w, bool changed, bool yield,
					       uint64_t now_us)
{
	if (w->yielded)
		return EXTERNAL_WRITE_NONE;
	if (changed) {
		count(w);
		if (yield) {
			w->yielded = true;
			w->episode = true;
			w->wait_until_us = 0;
			return EXTERNAL_WRITE_YIELD;
		}
		if (w->episode)
			return rewritten(w, now_us);
		w->episode = true;
		w->fights = 0;
		w->backoff_ms = 0;
		w->reasserted_us = now_us;
		return EXTERNAL_WRITE_FOUND;
	}
	if (w->wait_until_us) {
		if (now_us < w->wait_until_us)
			return EXTERNAL_WRITE_NONE;
		w->wait_until_us = 0;
		w->reasserted_us = now_us;
		return EXTERNAL_WRITE_REASSERT;
	}
	if (w->episode && now_us >= w->reasserted_us + EXTERNAL_WRITE_FIGHT_MS * US_PER_MS) {
		w->episode = false;
		w->backoff_ms = 0;
		return EXTERNAL_WRITE_SETTLED;
	}
	return EXTERNAL_WRITE_NONE;
}

bool external_write_holds(const struct external_write *w)
{
	return w->yielded || w->wait_until_us != 0;
}

bool external_write_leaves(uint64_t there, uint64_t ours, uint64_t original,
			   bool deeper_when_higher)
{
	if (there == ours || there == original)
		return false;
	return deeper_when_higher ? there < ours : there > ours;
}
