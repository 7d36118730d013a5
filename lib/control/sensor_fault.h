/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Sensors that lie: the kinds of sensor fault a zone tells apart, and the
 * stuck-sensor detector.  Pure computation (no I/O, no clock, no
 * allocation): the caller feeds it each sane reading with the zone's power.
 *
 * A sensor is stuck when its reading has not moved by a single step (not
 * by one m°C, whatever its resolution) while the zone's power moved far
 * from what it drew when that value was first read: for at least
 * STUCK_MOVED_MS in all, more than STUCK_POWER_PCT % of the zone's maximum
 * power away, over at least STUCK_MIN_READS readings.  A steady load moves
 * no power, so a coarse sensor (1 °C steps) that holds its value under one
 * is not stuck; a die whose power moves by a quarter of its maximum for
 * 30 s moves by degrees (a few K/W flat out, a few J/K).
 *
 * That is not true of a slow sensor (a skin or case with a time constant
 * of 1000 s and 1 °C steps moves 0.35 °C in the first 30 s of a power 40 %
 * of its maximum higher): with the zone's confident thermal model, a value
 * is stuck only when, besides, the model says the power's moves since the
 * value was first read should have moved the temperature by more than
 * STUCK_MODEL_STEPS of the sensor's steps (the smallest change seen of
 * its readings; 1 °C until one is seen).  Without a confident model the
 * rule above stands alone.
 */
#include <stdbool.h>
#include <stdint.h>

#include "thermal_model.h"

/* The zone's power, away from where it was, by more than this share of its maximum (%)... */
#define STUCK_POWER_PCT 25
/* ...for this long in all (ms)... */
#define STUCK_MOVED_MS 30000
/* ...over at least this many readings of one value: the sensor is stuck. */
#define STUCK_MIN_READS 20
/* With a confident model: and it expected a move of more than this many sensor steps. */
#define STUCK_MODEL_STEPS 2
/* The sensor's step until a change of its readings shows it, m°C. */
#define STUCK_STEP_UNKNOWN_MC 1000

/**
 * enum sensor_fault - why a zone has no temperature this period.
 * @SENSOR_FAULT_NONE: it has one.
 * @SENSOR_FAULT_READ: the read failed (an error, not a number, a slow
 *	sensor stuck in its read, no input of a combined sensor read).
 * @SENSOR_FAULT_RANGE: the value is outside the plausible range.
 * @SENSOR_FAULT_SPIKE: it jumped further than the zone can in one period.
 * @SENSOR_FAULT_STUCK: it froze while the zone's power moved
 *	(struct stuck_sensor).
 */
enum sensor_fault {
	SENSOR_FAULT_NONE,
	SENSOR_FAULT_READ,
	SENSOR_FAULT_RANGE,
	SENSOR_FAULT_SPIKE,
	SENSOR_FAULT_STUCK,
	SENSOR_FAULTS
};

/** sensor_fault_name() - "none", "read-error", "out-of-range", "spike" or "stuck". */
const char *sensor_fault_name(enum sensor_fault f);

/**
 * struct stuck_sensor - one zone's stuck-sensor detector.
 * @primed: a reading was seen (@temp_mc is set).
 * @temp_mc: the value the sensor holds, m°C.
 * @reads: readings of it in a row.
 * @ref_power_mw: the zone's power when it was first read, mW.
 * @moved_us: time since then that the power was far from @ref_power_mw, µs.
 * @moved_mw: the furthest the power was from it, mW (for the message).
 * @slow_mc: by the model, how far the power's moves since then should
 *	have taken the slow node (the case), m°C, signed.
 * @expected_mc: and the whole zone with the die's step (0 without a
 *	confident model), m°C, signed.
 * @step_mc: the sensor's step: the smallest change of its readings seen
 *	(0: none yet), kept over holds and resets.
 * @stuck: the verdict of the last reading.
 */
struct stuck_sensor {
	bool primed;
	int32_t temp_mc;
	uint32_t reads;
	uint32_t ref_power_mw;
	uint64_t moved_us;
	uint32_t moved_mw;
	double slow_mc;
	int32_t expected_mc;
	uint32_t step_mc;
	bool stuck;
};

/**
 * stuck_sensor_step() - account for one sane reading.
 * @s: the detector.
 * @temp_mc: the reading, m°C.
 * @power_mw: the zone's mean power since the previous reading, mW.
 * @max_power_mw: the zone's maximum power, mW (0: never stuck).
 * @elapsed_us: time since the previous reading, µs.
 * Return: whether the sensor is stuck (a reading that moves clears it).
 */
bool stuck_sensor_step(struct stuck_sensor *s, int32_t temp_mc, uint32_t power_mw,
		       uint32_t max_power_mw, uint64_t elapsed_us);

/**
 * stuck_sensor_step_model() - stuck_sensor_step() for a zone whose thermal
 * model is confident: @est (NULL: none, the rule without a model).  Stuck
 * also needs the move the model expected over the hold (@s->expected_mc)
 * to exceed STUCK_MODEL_STEPS of the sensor's steps.
 */
bool stuck_sensor_step_model(struct stuck_sensor *s, int32_t temp_mc, uint32_t power_mw,
			     uint32_t max_power_mw, uint64_t elapsed_us,
			     const struct thermal_estimate *est);

/**
 * stuck_expected_mc() - the model's part of a hold: how far a zone at
 * @ref_power_mw, held at @power_mw instead for @elapsed_s, is expected to
 * move, m°C, signed: its slow node from *@slow_mc (updated) along the time
 * constant towards its gain times the difference, plus the die's step.
 */
int32_t stuck_expected_mc(const struct thermal_estimate *est, double *slow_mc,
			  uint32_t power_mw, uint32_t ref_power_mw, double elapsed_s);

/** stuck_sensor_reset() - forget the value held (a failed read: the next one starts anew);
 * the sensor's step is kept. */
void stuck_sensor_reset(struct stuck_sensor *s);

/*
 * A spike is said at most once in this long per zone (ms): a sensor that
 * spikes every 15 s says so 6 times an hour, not 240.  The spikes between
 * are counted, and said with the next one said.
 */
#define SPIKE_QUIET_MS 600000

/**
 * struct spike_quiet - when a zone's spikes are said.
 * @said: one was said (@said_us is set).
 * @said_us: when the last one said was, monotonic µs.
 * @unsaid: spikes since then, not said (saturates).
 */
struct spike_quiet {
	bool said;
	uint64_t said_us;
	uint32_t unsaid;
};

/**
 * spike_quiet_step() - a spike at @now_us (monotonic µs): whether to say it
 * (none said for SPIKE_QUIET_MS), else it is counted.
 * @unsaid: when said, the spikes not said since the previous one said.
 */
bool spike_quiet_step(struct spike_quiet *q, uint64_t now_us, uint32_t *unsaid);
