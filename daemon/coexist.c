/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "coexist.h"

#include <stdbool.h>
#include <string.h>

#include "platform/log.h"

/**
 * struct neighbour - a daemon that may run beside powerallocd.
 * @name: what users call it.
 * @bus_name: the name it owns on the system bus, or NULL.
 * @unit: its systemd unit.
 * @writes: what it writes that powerallocd writes too, or NULL when nothing.
 * @advice: what to do about it; with @writes NULL, what it writes instead
 *	(its source: power-profiles-daemon's ppd-driver-intel-pstate.c,
 *	-amd-pstate.c and -platform-profile.c).
 */
struct neighbour {
	const char *name;
	const char *bus_name;
	const char *unit;
	const char *writes;
	const char *advice;
};

static const struct neighbour neighbours[] = {
	{ "thermald", "org.freedesktop.thermald", "thermald.service",
	  "the cooling devices of the zones it controls, the RAPL power limits "
	  "(powercap constraint_*_power_limit_uw) and intel_pstate's max_perf_pct",
	  "stop it (systemctl disable --now thermald); powerallocd.service stops it when it "
	  "starts with a zone to control and starts it again when it stops, so thermald "
	  "was started after it, or powerallocd outside its unit" },
	{ "tuned", "com.redhat.tuned", "tuned.service",
	  "cpufreq scaling_max_freq and governors, per profile",
	  "use a tuned profile without a [cpu] max frequency, or stop it" },
	{ "TLP", NULL, "tlp.service",
	  "cpufreq scaling_max_freq and intel_pstate's max_perf_pct (CPU_SCALING_MAX_FREQ_*, "
	  "CPU_MAX_PERF_*)", "leave those TLP settings unset" },
	{ "auto-cpufreq", NULL, "auto-cpufreq.service", "cpufreq scaling_max_freq and governors",
	  "stop it" },
	{ "power-profiles-daemon", "net.hadess.PowerProfiles", "power-profiles-daemon.service",
	  NULL, "it writes each cpufreq policy's scaling_governor and energy_performance_preference "
	  "and each CPU's energy_perf_bias (intel_pstate, amd_pstate), or "
	  "/sys/firmware/acpi/platform_profile; a platform profile may make the firmware change "
	  "its RAPL limits, which powerallocd then finds and writes back" },
};

#define N_NEIGHBOURS (sizeof(neighbours) / sizeof(neighbours[0]))

static bool reported[N_NEIGHBOURS];

static void report(size_t i, const char *how)
{
	const struct neighbour *n = &neighbours[i];

	if (reported[i])
		return;
	reported[i] = true;
	if (n->writes)
		pa_log(PA_LOG_WARNING, "%s is running (%s): it also writes %s; the two will fight "
		       "over those files, powerallocd writing its value back each time it finds "
		       "theirs (see EXTERNAL WRITERS in powerallocd(8)): %s", n->name, how,
		       n->writes, n->advice);
	else
		pa_log(PA_LOG_NOTICE, "%s is running (%s): it writes none of the files powerallocd "
		       "writes (cooling states, scaling_max_freq, powercap limits, zone policies), "
		       "so the two do not fight: %s", n->name, how, n->advice);
}

static int on_name_owner(sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	size_t i = (size_t)userdata;
	int has = 0;

	(void)error;
	if (!sd_bus_message_is_method_error(reply, NULL) &&
	    sd_bus_message_read(reply, "b", &has) >= 0 && has)
		report(i, neighbours[i].bus_name);
	return 0;
}

static int on_active_state(sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	size_t i = (size_t)userdata;
	const char *state = NULL;

	(void)error;
	if (!sd_bus_message_is_method_error(reply, NULL) &&
	    sd_bus_message_read(reply, "v", "s", &state) >= 0 && state &&
	    (strcmp(state, "active") == 0 || strcmp(state, "activating") == 0 ||
	     strcmp(state, "reloading") == 0))
		report(i, neighbours[i].unit);
	return 0;
}

/* GetUnit's answer: the unit is loaded; ask whether it is active. */
static int on_unit(sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	const char *path;

	(void)error;
	if (sd_bus_message_is_method_error(reply, NULL) ||
	    sd_bus_message_read(reply, "o", &path) < 0)
		return 0;	/* not loaded, or no systemd on this bus */
	return sd_bus_call_method_async(sd_bus_message_get_bus(reply), NULL,
					"org.freedesktop.systemd1", path,
					"org.freedesktop.DBus.Properties", "Get", on_active_state,
					userdata, "ss", "org.freedesktop.systemd1.Unit",
					"ActiveState");
}

int coexist_check(sd_bus *bus)
{
	int r = 0;

	for (size_t i = 0; i < N_NEIGHBOURS && r >= 0; i++) {
		void *index = (void *)i;

		if (neighbours[i].bus_name)
			r = sd_bus_call_method_async(bus, NULL, "org.freedesktop.DBus",
						     "/org/freedesktop/DBus", "org.freedesktop.DBus",
						     "NameHasOwner", on_name_owner, index, "s",
						     neighbours[i].bus_name);
		if (r >= 0)
			r = sd_bus_call_method_async(bus, NULL, "org.freedesktop.systemd1",
						     "/org/freedesktop/systemd1",
						     "org.freedesktop.systemd1.Manager", "GetUnit",
						     on_unit, index, "s", neighbours[i].unit);
	}
	return r < 0 ? r : 0;
}
