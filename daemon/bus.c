/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "bus.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "build-config.h"
#include "coexist.h"
#include "cpumask.h"
#include "log.h"
#include "zone_sensor.h"

#define ZONE_PREFIX BUS_PATH "/zone"
#define ACTOR_PREFIX BUS_PATH "/actor"
#define RETRY_US (5 * 1000 * 1000ULL)
/* Longest object path served: ACTOR_PREFIX, a slash and an index, with room. */
#define SERVED_PATH_MAX 64

struct bus {
	sd_bus *bus;
	sd_event *event;
	sd_event_source *retry;
	const struct bus_view *view;
	bool session;
	bool failed;	/* logged once until connected again */
};

static int connect_bus(struct bus *b);

/* ---------------------------------------------------------------- paths */

/* The index N of "<prefix>/N", or -1. */
static long index_of(const char *path, const char *prefix, size_t n)
{
	size_t len = strlen(prefix);
	char *end;
	long i;

	if (strncmp(path, prefix, len) != 0 || path[len] != '/')
		return -1;
	i = strtol(path + len + 1, &end, 10);
	return *end || end == path + len + 1 || i < 0 || (size_t)i >= n ? -1 : i;
}

/* "<prefix>/0" .. "<prefix>/n-1" as an array of object paths. */
static int append_range(sd_bus_message *reply, const char *prefix, size_t n)
{
	char path[64];
	int r = sd_bus_message_open_container(reply, 'a', "o");

	for (size_t i = 0; r >= 0 && i < n; i++) {
		snprintf(path, sizeof(path), "%s/%zu", prefix, i);
		r = sd_bus_message_append(reply, "o", path);
	}
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* ---------------------------------------------------------------- Manager */

static int get_version(sd_bus *bus, const char *path, const char *iface, const char *prop,
		       sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	(void)bus, (void)path, (void)iface, (void)prop, (void)userdata, (void)error;
	return sd_bus_message_append(reply, "s", PACKAGE_VERSION);
}

static int get_state(sd_bus *bus, const char *path, const char *iface, const char *prop,
		     sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	struct bus *b = userdata;

	(void)bus, (void)path, (void)iface, (void)prop, (void)error;
	return sd_bus_message_append(reply, "s", b->view->state);
}

static int get_zones(sd_bus *bus, const char *path, const char *iface, const char *prop,
		     sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	const struct engine *e = ((struct bus *)userdata)->view->engine;

	(void)bus, (void)path, (void)iface, (void)prop, (void)error;
	return append_range(reply, ZONE_PREFIX, e->n_zones);
}

static int method_reload(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct bus *b = userdata;
	sd_bus_creds *creds = NULL;
	uid_t uid = (uid_t)-1;
	char why[1024] = "";
	int r;

	/* Defence in depth: the bus policy already lets only root call this. */
	r = sd_bus_query_sender_creds(m, SD_BUS_CREDS_EUID | SD_BUS_CREDS_UID |
				      SD_BUS_CREDS_AUGMENT, &creds);
	if (r >= 0 && sd_bus_creds_get_euid(creds, &uid) < 0)
		sd_bus_creds_get_uid(creds, &uid);
	sd_bus_creds_unref(creds);
	if (uid != 0)
		return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED,
					"Reload is for root only");
	r = b->view->reload(b->view->userdata, why, sizeof(why));
	if (r < 0)
		return sd_bus_error_set_errnof(error, -r, "configuration rejected, the running one "
					       "stays: %s", why);
	return sd_bus_reply_method_return(m, NULL);
}

static const sd_bus_vtable manager_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Version", "s", get_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("State", "s", get_state, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("Zones", "ao", get_zones, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_METHOD("Reload", "", "", method_reload, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_VTABLE_END,
};

/* ---------------------------------------------------------------- zones and actors */

/* The engine the zone and actor objects show (one bus per process). */
static const struct engine *shown;

