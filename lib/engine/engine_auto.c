/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Automatic configuration: without zones in the config, each thermal zone
 * the kernel's power_allocator could run is taken, with the power actors
 * bound to its control trip; every other zone is said once, at the default
 * log level, with why and, where the config could still control it, how.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "control/divvy.h"
#include "engine_build.h"
#include "inventory_text.h"
#include "platform/log.h"

/* Index of the last passive trip taken (the control trip); -1 without one. */
static int control_trip(const struct thermal_zone_info *tz)
{
	const struct trip_info *t = thermal_control_trip(tz);

	return t ? (int)t->index : -1;
}

/*
 * The temperatures of thermal zone @tz, into @z, as the kernel's power
 * allocator takes them from the passive trips: switch-on and control from
 * two or more, control alone from one (the zone is then always on).  Said
 * at the default log level when there is no passive trip, or no range.
 */
static bool auto_temps(const struct thermal_zone_info *tz, struct zone *z)
{
	size_t passive = build_passive_range(tz, &z->setup.switch_on_mc, &z->setup.control_mc);

	if (passive == 0) {
		pa_log(PA_LOG_NOTICE, "thermal_zone%d (%s): no passive trip (the control "
		       "temperature); not controlled", tz->id, tz->type);
		return false;
	}
	z->setup.always_on = passive == 1;
	if (!z->setup.always_on && z->setup.control_mc <= z->setup.switch_on_mc) {
		pa_log(PA_LOG_NOTICE, "thermal_zone%d (%s): its first and last passive trips are "
		       "both at %d m°C, no range to control in; not controlled", tz->id, tz->type,
		       z->setup.control_mc);
		return false;
	}
	return true;
}

/* The trip with index @index of @tz, or NULL. */
static const struct trip_info *trip_of(const struct thermal_zone_info *tz, int index)
{
	for (size_t i = 0; i < tz->n_trips; i++)
		if ((int)tz->trips[i].index == index)
			return &tz->trips[i];
	return NULL;
}

/*
 * The cooling devices bound to trip @trip of @tz that have no power model,
 * by type and count ("2 Processor"), into @buf; how many there are.
 */
static size_t unmodelled_devices(const struct build *b, const struct thermal_zone_info *tz,
				 int trip, char *buf, size_t size)
{
	const char *type[THERMAL_MAX_BINDINGS];
	size_t count[THERMAL_MAX_BINDINGS], n_types = 0, n = 0, len = 0, k;

	for (size_t i = 0; i < tz->n_bindings; i++) {
		const struct cooling_device_info *c = thermal_find_cdev(&b->thermal,
									tz->bindings[i].cdev_id);

		if (tz->bindings[i].trip != trip || !c || build_power_device_type(b, c))
			continue;
		n++;
		for (k = 0; k < n_types && strcmp(type[k], c->type) != 0; k++)
			;
		if (k == n_types) {
			type[n_types] = c->type;
			count[n_types++] = 0;
		}
		count[k]++;
	}
	buf[0] = '\0';
	for (k = 0; k < n_types && len < size; k++)
		len += (size_t)snprintf(buf + len, size - len, "%s%zu %s", k ? ", " : "", count[k],
					type[k]);
	return n;
}

/*
 * Zone @tz's control trip binds only devices without a power model (ACPI's
 * Processor devices), listed in @devices: says so, and what a zone of
 * powerallocd.conf would control it with.
 */
static void say_unmodelled(const struct build *b, const struct thermal_zone_info *tz, int trip,
			   const char *devices)
{
	const struct trip_info *t = trip_of(tz, trip);
	char sensor[THERMAL_NAME_MAX + 16], cpus[128], caps[INVENTORY_TEXT_MAX], how[1024] = "";
	struct cpumask all;
	size_t len = 0;

	/* The type names it when no other zone has it. */
	if (thermal_count_zones(&b->thermal, tz->type) == 1)
		snprintf(sensor, sizeof(sensor), "%s", tz->type);
	else
		snprintf(sensor, sizeof(sensor), "thermal_zone%d", tz->id);
	cpumask_clear(&all);
	for (size_t i = 0; i < b->cpufreq.n; i++)
		cpumask_or(&all, &b->cpufreq.policies[i].related);
	cpumask_format_list(&all, cpus, sizeof(cpus));
	if (b->cpufreq.n)
		len = (size_t)snprintf(how, sizeof(how), "a cpufreq_cap actor (cpus = \"%s\", with "
				       "their opps)", cpus);
	inventory_text_powercap(caps, sizeof(caps));
	if (strcmp(caps, "none") != 0 && len < sizeof(how))
		snprintf(how + len, sizeof(how) - len, "%sa powercap actor (powercap zones: %s)",
			 len ? " or " : "", caps);
	if (!how[0])
		snprintf(how, sizeof(how), "an actor (but there is no cpufreq policy or powercap "
			 "zone here)");
	pa_log(PA_LOG_NOTICE, "thermal_zone%d (%s): the cooling devices on its control trip (trip "
	       "%d, %.1f °C) have no power model (%s); a zone in powerallocd.conf with sensor = "
	       "\"%s\" and %s can control it; not controlled", tz->id, tz->type, trip,
	       t ? t->temp_mc / 1000.0 : 0.0, devices, sensor, how);
}

