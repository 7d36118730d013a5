/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Device-tree OPP properties as /sys/firmware/devicetree/base shows them:
 * raw big-endian cells.  Pure decoding, no I/O.
 */
#include <stddef.h>

#include "control/power_table.h"

/**
 * dt_decode_opp() - one operating-points-v2 entry.
 * @hz, @hz_len: opp-hz: a u64 in two cells (more cells: one per clock,
 *	the first is the one used).
 * @uv, @uv_len: opp-microvolt: one cell, or target/min/max, or one of those
 *	per supply; the first cell is the target of the first supply.
 * @opp: result (frequency in kHz, voltage in uV; power fields zero).
 * Return: 0, or -EINVAL for short or zero values or a frequency above 4.29 THz.
 */
int dt_decode_opp(const void *hz, size_t hz_len, const void *uv, size_t uv_len, struct opp *opp);

/**
 * dt_decode_operating_points() - the legacy "operating-points" property:
 * <kHz uV> pairs.  Entries with a zero value are skipped; a trailing
 * partial pair is ignored.
 * Return: the number of entries written to @opps (at most @max).
 */
size_t dt_decode_operating_points(const void *cells, size_t len, struct opp *opps, size_t max);
