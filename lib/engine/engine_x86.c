/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Automatic configuration of an x86 package zone (x86_pkg_temp), which the
 * kernel binds to nothing: the package's RAPL powercap zone is its actor,
 * its temperatures come from its two trips when both are set, else from
 * the package's TjMax; its sustainable power, and the most the actor
 * writes, is the firmware's long-term limit (at most the package's TDP).
 * powerallocd.conf(5), AUTOMATIC CONFIGURATION, says why each rule.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "control/divvy.h"
#include "engine_build.h"
#include "inventory_text.h"
#include "platform/hwmon.h"
#include "platform/log.h"

#define X86_PKG_TYPE "x86_pkg_temp"
/* Control this far under TjMax, switch-on this far under control (m°C). */
#define X86_CONTROL_UNDER_TJMAX_MC 10000
#define X86_SWITCH_ON_UNDER_CONTROL_MC 10000
/* TjMax when neither coretemp nor the zone gives one: thermald's default (m°C). */
#define X86_DEFAULT_TJMAX_MC 100000
/* Packages told apart, at most. */
#define X86_MAX_PACKAGES 64

bool build_is_x86_package_zone(const struct thermal_zone_info *tz)
{
	return strcmp(tz->type, X86_PKG_TYPE) == 0;
}

/*
 * The physical package of x86_pkg_temp zone @tz, or -1.  The kernel adds
 * one such zone per package when the package's first CPU comes online, so
 * the k-th of them by zone number is the k-th package by first CPU (the
 * cpufreq policies are in CPU order); without topology, the only one is 0.
 */
static int package_of_zone(const struct build *b, const struct thermal_zone_info *tz)
{
	int seen[X86_MAX_PACKAGES];
	size_t k = 0, n_seen = 0;

	for (size_t i = 0; i < b->thermal.n_zones && b->thermal.zones[i].id != tz->id; i++)
		k += build_is_x86_package_zone(&b->thermal.zones[i]);
	for (size_t i = 0; i < b->cpufreq.n && n_seen < X86_MAX_PACKAGES; i++) {
		int p = b->cpufreq.policies[i].package_id;
		size_t j;

		for (j = 0; j < n_seen && seen[j] != p; j++)
			;
		if (p < 0 || j < n_seen)
			continue;
		if (n_seen == k)
			return p;
		seen[n_seen++] = p;
	}
	return k == 0 && n_seen == 0 ? 0 : -1;
}

/* Looking for the RAPL zone of one package among the powercap zones. */
struct rapl_walk {
	char want[32];		/* its name: "package-N" */
	char zone[64];		/* found: "intel-rapl:M" */
};

static int visit_powercap(const char *name, void *userdata)
{
	struct rapl_walk *w = userdata;
	char path[SYSFS_PATH_MAX], text[64];
	unsigned int m;
	int len = 0;

	/* A package is a top-level zone, intel-rapl:M; its subzones have a second ':'. */
	if (sscanf(name, "intel-rapl:%u%n", &m, &len) != 1 || name[len] != '\0' ||
	    sysfs_pathf(path, POWERCAP_CLASS_DIR "/%s/name", name) < 0 ||
	    sysfs_read_str(path, text, sizeof(text)) <= 0 || strcmp(text, w->want) != 0)
		return 0;
	snprintf(w->zone, sizeof(w->zone), "%s", name);
	return 1;
}

/* TjMax of @package (m°C): coretemp's, else @tz's critical trip, else the default; *@from says which. */
static int32_t package_tjmax(const struct thermal_zone_info *tz, int package, const char **from)
{
	int32_t tjmax_mc;

	if (hwmon_coretemp_tjmax(package, &tjmax_mc) == 0) {
		*from = "coretemp's temp_crit";
		return tjmax_mc;
	}
	for (size_t i = 0; i < tz->n_trips; i++)
		if (tz->trips[i].type == TRIP_CRITICAL && tz->trips[i].temp_mc > 0) {
			*from = "the zone's critical trip";
			return tz->trips[i].temp_mc;
		}
	*from = "the default, no coretemp";
	return X86_DEFAULT_TJMAX_MC;
}

/*
 * Switch-on and control of @z from @tz's passive trips when they are all
 * set (the driver shows an unset one as 0 or below) and form a range under
 * @tjmax_mc.  thermald writes its wake-up temperature to trip 0 alone,
 * which is no range: said, and not taken.  Return: whether taken.
 */
