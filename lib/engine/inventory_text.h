/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * What the platform has, as one line for a message: when a configured name
 * matches nothing, the message lists the names that would, so that the
 * user can fix the file.  Lists too long for the buffer end in "and N more".
 */
#include <stddef.h>

#include "platform/cpufreq_policy.h"
#include "platform/thermal.h"

/* Room for one list in a message (a log line is at most 1024 bytes). */
#define INVENTORY_TEXT_MAX 512

/**
 * inventory_text_policies() - every cpufreq policy with its CPUs and its
 * cooling device: "policy0 (CPUs 0-3, cooling_device0), policy4 (CPUs 4-5,
 * no cooling device)"; "none" without cpufreq.
 */
void inventory_text_policies(char *buf, size_t size, const struct cpufreq_inventory *cpufreq,
			     const struct thermal_inventory *thermal);

/**
 * inventory_text_devfreq() - every devfreq device under /sys/class/devfreq
 * and every devfreq cooling device, by name: "ff9a0000.gpu (cooling_device2),
 * dmc (no cooling device)"; "none".
 */
void inventory_text_devfreq(char *buf, size_t size, const struct thermal_inventory *thermal);

/**
 * inventory_text_powercap() - every powercap zone with a power limit under
 * /sys/class/powercap and its name: "intel-rapl:0 (package-0)"; "none".
 */
void inventory_text_powercap(char *buf, size_t size);

/**
 * inventory_powercap_named() - the powercap zones with a power limit whose
 * name attribute is @name ("package-0"), for a zone named by it rather than
 * by its directory: their count, the first one's directory name in @dir
 * ("intel-rapl:0"), and all of theirs in @buf ("intel-rapl:0:0,
 * intel-rapl:1:0").
 */
size_t inventory_powercap_named(const char *name, char *dir, size_t dir_size, char *buf,
				size_t size);

/**
 * inventory_text_thermal_zones() - every thermal zone by number and type:
 * "thermal_zone0 (cpu-thermal), thermal_zone1 (gpu-thermal)"; "none".
 */
void inventory_text_thermal_zones(char *buf, size_t size, const struct thermal_inventory *thermal);

/**
 * inventory_text_zones_named() - the thermal zones @sensor names (those of a
 * type), by number with their temperature: "thermal_zone0 (45.0 °C),
 * thermal_zone1 (51.2 °C)"; "temperature unreadable" for one that fails.
 */
void inventory_text_zones_named(char *buf, size_t size, const struct thermal_inventory *thermal,
				const char *sensor);
