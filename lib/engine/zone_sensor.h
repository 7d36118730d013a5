/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * A zone's sensor: the thermal zones it reads (its inputs, each read by
 * lib/platform/sensor.c, a slow one on a thread of its own) and how their readings
 * combine (lib/control/sensor_combine.h).  An input that fails leaves the others to
 * make the zone's temperature, said once until it reads again; the zone's
 * sensor fails when no input reads.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zone.h"

/**
 * zone_sensor_open() - open thermal_zoneN/temp of each of @z's inputs
 * (z->setup.inputs[].tz_id, .name and .weight filled in).
 * Return: 0, or the negative errno of the first that cannot be opened
 * (logged, naming the zone and the file).
 */
int zone_sensor_open(struct zone *z);

/** zone_sensor_start() - sensor_start() of every input, once z->setup.pid.period_ms is set. */
void zone_sensor_start(struct zone *z);

/**
 * zone_sensor_read() - @z's temperature, m°C, into *@temp_mc: every input
 * read (a reading outside [ZONE_TEMP_MIN_MC, ZONE_TEMP_MAX_MC] is a failed
 * read) and those that read combined.  A combined sensor's input that
 * fails, or reads again, is logged once, with what the zone uses instead.
 * Return: 0 when at least one input read, else the first input's negative
 * errno (not logged for a single sensor: the caller says it); for -ERANGE,
 * *@temp_mc is that input's implausible reading.
 */
int zone_sensor_read(struct zone *z, int64_t *temp_mc);

/** zone_sensor_close() - close every input of @z (stopping readers nobody else uses). */
void zone_sensor_close(struct zone *z);

/**
 * zone_sensor_name() - @z's sensor in a word, into @buf (@size bytes):
 * "thermal_zone0", "max(thermal_zone0,thermal_zone1)" or
 * "sum(0.6*thermal_zone0,0.4*thermal_zone3)-2000" (the offset in m°C).
 */
void zone_sensor_name(const struct zone *z, char *buf, size_t size);

/** zone_sensor_reads_tz() - whether thermal_zone@tz_id is one of @z's inputs. */
bool zone_sensor_reads_tz(const struct zone *z, int tz_id);

/**
 * zone_sensor_adopt() - @z, rebuilt from @old, keeps which of its inputs
 * had failed (matched by file), so that none is logged twice.
 */
void zone_sensor_adopt(struct zone *z, const struct zone *old);

/** zone_sensor_strerror() - a failed read's error in words ("not a number", ...). */
const char *zone_sensor_strerror(int error);

/**
 * zone_sensor_fault_words() - a failed read in words, into @buf (@size
 * bytes): zone_sensor_strerror() of @error, and for -ERANGE the reading
 * @temp_mc and the plausible range ("not a plausible temperature: 255000
 * m°C is outside -40000..150000 m°C").
 */
void zone_sensor_fault_words(int error, int64_t temp_mc, char *buf, size_t size);

/**
 * zone_sensor_judge() - whether @z's reading @temp_mc (zone_sensor_read()
 * returned @r) is a temperature.  A sensor fault when @r is an error, when
 * the reading is outside [ZONE_TEMP_MIN_MC, ZONE_TEMP_MAX_MC] (-ERANGE),
 * when it is a spike (-EDOM): further from the previous reading, that one
 * sane, than ZONE_SPIKE_MC, or with a confident thermal model than twice
 * what the model allows since then plus ZONE_SPIKE_MARGIN_MC; and when the
 * sensor is stuck (-ESTALE, struct stuck_sensor: the zone's power and
 * maximum power feed its detector).  The fault in words into @why (@size
 * bytes), its kind into z->sensing.sensor_fault.
 * Return: 0, or the fault's negative errno.
 */
int zone_sensor_judge(struct zone *z, int r, int64_t temp_mc, char *why, size_t size);