/* The object path of @a (its index among the engine's actors). */
static int append_actor_path(sd_bus_message *reply, const struct actor *a)
{
	char path[64];

	for (size_t i = 0; i < shown->n_actors; i++)
		if (shown->actors[i] == a) {
			snprintf(path, sizeof(path), ACTOR_PREFIX "/%zu", i);
			return sd_bus_message_append(reply, "o", path);
		}
	return 0;
}

/* Actors: the zone's power actors; FallbackDevices: those on its step_wise fallback. */
static int append_zone_actors(sd_bus_message *reply, const struct zone *z, bool fallback)
{
	size_t n = fallback ? z->n_fallback : z->n_actors;
	int r = sd_bus_message_open_container(reply, 'a', "o");

	for (size_t k = 0; r >= 0 && k < n; k++)
		r = append_actor_path(reply, fallback ? z->fallback[k].actor : z->actors[k]);
	return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int zone_property(sd_bus *bus, const char *path, const char *iface, const char *prop,
			 sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	const struct zone *z = userdata;
	char sensor[SYSFS_PATH_MAX];

	(void)bus, (void)path, (void)iface, (void)error;
	zone_sensor_name(z, sensor, sizeof(sensor));
	if (strcmp(prop, "Name") == 0)
		return sd_bus_message_append(reply, "s", z->name);
	if (strcmp(prop, "Sensor") == 0)
		return sd_bus_message_append(reply, "s", sensor);
	if (strcmp(prop, "Temperature") == 0)
		return sd_bus_message_append(reply, "i", z->temp_mc);
	if (strcmp(prop, "SwitchOnTemperature") == 0)
		return sd_bus_message_append(reply, "i", z->switch_on_mc);
	if (strcmp(prop, "ControlTemperature") == 0)
		return sd_bus_message_append(reply, "i", z->control_mc);
	if (strcmp(prop, "ControlMargin") == 0)	/* only the default controller aims under */
		return sd_bus_message_append(reply, "u", z->pid.mode == PID_MODE_DEFAULT ?
					     z->pid.fixes.control_margin_mc : 0);
	if (strcmp(prop, "SustainablePower") == 0)
		return sd_bus_message_append(reply, "u", z->pid.sustainable_power_mw);
	if (strcmp(prop, "PowerBudget") == 0)
		return sd_bus_message_append(reply, "u", z->budget_mw);
	if (strcmp(prop, "LearnedSustainablePower") == 0)
		return sd_bus_message_append(reply, "u", thermal_model_sustainable_mw(&z->model));
	if (strcmp(prop, "ThermalTimeConstant") == 0)
		return sd_bus_message_append(reply, "d", z->model.est.time_constant_s);
	if (strcmp(prop, "ModelConfidence") == 0)
		return sd_bus_message_append(reply, "d", z->model.est.confidence);
	if (strcmp(prop, "Active") == 0)
		return sd_bus_message_append(reply, "b", (int)z->active);
	return append_zone_actors(reply, z, strcmp(prop, "FallbackDevices") == 0);
}

static int actor_property(sd_bus *bus, const char *path, const char *iface, const char *prop,
			  sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	const struct actor *a = userdata;
	char cpus[256] = "";

	(void)bus, (void)path, (void)iface, (void)error;
	if (strcmp(prop, "Name") == 0)
		return sd_bus_message_append(reply, "s", a->name);
	if (strcmp(prop, "Kind") == 0)
		return sd_bus_message_append(reply, "s", actor_kind_name(a->kind));
	if (strcmp(prop, "CPUs") == 0) {
		cpumask_format_list(&a->cpus, cpus, sizeof(cpus));
		return sd_bus_message_append(reply, "s", cpus);
	}
	if (strcmp(prop, "Weight") == 0)
		return sd_bus_message_append(reply, "d", a->weight_q10 / 1024.0);
	if (strcmp(prop, "RequestedPower") == 0)
		return sd_bus_message_append(reply, "u", a->req_mw);
	if (strcmp(prop, "GrantedPower") == 0)
		return sd_bus_message_append(reply, "u", a->granted_mw);
	if (strcmp(prop, "MaxPower") == 0)
		return sd_bus_message_append(reply, "u", a->max_mw);
	if (strcmp(prop, "Load") == 0)
		return sd_bus_message_append(reply, "u", a->load_pct);
	if (strcmp(prop, "Frequency") == 0)
		return sd_bus_message_append(reply, "u", a->freq_khz);
	if (strcmp(prop, "CoolingState") == 0)
		return sd_bus_message_append(reply, "u", (uint32_t)a->state);
	if (strcmp(prop, "WriteErrors") == 0)
		return sd_bus_message_append(reply, "u", a->retry.errors);
	return sd_bus_message_append(reply, "u", (uint32_t)a->max_state);
}

#define LIVE(name, sig, getter) SD_BUS_PROPERTY(name, sig, getter, 0, 0)
#define SLOW(name, sig, getter) \
	SD_BUS_PROPERTY(name, sig, getter, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE)

static const sd_bus_vtable zone_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SLOW("Name", "s", zone_property),
	SLOW("Sensor", "s", zone_property),
	LIVE("Temperature", "i", zone_property),
	SLOW("SwitchOnTemperature", "i", zone_property),
	SLOW("ControlTemperature", "i", zone_property),
	SLOW("ControlMargin", "u", zone_property),
	SLOW("SustainablePower", "u", zone_property),
	LIVE("PowerBudget", "u", zone_property),
	LIVE("LearnedSustainablePower", "u", zone_property),
	LIVE("ThermalTimeConstant", "d", zone_property),
	LIVE("ModelConfidence", "d", zone_property),
	SLOW("Active", "b", zone_property),
	SLOW("Actors", "ao", zone_property),
	SLOW("FallbackDevices", "ao", zone_property),
	SD_BUS_VTABLE_END,
};

