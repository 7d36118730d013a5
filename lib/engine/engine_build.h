/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The engine while it is built (engine_build.c): the platform as discovered,
 * the actors found so far (engine_actors.c) and the step_wise fallback
 * (engine_fallback.c).  Internal to the three.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/cpufreq_policy.h"
#include "engine.h"
#include "platform/thermal.h"

/*
 * @unusable_fallback: cooling devices without a power model whose state
 * could not be opened (logged once), not tried again for other bindings.
 */
struct build {
	struct engine *e;
	struct thermal_inventory thermal;
	struct cpufreq_inventory cpufreq;
	size_t n_unusable_fallback;
	int unusable_fallback[THERMAL_MAX_BINDINGS];
};

/* Room for why a configured actor cannot be used, lists of what exists included. */
#define BUILD_WHY_MAX 900

/** build_find_actor() - the engine's actor for cooling_device@cdev_id, or NULL. */
struct actor *build_find_actor(const struct engine *e, int cdev_id);

/**
 * build_register_actor() - add @a (a constructed actor, never NULL) to the
 * engine's actors; NULL, @a destroyed, when it cannot (no memory).
 */
struct actor *build_register_actor(struct engine *e, struct actor *a);

/** build_power_device_type() - whether the kernel's cooling device @cdev is one a power actor drives. */
bool build_power_device_type(const struct build *b, const struct cooling_device_info *cdev);

/**
 * build_actor_for_cdev() - the actor for cooling_device@cdev_id, created
 * the first time a zone asks for it.  NULL (logged) for a device that is
 * not a power actor or cannot be opened.
 */
struct actor *build_actor_for_cdev(struct build *b, int cdev_id, const struct actor_config *cfg);

/**
 * build_actor_for_config() - the actor the config entry @ac names, created
 * or shared.  NULL when there is none, with why in @why: what matched
 * nothing and what the platform has instead (the cpufreq policies with
 * their CPUs and cooling devices, the devfreq devices or the powercap
 * zones), or that the device could not be opened (logged before).
 */
struct actor *build_actor_for_config(struct build *b, const struct actor_config *ac, char *why,
				     size_t why_size);

/**
 * build_add_fallback_devices() - taking zone @z over stops the kernel
 * driving anything bound to thermal zone @tz: every device bound to one of
 * its active or passive trips that has no power model (a fan) is put on
 * @z's step_wise fallback instead, with those trips.  A device that cannot
 * be used or does not fit is said and left alone.
 */
void build_add_fallback_devices(struct build *b, struct zone *z,
				const struct thermal_zone_info *tz);

/**
 * build_add_zone_actor() - @a into @z's actors with @weight_q10.
 * Return: 0 added, 1 already one of them (left as it was), -E2BIG.
 */
int build_add_zone_actor(struct zone *z, struct actor *a, uint32_t weight_q10);


/**
 * build_configured_actors() - the actors of configured zone @zc into @z
 * (engine_zone_actors.c).  An actor that cannot be used is said with why
 * and what exists; an optional one is left out (counted in e->n_missing,
 * for the daemon to look again), any other refuses the zone, which stays
 * with the kernel's governor: every actor is tried, so that each one to
 * fix is said at once, and each optional one is said with the zone's fate.
 * The meters of a zone that runs are opened.  Return: 0 or -ENODEV.
 */
int build_configured_actors(struct build *b, const struct zone_config *zc, struct zone *z);

/**
 * build_offers_user_space() - whether the kernel can hand thermal zone @tz
 * over: it offers the user_space governor.  Else two governors would drive
 * the same devices, so the zone @name is left out, said at @level with the
 * kernel option to enable and @outcome.
 */
bool build_offers_user_space(const struct thermal_zone_info *tz, const char *name, int level,
			     const char *outcome);

/**
 * build_check_power() - zone @z's sustainable power, configured (@zc's)
 * or estimated (its actors' lowest powers together; @zc NULL for an
 * automatic zone), against what its actors draw together (engine_check.c),
 * once they are sampled and its controller set: more than ten times the
 * most, or (configured) less than a tenth of the least, is refused;
 * outside the range, said as a warning, with the range, and with "did you
 * mean" the value in mW where it reads as watts.  Gains a configured zone
 * derives that round to zero are refused, whatever the sustainable power's
 * source.  The most is not checked while an actor's is unknown or an
 * optional actor is missing; the step_wise controller uses neither.
 * Return: 0 or -EINVAL (logged).
 */
