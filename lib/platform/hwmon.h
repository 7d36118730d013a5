/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * hwmon devices: what the CPU's own temperature sensors (coretemp) say
 * about its limits, and walking the devices by name (power meters: meter.c).
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
 * hwmon_each() - call @fn with each hwmon device's directory
 * (HWMON_CLASS_DIR/hwmonN, ascending N) and its name; a device whose name
 * cannot be read is skipped.  A non-zero return from @fn stops the walk.
 * Return: @fn's non-zero value, 0, or -ENOENT when there is no hwmon class.
 */
int hwmon_each(int (*fn)(const char *dir, const char *name, void *userdata), void *userdata);
