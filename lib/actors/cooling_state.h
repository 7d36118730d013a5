/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * A cooling device's cur_state as actors drive it: opened once for reading
 * and once for writing, written only when the state changes, and put back
 * to what it was found at when the actor is restored.
 */
#include <stdbool.h>
#include <stdint.h>

#include "actor_file.h"

/**
 * struct cooling_state - cooling_deviceN/cur_state.
 * @id: N.
 * @file: cur_state, opened once for writing and for reading back; its
 *	original is the state found at open.
 * @max_state: the device's max_state, at most THERMAL_MAX_STATE.
 */
struct cooling_state {
	int id;
	struct actor_file file;
	unsigned long max_state;
};

/**
 * cooling_state_open() - open cooling_device@id's cur_state, read max_state
 * and the current state.  Logs once, naming the file, on failure: a
 * max_state above THERMAL_MAX_STATE (and its value), or a state above
 * max_state, is -ERANGE.
 * Return: 0 or negative errno.
 */
int cooling_state_open(struct cooling_state *cs, int id);

/**
 * cooling_state_set() - write @state (clamped to max_state) if it differs
 * from the last state written.  Logs once, naming the file, on failure.
 * Return: 0 or negative errno.
 */
int cooling_state_set(struct cooling_state *cs, unsigned long state);

/** cooling_state_restore() - write back the state found at open, unless another writer set one since (actor_file_restore()). */
int cooling_state_restore(struct cooling_state *cs);

/**
 * cooling_state_adopt() - take over the state @old (the same device, opened
 * earlier) found at open, within this device's max_state, and the count of
 * its failing writes (so that an episode is logged once).
 */
void cooling_state_adopt(struct cooling_state *cs, const struct cooling_state *old);

/**
 * cooling_state_of() - @value, a state read from or written to cur_state,
 * as an actor's state: at most max_state, so it fits an unsigned long on a
 * 32-bit machine too.  Another writer's value above max_state (which the
 * kernel refuses to write) is taken as max_state.
 */
static inline unsigned long cooling_state_of(const struct cooling_state *cs, uint64_t value)
{
	return value > cs->max_state ? cs->max_state : (unsigned long)value;
}

/** cooling_state_close() - close the files. */
void cooling_state_close(struct cooling_state *cs);
