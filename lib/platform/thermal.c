/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "thermal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control/enum_name.h"
#include "log.h"
#include "sysfs.h"

static const char *const trip_type_names[] = { "active", "passive", "hot", "critical" };

const char *trip_type_name(enum trip_type type)
{
	return ENUM_NAME(trip_type_names, type);
}

/* The kernel's internal ENOTSUPP, which some drivers let out to user space. */
#define KERNEL_ENOTSUPP 524

/*
 * The errors with which a driver says it has no such value for this zone:
 * the thermal core answers EIO for sustainable_power (and k_po, k_pu, ...)
 * on a zone registered without governor parameters, as ACPI's are in Linux
 * 6.1; others answer ENODATA, EOPNOTSUPP or ENOTSUPP.
 */
static bool not_provided(int error)
{
	return error == -EIO || error == -ENODATA || error == -EOPNOTSUPP ||
	       error == -KERNEL_ENOTSUPP;
}

/*
 * Reads @dir/@attr as a number in [min, max].  On failure logs one line:
 * the file, why, and @consequence (what is left out because of it); at
 * debug level only when @optional and the driver says it has no such value
 * (not_provided()).
 */
static int read_ranged(const char *dir, const char *attr, int64_t min, int64_t max, int64_t *v,
		       bool optional, const char *consequence)
{
	char path[SYSFS_PATH_MAX];
	int r = sysfs_pathf(path, "%s/%s", dir, attr);

	if (r == 0)
		r = sysfs_read_s64(path, v);
	if (r == 0 && (*v < min || *v > max)) {
		pa_log(PA_LOG_WARNING, "%s: %lld is outside [%lld, %lld]; %s", path, (long long)*v,
		       (long long)min, (long long)max, consequence);
		return -ERANGE;
	}
	if (r < 0 && optional && not_provided(r))
		pa_log(PA_LOG_DEBUG, "%s: %s (the driver gives none for this zone); %s", path,
		       sysfs_strerror(r), consequence);
	else if (r < 0)
		pa_log(PA_LOG_WARNING, "%s: %s; %s", path,
		       r == -EINVAL ? "not a number" : sysfs_strerror(r), consequence);
	return r;
}

/* Reads a text attribute; an empty one is an error.  Logs like read_ranged() when @consequence. */
static int read_text(const char *dir, const char *attr, char *buf, size_t size,
		     const char *consequence)
{
	char path[SYSFS_PATH_MAX];
	ssize_t n = sysfs_pathf(path, "%s/%s", dir, attr);

	if (n == 0)
		n = sysfs_read_str(path, buf, size);
	if (n == 0)
		n = -ENODATA;
	if (n < 0) {
		buf[0] = '\0';
		if (consequence)
			pa_log(PA_LOG_WARNING, "%s: %s; %s", path,
			       n == -ENODATA ? "empty" : sysfs_strerror((int)n), consequence);
		return (int)n;
	}
	return 0;
}

