/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Power meters: the files that say what a rail or a package really draws,
 * opened once and re-read with pread each period (the control path opens
 * nothing).  Three kinds of file: a hwmon powerN_input (instantaneous, µW)
 * or powerN_average (the mean over its averaging interval, µW: ACPI's
 * power_meter has only that), a hwmon energyN_input or a powercap
 * energy_uj (cumulative, µJ; energy_uj wraps at its sibling
 * max_energy_range_uj where there is one), and a hwmon channel with only a
 * voltage and a current (the INA3221 gives inN_input in mV and currN_input
 * in mA, and its label as inN_label: mV x mA = µW).  A meter is named by
 * its path, or by its hwmon device's name and its channel's label
 * (powerN_label, energyN_label or inN_label; a channel without one answers
 * to its name, "power1", as sensors(1) shows it): hwmon numbers change
 * between boots, names and labels do not.  Devices are found as hwmon.h
 * says (in hwmonN, or in hwmonN/device for a driver registered the old
 * way).  What the readings mean and when a meter lies:
 * lib/control/meter_fault.h.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "control/meter_fault.h"
#include "sysfs.h"

/**
 * enum meter_unit - what a meter's file counts.
 * @METER_POWER_UW: power, µW (powerN_input, or powerN_average).
 * @METER_ENERGY_UJ: cumulative energy, µJ (energyN_input, energy_uj).
 * @METER_VOLT_AMP: a voltage in mV (inN_input) times a current in mA
 *	(currN_input), µW.
 */
enum meter_unit {
	METER_POWER_UW,
	METER_ENERGY_UJ,
	METER_VOLT_AMP,
};

/* Room for a meter's name in messages: a path, or a hwmon name, label and path. */
#define METER_NAME_MAX (SYSFS_PATH_MAX + 160)
/* Room for the list of hwmon devices and their labels in a message. */
#define METER_LIST_MAX 1024

/**
 * struct power_meter - one meter, opened.
 * @input: powerN_input, powerN_average, energyN_input, energy_uj or inN_input.
 * @current: currN_input of a METER_VOLT_AMP meter, else closed.
 * @unit: see enum meter_unit.
 * @track: its readings so far; the caller sets @track.max_mw, the most a
 *	reading may say (METER_JUMP_FACTOR times the actor's maximum).
 * @error: the errno of its last failed read, 0 for none.
 * @sample_ms: how often its reading changes, ms: a powerN_average's
 *	powerN_average_interval, else its hwmon device's update_interval for
 *	a power (or volts and amps) channel; 0 for an energy counter
 *	(differenced at each read) or where none is given.
 * @name: what messages call it.
 * @id_len: the length of the part of @name that names it across boots (the
 *	path, or the hwmon name and label without the hwmonN path after them).
 */
struct power_meter {
	struct sysfs_attr input;
	struct sysfs_attr current;
	enum meter_unit unit;
	struct meter_track track;
	int error;
	uint32_t sample_ms;
	char name[METER_NAME_MAX];
	size_t id_len;
};

/** power_meter_init() - a closed meter (power_meter_close() is then harmless). */
void power_meter_init(struct power_meter *m);

/**
 * power_meter_file_unit() - what a meter's file named @file (its name
 * alone) counts: METER_POWER_UW for powerN_input or powerN_average,
 * METER_ENERGY_UJ for energyN_input or energy_uj.
 * Return: 0 with *@unit, or -EINVAL for any other name.
 */
int power_meter_file_unit(const char *file, enum meter_unit *unit);

/**
 * power_meter_open_path() - the meter at @path: a powerN_input,
 * powerN_average, energyN_input or energy_uj (with max_energy_range_uj
 * beside it when there is one).  Return: 0, -EINVAL for another file name,
 * or the open's negative errno (-ENOENT: no such file).
 */
int power_meter_open_path(struct power_meter *m, const char *path);

/**
 * power_meter_open_hwmon() - the channel labelled @label of the first
 * hwmon device named @hwmon that has one (an unlabelled channel's label is
 * its name, "power1"): its powerN_input or powerN_average, else its
 * energyN_input, else its inN_input times currN_input.
 * Return: 0, -ENODEV when no hwmon device is named @hwmon, -ENOENT when
 * none of them has a channel labelled @label, or the open's negative errno.
 */
int power_meter_open_hwmon(struct power_meter *m, const char *hwmon, const char *label);

/**
 * power_meter_read() - read @m once at @now_us (CLOCK_MONOTONIC, µs, from
 * the caller); @model_mw: the power the actor draws by its model, mW (0:
 * none, or no model), which says whether the meter should have moved.
 * Return: 1 with the mean power since its last reading in *@power_mw, 0
 * when there is none yet, or minus an enum meter_fault: -METER_VANISHED
 * (its file is gone) or -METER_UNREADABLE (@m->error holds why), and
 * meter_track_step()'s.
 */
int power_meter_read(struct power_meter *m, uint64_t now_us, uint32_t model_mw, uint32_t *power_mw);

/**
 * power_meter_restart() - @m's next reading starts afresh, as its first (a
 * resume from sleep, across which firmware may reset a counter).
 */
void power_meter_restart(struct power_meter *m);

/** power_meter_close() - close @m's files. */
void power_meter_close(struct power_meter *m);

/**
 * hwmon_meter_list() - every hwmon device and the labels of its channels a
 * meter may name, for a message: "ina3221 (hwmon1): VDD_CPU, VDD_GPU;
 * power_meter (hwmon2): power1; coretemp (hwmon0): no power channels", or
 * "no hwmon devices".
 */
void hwmon_meter_list(char *buf, size_t size);

/**
 * hwmon_meter_labels() - the labels of the meter channels of the hwmon
 * devices named @hwmon, into @buf (@size bytes) with a pointer to each in
 * @labels (at most @max - 1, NULL-terminated), for "did you mean".
 * Return: how many.
 */
size_t hwmon_meter_labels(const char *hwmon, char *buf, size_t size, const char **labels,
			  size_t max);
