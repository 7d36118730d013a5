/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * A thermal zone's temperature sensor, read so that one slow sensor cannot
 * stall the single loop that runs every zone (a zone's sensor combines one
 * or more of them: lib/engine/zone_sensor.h).  Each read on the loop is
 * timed; the first that takes SENSOR_SLOW_MS or more (a sensor behind a
 * slow I2C or SMBus, a firmware call) is logged once with its time, and
 * from then on a thread of its own reads that sensor at the zone's period
 * while the loop takes its latest reading without waiting.  The reader
 * outlives an engine that a rebuilt one replaces: an input opened on the
 * same file takes it over, so the slow sensor is neither read on the loop
 * nor logged again.
 */
#include <stdbool.h>
#include <stdint.h>

#include "sysfs.h"

/*
 * A read this slow, ms, takes the sensor off the loop.  A healthy sensor
 * reads in microseconds (an SoC's ADC) to a few ms (I2C, ACPI); 50 ms is
 * beyond any of them and half the default period, so a slow sensor costs
 * the other zones at most one such delay.
 */
#define SENSOR_SLOW_MS 50
/*
 * A reading from the thread is too old to use once it is older than twice
 * the slowest read the sensor took (counted at most SENSOR_STOP_MS) plus
 * this many of the zone's periods: the sensor is stuck in a read, and the
 * zone takes the path of a failed read.  The slowest, not the last: a
 * sensor whose reads vary does not flap between fresh and stuck.
 */
#define SENSOR_STALE_PERIODS 3
/*
 * How long stopping a reader waits for the read it is in, ms: twice the
 * second a slow bus's read can take.  A read that the kernel does not give
 * back by then is left to end alone (the thread then frees itself).
 */
#define SENSOR_STOP_MS 2000

struct sensor_reader;

/**
 * struct sensor_input - one thermal zone a zone's sensor reads.
 * @name: the thermal zone's type ("cpu-thermal"), for messages.
 * @tz_id: N of its thermal_zoneN.
 * @weight: its weight in a weighted sum (1 otherwise).
 * @attr: thermal_zoneN/temp, open for the zone's life (its fd moves to
 *	@reader when the sensor is found slow; the path stays for messages).
 * @reader: the thread that reads a slow sensor off the control loop, NULL
 *	while the loop reads it.
 * @slow: a read took SENSOR_SLOW_MS or more (logged once).
 * @failed: its last read failed (logged once until it reads again).
 */
struct sensor_input {
	char name[64];
	int tz_id;
	double weight;
	struct sysfs_attr attr;
	struct sensor_reader *reader;
	bool slow;
	bool failed;
};

/**
 * sensor_open() - open @path as the sensor @in (a regular file: a FIFO or
 * device is refused with -SYSFS_ENOTREG without waiting), taking over the reader
 * that already reads that file, if any.
 * Return: 0 or negative errno (not logged).
 */
int sensor_open(struct sensor_input *in, const char *path);

/**
 * sensor_start() - once the period of the zone @zone is known (@period_ms, ms):
 * the first read, timed, so that a slow sensor leaves the loop before the
 * zone's first period; or the reader taken over reads at that period.
 */
void sensor_start(struct sensor_input *in, const char *zone, uint32_t period_ms);

/**
 * sensor_read_mc() - @in's temperature, m°C, into *@temp_mc.  On the loop
 * while the sensor reads within SENSOR_SLOW_MS, else from its reader
 * thread (which reads every @period_ms, the period of the zone @zone named
 * in the message that the sensor is slow): the latest reading and its
 * error, without waiting.
 * Return: 0 or the read's negative errno; -ETIME when the reader has had
 * nothing new for too long (SENSOR_STALE_PERIODS).  Not logged, but for
 * the sensor found slow (once) and a reader that cannot be started.
 */
int sensor_read_mc(struct sensor_input *in, const char *zone, uint32_t period_ms,
		   int64_t *temp_mc);

/**
 * sensor_close() - close @in; stop its reader when no other input uses it
 * (waiting at most SENSOR_STOP_MS for a read in progress).
 */
void sensor_close(struct sensor_input *in);
