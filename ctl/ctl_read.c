/* SPDX-License-Identifier: GPL-2.0-or-later */
/* powerallocctl: reading the daemon's state from its D-Bus interface. */
#include "ctl_read.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

FILE *ctl_errors;
sd_bus *ctl_bus;

/*
 * A call that got no reply because the daemon left the bus while answering
 * (it was stopped) is "not running"; one that timed out while the daemon is
 * still there is an error.
 */
static bool daemon_left(const sd_bus_error *e, int r)
{
	sd_bus_message *m = NULL;
	int owned = 1;

	if (!sd_bus_error_has_name(e, SD_BUS_ERROR_NO_REPLY) && r != -ECONNRESET)
		return false;
	if (ctl_bus && sd_bus_call_method(ctl_bus, "org.freedesktop.DBus",
					     "/org/freedesktop/DBus", "org.freedesktop.DBus",
					     "NameHasOwner", NULL, &m, "s", BUS_NAME) >= 0)
		sd_bus_message_read(m, "b", &owned);
	sd_bus_message_unref(m);
	return !owned;
}

int ctl_failure_exit(const sd_bus_error *e, int r)
{
	if (sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER,
				   NULL) || daemon_left(e, r)) {
		fprintf(ctl_errors, "powerallocd is not running (no %s on the bus)\n", BUS_NAME);
		return EXIT_NOT_RUNNING;
	}
	if (sd_bus_error_has_name(e, SD_BUS_ERROR_ACCESS_DENIED) || r == -EACCES || r == -EPERM) {
		fprintf(ctl_errors, "permission denied: only root may do this (%s)\n",
			e->message ? e->message : strerror(-r));
		return EXIT_DENIED;
	}
	fprintf(ctl_errors, "powerallocd: %s\n", e->message ? e->message : strerror(-r));
	return EXIT_ERROR;
}

/* One property; on failure *exit_code is set (once) and the value left 0. */
static int get(sd_bus *bus, const char *path, const char *iface, const char *prop, char type,
	       void *out, int *exit_code)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int r;

	if (type == 's')
		r = sd_bus_get_property_string(bus, BUS_NAME, path, iface, prop, &e, out);
	else
		r = sd_bus_get_property_trivial(bus, BUS_NAME, path, iface, prop, &e, type, out);
	if (r < 0 && !*exit_code)
		*exit_code = ctl_failure_exit(&e, r);
	sd_bus_error_free(&e);
	return r;
}

/* An "ao" property into @paths (strdup'd). Return: the count, or -1. */
static int get_paths(sd_bus *bus, const char *path, const char *iface, const char *prop,
		     char **paths, int *exit_code)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL;
	const char *p;
	int n = 0, r;

	r = sd_bus_get_property(bus, BUS_NAME, path, iface, prop, &e, &m, "ao");
	if (r >= 0)
		r = sd_bus_message_enter_container(m, 'a', "o");
	while (r >= 0 && n < MAX_OBJECTS && (r = sd_bus_message_read(m, "o", &p)) > 0)
		paths[n++] = strdup(p);
	if (r < 0 && !*exit_code)
		*exit_code = ctl_failure_exit(&e, r);
	sd_bus_error_free(&e);
	sd_bus_message_unref(m);
	return r < 0 ? -1 : n;
}

static void read_actor(sd_bus *bus, const char *path, struct actor_view *a, int *x)
{
	const char *i = "org.powerallocd1.Actor";

	get(bus, path, i, "Name", 's', &a->name, x);
	get(bus, path, i, "Kind", 's', &a->kind, x);
	get(bus, path, i, "CPUs", 's', &a->cpus, x);
	get(bus, path, i, "RequestedPower", 'u', &a->requested, x);
	get(bus, path, i, "GrantedPower", 'u', &a->granted, x);
	get(bus, path, i, "MaxPower", 'u', &a->max, x);
	get(bus, path, i, "Load", 'u', &a->load, x);
	get(bus, path, i, "Frequency", 'u', &a->freq, x);
	get(bus, path, i, "CoolingState", 'u', &a->state, x);
	get(bus, path, i, "MaxCoolingState", 'u', &a->max_state, x);
	get(bus, path, i, "WriteErrors", 'u', &a->write_errors, x);
	get(bus, path, i, "ExternalWrites", 'u', &a->external_writes, x);
	get(bus, path, i, "Yielded", 'b', &a->yielded, x);
	get(bus, path, i, "Weight", 'd', &a->weight, x);
	get(bus, path, i, "LimitingReason", 's', &a->reason, x);
	get(bus, path, i, "Meter", 's', &a->meter, x);
	get(bus, path, i, "MeterState", 's', &a->meter_state, x);
	get(bus, path, i, "MeterFault", 's', &a->meter_fault, x);
	get(bus, path, i, "MeasuredPower", 'u', &a->measured, x);
	get(bus, path, i, "TablePower", 'u', &a->table, x);
	get(bus, path, i, "Calibrating", 'b', &a->calibrating, x);
	get(bus, path, i, "PowerScale", 'd', &a->power_scale, x);
	get(bus, path, i, "PowerScaleOffset", 'd', &a->power_scale_offset, x);
	get(bus, path, i, "PowerScaleConfidence", 'd', &a->power_scale_confidence, x);
}

