/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "bus_objects.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control/cpumask.h"
#include "engine/zone_sensor.h"
#include "meter_view.h"

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

/* The engine the zone and actor objects show (one bus per process). */
static const struct engine *shown;

/* The object path of @a (its index among the engine's actors). */
static int append_actor_path(sd_bus_message *reply, const struct actor *a)
{
	char path[64];

	for (size_t i = 0; i < shown->n_actors; i++)
		if (shown->actors[i] == a) {
			snprintf(path, sizeof(path), BUS_ACTOR_PREFIX "/%zu", i);
			return sd_bus_message_append(reply, "o", path);
		}
	return 0;
}

/* Actors: the zone's power actors; FallbackDevices: those on its step_wise fallback. */
static int append_zone_actors(sd_bus_message *reply, const struct zone *z, bool fallback)
{
	size_t n = fallback ? z->setup.n_fallback : z->setup.n_actors;
	int r = sd_bus_message_open_container(reply, 'a', "o");

	for (size_t k = 0; r >= 0 && k < n; k++)
		r = append_actor_path(reply,
				      fallback ? z->setup.fallback[k].actor : z->setup.actors[k]);
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
		return sd_bus_message_append(reply, "s", z->setup.name);
	if (strcmp(prop, "Sensor") == 0)
		return sd_bus_message_append(reply, "s", sensor);
	if (strcmp(prop, "Temperature") == 0)
		return sd_bus_message_append(reply, "i", z->sensing.temp_mc);
	if (strcmp(prop, "SwitchOnTemperature") == 0)
		return sd_bus_message_append(reply, "i", z->setup.switch_on_mc);
	if (strcmp(prop, "AlwaysOn") == 0)
		return sd_bus_message_append(reply, "b", (int)z->setup.always_on);
	if (strcmp(prop, "ControlTemperature") == 0)
		return sd_bus_message_append(reply, "i", z->setup.control_mc);
	if (strcmp(prop, "ControlMargin") == 0)	/* only the default controller aims under */
		return sd_bus_message_append(reply, "u", z->setup.pid.mode == PID_MODE_DEFAULT ?
					     z->setup.pid.fixes.control_margin_mc : 0);
	if (strcmp(prop, "PowerBudget") == 0)
		return sd_bus_message_append(reply, "u", z->control.budget_mw);
	if (strcmp(prop, "Active") == 0)
		return sd_bus_message_append(reply, "b", (int)z->control.active);
	if (strcmp(prop, "GivenUpTo") == 0)
		return sd_bus_message_append(reply, "s", z->setup.given_up_to);
	if (strcmp(prop, "LimitingReason") == 0)
		return sd_bus_message_append(reply, "s", limit_reason_name(z->sensing.limit.shown));
	if (strcmp(prop, "SensorFault") == 0)
		return sd_bus_message_append(reply, "s", sensor_fault_name(z->sensing.fault_shown));
	if (strcmp(prop, "ThrottledUsec") == 0)
		return sd_bus_message_append(reply, "t", z->sensing.limit.limited_us);
	if (strcmp(prop, "ProportionalTerm") == 0)
		return sd_bus_message_append(reply, "x", z->control.pid_out.p_mw);
	if (strcmp(prop, "IntegralTerm") == 0)
		return sd_bus_message_append(reply, "x", z->control.pid_out.i_mw);
	if (strcmp(prop, "DerivativeTerm") == 0)
		return sd_bus_message_append(reply, "x", z->control.pid_out.d_mw);
	return append_zone_actors(reply, z, strcmp(prop, "FallbackDevices") == 0);
}

