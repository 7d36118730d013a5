/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * A file an actor writes, read back to see another writer (actor_file.c).
 */
#include <stdbool.h>
#include <stdint.h>

#include "actor.h"
#include "platform/sysfs.h"

/**
 * struct actor_file - a file an actor writes (actor_file.c).
 * @write, @read: the file, open for writing and for reading back.
 * @original: its value when first opened, written back at restore.
 * @written: the value last written (or found, or another writer's once
 *	seen), for writing only changes.
 * @known: the value last known there: ours as read back after our write,
 *	or another writer's once seen.
 * @ours: what our last write left there, as read back (@original before
 *	any); what we asked where the file shows a lower limit (@shows_lowest).
 * @deeper_when_higher: a higher value is a heavier limit (a cooling state);
 *	else a lower one is (a frequency or power limit).
 * @shows_lowest: the file shows the lowest of every limit on the device,
 *	the kernel's own among them (scaling_max_freq: _PPC, the kernel's
 *	cooling devices, no_turbo): a value under ours is no other writer.
 */
struct actor_file {
	struct sysfs_attr write;
	struct sysfs_attr read;
	uint64_t original;
	uint64_t written;
	uint64_t known;
	uint64_t ours;
	bool deeper_when_higher;
	bool shows_lowest;
};

/** actor_file_init() - closed, values 0. */
void actor_file_init(struct actor_file *f);

/**
 * actor_file_open() - open @path for reading and writing and read its value
 * (the original); @deeper_when_higher as in struct actor_file.
 * Return: 0 or negative errno (not logged).
 */
int actor_file_open(struct actor_file *f, const char *path, bool deeper_when_higher);

/**
 * actor_file_set() - write @value unless it is the value last written
 * (actor_write_changed()) and ours is what is known there; after a write,
 * read back what is there.
 * Return: as actor_write_u64().
 */
int actor_file_set(struct actor_file *f, uint64_t value);

/**
 * actor_file_check() - read @f back (pread, no open); another value than
 * the one last known there fills @found and becomes the known one (one
 * under ours in a file that shows the lowest limit is known silently).
 * Return: 1 another value, 0 none or a failed read.
 */
int actor_file_check(struct actor_file *f, struct external_found *found);

/**
 * actor_file_restore() - write the original back unless the file holds
 * another writer's lighter limit than ours (external_write_leaves()), which
 * is left (one notice naming the file, theirs, ours and the original).
 * Return: 0 or negative errno (logged).
 */
int actor_file_restore(struct actor_file *f);

/** actor_file_adopt() - take @old's original, ours and failing writes (the same file opened earlier). */
void actor_file_adopt(struct actor_file *f, const struct actor_file *old);

/** actor_file_save() - report the path, the original and ours to @fn. */
int actor_file_save(const struct actor_file *f, saved_value_fn fn, void *userdata);

/** actor_file_close() - close both descriptors. */
void actor_file_close(struct actor_file *f);