/* The actors listed in the zone's @prop ("Actors", "FallbackDevices") into @views. */
static size_t read_zone_actors(sd_bus *bus, const char *path, const char *prop,
			       struct actor_view *views, int *x)
{
	char *actors[MAX_OBJECTS];
	int n = get_paths(bus, path, "org.powerallocd1.Zone", prop, actors, x);

	for (int k = 0; k < n; k++) {
		read_actor(bus, actors[k], &views[k], x);
		free(actors[k]);
	}
	return n > 0 ? (size_t)n : 0;
}

/* The zone's GetHeadroom(@forecast_s), or NAN when it has none (a failed sensor). */
static double get_headroom(sd_bus *bus, const char *path, uint32_t forecast_s)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	double h = NAN;

	if (sd_bus_call_method(bus, BUS_NAME, path, "org.powerallocd1.Zone", "GetHeadroom", &e,
			       &reply, "u", forecast_s) >= 0 && sd_bus_message_read(reply, "d", &h) < 0)
		h = NAN;
	sd_bus_error_free(&e);
	sd_bus_message_unref(reply);
	return h;
}

static void read_zone(sd_bus *bus, const char *path, struct zone_view *z, int *x)
{
	const char *i = "org.powerallocd1.Zone";

	get(bus, path, i, "Name", 's', &z->name, x);
	get(bus, path, i, "Sensor", 's', &z->sensor, x);
	get(bus, path, i, "Temperature", 'i', &z->temp, x);
	get(bus, path, i, "SwitchOnTemperature", 'i', &z->switch_on, x);
	get(bus, path, i, "AlwaysOn", 'b', &z->always_on, x);
	get(bus, path, i, "ControlTemperature", 'i', &z->control, x);
	get(bus, path, i, "ControlMargin", 'u', &z->margin, x);
	get(bus, path, i, "SustainablePower", 'u', &z->sustainable, x);
	get(bus, path, i, "SustainablePowerSource", 's', &z->sp_source, x);
	get(bus, path, i, "SustainablePowerInUse", 'u', &z->in_use, x);
	get(bus, path, i, "SustainablePowerInUseSource", 's', &z->in_use_source, x);
	get(bus, path, i, "ModelState", 's', &z->model_state, x);
	get(bus, path, i, "PowerBudget", 'u', &z->budget, x);
	get(bus, path, i, "Active", 'b', &z->active, x);
	get(bus, path, i, "GivenUpTo", 's', &z->given_up_to, x);
	get(bus, path, i, "LearnedSustainablePower", 'u', &z->learned, x);
	get(bus, path, i, "ThermalTimeConstant", 'd', &z->time_constant, x);
	get(bus, path, i, "ModelConfidence", 'd', &z->confidence, x);
	get(bus, path, i, "LimitingReason", 's', &z->reason, x);
	get(bus, path, i, "SensorFault", 's', &z->fault, x);
	get(bus, path, i, "ThrottledUsec", 't', &z->throttled_us, x);
	get(bus, path, i, "ProportionalTerm", 'x', &z->p, x);
	get(bus, path, i, "IntegralTerm", 'x', &z->i, x);
	get(bus, path, i, "DerivativeTerm", 'x', &z->d, x);
	z->headroom = get_headroom(bus, path, 0);
	z->headroom_ahead = get_headroom(bus, path, HEADROOM_AHEAD_S);
	z->n_actors = read_zone_actors(bus, path, "Actors", z->actors, x);
	z->n_fallback = read_zone_actors(bus, path, "FallbackDevices", z->fallback, x);
}

static void free_actor_views(struct actor_view *views, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		free(views[k].name);
		free(views[k].kind);
		free(views[k].cpus);
		free(views[k].reason);
		free(views[k].meter);
		free(views[k].meter_state);
		free(views[k].meter_fault);
	}
}