/* The sustainable power (given and in use) and the thermal model. */
static int zone_model_property(sd_bus *bus, const char *path, const char *iface,
			       const char *prop, sd_bus_message *reply, void *userdata,
			       sd_bus_error *error)
{
	const struct zone *z = userdata;

	(void)bus, (void)path, (void)iface, (void)error;
	if (strcmp(prop, "SustainablePower") == 0)
		return sd_bus_message_append(reply, "u", z->setup.pid.sustainable_power_mw);
	if (strcmp(prop, "SustainablePowerSource") == 0)
		return sd_bus_message_append(reply, "s", zone_sp_source_name(z));
	if (strcmp(prop, "SustainablePowerInUse") == 0)
		return sd_bus_message_append(reply, "u", zone_feed_forward_mw(z));
	if (strcmp(prop, "SustainablePowerInUseSource") == 0)
		return sd_bus_message_append(reply, "s", zone_sp_in_use_source_name(z));
	if (strcmp(prop, "ModelState") == 0)
		return sd_bus_message_append(reply, "s", zone_model_state_name(zone_model_state(z)));
	if (strcmp(prop, "LearnedSustainablePower") == 0)
		return sd_bus_message_append(reply, "u", thermal_model_sustainable_mw(&z->learning.model));
	if (strcmp(prop, "ThermalTimeConstant") == 0)
		return sd_bus_message_append(reply, "d", z->learning.model.est.time_constant_s);
	return sd_bus_message_append(reply, "d", z->learning.model.est.confidence);
}

static int method_get_headroom(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	const struct zone *z = userdata;
	uint32_t forecast_s;
	int r;

	if ((r = sd_bus_message_read(m, "u", &forecast_s)) < 0)
		return r;
	if (z->sensing.sensor_failed)
		return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED, "zone %s: no temperature "
					 "(its sensor failed)", z->setup.name);
	return sd_bus_reply_method_return(m, "d", zone_headroom(z, forecast_s));
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
	if (strcmp(prop, "ExternalWrites") == 0)
		return sd_bus_message_append(reply, "u", a->external.count);
	if (strcmp(prop, "Yielded") == 0)
		return sd_bus_message_append(reply, "b", (int)a->external.yielded);
	if (strcmp(prop, "LimitingReason") == 0)
		return sd_bus_message_append(reply, "s", limit_reason_name(a->limit.shown));
	return sd_bus_message_append(reply, "u", (uint32_t)a->max_state);
}

