/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "parse_number.h"

#include <errno.h>

/* Length without one trailing newline, as sysfs attributes end. */
static size_t strip_newline(const char *text, size_t len)
{
	return len > 0 && text[len - 1] == '\n' ? len - 1 : len;
}

int parse_u64_prefix(const char *text, size_t len, uint64_t *value, size_t *used)
{
	uint64_t v = 0;
	size_t i = 0;

	if (len == 0 || text[0] < '0' || text[0] > '9')
		return -EINVAL;
	for (; i < len && text[i] >= '0' && text[i] <= '9'; i++) {
		unsigned int digit = (unsigned int)(text[i] - '0');

		if (v > (UINT64_MAX - digit) / 10)
			return -ERANGE;
		v = v * 10 + digit;
	}
	*value = v;
	*used = i;
	return 0;
}

/* Digits only, all @len of them. */
static int parse_digits(const char *text, size_t len, uint64_t *value)
{
	uint64_t v;
	size_t used;
	int r = parse_u64_prefix(text, len, &v, &used);

	if (r < 0)
		return r;
	if (used != len)
		return -EINVAL;
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
