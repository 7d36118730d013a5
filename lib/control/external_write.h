/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Another writer on a file powerallocd writes (a cooling device's
 * cur_state, a scaling_max_freq, a powercap limit): what to do each period
 * about what the read-back found.  A value found that is not the one last
 * known there (ours, as read back after our write, or the other writer's
 * noted since) starts an episode: logged once, and ours is written back at
 * once (reassert).  Rewritten again within EXTERNAL_WRITE_FIGHT_MS of our
 * reassert, the file is fought over: theirs is left for a back-off of
 * EXTERNAL_WRITE_FIRST_MS, doubling at each fight up to EXTERNAL_WRITE_MAX_MS,
 * then ours is written again.  Ours held for EXTERNAL_WRITE_FIGHT_MS after
 * a reassert ends the episode and the back-off.  With the yield policy the
 * first external write hands the actor over for good (until a restart or
 * reload): it is never written again.
 */
#include <stdbool.h>
#include <stdint.h>

/*
 * A rewrite this soon after our reassert is a fight; ours holding this long
 * ends an episode, ms.  Minutes, so that a writer that rewrites every 6 to
 * 60 s (auto-cpufreq, a TLP or shell loop) is one episode fought over
 * (a notice, one warning, a growing back-off), not a new episode and its
 * lines at each round.
 */
#define EXTERNAL_WRITE_FIGHT_MS 300000
/* The first back-off of an episode, ms. */
#define EXTERNAL_WRITE_FIRST_MS 1000
/* The longest back-off between two reasserts, ms. */
#define EXTERNAL_WRITE_MAX_MS 64000

/**
 * enum external_write_event - what a period's read-back means.
 * @EXTERNAL_WRITE_NONE: ours is there, or we are waiting and nothing changed.
 * @EXTERNAL_WRITE_FOUND: a new episode: another value is there; write ours
 *	back now (the caller logs the file, ours and theirs).
 * @EXTERNAL_WRITE_FOUGHT: rewritten soon after our reassert: theirs stays
 *	for the back-off (external_write->backoff_ms) before ours is written.
 * @EXTERNAL_WRITE_CHANGED: changed again while we wait (counted; the wait goes on).
 * @EXTERNAL_WRITE_REASSERT: the back-off is over: write ours now.
 * @EXTERNAL_WRITE_SETTLED: ours held EXTERNAL_WRITE_FIGHT_MS: the episode is over.
 * @EXTERNAL_WRITE_YIELD: with the yield policy: handed over now, for good.
 */
enum external_write_event {
	EXTERNAL_WRITE_NONE,
	EXTERNAL_WRITE_FOUND,
	EXTERNAL_WRITE_FOUGHT,
	EXTERNAL_WRITE_CHANGED,
	EXTERNAL_WRITE_REASSERT,
	EXTERNAL_WRITE_SETTLED,
	EXTERNAL_WRITE_YIELD,
};

/**
 * struct external_write - one actor's other writers.
 * @count: external writes seen since the actor was first opened (saturates).
 * @fights: rewrites soon after our reassert, this episode.
 * @episode: an external write was found and ours has not held since.
 * @yielded: handed over to the other writer: never written again.
 * @backoff_ms: the current back-off (0: none yet this episode).
 * @wait_until_us: while waiting, ours is written back at this time (0: not waiting).
 * @reasserted_us: when ours was last written back (monotonic µs).
 */
struct external_write {
	uint32_t count;
	uint32_t fights;
	bool episode;
	bool yielded;
	uint32_t backoff_ms;
	uint64_t wait_until_us;
	uint64_t reasserted_us;
};

/**
 * external_write_step() - one period's read-back at @now_us (monotonic µs):
 * @changed: the value there is not the one last known there (the caller
 *	then knows the new one);
 * @yield: the actor's policy is to yield to another writer.
 * Return: what it means (enum external_write_event).
 */
enum external_write_event external_write_step(struct external_write *w, bool changed, bool yield,
					       uint64_t now_us);

/**
 * external_write_holds() - whether the actor must not be written now: it
 * was yielded, or theirs is left there for a back-off.
 */
bool external_write_holds(const struct external_write *w);

/**
 * external_write_leaves() - whether a restore leaves @there, a value found
 * in a file we wrote, to the program that set it: only when it is neither
 * @ours nor the @original and is a lighter limit than ours (a higher
 * frequency or power limit; a lower cooling state, @deeper_when_higher).
 * A limit as heavy as ours or heavier is put back to the original: it may be
 * the kernel's own clamp seen through the file (scaling_max_freq shows the
 * lowest of every frequency limit) or ours gone stale, and a device must
 * never stay throttled by what powerallocd left.
 */
bool external_write_leaves(uint64_t there, uint64_t ours, uint64_t original,
			   bool deeper_when_higher);
