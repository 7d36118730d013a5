/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * A zone's temperature sensor, read so that one slow sensor cannot stall
 * the single loop that runs every zone.  Each read on the loop is timed; the
 * first that takes SENSOR_SLOW_MS or more (a sensor behind a slow I2C or
 * SMBus, a firmware call) is logged once with its time, and from then on a
 * thread of its own reads that sensor at the zone's period while the loop
 * takes its latest reading without waiting.  The reader outlives an engine
 * that a rebuilt one replaces: a zone opened on the same file takes it over,
 * so the slow sensor is neither read on the loop nor logged again.
 */
#include <stdint.h>

#include "zone.h"

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
 * this many of the zone's periods:
 * the sensor is stuck in a read, and the zone takes the path of a failed
 * read.  The slowest, not the last: a sensor whose reads vary does not
 * flap between fresh and stuck.
 */
#define SENSOR_STALE_PERIODS 3
/*
 * How long stopping a reader waits for the read it is in, ms: twice the
 * second a slow bus's read can take.  A read that the kernel does not give
 * back by then is left to end alone (the thread then frees itself).
 */
#define SENSOR_STOP_MS 2000

/**
 * sensor_open() - open @path as @z's sensor (a regular file: a FIFO or
 * device is refused with -ESPIPE without waiting), taking over the reader
 * that already reads that file, if any.
 * Return: 0 or negative errno (not logged).
 */
int sensor_open(struct zone *z, const char *path);

/**
 * sensor_start() - once z->pid.period_ms is set: the first read, timed, so
 * that a slow sensor leaves the loop before the zone's first period; or the
 * reader taken over reads at this zone's period.
 */
void sensor_start(struct zone *z);

/**
 * sensor_read_mc() - @z's temperature, m°C, into *@temp_mc.  On the loop
 * while the sensor reads within SENSOR_SLOW_MS, else from its reader
 * thread: the latest reading and its error, without waiting.  Needs
 * z->pid.period_ms.
 * Return: 0 or the read's negative errno; -ETIME when the reader has had
 * nothing new for too long (SENSOR_STALE_PERIODS).  Not logged, but for
 * the sensor found slow (once) and a reader that cannot be started.
 */
int sensor_read_mc(struct zone *z, int64_t *temp_mc);

/**
 * sensor_close() - close @z's sensor; stop its reader when no other zone
 * uses it (waiting at most SENSOR_STOP_MS for a read in progress).
 */
void sensor_close(struct zone *z);
