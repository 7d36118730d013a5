/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Strict parsing of the values sysfs and debugfs files hold: one decimal
 * number, optionally followed by a single newline.  No I/O here.
 */
#include <stddef.h>
#include <stdint.h>

/**
 * parse_u64() - an unsigned decimal number.
 * @text: the bytes, need not be NUL-terminated.
 * @len: their number.
 * Return: 0; -EINVAL for empty input, a sign, garbage or trailing junk;
 * -ERANGE when the number does not fit in 64 bits.
 */
int parse_u64(const char *text, size_t len, uint64_t *value);

/** parse_s64() - as parse_u64(), with an optional leading '-'. */
int parse_s64(const char *text, size_t len, int64_t *value);

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
