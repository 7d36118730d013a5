/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * hwmon devices: what the CPU's own temperature sensors (coretemp) say
 * about its limits, and walking the devices by name (power meters: meter.c).
 * A device is found as libsensors finds it: its name and attributes in
 * hwmonN, or, for a driver that registers the old way
 * (hwmon_device_register(): ACPI's power_meter), in hwmonN/device, its
 * parent, where hwmonN has no name.
 */
#include <stdint.h>

#define HWMON_CLASS_DIR "/sys/class/hwmon"

/**
 * hwmon_coretemp_tjmax() - the critical temperature (TjMax) coretemp gives
 * for physical package @package: the lowest tempN_crit of the coretemp
 * hwmon device one of whose tempN_label is "Package id @package" (as
 * thermald takes it, the lowest of the package's sensors).
 * Return: 0 with *@tjmax_mc (m°C), or -ENOENT when no coretemp device
 * names that package or none of its tempN_crit reads above 0.
 */
int hwmon_coretemp_tjmax(int package, int32_t *tjmax_mc);

/**
 * struct hwmon_device - one hwmon device, as hwmon_each() gives it.
 * @dir: the directory of its attributes: HWMON_CLASS_DIR/hwmonN, or
 *	hwmonN/device where hwmonN has no name (registered the old way).
 * @id: "hwmonN", for messages.
 * @name: its name attribute.
 */
struct hwmon_device {
	const char *dir;
	const char *id;
	const char *name;
};

/**
 * hwmon_each() - call @fn with each hwmon device (ascending N); a device
 * with a name in neither hwmonN nor hwmonN/device is skipped.  A non-zero
 * return from @fn stops the walk.
 * Return: @fn's non-zero value, 0, or -ENOENT when there is no hwmon class.
 */
int hwmon_each(int (*fn)(const struct hwmon_device *dev, void *userdata), void *userdata);