static void free_zones(struct zone_view *zones, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free_actor_views(zones[i].actors, zones[i].n_actors);
		free_actor_views(zones[i].fallback, zones[i].n_fallback);
		free(zones[i].name);
		free(zones[i].sensor);
		free(zones[i].reason);
		free(zones[i].fault);
		free(zones[i].sp_source);
		free(zones[i].in_use_source);
		free(zones[i].model_state);
		free(zones[i].given_up_to);
	}
	free(zones);
}

/* Whether @name is one of the NULL-terminated @only; NULL takes every name. */
static bool wanted(const char *name, char *const *only)
{
	for (; only && *only; only++)
		if (strcmp(name, *only) == 0)
			return true;
	return !only;
}

/*
 * Each of @only (NULL-terminated) names one of the @n zones @names, else
 * say which does not and what it may have meant.  Return: EXIT_OK or EXIT_USAGE.
 */
static int check_zone_names(char *const *only, char *const *names, size_t n)
{
	const char *list[MAX_OBJECTS + 1];
	const char *near;

	for (size_t i = 0; i < n; i++)
		list[i] = names[i] ? names[i] : "";
	list[n] = NULL;
	for (; only && *only; only++) {
		size_t i = 0;

		while (i < n && strcmp(*only, list[i]) != 0)
			i++;
		if (i < n)
			continue;
		near = pa_nearest_name(*only, list);
		fprintf(ctl_errors, "powerallocctl: no zone named '%s'", *only);
		if (near)
			fprintf(ctl_errors, ": did you mean '%s'?", near);
		fprintf(ctl_errors, "\n(powerallocctl status --summary lists the zones)\n");
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

int ctl_read_snapshot(sd_bus *bus, struct snapshot *s, char *const *only)
{
	const char *m = "org.powerallocd1.Manager";
	char *paths[MAX_OBJECTS], *names[MAX_OBJECTS];
	int x = 0, n;

	memset(s, 0, sizeof(*s));
	if (get(bus, BUS_PATH, m, "Version", 's', &s->version, &x) < 0)
		return x;
	get(bus, BUS_PATH, m, "State", 's', &s->state, &x);
	get(bus, BUS_PATH, m, "PowerLimit", 'u', &s->limit_mw, &x);
	get(bus, BUS_PATH, m, "PowerLimitExpiresUsec", 't', &s->limit_expires_us, &x);
	get(bus, BUS_PATH, m, "PowerLimitUnmet", 's', &s->limit_unmet, &x);
	n = get_paths(bus, BUS_PATH, m, "Zones", paths, &x);
	s->zones = calloc(n > 0 ? (size_t)n : 1, sizeof(*s->zones));
	for (int i = 0; i < n; i++) {
		names[i] = NULL;
		/* Only the zones asked for are read: a zone has some twenty properties. */
		if (only)
			get(bus, paths[i], "org.powerallocd1.Zone", "Name", 's', &names[i], &x);
		if (s->zones && (!only || (names[i] && wanted(names[i], only))))
			read_zone(bus, paths[i], &s->zones[s->n_zones++], &x);
		free(paths[i]);
	}
	if (!x && only)
		x = check_zone_names(only, names, n > 0 ? (size_t)n : 0);
	for (int i = 0; i < n; i++)
		free(names[i]);
	return s->zones ? x : EXIT_ERROR;
}

int ctl_read_max_power(sd_bus *bus, uint64_t *max_mw)
{
	char *zones[MAX_OBJECTS], *actors[MAX_OBJECTS], *seen[MAX_OBJECTS];
	size_t n_seen = 0;
	int x = 0, n;

	*max_mw = 0;
	n = get_paths(bus, BUS_PATH, "org.powerallocd1.Manager", "Zones", zones, &x);
	for (int i = 0; i < n; i++) {
		int k = get_paths(bus, zones[i], "org.powerallocd1.Zone", "Actors", actors, &x);

		for (int j = 0; j < k; j++) {
			size_t a = 0;
			uint32_t mw = 0;

			/* An actor several zones hold is one object: counted once. */
			while (a < n_seen && strcmp(seen[a], actors[j]) != 0)
				a++;
			if (a == n_seen && n_seen < MAX_OBJECTS) {
				get(bus, actors[j], "org.powerallocd1.Actor", "MaxPower", 'u', &mw, &x);
				*max_mw += mw;
				seen[n_seen++] = actors[j];
			} else {
				free(actors[j]);
			}
		}
		free(zones[i]);
	}
	for (size_t a = 0; a < n_seen; a++)
		free(seen[a]);
	return n < 0 && !x ? EXIT_ERROR : x;
}

void ctl_free_snapshot(struct snapshot *s)
{
	free(s->version);
	free(s->state);
	free(s->limit_unmet);
	free_zones(s->zones, s->n_zones);
}
