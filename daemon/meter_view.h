/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * What the D-Bus interface, the metrics and the trace show of an actor's
 * power meter and of the calibration learnt from it (issue 35): one reading
 * of the actor's fields, so that the three say the same.
 */
#include "actors/actor.h"

/**
 * enum meter_view_state - an actor's meter as shown.
 * @METER_VIEW_NONE: no meter.
 * @METER_VIEW_WAITING: a meter without a reading this period (an energy
 *	counter's first value).
 * @METER_VIEW_READING: a reading this period (@a->measured_mw).
 * @METER_VIEW_DROPPED: its meter faulted, or disagreed with its power table
 *	beyond 0.3-3 x: the actor goes on from its table.
 */
enum meter_view_state {
	METER_VIEW_NONE,
	METER_VIEW_WAITING,
	METER_VIEW_READING,
	METER_VIEW_DROPPED,
};

/** meter_view_state() - @a's meter's state. */
enum meter_view_state meter_view_state(const struct actor *a);

/** meter_view_state_name() - "none", "waiting", "reading" or "dropped" (MeterState). */
const char *meter_view_state_name(enum meter_view_state s);

/**
 * meter_view_fault() - why @a's meter was dropped: meter_fault_name()'s
 * words, or "implausible" (the calibration's 0.3-3 x); "" while it was not.
 */
const char *meter_view_fault(const struct actor *a);

/** meter_view_name() - @a's meter: its path, or its hwmon name and label; "" for none. */
const char *meter_view_name(const struct actor *a);

/**
 * meter_view_table_mw() - the power @a's table as loaded gives for the state
 * and load in effect this period (uncalibrated: what its meter is compared
 * with, beside the measured power), mW; 0 for an actor without a power table
 * (a powercap zone, a cooling device).
 */
uint32_t meter_view_table_mw(const struct actor *a);

/**
 * struct meter_view_scale - the calibration shown: measured = @scale x
 * table + @offset_mw, known to @confidence (0-1).  The table as it is
 * (1, 0, 0) for an actor whose table is not calibrated (no meter, a
 * powercap zone's own energy_uj, a meter dropped).
 * @calibrating: its table is calibrated from its meter (the others follow it).
 */
struct meter_view_scale {
	bool calibrating;
	double scale;
	double offset_mw;
	double confidence;
};

/** meter_view_scale() - @a's calibration as shown. */
struct meter_view_scale meter_view_scale(const struct actor *a);
