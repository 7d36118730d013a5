/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small least squares, free and bounded (lib/control/bounded_lsq.c), on systems solved by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "control/bounded_lsq.h"

/* A = [[4, 1], [1, 3]], b = [1, 2]: x = [1/11, 7/11]; v'A^-1v for v = [1, 0] is 3/11. */
static const double a2[] = { 4, 1, 1, 3 };
static const double b2[] = { 1, 2 };

static void test_solve(void **unused)
{
	static const double v[] = { 1, 0 }, singular[] = { 1, 1, 1, 1 };
	double x[2] = { 5, 5 };

	(void)unused;
	assert_true(blsq_solve(2, a2, b2, x));
	assert_float_equal(x[0], 1.0 / 11, 1e-12);
	assert_float_equal(x[1], 7.0 / 11, 1e-12);
	assert_float_equal(blsq_quad_inverse(2, a2, v), 3.0 / 11, 1e-12);
	x[0] = x[1] = 5;
	assert_false(blsq_solve(2, singular, b2, x));
	assert_true(x[0] == 5 && x[1] == 5);	/* unchanged */
	assert_true(blsq_quad_inverse(2, singular, v) >= 1e30);
}

/* Constraints that do not bind leave the free minimum. */
static void test_bounds_inactive(void **unused)
{
	static const double c[] = { 1, 0, -1, 0 }, d[] = { -1, -1 };	/* -1 <= x0 <= 1 */
	double x[2] = { 0, 0 };

	(void)unused;
	assert_true(blsq_solve_bounded(2, a2, b2, 2, c, d, x));
	assert_float_equal(x[0], 1.0 / 11, 1e-12);
	assert_float_equal(x[1], 7.0 / 11, 1e-12);
}

/*
 * x0 >= 0.5 binds: minimise 2 x0^2 + x0 x1 + 1.5 x1^2 - x0 - 2 x1 with x0
 * = 0.5: d/dx1 = 0.5 + 3 x1 - 2 = 0, x1 = 0.5.
 */
static void test_bound_active(void **unused)
{
	static const double c[] = { 1, 0 }, d[] = { 0.5 };
	double x[2] = { 1, 0 };

	(void)unused;
	assert_true(blsq_solve_bounded(2, a2, b2, 1, c, d, x));
	assert_float_equal(x[0], 0.5, 1e-12);
	assert_float_equal(x[1], 0.5, 1e-12);
}

/*
 * A general constraint x0 + x1 <= 0.5 (-x0 - x1 >= -0.5), met on the way
 * from a start where another, x1 >= 0, is active and must be released:
 * minimum on x0 + x1 = 0.5 of the quadratic: x0 = 0.5 - x1,
 * d/dx1 of 2 (0.5 - x1)^2 + (0.5 - x1) x1 + 1.5 x1^2 - (0.5 - x1) - 2 x1
 * = -2 + 4 x1 + 0.5 - 2 x1 + 3 x1 + 1 - 2 = 5 x1 - 2.5 = 0: x1 = 0.5, x0 = 0.
 */
static void test_release_and_general_constraint(void **unused)
{
	static const double c[] = { -1, -1, 0, 1 }, d[] = { -0.5, 0 };
	double x[2] = { 0.25, 0 };

	(void)unused;
	assert_true(blsq_solve_bounded(2, a2, b2, 2, c, d, x));
	assert_float_equal(x[0], 0, 1e-12);
	assert_float_equal(x[1], 0.5, 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_solve),
		cmocka_unit_test(test_bounds_inactive),
		cmocka_unit_test(test_bound_active),
		cmocka_unit_test(test_release_and_general_constraint),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
