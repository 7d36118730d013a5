/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cooling_state.h"

#include <errno.h>
#include <string.h>

#include "actor_internal.h"
#include "log.h"
#include "thermal.h"

int cooling_state_open(struct cooling_state *cs, int id)
{
	char path[SYSFS_PATH_MAX];
	uint64_t v;
	int r;

	memset(cs, 0, sizeof(*cs));
	cs->id = id;
	cs->read.fd = cs->write.fd = -1;
	r = sysfs_pathf(path, THERMAL_CLASS_DIR "/cooling_device%d/max_state", id);
	if (r == 0)
		r = sysfs_read_u64(path, &v);
	if (r < 0)
		goto fail;
	cs->max_state = (unsigned long)v;
	sysfs_pathf(path, THERMAL_CLASS_DIR "/cooling_device%d/cur_state", id);
	if ((r = sysfs_attr_open(&cs->read, path, false)) < 0 ||
	    (r = sysfs_attr_open(&cs->write, path, true)) < 0 ||
	    (r = sysfs_attr_read_u64(&cs->read, &v)) < 0)
		goto fail;
	if (v > cs->max_state) {
		r = -ERANGE;
		goto fail;
	}
	cs->original = cs->written = (unsigned long)v;
	return 0;
fail:
	pa_log(PA_LOG_ERR, "%s: %s", path, r == -ERANGE ? "state above max_state" : strerror(-r));
	cooling_state_close(cs);
	return r;
}

int cooling_state_set(struct cooling_state *cs, unsigned long state)
{
	int r;

	if (state > cs->max_state)
		state = cs->max_state;
	if (state == cs->written)
		return 0;
	r = actor_write_u64(&cs->write, state);
	if (r == 0)
		cs->written = state;
	return r;
}

int cooling_state_restore(struct cooling_state *cs)
{
	int r;

	/* Written unconditionally: the device may have moved since. */
	r = sysfs_attr_write_u64(&cs->write, cs->original);
	if (r < 0) {
		pa_log(PA_LOG_ERR, "%s: cannot restore %lu: %s", cs->write.path, cs->original,
		       strerror(-r));
		return r;
	}
	cs->written = cs->original;
	return 0;
}

void cooling_state_close(struct cooling_state *cs)
{
	sysfs_attr_close(&cs->read);
	sysfs_attr_close(&cs->write);
}
