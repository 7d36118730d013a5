/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A file an actor writes (struct actor_file): written only when the value
 * changes, read back after each write (the kernel may round it: RAPL keeps
 * its power units, cpufreq resolves a frequency) and each period, so that
 * another writer is seen.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "actor_internal.h"
#include "platform/log.h"

void actor_file_init(struct actor_file *f)
{
	memset(f, 0, sizeof(*f));
	f->write = f->read = (struct sysfs_attr)SYSFS_ATTR_INIT;
}

int actor_file_open(struct actor_file *f, const char *path, bool deeper_when_higher)
{
	uint64_t v;
	int r;

	if ((r = sysfs_attr_open(&f->read, path, false)) < 0 ||
	    (r = sysfs_attr_read_u64(&f->read, &v)) < 0 ||
	    (r = sysfs_attr_open(&f->write, path, true)) < 0)
		return r;
	f->original = f->written = f->known = f->ours = v;
	f->deeper_when_higher = deeper_when_higher;
	return 0;
}

int actor_file_set(struct actor_file *f, uint64_t value)
{
	/* After another writer's value was seen, ours is read back even where the
	 * file holds the value wanted (then nothing is written): ours is what is there. */
	bool writes = value != f->written || f->write.failures || f->known != f->ours;
	uint64_t there;
	int r = actor_write_changed(&f->write, &f->written, value);

	/* Read back only after a write: the period reads nothing more otherwise. */
	if (r == 0 && writes) {
		f->known = sysfs_attr_read_u64(&f->read, &there) == 0 ? there : value;
		/* Under what we asked in a file that shows the lowest limit: a clamp over ours. */
		f->ours = f->shows_lowest && f->known < value ? value : f->known;
	}
	return r;
}

int actor_file_check(struct actor_file *f, struct external_found *found)
{
	uint64_t there;

	if (f->read.fd < 0 || sysfs_attr_read_u64(&f->read, &there) < 0 || there == f->known)
		return 0;
	if (there == f->ours || (f->shows_lowest && there < f->ours)) {
		/* Ours again (a clamp lifted), or a limit under ours, maybe the
		 * kernel's: cooler than ours, not fought. */
		f->known = there;
		return 0;
	}
	found->path = f->write.path;
	found->known = f->known;
	found->there = there;
	/* Theirs is known now; the next write of ours is a change, so it is written. */
	f->known = f->written = there;
	return 1;
}

int actor_file_restore(struct actor_file *f)
{
	uint64_t there;

	if (sysfs_attr_read_u64(&f->read, &there) == 0 &&
	    external_write_leaves(there, f->ours, f->original, f->deeper_when_higher)) {
		pa_log(PA_LOG_NOTICE, "%s: left %" PRIu64 " as another writer set it (ours was %"
		       PRIu64 ", found at start %" PRIu64 ")", f->write.path, there, f->ours,
		       f->original);
		return 0;
	}
	return actor_restore_u64(&f->write, &f->written, f->original);
}

void actor_file_adopt(struct actor_file *f, const struct actor_file *old)
{
	f->original = old->original;
	f->ours = old->ours;
	f->write.failures = old->write.failures;
}

int actor_file_save(const struct actor_file *f, saved_value_fn fn, void *userdata)
{
	char original[24], ours[24];

	snprintf(original, sizeof(original), "%" PRIu64, f->original);
	snprintf(ours, sizeof(ours), "%" PRIu64, f->ours);
	return fn(userdata, f->write.path, original, ours);
}

void actor_file_close(struct actor_file *f)
{
	sysfs_attr_close(&f->read);
	sysfs_attr_close(&f->write);
}
