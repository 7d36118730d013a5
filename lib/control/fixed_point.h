/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdint.h>

/*
 * Q10 fixed point, as the kernel's power allocator uses it: a value v is
 * stored as v * 1024.  The helpers below are written with multiplication and
 * floor division rather than shifts so that negative values have defined
 * behaviour in C (left shifts of negative numbers are undefined) while giving
 * the same results as the kernel's arithmetic shifts.
 */
#define FRAC_BITS 10
#define FRAC_ONE (INT64_C(1) << FRAC_BITS)

/** int_to_frac() - integer -> Q10. */
static inline int64_t int_to_frac(int64_t x)
{
	return x * FRAC_ONE;
}

/** frac_to_int() - Q10 -> integer, rounding towards minus infinity like `>> 10`. */
static inline int64_t frac_to_int(int64_t x)
{
	if (x >= 0)
		return x / FRAC_ONE;
	return -((-x + FRAC_ONE - 1) / FRAC_ONE);
}

/** mul_frac() - product of two Q10 numbers, in Q10 (the kernel's mul_frac()). */
static inline int64_t mul_frac(int64_t x, int64_t y)
{
	return frac_to_int(x * y);
}
