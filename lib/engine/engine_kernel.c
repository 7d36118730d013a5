/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Devices also bound to a thermal zone that the daemon does not control (one
 * it does not take over, or one given up): the kernel's governor there
 * writes their cur_state too (thermal_cdev_update() sets the deepest state
 * its zones' governors ask), which is no other program to fight over.  Such
 * a device is left to the kernel at its first write found, said once.
 */
#include <inttypes.h>
#include <string.h>

#include "engine.h"
#include "engine_build.h"
#include "platform/log.h"

/* Whether the kernel's governor drives thermal zone @tz: a policy other than user_space, enabled. */
static bool kernel_governs(const struct thermal_zone_info *tz)
{
	return tz->policy[0] && strcmp(tz->policy, "user_space") != 0 &&
	       strcmp(tz->mode, "disabled") != 0;
}

/* Whether a zone of @e controls thermal zone @tz_id (took it over, not given up). */
static bool controlled(const struct engine *e, int tz_id)
{
	for (size_t z = 0; z < e->n_zones; z++)
		if (e->zones[z].setup.tz_id == tz_id && e->zones[z].setup.original_policy[0] &&
		    !e->zones[z].setup.given_up_to[0])
			return true;
	return false;
}

/* @tz_id is the kernel-governed zone that every actor of @e on cooling device @cdev_id is bound to. */
static void mark_bound(struct engine *e, int cdev_id, int tz_id)
{
	for (size_t i = 0; i < e->n_actors; i++)
		if (e->actors[i]->cdev_id == cdev_id && e->actors[i]->kernel_tz < 0)
			e->actors[i]->kernel_tz = tz_id;
}

void build_note_kernel_bound(struct build *b)
{
	for (size_t i = 0; i < b->thermal.n_zones; i++) {
		struct thermal_zone_info *tz = &b->thermal.zones[i];

		thermal_zone_load(tz);
		if (!kernel_governs(tz) || controlled(b->e, tz->id))
			continue;
		for (size_t k = 0; k < tz->n_bindings; k++)
			mark_bound(b->e, tz->bindings[k].cdev_id, tz->id);
	}
}

void engine_note_given_up_bound(struct engine *e, const struct zone *z)
{
	for (size_t k = 0; k < z->setup.n_bound; k++)
		mark_bound(e, z->setup.bound_cdev[k], z->setup.tz_id);
}

bool engine_leave_to_kernel(struct actor *a, const struct external_found *f)
{
	if (a->kernel_tz < 0)
		return false;
	a->external.yielded = a->given_up = true;
	a->external.wait_until_us = 0;
	pa_log(PA_LOG_NOTICE, "%s: set to %" PRIu64 " where %" PRIu64 " was: %s is bound to "
	       "thermal_zone%d too, which the kernel's governor drives (powerallocd does not "
	       "control it), so it is left to the kernel, not counted as another program's "
	       "write and not written again until a restart; its zones divide their budgets "
	       "among their other actors", f->path, f->there, f->known, a->name, a->kernel_tz);
	return true;
}