static int parse_trip_type(const char *s, enum trip_type *type)
{
	for (unsigned int i = 0; i < ELEMENTSOF(trip_type_names); i++) {
		if (strcmp(s, trip_type_names[i]) == 0) {
			*type = (enum trip_type)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* trip_point_K_{type,temp,hyst}; a trip that cannot be read is left out. */
static void scan_trips(const char *dir, struct thermal_zone_info *z)
{
	for (unsigned int k = 0; k < THERMAL_MAX_TRIPS; k++) {
		struct trip_info *t = &z->trips[z->n_trips];
		char attr[64], type[32], path[SYSFS_PATH_MAX];
		int64_t temp, hyst = 0;

		snprintf(attr, sizeof(attr), "trip_point_%u_type", k);
		if (sysfs_pathf(path, "%s/%s", dir, attr) < 0 || !sysfs_exists(path)) {
			snprintf(attr, sizeof(attr), "trip_point_%u_temp", k);
			if (sysfs_pathf(path, "%s/%s", dir, attr) == 0 && sysfs_exists(path))
				pa_log(PA_LOG_WARNING, "%s/trip_point_%u_type: missing; trip %u ignored",
				       dir, k, k);
			continue;
		}
		if (read_text(dir, attr, type, sizeof(type), "trip ignored") < 0)
			continue;
		if (parse_trip_type(type, &t->type) < 0) {
			pa_log(PA_LOG_WARNING, "%s/%s: unknown trip type \"%s\"; trip %u ignored", dir,
			       attr, type, k);
			continue;
		}
		snprintf(attr, sizeof(attr), "trip_point_%u_temp", k);
		if (read_ranged(dir, attr, -273150, INT32_MAX, &temp, false, "trip ignored") < 0)
			continue;
		snprintf(attr, sizeof(attr), "trip_point_%u_hyst", k);
		if (sysfs_pathf(path, "%s/%s", dir, attr) == 0 && sysfs_exists(path) &&
		    read_ranged(dir, attr, 0, INT32_MAX, &hyst, false, "hysteresis taken as 0") < 0)
			hyst = 0;
		t->index = k;
		t->temp_mc = (int32_t)temp;
		t->hyst_mc = (int32_t)hyst;
		z->n_trips++;
	}
}

/* The M of a link target ".../cooling_deviceM"; -1 when it is not one. */
static int cdev_id_of_link(const char *link_path)
{
	char name[64];
	int id;

	if (sysfs_link_name(link_path, name, sizeof(name)) < 0 ||
	    sscanf(name, "cooling_device%d", &id) != 1 || id < 0)
		return -1;
	return id;
}

static void scan_bindings(const char *dir, struct thermal_zone_info *z)
{
	for (unsigned int k = 0; k < 256 && z->n_bindings < THERMAL_MAX_BINDINGS; k++) {
		struct cdev_binding *b = &z->bindings[z->n_bindings];
		char link[SYSFS_PATH_MAX], attr[64];
		int64_t trip, weight = 0;
		if (sysfs_pathf(link, "%s/cdev%u", dir, k) < 0)
			break;
		if (!sysfs_lexists(link))
			continue;	/* no binding with this index */
		b->cdev_id = cdev_id_of_link(link);
		if (b->cdev_id < 0) {
			pa_log(PA_LOG_WARNING, "%s: not a link to a cooling device; binding ignored", link);
			continue;
		}
		if (!sysfs_exists(link)) {
			pa_log(PA_LOG_WARNING, "%s: dangling link (cooling device gone); binding ignored",
			       link);
			continue;
		}
		snprintf(attr, sizeof(attr), "cdev%u_trip_point", k);
		if (read_ranged(dir, attr, -1, THERMAL_MAX_TRIPS - 1, &trip, false,
				"binding ignored") < 0)
			continue;
		snprintf(attr, sizeof(attr), "cdev%u_weight", k);
		if (read_ranged(dir, attr, 0, UINT32_MAX, &weight, false, "weight taken as 0") < 0)
			weight = 0;
		b->index = k;
		b->trip = (int)trip;
		b->weight = (uint32_t)weight;
		z->n_bindings++;
	}
}

/* Only the type: what a sensor is named by.  The rest waits for thermal_zone_load(). */
static int scan_zone(int id, struct thermal_zone_info *z)
{
	memset(z, 0, sizeof(*z));
	z->id = id;
	sysfs_pathf(z->dir, THERMAL_CLASS_DIR "/thermal_zone%d", id);
	return read_text(z->dir, "type", z->type, sizeof(z->type), "thermal zone ignored") < 0 ?
	       -EINVAL : 0;
}

void thermal_zone_load(struct thermal_zone_info *z)
{
	if (z->loaded)
		return;
	read_text(z->dir, "policy", z->policy, sizeof(z->policy), NULL);
	read_text(z->dir, "available_policies", z->available_policies,
		  sizeof(z->available_policies), NULL);
	read_text(z->dir, "mode", z->mode, sizeof(z->mode), NULL);
	scan_trips(z->dir, z);
	scan_bindings(z->dir, z);
	z->loaded = true;
}

uint32_t thermal_zone_sustainable_power(const struct thermal_zone_info *z)
{
	char path[SYSFS_PATH_MAX];
	int64_t sp;

	if (sysfs_pathf(path, "%s/sustainable_power", z->dir) < 0 || !sysfs_exists(path) ||
	    read_ranged(z->dir, "sustainable_power", 0, UINT32_MAX, &sp, true,
			"taken as unset") < 0)
		return 0;
	return (uint32_t)sp;
}

static int scan_cdev(int id, struct cooling_device_info *c)
{
	char dir[SYSFS_PATH_MAX];
	int64_t max_state, cur_state;

	memset(c, 0, sizeof(*c));
	c->id = id;
	sysfs_pathf(dir, THERMAL_CLASS_DIR "/cooling_device%d", id);
	if (read_text(dir, "type", c->type, sizeof(c->type), "cooling device ignored") < 0 ||
	    read_ranged(dir, "max_state", 0, THERMAL_MAX_STATE, &max_state, false,
			"cooling device ignored") < 0 ||
	    read_ranged(dir, "cur_state", 0, max_state, &cur_state, false,
			"cooling device ignored") < 0)
		return -EINVAL;
	c->max_state = (unsigned long)max_state;
	c->cur_state = (unsigned long)cur_state;
	return 0;
}

int thermal_scan(struct thermal_inventory *inv)
{
	int64_t *ids = NULL;
	size_t n;
	int r;

	memset(inv, 0, sizeof(*inv));
	r = sysfs_list_ids(THERMAL_CLASS_DIR, "thermal_zone", &ids, &n);
	if (r < 0)
		return r;
	inv->zones = calloc(n ? n : 1, sizeof(*inv->zones));
	for (size_t i = 0; inv->zones && i < n; i++)
		if (ids[i] <= INT32_MAX && scan_zone((int)ids[i], &inv->zones[inv->n_zones]) == 0)
			inv->n_zones++;
	free(ids);
	if (!inv->zones)
		return -ENOMEM;

	r = sysfs_list_ids(THERMAL_CLASS_DIR, "cooling_device", &ids, &n);
	if (r < 0) {
		thermal_inventory_free(inv);
		return r;
	}
	inv->cdevs = calloc(n ? n : 1, sizeof(*inv->cdevs));
	for (size_t i = 0; inv->cdevs && i < n; i++)
		if (ids[i] <= INT32_MAX && scan_cdev((int)ids[i], &inv->cdevs[inv->n_cdevs]) == 0)
			inv->n_cdevs++;
	free(ids);
	if (!inv->cdevs) {
		thermal_inventory_free(inv);
		return -ENOMEM;
	}
	return 0;
}

void thermal_inventory_free(struct thermal_inventory *inv)
{
	free(inv->zones);
	free(inv->cdevs);
	memset(inv, 0, sizeof(*inv));
}

/* Whether @sensor is a directory name, thermal_zoneN: *@id is then N. */
static bool names_directory(const char *sensor, int *id)
{
	char extra;

	return sscanf(sensor, "thermal_zone%d%c", id, &extra) == 1;
}

struct thermal_zone_info *thermal_find_zone(struct thermal_inventory *inv, const char *sensor)
{
	int id;

	for (size_t i = 0; i < inv->n_zones; i++)
		if (names_directory(sensor, &id) ? inv->zones[i].id == id :
		    strcmp(inv->zones[i].type, sensor) == 0)
			return &inv->zones[i];
	return NULL;
}

size_t thermal_count_zones(const struct thermal_inventory *inv, const char *sensor)
{
	size_t n = 0;
	int id;

	for (size_t i = 0; i < inv->n_zones; i++)
		n += names_directory(sensor, &id) ? inv->zones[i].id == id :
		     strcmp(inv->zones[i].type, sensor) == 0;
	return n;
}

int thermal_zone_read_temp(const struct thermal_zone_info *z, int64_t *temp_mc)
{
	char path[SYSFS_PATH_MAX];
	int r = sysfs_pathf(path, "%s/temp", z->dir);

	return r < 0 ? r : sysfs_read_s64(path, temp_mc);
}

const struct cooling_device_info *thermal_find_cdev(const struct thermal_inventory *inv, int id)
{
	for (size_t i = 0; i < inv->n_cdevs; i++)
		if (inv->cdevs[i].id == id)
			return &inv->cdevs[i];
	return NULL;
}

const struct trip_info *thermal_limit_trip(const struct thermal_zone_info *zone)
{
	const struct trip_info *limit = NULL;

	for (size_t i = 0; i < zone->n_trips; i++) {
		const struct trip_info *t = &zone->trips[i];

		if ((t->type == TRIP_HOT || t->type == TRIP_CRITICAL) && t->temp_mc > 0 &&
		    (!limit || t->temp_mc < limit->temp_mc))
			limit = t;
	}
	return limit;
}

enum trip_doubt thermal_trip_doubt(const struct thermal_zone_info *zone, size_t i,
				   const struct trip_info **ref)
{
	const struct trip_info *limit = thermal_limit_trip(zone), *taken = NULL;
	enum trip_doubt doubt = TRIP_TAKEN;

	/* The passive trips up to @i in order, each judged after the last one taken. */
	for (size_t k = 0; k <= i && k < zone->n_trips; k++) {
		const struct trip_info *t = &zone->trips[k];

		if (t->type != TRIP_PASSIVE)
			continue;
		*ref = NULL;
		if (t->temp_mc < 0)
			doubt = TRIP_BELOW_ZERO;
		else if (limit && t->temp_mc >= limit->temp_mc)
			doubt = TRIP_AT_LIMIT, *ref = limit;
		else if (taken && t->temp_mc < taken->temp_mc)
			doubt = TRIP_OUT_OF_ORDER, *ref = taken;
		else
			doubt = TRIP_TAKEN, taken = t;
	}
	return doubt;
}

/* Calls @fn for each passive trip of @zone that is taken, in order. */
static size_t each_taken(const struct thermal_zone_info *zone,
			 void (*fn)(const struct trip_info *t, void *arg), void *arg)
{
	const struct trip_info *ref;
	size_t n = 0;

	for (size_t i = 0; i < zone->n_trips; i++)
		if (zone->trips[i].type == TRIP_PASSIVE &&
		    thermal_trip_doubt(zone, i, &ref) == TRIP_TAKEN) {
			fn(&zone->trips[i], arg);
			n++;
		}
	return n;
}

/* each_taken()'s step: the first trip into [0], the last into [1]. */
static void first_and_last(const struct trip_info *t, void *arg)
{
	const struct trip_info **ends = arg;

	if (!ends[0])
		ends[0] = t;
	ends[1] = t;
}

size_t thermal_passive_range(const struct thermal_zone_info *zone, int32_t *switch_on_mc,
			     int32_t *control_mc)
{
	const struct trip_info *ends[2] = { NULL, NULL };
	size_t n = each_taken(zone, first_and_last, ends);

	if (n >= 1)
		*control_mc = ends[1]->temp_mc;
	if (n >= 2)
		*switch_on_mc = ends[0]->temp_mc;	/* one: no switch-on, that trip is control */
	return n;
}

const struct trip_info *thermal_control_trip(const struct thermal_zone_info *zone)
{
	const struct trip_info *ends[2] = { NULL, NULL };

	each_taken(zone, first_and_last, ends);
	return ends[1];
}

bool thermal_zone_has_trip_at(const struct thermal_zone_info *zone, int32_t temp_mc)
{
	for (size_t i = 0; i < zone->n_trips; i++)
		if (zone->trips[i].temp_mc == temp_mc)
			return true;
	return false;
}

bool thermal_zone_offers_policy(const struct thermal_zone_info *zone, const char *policy)
{
	size_t len = strlen(policy);
	const char *p = zone->available_policies;

	for (p += strspn(p, " \t\n"); *p; p += strspn(p, " \t\n")) {
		size_t word = strcspn(p, " \t\n");

		if (word == len && strncmp(p, policy, len) == 0)
			return true;
		p += word;
	}
	return false;
}

int thermal_zone_set_policy(int id, const char *policy)
{
	char path[SYSFS_PATH_MAX];
	int r = sysfs_pathf(path, THERMAL_CLASS_DIR "/thermal_zone%d/policy", id);

	return r < 0 ? r : sysfs_write_str(path, policy);
}

int thermal_zone_open_policy(int id, struct sysfs_attr *attr)
{
	char path[SYSFS_PATH_MAX];
	int r = sysfs_pathf(path, THERMAL_CLASS_DIR "/thermal_zone%d/policy", id);

	return r < 0 ? r : sysfs_attr_open(attr, path, false);
}

int thermal_zone_read_policy(const struct sysfs_attr *attr, char *buf, size_t size)
{
	ssize_t n = sysfs_attr_read(attr, buf, size);

	if (n < 0)
		return (int)n;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}
