/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The step_wise fallback of an engine being built: the devices without a
 * power model (fans) bound to the active and passive trips of a zone taken
 * over, which the kernel no longer drives.
 */
#include "engine_build.h"
#include "platform/log.h"

static const struct trip_info *find_trip(const struct thermal_zone_info *tz, int index)
{
	for (size_t i = 0; i < tz->n_trips; i++)
		if ((int)tz->trips[i].index == index)
			return &tz->trips[i];
	return NULL;
}

/* The zone's fallback entry for cooling_device@cdev_id, created on first use; NULL if none can be. */
static struct fallback_device *fallback_for(struct build *b, struct zone *z,
					    const struct cooling_device_info *cdev)
{
	struct actor *a = build_find_actor(b->e, cdev->id);

	for (size_t i = 0; i < b->n_unusable_fallback; i++)
		if (b->unusable_fallback[i] == cdev->id)
			return NULL;
	if (!a && actor_cooling_device_new(cdev->id, cdev->type, &a) == 0)
		a = build_register_actor(b->e, a);
	if (!a && b->n_unusable_fallback < THERMAL_MAX_BINDINGS)
		b->unusable_fallback[b->n_unusable_fallback++] = cdev->id;
	if (!a || a->kind != ACTOR_COOLING_DEVICE)
		return NULL;	/* its cur_state could not be opened (logged with the file) */
	for (size_t i = 0; i < z->setup.n_fallback; i++)
		if (z->setup.fallback[i].actor == a)
			return &z->setup.fallback[i];
	if (z->setup.n_fallback == ZONE_MAX_FALLBACK) {
		pa_log(PA_LOG_WARNING,
		       "zone %s: cooling_device%d (%s): more than %d devices on the "
		       "step_wise fallback; this one is left alone",
		       z->setup.name, cdev->id, cdev->type, ZONE_MAX_FALLBACK);
		return NULL;
	}
	z->setup.fallback[z->setup.n_fallback].actor = a;
	return &z->setup.fallback[z->setup.n_fallback++];
}

void build_add_fallback_devices(struct build *b, struct zone *z,
				const struct thermal_zone_info *tz)
{
	for (size_t i = 0; i < tz->n_bindings; i++) {
		const struct cdev_binding *bd = &tz->bindings[i];
		const struct cooling_device_info *cdev = thermal_find_cdev(&b->thermal, bd->cdev_id);
		const struct trip_info *trip = find_trip(tz, bd->trip);
		struct fallback_device *f;

		if (!cdev || !trip || build_power_device_type(b, cdev) ||
		    (trip->type != TRIP_ACTIVE && trip->type != TRIP_PASSIVE))
			continue;
		f = fallback_for(b, z, cdev);
		if (f && fallback_add_trip(f, trip->temp_mc, trip->hyst_mc) < 0)
			pa_log(PA_LOG_WARNING, "zone %s: cooling_device%d (%s): more than %d trips; "
			       "the step_wise fallback ignores trip %d", z->setup.name, cdev->id,
			       cdev->type, FALLBACK_MAX_TRIPS, bd->trip);
	}
}
