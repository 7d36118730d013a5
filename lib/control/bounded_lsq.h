/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Small dense least squares for the thermal model: the normal equations
 * A x = b of a few parameters, solved as they are or under linear
 * inequality constraints (the parameters' physical bounds).  Pure
 * computation, no allocation; matrices are row-major.
 */
#include <stdbool.h>

/* The most parameters and constraints handled. */
#define BLSQ_MAX_N 4
#define BLSQ_MAX_M 8

/**
 * blsq_solve() - x = A^-1 b by Cholesky.
 * @n: parameters (at most BLSQ_MAX_N).
 * @a: A, n x n, symmetric positive definite.
 * Return: false when A is not positive definite (x unchanged).
 */
bool blsq_solve(int n, const double *a, const double *b, double *x);

/**
 * blsq_quad_inverse() - v' A^-1 v (the variance of v'x when A is the
 * information), or a huge value (1e30) when A is not positive definite.
 */
double blsq_quad_inverse(int n, const double *a, const double *v);

/**
 * blsq_solve_bounded() - minimise x'A x / 2 - b'x subject to C x >= d, by
 * the primal active-set method from the feasible point x.
 * @n: parameters; @a: A (n x n, positive definite); @b: b (n).
 * @m: constraints (at most BLSQ_MAX_M); @c: C (m x n); @d: d (m).
 * @x: in: a point satisfying the constraints; out: the minimum.
 * Return: true, or false when the method did not settle within its
 * iterations or ended out of bounds (an ill-conditioned A): x is then
 * left as it came.  A singular system on the way stops it where it is.
 */
bool blsq_solve_bounded(int n, const double *a, const double *b, int m, const double *c,
			const double *d, double *x);