/*
 * Zone @tz has one passive trip and no sustainable_power: always on, its
 * budget would rest on the estimate (the actors' lowest powers), which holds
 * busy devices down at any temperature (a GPU at 40 °C got 666 of 2555 mW).
 * Says so, and how a zone of powerallocd.conf would control it.
 */
static void say_no_sustainable_power(const struct thermal_zone_info *tz, int trip)
{
	const struct trip_info *t = trip_of(tz, trip);

	pa_log(PA_LOG_NOTICE, "thermal_zone%d (%s): one passive trip (trip %d, %.1f °C) and no "
	       "sustainable_power: always on, as the kernel's power_allocator would run it, "
	       "its budget would hold busy devices down at any temperature; a zone in "
	       "powerallocd.conf with sensor = \"thermal_zone%d\" and sustainable_power (mW) "
	       "controls it, or switch_on_temp and control_temp; not controlled", tz->id,
	       tz->type, trip, t ? t->temp_mc / 1000.0 : 0.0, tz->id);
}

int build_auto_zone(struct build *b, struct thermal_zone_info *tz, struct zone *z)
{
	uint32_t total_weight = 0;
	char devices[INVENTORY_TEXT_MAX];
	int trip;

	memset(z, 0, sizeof(*z));
	thermal_zone_load(tz);
	trip = control_trip(tz);
	/* Named by its type, or by its directory where another zone has that type. */
	if (thermal_count_zones(&b->thermal, tz->type) == 1)
		snprintf(z->setup.name, sizeof(z->setup.name), "%s", tz->type);
	else
		snprintf(z->setup.name, sizeof(z->setup.name), "thermal_zone%d", tz->id);
	z->setup.tz_id = tz->id;
	z->setup.sensor_kind = SENSOR_ONE;
	z->setup.n_inputs = 1;
	z->setup.inputs[0] = (struct sensor_input){ .tz_id = tz->id, .weight = 1.0,
					      .attr = SYSFS_ATTR_INIT };
	snprintf(z->setup.inputs[0].name, sizeof(z->setup.inputs[0].name), "%s", tz->type);
	if (build_is_x86_package_zone(tz))
		return build_x86_package_zone(b, tz, z);
	if (!auto_temps(tz, z))
		return -EINVAL;
	if (!build_offers_user_space(tz, z->setup.name, PA_LOG_WARNING, "not controlled"))
		return -EOPNOTSUPP;
	for (size_t i = 0; i < tz->n_bindings; i++)
		if (tz->bindings[i].trip == trip)
			total_weight += tz->bindings[i].weight;
	for (size_t i = 0; i < tz->n_bindings; i++) {
		const struct cdev_binding *bd = &tz->bindings[i];
		const struct cooling_device_info *cdev = thermal_find_cdev(&b->thermal, bd->cdev_id);
		struct actor *a;

		/* A device without a power model goes to the step_wise fallback. */
		if (bd->trip != trip || (cdev && !build_power_device_type(b, cdev)))
			continue;
		a = build_actor_for_cdev(b, bd->cdev_id, NULL);
		if (!a || build_add_zone_actor(z, a, total_weight ? bd->weight : DIVVY_WEIGHT_ONE) < 0) {
			pa_log(PA_LOG_WARNING, "thermal_zone%d (%s): cooling_device%d on its control "
			       "trip is not a usable power actor; not controlled", tz->id, tz->type,
			       bd->cdev_id);
			return -ENODEV;
		}
	}
	if (z->setup.n_actors == 0 && unmodelled_devices(b, tz, trip, devices, sizeof(devices))) {
		say_unmodelled(b, tz, trip, devices);
		return -ENODEV;
	}
	if (z->setup.n_actors == 0) {
		pa_log(PA_LOG_NOTICE, "thermal_zone%d (%s): no cpufreq or devfreq cooling device is "
		       "bound to its control trip (trip %d); not controlled", tz->id, tz->type, trip);
		return -ENODEV;
	}
	if (z->setup.always_on && !thermal_zone_sustainable_power(tz)) {
		say_no_sustainable_power(tz, trip);
		return -ENODEV;
	}
	return build_finish_zone(b, z, tz, NULL);
}
