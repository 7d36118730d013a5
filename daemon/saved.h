/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * What powerallocd must put back when it stops: each sysfs file it writes
 * and the value it found there before it first wrote.  Kept in memory and in
 * the state file under the runtime directory, so that a daemon that was
 * killed can be cleaned up after by `powerallocd --restore`.
 */
#include <stdbool.h>
#include <stddef.h>

#include "engine/engine.h"

/* Longest value kept, bytes: the attributes restored hold one number or governor name. */
#define SAVED_VALUE_MAX 64

/**
 * struct saved_entry - one file to restore (@path), the value found there
 * (@value) and the value powerallocd last left there (@ours; "" when not
 * known: a state file of an older powerallocd).  A file that holds neither
 * @value nor @ours at restore was set by another writer, and is left to it.
 * @ours_at: where @ours is in the state file kept open (0: not there).
 */
struct saved_entry {
	char path[SYSFS_PATH_MAX];
	char value[SAVED_VALUE_MAX];
	char ours[SAVED_VALUE_MAX];
	long ours_at;
};

/**
 * struct saved - the set of (path, original value) pairs, in first-seen order.
 * @n, @cap: entries used and allocated.
 * @entries: the pairs.
 * @left: files the last saved_restore() left to another writer's value.
 * @cursor: where saved_note_ours() looks first (the engine reports its
 *	files in the order they were added: one comparison each, as a rule).
 * @state_fd, @state_open: the state file saved_write() wrote, kept open
 *	for writing each entry's "ours" in place (pwrite, no open).
 * @sync_failed: such a write failed (said once).
 */
struct saved {
	size_t n;
	size_t cap;
	struct saved_entry *entries;
	size_t left;
	size_t cursor;
	int state_fd;
	bool state_open;
	bool sync_failed;
};

/**
 * saved_add() - add (@path, @value) unless @path is already there.
 * Return: 1 added, 0 already there, -EINVAL for a path outside /sys or an
 * unusable value, -EPERM for a path under /sys that is none of the
 * attributes powerallocd writes (a zone's policy, a cooling device's
 * cur_state, a cpufreq policy's scaling_max_freq, a powercap constraint's
 * power limit), -ENOMEM.
 */
int saved_add(struct saved *s, const char *path, const char *value);

/** saved_add_ours() - saved_add() with the value powerallocd last left there (@ours). */
int saved_add_ours(struct saved *s, const char *path, const char *value, const char *ours);

/* Width of the "ours" field of a state file line, padded with spaces: written in place. */
#define SAVED_OURS_WIDTH 24

/**
 * saved_note_ours() - take, for the entries of @s that @e writes, the value
 * @e last left there, so that a restore knows ours from another writer's;
 * a value that changed is written in place in the state file kept open
 * (pwrite of its fixed-width field: no open, no allocation, so each period
 * may call it; a failure is said once).  One too long for the field is
 * written as unknown (blank): --restore then writes the original back.
 */
void saved_note_ours(struct saved *s, const struct engine *e);

/**
 * saved_release_except() - write back and forget every entry of @s whose
 * path is not in @keep (devices a new engine no longer drives).
 */
void saved_release_except(struct saved *s, const struct saved *keep);

/**
 * saved_merge_engine() - add the files @e restores that are not in @s yet,
 * with @e's values; files already in @s keep the value first seen.
 * @added: if not NULL, set to the number of new entries.
 * Return: 0 or negative errno.
 */
int saved_merge_engine(struct saved *s, const struct engine *e, size_t *added);

/**
 * saved_restore_new() - write back the values of @e's files that are NOT in
 * @s (what a rejected engine took over that nobody had before).
 */
void saved_restore_new(const struct saved *s, const struct engine *e);

/**
 * saved_write() - write @s to @path atomically: a new file (mode 0600) under
 * a temporary name, renamed over @path (see new_file.h: no link is followed).
 * Return: 0 or negative errno.
 */
int saved_write(struct saved *s, const char *path);

/**
 * saved_read() - load @path into @s: "PATH<TAB>VALUE<TAB>OURS" lines (OURS
 * padded to SAVED_OURS_WIDTH), or "PATH<TAB>VALUE" from an older
 * powerallocd, whose entries are restored without the check of another
 * writer.  A line of any length is one entry;
 * lines that saved_add() refuses (not "PATH<TAB>VALUE", or PATH not a file
 * powerallocd writes) are skipped and logged.
 * Return: 0, -ENOENT when there is no state file, other negative errno.
 */
int saved_read(struct saved *s, const char *path);

/**
 * saved_restore() - write every value back (each logged on failure), but
 * where a file holds neither its original nor ours (another writer set it
 * since): that is left, one notice a file naming the three values, and
 * counted in @s->left; @s keeps only the entries that could not be written.
 * Return: their number.
 */
size_t saved_restore(struct saved *s);

/**
 * saved_adopt() - take over the state file @path that a previous run left
 * (it was killed before it could restore): its values are written back now,
 * before the engine reads what it will restore, and those that cannot be
 * written are added to @s, where they come before the engine's (first seen
 * wins), unless their file is gone.  Logged, with the counts.
 * Return: 0 (also without a state file) or negative errno when it cannot
 * be read (not logged: the caller says what it does about it).
 */
int saved_adopt(struct saved *s, const char *path);

/**
 * saved_describe() - what @s holds, by kind, into @buf (@size bytes):
 * "1 zone policy, 2 cooling states, 1 CPU frequency limit".  Return: @buf.
 */
const char *saved_describe(const struct saved *s, char *buf, size_t size);

/** saved_clear() - empty @s and free its memory. */
void saved_clear(struct saved *s);
