/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Thermal zones and cooling devices as /sys/class/thermal shows them.
 * Discovery reads every cooling device and each thermal zone's type once;
 * the rest of a zone only when it is used (thermal_zone_load()), so that a
 * zone nobody controls is not read.  An entry that cannot be read is
 * logged once with its file and left out, the rest is kept.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sysfs.h"

/* Room for a type or policy name, and the most trips and bindings kept per zone. */
#define THERMAL_NAME_MAX 64
#define THERMAL_MAX_TRIPS 16
#define THERMAL_MAX_BINDINGS 32
#define THERMAL_CLASS_DIR "/sys/class/thermal"
/*
 * THERMAL_MAX_STATE - the highest max_state a cooling device is taken with
 * (2^31 - 1); one above it is refused, naming the file and the value.  The
 * kernel's thermal netlink carries max_state in 32 bits, and real devices
 * have a few to a few hundred states (one per OPP, fan level or idle
 * percent), so none is near it; and an unsigned long holds it on 32-bit
 * machines too, where a larger sysfs value would be cut.
 */
#define THERMAL_MAX_STATE INT32_MAX

enum trip_type {
	TRIP_ACTIVE,
	TRIP_PASSIVE,
	TRIP_HOT,
	TRIP_CRITICAL,
};

/** struct trip_info - one trip point: type, temperature and hysteresis (m°C). */
struct trip_info {
	unsigned int index;
	enum trip_type type;
	int32_t temp_mc;
	int32_t hyst_mc;
};

/**
 * struct cdev_binding - thermal_zoneN/cdevK: cooling device @cdev_id is
 * bound to trip @trip with weight @weight (cdevK_weight, 0 = none given).
 */
struct cdev_binding {
	unsigned int index;
	int cdev_id;
	int trip;
	uint32_t weight;
};

/**
 * struct thermal_zone_info - thermal_zoneN.
 * @id: N.
 * @dir: /sys/class/thermal/thermal_zoneN.
 * @type: its type ("cpu-thermal").
 * @loaded: whether the fields below were read (thermal_zone_load()).
 * @policy: the governor in charge when loaded.
 * @available_policies: as the kernel lists them.
 * @mode: "enabled" or "disabled" ("" when the kernel has no mode file).
 * @trips: the trips that could be read, in index order.
 * @bindings: the cdevK links that could be read.
 */
struct thermal_zone_info {
	int id;
	char dir[SYSFS_PATH_MAX];
	char type[THERMAL_NAME_MAX];
	bool loaded;
	char policy[THERMAL_NAME_MAX];
	char available_policies[256];
	char mode[16];
	size_t n_trips;
	struct trip_info trips[THERMAL_MAX_TRIPS];
	size_t n_bindings;
	struct cdev_binding bindings[THERMAL_MAX_BINDINGS];
};

/** struct cooling_device_info - cooling_deviceM: type and states as discovered. */
struct cooling_device_info {
	int id;
	char type[THERMAL_NAME_MAX];
	unsigned long max_state;
	unsigned long cur_state;
};

/** struct thermal_inventory - everything under /sys/class/thermal, sorted by id. */
struct thermal_inventory {
	size_t n_zones;
	struct thermal_zone_info *zones;
	size_t n_cdevs;
	struct cooling_device_info *cdevs;
};

/**
 * thermal_scan() - read every cooling device, and every thermal zone's
 * type.  Problems with single entries are logged (naming the file) and the
 * entry or the part of it is left out.
 * Return: 0, or negative errno when the class directory cannot be read.
 */
int thermal_scan(struct thermal_inventory *inv);

/**
 * thermal_zone_load() - read the rest of @z (policies, mode, trips and
 * bindings) if not yet read; problems are logged as by thermal_scan().
 */
void thermal_zone_load(struct thermal_zone_info *z);

/**
 * thermal_zone_sustainable_power() - @z's sustainable_power, mW; 0 when it
 * has none, also when the kernel refuses to read it (EIO: a zone registered
 * without governor parameters, such as an ACPI one; ENODATA, EOPNOTSUPP),
 * which is said at debug level only.  A value that is not a number or out
 * of range is logged as a warning and taken as 0.
 */
uint32_t thermal_zone_sustainable_power(const struct thermal_zone_info *z);

/** thermal_zone_read_temp() - @z's temp, m°C.  Return: 0 or negative errno. */
int thermal_zone_read_temp(const struct thermal_zone_info *z, int64_t *temp_mc);