static const sd_bus_vtable actor_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SLOW("Name", "s", actor_property),
	SLOW("Kind", "s", actor_property),
	SLOW("CPUs", "s", actor_property),
	SLOW("Weight", "d", actor_property),
	LIVE("RequestedPower", "u", actor_property),
	LIVE("GrantedPower", "u", actor_property),
	LIVE("MaxPower", "u", actor_property),
	LIVE("Load", "u", actor_property),
	LIVE("Frequency", "u", actor_property),
	LIVE("CoolingState", "u", actor_property),
	SLOW("MaxCoolingState", "u", actor_property),
	LIVE("WriteErrors", "u", actor_property),
	SD_BUS_VTABLE_END,
};

static int find_zone(sd_bus *bus, const char *path, const char *iface, void *userdata,
		     void **found, sd_bus_error *error)
{
	long i = index_of(path, ZONE_PREFIX, shown->n_zones);

	(void)bus, (void)iface, (void)userdata, (void)error;
	if (i < 0)
		return 0;
	*found = &((struct engine *)shown)->zones[i];
	return 1;
}

static int find_actor(sd_bus *bus, const char *path, const char *iface, void *userdata,
		      void **found, sd_bus_error *error)
{
	long i = index_of(path, ACTOR_PREFIX, shown->n_actors);

	(void)bus, (void)iface, (void)userdata, (void)error;
	if (i < 0)
		return 0;
	*found = shown->actors[i];
	return 1;
}

/* The children of @prefix, for introspection and the object manager. */
static int enumerate(const char *prefix, size_t n, char ***nodes)
{
	char **v = calloc(n + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (asprintf(&v[i], "%s/%zu", prefix, i) < 0) {
			for (size_t k = 0; k < i; k++)
				free(v[k]);
			free(v);
			return -ENOMEM;
		}
	}
	*nodes = v;
	return 1;
}

