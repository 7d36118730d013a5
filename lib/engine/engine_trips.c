/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A zone's temperatures against its thermal zone's trips.  A configured
 * control_temp at or above the zone's hot or critical trip could never be
 * held (the kernel acts there first: at critical it shuts the machine
 * down), so it is refused, naming the trip; one above the highest passive
 * trip holds the zone hotter than its firmware asks, which is said.
 */
#include <errno.h>
#include <stdio.h>

#include "engine_build.h"
#include "platform/log.h"

/* What the kernel does at a trip of @type, for a message. */
static const char *kernel_action(enum trip_type type)
{
	return type == TRIP_CRITICAL ? "the kernel shuts the machine down" :
	       "the kernel tells the platform's driver the zone is too hot";
}

int build_check_control_temp(struct build *b, const struct zone_config *zc,
			     const struct zone *z, const struct thermal_zone_info *tz)
{
	const struct trip_info *limit = tz ? thermal_limit_trip(tz) : NULL;
	const struct trip_info *passive = tz ? thermal_highest_passive_trip(tz) : NULL;

	if (!zc->has_control_temp || !tz)
		return 0;
	if (limit && z->control_mc >= limit->temp_mc) {
		pa_log(PA_LOG_ERR, "zone %s: control_temp %d m°C is at or above the %s trip of "
		       "thermal_zone%d (%s) (trip %u, %d m°C), where %s: the zone would never be "
		       "held at it; give a control_temp under %d m°C; zone skipped", z->name,
		       z->control_mc, trip_type_name(limit->type), tz->id, tz->type, limit->index,
		       limit->temp_mc, kernel_action(limit->type), limit->temp_mc);
		b->e->n_refused++;	/* only a change to the config fixes it */
		return -EINVAL;
	}
	if (passive && z->control_mc > passive->temp_mc)
		pa_log(PA_LOG_WARNING, "zone %s: control_temp %d m°C is above the highest passive "
		       "trip of thermal_zone%d (%s) (trip %u, %d m°C), where its firmware has the "
		       "kernel throttle: the zone is held hotter than its firmware asks", z->name,
		       z->control_mc, tz->id, tz->type, passive->index, passive->temp_mc);
	return 0;
}