/** thermal_inventory_free() - release what thermal_scan() allocated. */
void thermal_inventory_free(struct thermal_inventory *inv);

/**
 * thermal_find_zone() - a zone by type ("cpu-thermal") or directory name
 * ("thermal_zone0"); the first of the zones of that type.
 * Return: the zone or NULL.
 */
struct thermal_zone_info *thermal_find_zone(struct thermal_inventory *inv, const char *sensor);

/**
 * thermal_count_zones() - how many zones @sensor names: those of that type,
 * or for a directory name ("thermal_zone0") 0 or 1.  More than one is
 * ambiguous.
 */
size_t thermal_count_zones(const struct thermal_inventory *inv, const char *sensor);

/** thermal_find_cdev() - cooling_device@id, or NULL. */
const struct cooling_device_info *thermal_find_cdev(const struct thermal_inventory *inv, int id);

/** trip_type_name() - "passive", "active", "hot", "critical". */
const char *trip_type_name(enum trip_type type);

/*
 * Why a passive trip is not taken as a switch-on or control temperature:
 * firmware gives absurd trips (thermald's users were throttled 17-fold by a
 * passive trip at -274 °C), and the kernel passes them on.
 */
enum trip_doubt {
	TRIP_TAKEN,
	TRIP_BELOW_ZERO,	/* under 0 °C */
	TRIP_AT_LIMIT,		/* at or above the zone's hot or critical trip */
	TRIP_OUT_OF_ORDER,	/* under a passive trip taken before it */
};

/**
 * thermal_trip_doubt() - whether passive trip @zone->trips[@i] is taken as
 * a switch-on or control temperature, or why not; *@ref: the trip it is
 * judged against (the hot or critical trip, the passive trip before it),
 * NULL for TRIP_TAKEN and TRIP_BELOW_ZERO.  A zone's trips are in the
 * firmware's order, passive ones ascending (device trees and ACPI list them
 * so): one under a passive trip taken before it is out of order, and which
 * of the two was meant cannot be told.
 */
enum trip_doubt thermal_trip_doubt(const struct thermal_zone_info *zone, size_t i,
				   const struct trip_info **ref);

/**
 * thermal_passive_range() - the power allocator's switch-on and control
 * temperatures from @zone's passive trips that are taken
 * (thermal_trip_doubt()), as the kernel's get_governor_trips() takes them:
 * with two or more, switch-on is the first and control the last; with one,
 * that trip is control and there is no switch-on (*@switch_on_mc is left
 * alone): the governor is always on.
 * Return: the number of passive trips taken (*@control_mc is set when >= 1).
 */
size_t thermal_passive_range(const struct thermal_zone_info *zone, int32_t *switch_on_mc,
			     int32_t *control_mc);

/**
 * thermal_limit_trip() - @zone's lowest hot or critical trip above 0 °C
 * (one at or below is no limit the kernel acts on: a firmware's unset
 * value), where the kernel acts (at critical: it shuts the machine down);
 * NULL for none.
 */
const struct trip_info *thermal_limit_trip(const struct thermal_zone_info *zone);

/**
 * thermal_control_trip() - @zone's last passive trip taken: the power
 * allocator's control trip, the highest of those taken; NULL for none.
 */
const struct trip_info *thermal_control_trip(const struct thermal_zone_info *zone);

/**
 * thermal_zone_has_trip_at() - whether one of @zone's trips, of any type,
 * is at @temp_mc: the kernel sends a trip event when the zone crosses it.
 */
bool thermal_zone_has_trip_at(const struct thermal_zone_info *zone, int32_t temp_mc);

/**
 * thermal_zone_offers_policy() - whether @policy is one of the words of
 * @zone's available_policies: the governors the kernel was built with.
 */
bool thermal_zone_offers_policy(const struct thermal_zone_info *zone, const char *policy);

/**
 * thermal_zone_set_policy() - write @policy to thermal_zone@id/policy.
 * Return: 0 or negative errno.
 */
int thermal_zone_set_policy(int id, const char *policy);

/**
 * thermal_zone_open_policy() - open thermal_zone@id/policy for reading into
 * @attr, kept open so that each period can read it without an open.
 * Return: 0 or negative errno (not logged).
 */
int thermal_zone_open_policy(int id, struct sysfs_attr *attr);

/**
 * thermal_zone_read_policy() - read the governor in @attr (pread, no open,
 * no allocation) into @buf, without its newline.
 * Return: 0 or negative errno.
 */
int thermal_zone_read_policy(const struct sysfs_attr *attr, char *buf, size_t size);