static int enumerate_zones(sd_bus *bus, const char *prefix, void *userdata, char ***nodes,
			   sd_bus_error *error)
{
	(void)bus, (void)prefix, (void)userdata, (void)error;
	return enumerate(ZONE_PREFIX, shown->n_zones, nodes);
}

static int enumerate_actors(sd_bus *bus, const char *prefix, void *userdata, char ***nodes,
			    sd_bus_error *error)
{
	(void)bus, (void)prefix, (void)userdata, (void)error;
	return enumerate(ACTOR_PREFIX, shown->n_actors, nodes);
}

/* ---------------------------------------------------------------- admission */

/*
 * Whether @path can name one of our objects: BUS_PATH, what lies under it,
 * or one of its ancestors ("/", "/org": introspection walks down from
 * there), at most SERVED_PATH_MAX bytes.
 */
static bool path_served(const char *path)
{
	size_t len = strnlen(path, SERVED_PATH_MAX + 1);

	if (len > SERVED_PATH_MAX)
		return false;
	if (strncmp(path, BUS_PATH, len) == 0)
		return len == 1 || BUS_PATH[len] == '/' || BUS_PATH[len] == '\0';
	return strncmp(path, BUS_PATH "/", strlen(BUS_PATH "/")) == 0;
}

/*
 * Runs before sd-bus looks an object up: that lookup tries every prefix of
 * the path, a cost quadratic in its length (0.4 s of the loop for a 64 KiB
 * path), so a call to a path we cannot serve is answered here, in time
 * linear in at most SERVED_PATH_MAX bytes, whoever sends it.
 */
static int admit_call(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	const char *path = sd_bus_message_get_path(m);

	(void)userdata, (void)error;
	if (!sd_bus_message_is_method_call(m, NULL, NULL) || !path || path_served(path))
		return 0;
	sd_bus_reply_method_errorf(m, SD_BUS_ERROR_UNKNOWN_OBJECT, "No object at this path");
	return 1;
}

/* ---------------------------------------------------------------- connection */

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
	(void)s, (void)usec;
	connect_bus(userdata);
	return 0;
}

static void schedule_retry(struct bus *b)
{
	uint64_t now = 0;

	sd_event_now(b->event, CLOCK_MONOTONIC, &now);
	sd_event_source_set_time(b->retry, now + RETRY_US);
	sd_event_source_set_enabled(b->retry, SD_EVENT_ONESHOT);
}

/* The bus went away (dbus restarted): keep controlling, reconnect later. */
static int on_disconnected(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct bus *b = userdata;

	(void)m, (void)error;
	pa_log(PA_LOG_WARNING, "D-Bus connection lost; reconnecting every %llu s",
	       (unsigned long long)(RETRY_US / 1000000));
	b->failed = true;
	sd_bus_flush_close_unref(b->bus);
	b->bus = NULL;
	schedule_retry(b);
	return 0;
}

static int export_objects(struct bus *b)
{
	int r;

	if ((r = sd_bus_add_filter(b->bus, NULL, admit_call, b)) < 0 ||
	    (r = sd_bus_add_object_vtable(b->bus, NULL, BUS_PATH, "org.powerallocd1.Manager",
					  manager_vtable, b)) < 0 ||
	    (r = sd_bus_add_fallback_vtable(b->bus, NULL, ZONE_PREFIX, "org.powerallocd1.Zone",
					    zone_vtable, find_zone, b)) < 0 ||
	    (r = sd_bus_add_node_enumerator(b->bus, NULL, ZONE_PREFIX, enumerate_zones, b)) < 0 ||
	    (r = sd_bus_add_fallback_vtable(b->bus, NULL, ACTOR_PREFIX, "org.powerallocd1.Actor",
					    actor_vtable, find_actor, b)) < 0 ||
	    (r = sd_bus_add_node_enumerator(b->bus, NULL, ACTOR_PREFIX, enumerate_actors, b)) < 0 ||
	    (r = sd_bus_add_object_manager(b->bus, NULL, BUS_PATH)) < 0)
		return r;
	return sd_bus_match_signal(b->bus, NULL, "org.freedesktop.DBus.Local", NULL,
				   "org.freedesktop.DBus.Local", "Disconnected", on_disconnected, b);
}

