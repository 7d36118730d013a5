/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * A zone's temperature from the thermal zones it reads (its inputs): one
 * zone as it reads, the hottest of several, or a weighted sum with an
 * offset (a skin or case temperature estimated from the die, battery and
 * board sensors, as Android's thermal HAL and thermald do).  Pure: the
 * readings come from lib/engine/zone_sensor.c.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Inputs one zone's sensor may combine. */
#define SENSOR_MAX_INPUTS 8

/**
 * enum sensor_kind - how a zone's inputs make its temperature.
 * @SENSOR_ONE: one thermal zone, as it reads.
 * @SENSOR_MAX: the hottest input that reads, plus the offset.
 * @SENSOR_SUM: the inputs' weighted sum plus the offset; the weights of
 *	the inputs that read are scaled up to the configured total, so one
 *	that fails leaves an estimate from the others on the same scale.
 */
enum sensor_kind {
	SENSOR_ONE,
	SENSOR_MAX,
	SENSOR_SUM,
};

/**
 * sensor_combine_mc() - the zone's temperature, m°C, from the @n inputs'
 * readings @temp_mc (those with @read[i] false are left out), their
 * @weight (SENSOR_SUM; positive) and @offset_mc.
 * Return: the temperature; 0 when no input read (callers check first).
 */
int64_t sensor_combine_mc(enum sensor_kind kind, const int64_t *temp_mc, const bool *read,
			  const double *weight, size_t n, int32_t offset_mc);

/** sensor_kind_name() - "max" or "sum" as the config writes them; "" for SENSOR_ONE. */
const char *sensor_kind_name(enum sensor_kind kind);
