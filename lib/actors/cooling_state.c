/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cooling_state.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "actor_internal.h"
#include "platform/log.h"
#include "platform/thermal.h"

/* Reads cooling_device@id's max_state into @cs; logs once, naming the file. */
static int read_max_state(struct cooling_state *cs, int id)
{
	char path[SYSFS_PATH_MAX];
	uint64_t v;
	int r = sysfs_pathf(path, THERMAL_CLASS_DIR "/cooling_device%d/max_state", id);

	if (r == 0)
		r = sysfs_read_u64(path, &v);
	if (r < 0) {
		pa_log(PA_LOG_ERR, "%s: %s", path, sysfs_strerror(r));
		return r;
	}
	if (v > THERMAL_MAX_STATE) {
		pa_log(PA_LOG_ERR, "%s: %" PRIu64 " is above %d, more states than a cooling "
		       "device has", path, v, THERMAL_MAX_STATE);
		return -ERANGE;
	}
	cs->max_state = (unsigned long)v;
	return 0;
}

int cooling_state_open(struct cooling_state *cs, int id)
{
	char path[SYSFS_PATH_MAX];
	int r;

	memset(cs, 0, sizeof(*cs));
	cs->id = id;
	actor_file_init(&cs->file);
	if ((r = read_max_state(cs, id)) < 0)
		return r;
	sysfs_pathf(path, THERMAL_CLASS_DIR "/cooling_device%d/cur_state", id);
	if ((r = actor_file_open(&cs->file, path, true)) < 0)
		goto fail;
	if (cs->file.original > cs->max_state) {
		r = -ERANGE;
		goto fail;
	}
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
	return actor_file_set(&cs->file, state);
}

int cooling_state_restore(struct cooling_state *cs)
{
	return actor_file_restore(&cs->file);
}

void cooling_state_adopt(struct cooling_state *cs, const struct cooling_state *old)
{
	uint64_t original = cs->file.original;

	actor_file_adopt(&cs->file, &old->file);
	if (old->file.original > cs->max_state)
		cs->file.original = cs->file.ours = original;
}

void cooling_state_close(struct cooling_state *cs)
{
	actor_file_close(&cs->file);
}
