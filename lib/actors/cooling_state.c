/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cooling_state.h"

#include <errno.h>
#include <string.h>

#include "actor_internal.h"
#include "platform/log.h"
#include "platform/thermal.h"

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
	pa_log(PA_LOG_ERR, "%s: %s", path,
	       r == -ERANGE ? "state above max_state" : sysfs_strerror(r));
	cooling_state_close(cs);
	return r;
}

int cooling_state_set(struct cooling_state *cs, unsigned long state)
{
	if (state > cs->max_state)
		state = cs->max_state;
	return actor_write_changed(&cs->write, &cs->written, state);
}

int cooling_state_restore(struct cooling_state *cs)
{
	return actor_restore_u64(&cs->write, &cs->written, cs->original);
}

void cooling_state_adopt(struct cooling_state *cs, const struct cooling_state *old)
{
	if (old->original <= cs->max_state)
		cs->original = old->original;
	cs->write.failures = old->write.failures;
}

void cooling_state_close(struct cooling_state *cs)
{
	sysfs_attr_close(&cs->read);
	sysfs_attr_close(&cs->write);
}