int build_check_power(const struct zone *z, const struct zone_config *zc);

/**
 * build_finish_zone() - opens @z's sensor, samples its actors once, sets its
 * controller (@zc: its config, NULL for an automatic zone), takes it over
 * (@tz: its thermal zone; NULL for a combined sensor, which takes none over
 * and has no bindings for the step_wise fallback).  Return: 0 or negative
 * errno (logged).
 */
int build_finish_zone(struct build *b, struct zone *z, const struct thermal_zone_info *tz,
		      const struct zone_config *zc);

/**
 * build_passive_range() - thermal_passive_range() of @tz, each passive trip
 * it does not take (below 0 °C, at or above the hot or critical trip, out
 * of order) said with the zone and the trip (engine_trips.c).
 */
size_t build_passive_range(const struct thermal_zone_info *tz, int32_t *switch_on_mc,
			   int32_t *control_mc);

/**
 * build_zone_temps() - @z's switch-on and control: configured in @zc, else
 * the passive trips of @tz (a single sensor's) as the kernel takes them;
 * with one passive trip and no switch_on_temp the zone is always on.  Trips
 * that read 0 (unset) give neither.  Return: 0 or -EINVAL (said).
 */
int build_zone_temps(struct zone *z, const struct zone_config *zc,
		     const struct thermal_zone_info *tz);

/**
 * build_check_control_temp() - configured zone @zc's control_temp (in @z)
 * against the trips of its thermal zone @tz (NULL for a combined sensor:
 * nothing to check): at or above its hot or critical trip, refused (said,
 * counted in e->n_refused, -EINVAL); above its highest passive trip, said
 * as a warning (engine_trips.c).  Return: 0 or -EINVAL.
 */
int build_check_control_temp(struct build *b, const struct zone_config *zc,
			     const struct zone *z, const struct thermal_zone_info *tz);

/**
 * build_auto_zone() - @z from thermal zone @tz alone (engine_auto.c), as
 * the kernel's power_allocator would run it: the power actors bound to its
 * control trip.  Return: 0, or negative errno when it is not controlled
 * (said once, with why, at notice level or above).
 */
int build_auto_zone(struct build *b, struct thermal_zone_info *tz, struct zone *z);

/**
 * build_note_kernel_bound() - once the zones are built: each actor whose
 * cooling device is bound to a thermal zone that no zone took over, and
 * whose kernel governor drives it (not user_space, not disabled), gets that
 * zone in kernel_tz (engine_kernel.c).  Loads every thermal zone.
 */
void build_note_kernel_bound(struct build *b);

/** build_is_x86_package_zone() - whether @tz is an x86 package's zone (x86_pkg_temp). */
bool build_is_x86_package_zone(const struct thermal_zone_info *tz);

/**
 * build_x86_package_zone() - @z from x86 package zone @tz (engine_x86.c),
 * whose name and sensor are set: the package's RAPL zone as its actor,
 * switch-on and control from its trips when both are set, else 20 and 10
 * °C under the package's TjMax, the firmware's long-term limit as
 * sustainable power and the most its actor writes.  Return: 0,
 * or negative errno when it is not controlled (said once, with why).
 */
int build_x86_package_zone(struct build *b, struct thermal_zone_info *tz, struct zone *z);

/**
 * build_open_actor_meter() - open the power_meter of @zc's actors[@i] for
 * @a, its actor (engine_meter.c), unless @a has one.  A meter that cannot
 * be opened is said with what exists instead (the hwmon devices and their
 * labels, the nearest label), counted in e->n_bad_meters, and @a goes on
 * from its power table.
 */
void build_open_actor_meter(struct build *b, const struct zone_config *zc, size_t i,
			    struct actor *a);

/** build_open_zone_meter() - as build_open_actor_meter(), @zc's own meter for @z. */
void build_open_zone_meter(struct build *b, const struct zone_config *zc, struct zone *z);
