/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A zone's temperatures and its thermal zone's trips.  The kernel's trips
 * are data too: a passive trip below 0 °C, at or above the hot or critical
 * trip, or out of order is not taken as a switch-on or control temperature
 * (platform/thermal.c), and is said with the zone and the trip.  A
 * configured control_temp at or above the zone's hot or critical trip
 * could never be held (the kernel acts there first: at critical it shuts
 * the machine down), so it is refused, naming the trip; one above the
 * highest passive trip holds the zone hotter than its firmware asks, which
 * is said.
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

/* Why passive trip @t is not taken (thermal_trip_doubt()'s @doubt against @ref), into @buf. */
static void doubt_text(char *buf, size_t size, enum trip_doubt doubt,
		       const struct trip_info *ref)
{
	if (doubt == TRIP_BELOW_ZERO || !ref)
		snprintf(buf, size, "is below 0 °C");
	else
		snprintf(buf, size, "is %s %s trip %u (%d m°C)%s",
			 doubt == TRIP_AT_LIMIT ? "at or above its" : "below", trip_type_name(ref->type),
			 ref->index, ref->temp_mc, doubt == TRIP_AT_LIMIT ? "" : " before it");
}

size_t build_passive_range(const struct thermal_zone_info *tz, int32_t *switch_on_mc,
			   int32_t *control_mc)
{
	for (size_t i = 0; i < tz->n_trips; i++) {
		const struct trip_info *t = &tz->trips[i], *ref;
		enum trip_doubt doubt;
		char why[96];

		if (t->type != TRIP_PASSIVE || (doubt = thermal_trip_doubt(tz, i, &ref)) == TRIP_TAKEN)
			continue;
		doubt_text(why, sizeof(why), doubt, ref);
		pa_log(PA_LOG_WARNING, "thermal_zone%d (%s): passive trip %u (%d m°C) %s: the "
		       "firmware's value is not taken as a switch-on or control temperature",
		       tz->id, tz->type, t->index, t->temp_mc, why);
	}
	return thermal_passive_range(tz, switch_on_mc, control_mc);
}

int build_check_control_temp(struct build *b, const struct zone_config *zc,
			     const struct zone *z, const struct thermal_zone_info *tz)
{
	const struct trip_info *limit = tz ? thermal_limit_trip(tz) : NULL;
	const struct trip_info *passive = tz ? thermal_control_trip(tz) : NULL;

	if (!zc->has_control_temp || !tz)
		return 0;
	if (limit && z->setup.control_mc >= limit->temp_mc) {
		pa_log(PA_LOG_ERR,
		       "zone %s: control_temp %d m°C is at or above the %s trip of "
		       "thermal_zone%d (%s) (trip %u, %d m°C), where %s: the zone would never be "
		       "held at it; give a control_temp under %d m°C; zone skipped",
		       z->setup.name, z->setup.control_mc, trip_type_name(limit->type), tz->id,
		       tz->type, limit->index, limit->temp_mc, kernel_action(limit->type),
		       limit->temp_mc);
		b->e->n_refused++;	/* only a change to the config fixes it */
		return -EINVAL;
	}
	/* 0 is an unset trip (x86_pkg_temp's until thermald writes one): no firmware's ask. */
	if (passive && passive->temp_mc > 0 && z->setup.control_mc > passive->temp_mc)
		pa_log(PA_LOG_WARNING,
		       "zone %s: control_temp %d m°C is above the highest passive "
		       "trip of thermal_zone%d (%s) (trip %u, %d m°C), where its firmware has the "
		       "kernel throttle: the zone is held hotter than its firmware asks",
		       z->setup.name, z->setup.control_mc, tz->id, tz->type, passive->index,
		       passive->temp_mc);
	return 0;
}

int build_zone_temps(struct zone *z, const struct zone_config *zc,
		     const struct thermal_zone_info *tz)
{
	int32_t on = 0, control = 0;
	bool from_trips = tz && (!zc->has_switch_on_temp || !zc->has_control_temp);
	bool unset_on, unset_control;
	size_t passive = from_trips ? build_passive_range(tz, &on, &control) :
			 tz ? thermal_passive_range(tz, &on, &control) : 0;

	z->setup.always_on = !zc->has_switch_on_temp && passive == 1;
	z->setup.switch_on_mc = zc->has_switch_on_temp ? zc->switch_on_temp_mc : on;
	z->setup.control_mc = zc->has_control_temp ? zc->control_temp_mc : control;
	if ((!zc->has_switch_on_temp || !zc->has_control_temp) && passive == 0) {
		pa_log(PA_LOG_ERR, "zone %s: thermal_zone%d has no passive trip; set control_temp "
		       "and switch_on_temp; zone skipped", zc->name, z->setup.tz_id);
		return -EINVAL;
	}
	/* x86_pkg_temp's trips read 0 until thermald or the firmware sets them. */
	unset_on = !zc->has_switch_on_temp && passive >= 2 && on <= 0;
	unset_control = !zc->has_control_temp && control <= 0;
	if (from_trips && (unset_on || unset_control)) {
		pa_log(PA_LOG_ERR, "zone %s: the passive trips of thermal_zone%d (%s) read 0: unset "
		       "(thermald or the firmware sets them), so they give no %s; set control_temp "
		       "and switch_on_temp; zone skipped", zc->name, z->setup.tz_id, tz->type,
		       !unset_control ? "switch-on temperature" : !unset_on ? "control temperature" :
		       "switch-on or control temperature");
		return -EINVAL;
	}
	if (!z->setup.always_on && z->setup.control_mc <= z->setup.switch_on_mc) {
		pa_log(PA_LOG_ERR, "zone %s: control %d m°C is not above switch-on %d m°C; zone "
		       "skipped", zc->name, z->setup.control_mc, z->setup.switch_on_mc);
		return -EINVAL;
	}
	return 0;
}
