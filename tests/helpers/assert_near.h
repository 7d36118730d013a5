/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * cmocka's assert_float_equal() compares floats (24 bits: 0.125 at 2e6):
 * assert_near() compares doubles, naming both values when it fails.
 * Include after <cmocka.h> and <math.h>.
 */
#define assert_near(a, b, eps)								\
	do {										\
		double a_ = (a), b_ = (b);						\
		if (!(fabs(a_ - b_) <= (eps)))						\
			fail_msg("%s = %.9g, not %.9g within %g", #a, a_, b_, (double)(eps)); \
	} while (0)
