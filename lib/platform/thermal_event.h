/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The kernel's thermal netlink events (generic netlink family "thermal",
 * multicast group "event"), parsed into a plain struct.  Events are hints:
 * whatever they say, the daemon re-reads sysfs.
 */
#include <stdint.h>

struct nl_msg;

/**
 * enum thermal_event_kind - the events powerallocd acts on.
 * @THERMAL_EVENT_TRIP_UP, @THERMAL_EVENT_TRIP_DOWN: re-evaluate that zone now.
 * @THERMAL_EVENT_TRIP_CHANGE: re-read that zone's trips.
 * @THERMAL_EVENT_TZ_CREATE, @THERMAL_EVENT_TZ_DELETE, @THERMAL_EVENT_CDEV_ADD,
 * @THERMAL_EVENT_CDEV_DELETE: rescan.
 */
enum thermal_event_kind {
	THERMAL_EVENT_TZ_CREATE,
	THERMAL_EVENT_TZ_DELETE,
	THERMAL_EVENT_TRIP_UP,
	THERMAL_EVENT_TRIP_DOWN,
	THERMAL_EVENT_TRIP_CHANGE,
	THERMAL_EVENT_CDEV_ADD,
	THERMAL_EVENT_CDEV_DELETE,
};

/**
 * struct thermal_event - one parsed event.
 * @kind: what happened.
 * @tz_id: the thermal zone (zone events), -1 otherwise.
 * @trip_id: the trip (trip events), -1 otherwise.
 * @temp_mc: the temperature the kernel reported (TRIP_UP/DOWN), m°C.
 * @cdev_id: the cooling device (cdev events), -1 otherwise.
 */
struct thermal_event {
	enum thermal_event_kind kind;
	int tz_id;
	int trip_id;
	int32_t temp_mc;
	int cdev_id;
};

/**
 * thermal_event_parse() - parse a message of the thermal family.
 * Return: 0; -EPERM for a message not sent by the kernel (its sender's
 * port is not 0: a process, even root's, forging events); -EOPNOTSUPP for
 * an event powerallocd does not act on;
 * -EINVAL for a malformed message (wrong family header, an attribute of
 * the wrong size, a required attribute missing or out of range).
 */
int thermal_event_parse(struct nl_msg *msg, struct thermal_event *ev);

/** thermal_event_name() - "tz_trip_up", ... for logs. */
const char *thermal_event_name(enum thermal_event_kind kind);
