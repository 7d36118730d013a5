/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "bus.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "build-config.h"
#include "bus_objects.h"
#include "coexist.h"
#include "platform/log.h"

#define RETRY_US (5 * 1000 * 1000ULL)
/* Longest object path served: BUS_ACTOR_PREFIX, a slash and an index, with room. */
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
	return append_range(reply, BUS_ZONE_PREFIX, e->n_zones);
}

/*
 * Whether the caller of @m is root.  Defence in depth: the bus policy
 * already lets only root call the Manager's methods.
 */
static bool caller_is_root(sd_bus_message *m)
{
	sd_bus_creds *creds = NULL;
	uid_t uid = (uid_t)-1;
	int r;

	r = sd_bus_query_sender_creds(m, SD_BUS_CREDS_EUID | SD_BUS_CREDS_UID |
				      SD_BUS_CREDS_AUGMENT, &creds);
	if (r >= 0 && sd_bus_creds_get_euid(creds, &uid) < 0)
		sd_bus_creds_get_uid(creds, &uid);
	sd_bus_creds_unref(creds);
	return uid == 0;
}

static int method_reload(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct bus *b = userdata;
	char why[1024] = "";
	int r;

	if (!caller_is_root(m))
		return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED,
					"Reload is for root only");
	r = b->view->reload(b->view->userdata, why, sizeof(why));
	if (r < 0)
		return sd_bus_error_set_errnof(error, -r, "configuration rejected, the running one "
					       "stays: %s", why);
	return sd_bus_reply_method_return(m, NULL);
}

static int method_set_power_limit(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct bus *b = userdata;
	uint32_t limit_mw, lease_s;
	char why[256] = "";
	int r;

	if (!caller_is_root(m))
		return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED,
					"SetPowerLimit is for root only");
	if ((r = sd_bus_message_read(m, "uu", &limit_mw, &lease_s)) < 0)
		return r;
	r = power_limit_set(b->view->limit, limit_mw, lease_s, why, sizeof(why));
	if (r == -EINVAL)
		return sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS, why);
	if (r < 0)
		return sd_bus_error_set_errnof(error, -r, "%s", why);
	return sd_bus_reply_method_return(m, NULL);
}

static int method_clear_power_limit(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct bus *b = userdata;

	if (!caller_is_root(m))
		return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED,
					"ClearPowerLimit is for root only");
	power_limit_clear(b->view->limit);
	return sd_bus_reply_method_return(m, NULL);
}

static int get_power_limit(sd_bus *bus, const char *path, const char *iface, const char *prop,
			   sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	const struct power_limit *l = ((struct bus *)userdata)->view->limit;

	(void)bus, (void)path, (void)iface, (void)error;
	if (strcmp(prop, "PowerLimit") == 0)
		return sd_bus_message_append(reply, "u", l->limit_mw);
	if (strcmp(prop, "PowerLimitExpiresUsec") == 0)
		return sd_bus_message_append(reply, "t", l->expires_us);
	return sd_bus_message_append(reply, "s", l->unmet);
}

/* What every actor draws at its lowest state now: the least a cap can hold them to. */
static int get_lowest_power(sd_bus *bus, const char *path, const char *iface, const char *prop,
			    sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	const struct engine *e = ((struct bus *)userdata)->view->engine;

	(void)bus, (void)path, (void)iface, (void)prop, (void)error;
	return sd_bus_message_append(reply, "u", e->lowest_mw);
}

static const sd_bus_vtable manager_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Version", "s", get_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("State", "s", get_state, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("Zones", "ao", get_zones, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("PowerLimit", "u", get_power_limit, 0,
			SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("PowerLimitExpiresUsec", "t", get_power_limit, 0,
			SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("PowerLimitUnmet", "s", get_power_limit, 0,
			SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	/* Moves with the load every period: read, not signalled. */
	SD_BUS_PROPERTY("LowestPower", "u", get_lowest_power, 0, 0),
	SD_BUS_METHOD("Reload", "", "", method_reload, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_NAMES("SetPowerLimit", "uu", SD_BUS_PARAM(limit_mw) SD_BUS_PARAM(lease_s),
				 "", , method_set_power_limit, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD("ClearPowerLimit", "", "", method_clear_power_limit,
		      SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_VTABLE_END,
};

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
	    (r = bus_objects_add(b->bus, b->view->engine)) < 0 ||
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
	emit_objects(b, BUS_ZONE_PREFIX, old_zones, false);
	emit_objects(b, BUS_ACTOR_PREFIX, old_actors, false);
	emit_objects(b, BUS_ZONE_PREFIX, b->view->engine->n_zones, true);
	emit_objects(b, BUS_ACTOR_PREFIX, b->view->engine->n_actors, true);
	sd_bus_emit_properties_changed(b->bus, BUS_PATH, "org.powerallocd1.Manager", "Zones", NULL);
}

static void emit_changed(struct bus *b, const char *prefix, size_t i, const char *iface,
			 const char *prop)
{
	char path[64];

	if (!b || !b->bus)
		return;
	snprintf(path, sizeof(path), "%s/%zu", prefix, i);
	sd_bus_emit_properties_changed(b->bus, path, iface, prop, NULL);
}

void bus_zone_changed(struct bus *b, size_t i, const char *prop)
{
	emit_changed(b, BUS_ZONE_PREFIX, i, "org.powerallocd1.Zone", prop);
}

void bus_actor_changed(struct bus *b, size_t i, const char *prop)
{
	emit_changed(b, BUS_ACTOR_PREFIX, i, "org.powerallocd1.Actor", prop);
}

void bus_power_limit_changed(struct bus *b)
{
	if (b && b->bus)
		sd_bus_emit_properties_changed(b->bus, BUS_PATH, "org.powerallocd1.Manager",
					       "PowerLimit", "PowerLimitExpiresUsec",
					       "PowerLimitUnmet", NULL);
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
