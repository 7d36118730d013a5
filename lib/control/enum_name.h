/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Names of enum values from one table per enum, the bound taken from the
 * table itself, so that a value added to an enum without its name, or one
 * out of range, reads "?" instead of past the table.
 */
#include <stddef.h>

/* The number of elements of the array @a (an array, not a pointer). */
#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

/** enum_name_of() - @names[@value], or "?" past @n or where the table has none. */
static inline const char *enum_name_of(const char *const *names, size_t n, unsigned int value)
{
	return value < n && names[value] ? names[value] : "?";
}

/* ENUM_NAME() - the name of @value in the array @names (negative values read "?"). */
#define ENUM_NAME(names, value) enum_name_of(names, ELEMENTSOF(names), (unsigned int)(value))
