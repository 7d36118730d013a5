/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "parse.h"

#include <errno.h>

/* Length without one trailing newline, as sysfs attributes end. */
static size_t strip_newline(const char *text, size_t len)
{
	return len > 0 && text[len - 1] == '\n' ? len - 1 : len;
}

static int parse_digits(const char *text, size_t len, uint64_t *value)
{
	uint64_t v = 0;

	if (len == 0)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		unsigned int digit;

		if (text[i] < '0' || text[i] > '9')
			return -EINVAL;
		digit = (unsigned int)(text[i] - '0');
		if (v > (UINT64_MAX - digit) / 10)
			return -ERANGE;
		v = v * 10 + digit;
	}
	*value = v;
	return 0;
}

int parse_u64(const char *text, size_t len, uint64_t *value)
{
	return parse_digits(text, strip_newline(text, len), value);
}

int parse_s64(const char *text, size_t len, int64_t *value)
{
	uint64_t v;
	int negative, r;

	len = strip_newline(text, len);
	negative = len > 0 && text[0] == '-';
	r = parse_digits(text + negative, len - (size_t)negative, &v);
	if (r < 0)
		return r;
	if (v > (uint64_t)INT64_MAX + (uint64_t)negative)
		return -ERANGE;
	*value = negative ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

uint32_t parse_be32(const unsigned char *cell)
{
	return (uint32_t)cell[0] << 24 | (uint32_t)cell[1] << 16 | (uint32_t)cell[2] << 8 | cell[3];
}

uint64_t parse_dt_u64(const unsigned char *cells)
{
	return (uint64_t)parse_be32(cells) << 32 | parse_be32(cells + 4);
}