static bool temps_from_trips(const struct thermal_zone_info *tz, int32_t tjmax_mc, struct zone *z)
{
	int32_t on = 0, control = 0;
	size_t n_passive = 0, n_set = 0;

	for (size_t i = 0; i < tz->n_trips; i++) {
		n_passive += tz->trips[i].type == TRIP_PASSIVE;
		n_set += tz->trips[i].type == TRIP_PASSIVE && tz->trips[i].temp_mc > 0;
	}
	if (n_set == 0)
		return false;
	if (n_passive >= 2 && n_set == n_passive && thermal_passive_range(tz, &on, &control) &&
	    on < control && control < tjmax_mc) {
		z->setup.switch_on_mc = on;
		z->setup.control_mc = control;
		return true;
	}
	pa_log(PA_LOG_NOTICE, "thermal_zone%d (%s): %zu of its %zu passive trips set, not a "
	       "switch-on and a control temperature under TjMax %.1f °C (thermald leaves its "
	       "wake-up temperature in trip 0); taken from TjMax instead", tz->id, tz->type, n_set,
	       n_passive, tjmax_mc / 1000.0);
	return false;
}

/* Zone @tz's actor: RAPL package zone @rapl.walk.zone, into @z.  Return: 0 or -ENODEV (said). */
static int add_rapl_actor(struct build *b, const struct thermal_zone_info *tz,
			  struct rapl_walk *rapl, struct zone *z)
{
	/* Never above the firmware's long-term limit: it set it for this machine's cooling. */
	struct actor_config ac = { .kind = ACTOR_POWERCAP, .powercap_zone = rapl->zone,
				   .weight_q10 = DIVVY_WEIGHT_ONE, .at_most_original = true };
	char why[BUILD_WHY_MAX], caps[INVENTORY_TEXT_MAX];
	struct actor *a;

	if (!rapl->zone[0]) {
		inventory_text_powercap(caps, sizeof(caps));
		pa_log(PA_LOG_NOTICE, "thermal_zone%d (%s): no RAPL powercap zone named \"%s\" "
		       "(powercap zones: %s; the intel_rapl_msr module makes them); a zone in "
		       "powerallocd.conf with sensor = \"thermal_zone%d\" and a cpufreq_cap actor "
		       "can control it; not controlled", tz->id, tz->type, rapl->want, caps, tz->id);
		return -ENODEV;
	}
	a = build_actor_for_config(b, &ac, why, sizeof(why));
	if (!a || build_add_zone_actor(z, a, DIVVY_WEIGHT_ONE) < 0) {
		pa_log(PA_LOG_WARNING, "thermal_zone%d (%s): %s; not controlled", tz->id, tz->type,
		       a ? "no room for its actor" : why);
		return -ENODEV;
	}
	return 0;
}

int build_x86_package_zone(struct build *b, struct thermal_zone_info *tz, struct zone *z)
{
	struct rapl_walk rapl = { .zone = "" };
	const char *tj_from;
	int package = package_of_zone(b, tz);
	int32_t tjmax_mc;
	bool from_trips;

	if (package < 0) {
		pa_log(PA_LOG_NOTICE, "thermal_zone%d (%s): which package it is cannot be told (no "
		       "cpufreq topology for it); a zone in powerallocd.conf with sensor = "
		       "\"thermal_zone%d\" and a powercap actor can control it; not controlled",
		       tz->id, tz->type, tz->id);
		return -ENODEV;
	}
	if (!build_offers_user_space(tz, z->setup.name, PA_LOG_WARNING, "not controlled"))
		return -EOPNOTSUPP;
	snprintf(rapl.want, sizeof(rapl.want), "package-%d", package);
	sysfs_list_dir(POWERCAP_CLASS_DIR, visit_powercap, &rapl);
	if (add_rapl_actor(b, tz, &rapl, z) < 0)
		return -ENODEV;
	tjmax_mc = package_tjmax(tz, package, &tj_from);
	from_trips = temps_from_trips(tz, tjmax_mc, z);
	if (!from_trips) {
		z->setup.control_mc = tjmax_mc - X86_CONTROL_UNDER_TJMAX_MC;
		z->setup.switch_on_mc = z->setup.control_mc - X86_SWITCH_ON_UNDER_CONTROL_MC;
	}
	/* What the firmware lets the package draw for long (at most its TDP, RAPL's
	 * constraint_0_max_power_uw) is what it found the cooling sustains. */
	z->setup.pid.sustainable_power_mw = z->setup.actors[0]->max_mw;
	if (z->setup.pid.sustainable_power_mw)
		z->setup.sp_source = SP_FROM_RAPL;
	pa_log(PA_LOG_NOTICE,
	       "thermal_zone%d (%s): package %d, TjMax %.1f °C (%s); switch-on "
	       "%.1f °C, control %.1f °C (%s); actor %s (%s), sustainable power %u mW (%s)",
	       tz->id, tz->type, package, tjmax_mc / 1000.0, tj_from,
	       z->setup.switch_on_mc / 1000.0, z->setup.control_mc / 1000.0,
	       from_trips ? "its passive trips"
			  : "20 and 10 °C under "
			    "TjMax",
	       rapl.zone, rapl.want, z->setup.pid.sustainable_power_mw,
	       z->setup.sp_source == SP_FROM_RAPL ? "its long-term limit, at most its TDP"
						  : "none readable: estimated");
	return build_finish_zone(b, z, tz, NULL);
}
