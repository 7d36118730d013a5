/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/* Helpers for the actor kinds; not for the zone or the daemon. */
#include <errno.h>

#include "actor.h"
#include "cooling_state.h"

/** actor_init() - fill the shared part; weight from @cfg (1.0 without). */
void actor_init(struct actor *a, const struct actor_ops *ops, enum actor_kind kind,
		const struct actor_config *cfg);

/** actor_load_model() - power table from the first OPP source; logs the source. */
int actor_load_model(struct actor *a, const struct opp_device *dev);

/**
 * actor_update_power() - req_mw, max_mw and min_mw from the power table, the
 * current frequency and load, for @n_cpus CPUs online (1 for a device).
 */
void actor_update_power(struct actor *a, unsigned int n_cpus);

/**
 * struct freq_actor - an actor that throttles through a cooling device whose
 * state k caps the device at the k-th highest of its frequencies (cpufreq
 * and devfreq cooling devices).
 * @freq_khz, @n_freqs: the device's frequencies, ascending.
 * @cs: the cooling device's cur_state.
 */
struct freq_actor {
	struct actor base;
	size_t n_freqs;
	uint32_t freq_khz[POWER_TABLE_MAX_OPPS];
	struct cooling_state cs;
};

/**
 * freq_actor_set_power() - the highest frequency whose power at the sampled
 * load fits @granted_mw (the kernel's power2state), written as its state.
 */
int freq_actor_set_power(struct actor *a, uint32_t granted_mw);

/** freq_actor_state_for_power() - the state of the highest frequency that fits @granted_mw. */
unsigned long freq_actor_state_for_power(const struct actor *a, uint32_t granted_mw);

/** freq_actor_set_state() - write cooling state @state. */
int freq_actor_set_state(struct actor *a, unsigned long state, uint32_t granted_mw);

/** freq_actor_restore() - the cooling state found at start (actor_file_restore()). */
int freq_actor_restore(struct actor *a);

/** freq_actor_check() - read cur_state back (actor_file_check()). */
int freq_actor_check(struct actor *a, struct external_found *found);

/** freq_actor_adopt() - the state @old found at start, and its failing writes. */
void freq_actor_adopt(struct actor *a, const struct actor *old);

/** freq_actor_save() - cur_state, the state found at start and ours. */
int freq_actor_save(const struct actor *a, saved_value_fn fn, void *userdata);

/**
 * actor_write_u64() - write @value to @attr; the first failure of an episode
 * is logged with the file and its errno, and the end of one with the count
 * of failures (attr->failures counts them).
 * Return: 0; -ENODEV when the device is gone (the directory that holds
 * @attr no longer exists); -EAGAIN when the write failed but the device is
 * there, so that a later write may take (struct write_retry).
 */
int actor_write_u64(struct sysfs_attr *attr, uint64_t value);

/**
 * actor_write_changed() - write @value to @attr with actor_write_u64()
 * unless it is *@written (the value last written, or found there); on
 * success *@written becomes @value, on failure it stays, so that the next
 * call tries again.  The control path writes only changes.
 * Return: as actor_write_u64().
 */
int actor_write_changed(struct sysfs_attr *attr, uint64_t *written, uint64_t value);

/**
 * actor_restore_u64() - write @original back to @attr whatever was written
 * last (the device may have moved since), logging a failure with the file;
 * on success *@written becomes @original.  Return: 0 or negative errno.
 */
int actor_restore_u64(struct sysfs_attr *attr, uint64_t *written, uint64_t original);


/** freq_actor_init() - the shared part; files closed until opened. */
void freq_actor_init(struct freq_actor *f, const struct actor_ops *ops, enum actor_kind kind,
		     const struct actor_config *cfg);

/**
 * freq_actor_open_state() - open cooling_device@cdev_id and check that its
 * states match the frequencies.  Return: 0 or negative errno (logged).
 */
int freq_actor_open_state(struct freq_actor *f, int cdev_id);