static int connect_bus(struct bus *b)
{
	int r = b->session ? sd_bus_open_user(&b->bus) : sd_bus_open_system(&b->bus);

	if (r >= 0 && (r = export_objects(b)) >= 0 &&
	    (r = sd_bus_request_name(b->bus, BUS_NAME, 0)) >= 0)
		r = sd_bus_attach_event(b->bus, b->event, BUS_EVENT_PRIORITY);
	if (r < 0) {
		if (!b->failed)
			pa_log(PA_LOG_WARNING, "D-Bus: cannot serve %s on the %s bus: %s; control goes "
			       "on, retrying every %llu s", BUS_NAME, b->session ? "session" : "system",
			       strerror(-r), (unsigned long long)(RETRY_US / 1000000));
		b->failed = true;
		sd_bus_flush_close_unref(b->bus);
		b->bus = NULL;
		schedule_retry(b);
		return r;
	}
	/* Who else writes what we write: asked once connected, logged once. */
	if (coexist_check(b->bus) < 0)
		pa_log(PA_LOG_DEBUG, "D-Bus: cannot ask which other thermal daemons run");
	if (b->failed)
		pa_log(PA_LOG_NOTICE, "D-Bus: serving %s again", BUS_NAME);
	else
		pa_log(PA_LOG_INFO, "D-Bus: serving %s on the %s bus", BUS_NAME,
		       b->session ? "session" : "system");
	b->failed = false;
	return 0;
}

struct bus *bus_open(sd_event *event, bool session, const struct bus_view *view)
{
	struct bus *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->event = event;
	b->session = session;
	b->view = view;
	shown = view->engine;
	if (sd_event_add_time(event, &b->retry, CLOCK_MONOTONIC, UINT64_MAX, 0, on_retry, b) < 0) {
		free(b);
		return NULL;
	}
	sd_event_source_set_enabled(b->retry, SD_EVENT_OFF);
	connect_bus(b);
	return b;
}

static void emit_objects(struct bus *b, const char *prefix, size_t n, bool added)
{
	char path[64];

	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%zu", prefix, i);
		if (added)
			sd_bus_emit_object_added(b->bus, path);
		else
			sd_bus_emit_object_removed(b->bus, path);
	}
}

void bus_zones_changed(struct bus *b, size_t old_zones, size_t old_actors)
{
	if (!b || !b->bus)
		return;
	/* Paths are indices: every old object goes, every new one comes. */
	emit_objects(b, ZONE_PREFIX, old_zones, false);
	emit_objects(b, ACTOR_PREFIX, old_actors, false);
	emit_objects(b, ZONE_PREFIX, shown->n_zones, true);
	emit_objects(b, ACTOR_PREFIX, shown->n_actors, true);
	sd_bus_emit_properties_changed(b->bus, BUS_PATH, "org.powerallocd1.Manager", "Zones", NULL);
}

void bus_zone_active_changed(struct bus *b, size_t i)
{
	char path[64];

	if (!b || !b->bus)
		return;
	snprintf(path, sizeof(path), ZONE_PREFIX "/%zu", i);
	sd_bus_emit_properties_changed(b->bus, path, "org.powerallocd1.Zone", "Active", NULL);
}

void bus_state_changed(struct bus *b)
{
	if (b && b->bus)
		sd_bus_emit_properties_changed(b->bus, BUS_PATH, "org.powerallocd1.Manager", "State",
					       NULL);
}

void bus_close(struct bus *b)
{
	if (!b)
		return;
	if (b->bus)
		sd_bus_release_name(b->bus, BUS_NAME);
	sd_bus_flush_close_unref(b->bus);
	sd_event_source_unref(b->retry);
	free(b);
}
