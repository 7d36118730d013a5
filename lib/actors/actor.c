/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the actor kinds share. */
#include "actor.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "actor_internal.h"
#include "control/divvy.h"
#include "platform/log.h"

/* Set by actor_force_writes(): write unchanged values too. */
static bool force_writes;

void actor_force_writes(bool force)
{
	force_writes = force;
}

unsigned long actor_state_of_freq(const uint32_t *freq_khz, size_t n, uint32_t khz)
{
	for (size_t k = 0; k < n; k++)
		if (freq_khz[n - 1 - k] <= khz)
			return k;
	return n ? n - 1 : 0;
}

int actor_load_model(struct actor *a, const struct opp_device *dev)
{
	a->source = opp_load(dev, &a->table);
	if (a->source == OPP_SOURCE_NONE)
		return -ENODATA;
	pa_log(PA_LOG_INFO, "%s: power model from %s: %zu OPPs, %u-%u mW per %s", a->name,
	       opp_source_name(a->source), a->table.n, a->table.entry[0].power_mw,
	       a->table.entry[a->table.n - 1].power_mw,
	       a->kind == ACTOR_CPUFREQ || a->kind == ACTOR_CPUFREQ_CAP ? "CPU" : "device");
	return 0;
}

bool actor_same_device(const struct actor *a, const struct actor *b)
{
	return a->kind == b->kind && a->cdev_id == b->cdev_id && strcmp(a->name, b->name) == 0;
}

void actor_adopt(struct actor *a, const struct actor *old)
{
	a->carry_mw = old->carry_mw;
	a->granted_mw = old->granted_mw;
	a->retry = old->retry;
	a->limit = old->limit;
	a->external = old->external;
	a->given_up = old->given_up;
	actor_adopt_scale(a, old);
	/*
	 * Yielded until a restart, or a reload whose configuration no longer
	 * yields it; one put back by a zone given up stays the kernel's.
	 */
	if (!a->yield_external && !a->given_up)
		a->external.yielded = false;
	a->ops->adopt(a, old);
}

void actor_init(struct actor *a, const struct actor_ops *ops, enum actor_kind kind,
		const struct actor_config *cfg)
{
	a->ops = ops;
	a->kind = kind;
	a->weight_q10 = cfg ? cfg->weight_q10 : DIVVY_WEIGHT_ONE;
	a->yield_external = cfg && cfg->yield_external;
	a->n_cpus = 1;
	a->cdev_id = -1;
	a->kernel_tz = -1;
	a->capacity = 1024;
}

void actor_update_power(struct actor *a, unsigned int n_cpus)
{
	const struct power_table *t = &a->table;

	a->req_mw = power_table_requested_power(t, a->freq_khz, a->load_pct);
	a->model_mw = a->calibrating ? power_table_requested_power(&a->model_table, a->freq_khz,
								   a->load_pct) : a->req_mw;
	a->max_mw = t->n ? t->entry[t->n - 1].power_mw * n_cpus : 0;
	a->min_mw = t->n ? t->entry[0].power_mw * n_cpus : 0;
}

void freq_actor_init(struct freq_actor *f, const struct actor_ops *ops, enum actor_kind kind,
		     const struct actor_config *cfg)
{
	actor_init(&f->base, ops, kind, cfg);
	actor_file_init(&f->cs.file);
}

int freq_actor_open_state(struct freq_actor *f, int cdev_id)
{
	int r = cooling_state_open(&f->cs, cdev_id);

	if (r < 0)
		return r;
	if (f->cs.max_state != f->n_freqs - 1)
		pa_log(PA_LOG_WARNING, "%s: max_state %lu but %zu frequencies", f->base.name,
		       f->cs.max_state, f->n_freqs);
	f->base.cdev_id = cdev_id;
	f->base.max_state = f->cs.max_state;
	f->base.state = cooling_state_of(&f->cs, f->cs.file.original);
	return 0;
}

uint32_t actor_lowest_mw(const struct actor *a)
{
	const struct power_table *t = &a->table;

	return t->n ? power_table_requested_power(t, t->entry[0].freq_khz, a->load_pct) : a->min_mw;
}

bool actor_at_lowest(const struct actor *a)
{
	if (a->kind == ACTOR_POWERCAP)
		return a->max_mw && a->granted_mw <= a->min_mw;
	return a->kind != ACTOR_COOLING_DEVICE && a->max_state && a->state >= a->max_state;
}

unsigned long freq_actor_state_for_power(const struct actor *a, uint32_t granted_mw)
{
	const struct freq_actor *f = (const struct freq_actor *)a;
	uint32_t khz = power_table_power_to_freq(&a->table, granted_mw, a->load_pct);

	return actor_state_of_freq(f->freq_khz, f->n_freqs, khz);
}

int freq_actor_set_state(struct actor *a, unsigned long state, uint32_t granted_mw)
{
	struct freq_actor *f = (struct freq_actor *)a;

	a->granted_mw = granted_mw;
	a->state = state > f->cs.max_state ? f->cs.max_state : state;
	return cooling_state_set(&f->cs, a->state);
}

int freq_actor_set_power(struct actor *a, uint32_t granted_mw)
{
	return freq_actor_set_state(a, freq_actor_state_for_power(a, granted_mw), granted_mw);
}

void freq_actor_adopt(struct actor *a, const struct actor *old)
{
	cooling_state_adopt(&((struct freq_actor *)a)->cs, &((const struct freq_actor *)old)->cs);
}

int freq_actor_check(struct actor *a, struct external_found *found)
{
	return actor_file_check(&((struct freq_actor *)a)->cs.file, found);
}

int freq_actor_restore(struct actor *a)
{
	return cooling_state_restore(&((struct freq_actor *)a)->cs);
}

int actor_write_u64(struct sysfs_attr *attr, uint64_t value)
{
	int r = sysfs_attr_write_u64(attr, value);
	bool gone;

	if (r == 0) {
		if (attr->failures)
			pa_log(PA_LOG_NOTICE, "%s: writable again after %u %s", attr->path,
			       attr->failures, plural(attr->failures, "failure", "failures"));
		attr->failures = 0;
		return 0;
	}
	gone = !sysfs_attr_still_there(attr);
	if (!attr->failures)
		pa_log(PA_LOG_ERR, "%s: cannot write %" PRIu64 ": %s; %s", attr->path, value,
		       strerror(-r), gone ? "the device is gone" : "retrying with backoff");
	if (attr->failures < UINT_MAX)
		attr->failures++;
	return gone ? -ENODEV : -EAGAIN;
}

int actor_write_changed(struct sysfs_attr *attr, uint64_t *written, uint64_t value)
{
	int r;

	/* During a failure episode the value is written even when unchanged: only a
	 * write that succeeds ends it, here and in the actor's write_retry; and
	 * so it is once after a resume (actor_force_writes()). */
	if (value == *written && !attr->failures && !force_writes)
		return 0;
	r = actor_write_u64(attr, value);
	if (r == 0)
		*written = value;
	return r;
}

int actor_restore_u64(struct sysfs_attr *attr, uint64_t *written, uint64_t original)
{
	int r = sysfs_attr_write_u64(attr, original);

	if (r < 0)
		return pa_log_errno(r, "%s: cannot restore %" PRIu64 ": %m", attr->path, original);
	*written = original;
	return 0;
}

int freq_actor_save(const struct actor *a, saved_value_fn fn, void *userdata)
{
	return actor_file_save(&((const struct freq_actor *)a)->cs.file, fn, userdata);
}