/* Its power meter and the calibration of its power table learnt from it (meter_view.h). */
static int actor_meter_property(sd_bus *bus, const char *path, const char *iface,
				const char *prop, sd_bus_message *reply, void *userdata,
				sd_bus_error *error)
{
	const struct actor *a = userdata;
	enum meter_view_state state = meter_view_state(a);
	struct meter_view_scale scale = meter_view_scale(a);

	(void)bus, (void)path, (void)iface, (void)error;
	if (strcmp(prop, "Meter") == 0)
		return sd_bus_message_append(reply, "s", meter_view_name(a));
	if (strcmp(prop, "MeterState") == 0)
		return sd_bus_message_append(reply, "s", meter_view_state_name(state));
	if (strcmp(prop, "MeterFault") == 0)
		return sd_bus_message_append(reply, "s", meter_view_fault(a));
	if (strcmp(prop, "MeasuredPower") == 0)	/* 0 without a reading: see MeterState */
		return sd_bus_message_append(reply, "u", state == METER_VIEW_READING ?
					     a->measured_mw : 0);
	if (strcmp(prop, "TablePower") == 0)
		return sd_bus_message_append(reply, "u", meter_view_table_mw(a));
	if (strcmp(prop, "Calibrating") == 0)
		return sd_bus_message_append(reply, "b", (int)scale.calibrating);
	if (strcmp(prop, "PowerScale") == 0)
		return sd_bus_message_append(reply, "d", scale.scale);
	if (strcmp(prop, "PowerScaleOffset") == 0)
		return sd_bus_message_append(reply, "d", scale.offset_mw);
	return sd_bus_message_append(reply, "d", scale.confidence);
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
	SLOW("AlwaysOn", "b", zone_property),
	SLOW("ControlTemperature", "i", zone_property),
	SLOW("ControlMargin", "u", zone_property),
	SLOW("SustainablePower", "u", zone_model_property),
	SLOW("SustainablePowerSource", "s", zone_model_property),
	LIVE("SustainablePowerInUse", "u", zone_model_property),
	LIVE("SustainablePowerInUseSource", "s", zone_model_property),
	LIVE("PowerBudget", "u", zone_property),
	LIVE("ModelState", "s", zone_model_property),
	LIVE("LearnedSustainablePower", "u", zone_model_property),
	LIVE("ThermalTimeConstant", "d", zone_model_property),
	LIVE("ModelConfidence", "d", zone_model_property),
	SLOW("Active", "b", zone_property),
	LIVE("GivenUpTo", "s", zone_property),
	SLOW("LimitingReason", "s", zone_property),
	SLOW("SensorFault", "s", zone_property),
	LIVE("ThrottledUsec", "t", zone_property),
	LIVE("ProportionalTerm", "x", zone_property),
	LIVE("IntegralTerm", "x", zone_property),
	LIVE("DerivativeTerm", "x", zone_property),
	SLOW("Actors", "ao", zone_property),
	SLOW("FallbackDevices", "ao", zone_property),
	SD_BUS_METHOD_WITH_NAMES("GetHeadroom", "u", SD_BUS_PARAM(forecast_s), "d",
				 SD_BUS_PARAM(headroom), method_get_headroom,
				 SD_BUS_VTABLE_UNPRIVILEGED),
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
	LIVE("ExternalWrites", "u", actor_property),
	LIVE("Yielded", "b", actor_property),
	SLOW("LimitingReason", "s", actor_property),
	LIVE("Meter", "s", actor_meter_property),
	LIVE("MeterState", "s", actor_meter_property),
	LIVE("MeterFault", "s", actor_meter_property),
	LIVE("MeasuredPower", "u", actor_meter_property),
	LIVE("TablePower", "u", actor_meter_property),
	LIVE("Calibrating", "b", actor_meter_property),
	LIVE("PowerScale", "d", actor_meter_property),
	LIVE("PowerScaleOffset", "d", actor_meter_property),
	LIVE("PowerScaleConfidence", "d", actor_meter_property),
	SD_BUS_VTABLE_END,
};

static int find_zone(sd_bus *bus, const char *path, const char *iface, void *userdata,
		     void **found, sd_bus_error *error)
{
	long i = index_of(path, BUS_ZONE_PREFIX, shown->n_zones);

	(void)bus, (void)iface, (void)userdata, (void)error;
	if (i < 0)
		return 0;
	*found = &((struct engine *)shown)->zones[i];
	return 1;
}

static int find_actor(sd_bus *bus, const char *path, const char *iface, void *userdata,
		      void **found, sd_bus_error *error)
{
	long i = index_of(path, BUS_ACTOR_PREFIX, shown->n_actors);

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
	return enumerate(BUS_ZONE_PREFIX, shown->n_zones, nodes);
}

static int enumerate_actors(sd_bus *bus, const char *prefix, void *userdata, char ***nodes,
			    sd_bus_error *error)
{
	(void)bus, (void)prefix, (void)userdata, (void)error;
	return enumerate(BUS_ACTOR_PREFIX, shown->n_actors, nodes);
}

int bus_objects_add(sd_bus *bus, const struct engine *engine)
{
	int r;

	shown = engine;
	if ((r = sd_bus_add_fallback_vtable(bus, NULL, BUS_ZONE_PREFIX, "org.powerallocd1.Zone",
					    zone_vtable, find_zone, NULL)) < 0 ||
	    (r = sd_bus_add_node_enumerator(bus, NULL, BUS_ZONE_PREFIX, enumerate_zones, NULL)) < 0 ||
	    (r = sd_bus_add_fallback_vtable(bus, NULL, BUS_ACTOR_PREFIX, "org.powerallocd1.Actor",
					    actor_vtable, find_actor, NULL)) < 0)
		return r;
	return sd_bus_add_node_enumerator(bus, NULL, BUS_ACTOR_PREFIX, enumerate_actors, NULL);
}
