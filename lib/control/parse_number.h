/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Decimal numbers in text the caller has read: the values of sysfs files
 * (one number, optionally followed by a single newline) and the columns of
 * /proc/stat.  Pure, so that lib/control and lib/platform parse alike.
 */
#include <stddef.h>
#include <stdint.h>

/**
 * parse_u64_prefix() - the unsigned decimal number at the start of @text.
 * @text: the bytes, need not be NUL-terminated.
 * @len: their number.
 * @used: set to how many bytes the digits took (what follows is the caller's).
 * Return: 0; -EINVAL when @text does not start with a digit; -ERANGE when
 * the number does not fit in 64 bits.  @value and @used are set only on 0.
 */
int parse_u64_prefix(const char *text, size_t len, uint64_t *value, size_t *used);

/**
 * parse_u64() - an unsigned decimal number, the whole of @text but one
 * trailing newline.
 * @text: the bytes, need not be NUL-terminated.
 * @len: their number.
 * Return: 0; -EINVAL for empty input, a sign, garbage or trailing junk;
 * -ERANGE when the number does not fit in 64 bits.  @value is set only on 0.
 */
int parse_u64(const char *text, size_t len, uint64_t *value);

/** parse_s64() - as parse_u64(), with an optional leading '-'. */
int parse_s64(const char *text, size_t len, int64_t *value);
