/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Strict parsing of the values sysfs and debugfs files hold: one decimal
 * number, optionally followed by a single newline (parse_u64(), parse_s64()
 * of lib/control/parse_number.h), and device-tree cells.  No I/O here.
 */
#include <stddef.h>
#include <stdint.h>

#include "control/parse_number.h"

/**
 * parse_be32() - a big-endian 32-bit cell of a device-tree property.
 * @cell: 4 bytes.
 */
uint32_t parse_be32(const unsigned char *cell);

/**
 * parse_dt_u64() - a device-tree u64 (two big-endian cells, high first),
 * as opp-hz is stored.
 * @cells: 8 bytes.
 */
uint64_t parse_dt_u64(const unsigned char *cells);
