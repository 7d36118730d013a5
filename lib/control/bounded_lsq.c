/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small dense least squares, free or under linear constraints (bounded_lsq.h). */
#include "bounded_lsq.h"

#include <math.h>
#include <string.h>

#define KKT_MAX (BLSQ_MAX_N + BLSQ_MAX_M)

bool blsq_solve(int n, const double *a, const double *b, double *x)
{
	double l[BLSQ_MAX_N][BLSQ_MAX_N] = { { 0 } }, y[BLSQ_MAX_N];

	for (int i = 0; i < n; i++)
		for (int j = 0; j <= i; j++) {
			double s = a[i * n + j];

			for (int k = 0; k < j; k++)
				s -= l[i][k] * l[j][k];
			if (i > j)
				l[i][j] = s / l[j][j];
			else if (s > 0)
				l[i][i] = sqrt(s);
			else
				return false;
		}
	for (int i = 0; i < n; i++) {
		y[i] = b[i];
		for (int k = 0; k < i; k++)
			y[i] -= l[i][k] * y[k];
		y[i] /= l[i][i];
	}
	for (int i = n - 1; i >= 0; i--) {
		for (int k = i + 1; k < n; k++)
			y[i] -= l[k][i] * y[k];
		y[i] /= l[i][i];
	}
	memcpy(x, y, (size_t)n * sizeof(*x));
	return true;
}

double blsq_quad_inverse(int n, const double *a, const double *v)
{
	double x[BLSQ_MAX_N], q = 0;

	if (!blsq_solve(n, a, v, x))
		return 1e30;
	for (int i = 0; i < n; i++)
		q += v[i] * x[i];
	return q;
}

/* Solves the @n x @n system @k (destroyed) for @rhs in place: Gauss, partial pivoting. */
static bool gauss(int n, double k[KKT_MAX][KKT_MAX], double *rhs)
{
	for (int c = 0; c < n; c++) {
		int p = c;

		for (int r = c + 1; r < n; r++)
			if (fabs(k[r][c]) > fabs(k[p][c]))
				p = r;
		if (!(fabs(k[p][c]) > 1e-300))
			return false;
		if (p != c) {
			double t = rhs[p];

			for (int j = 0; j < n; j++) {
				double s = k[p][j];

				k[p][j] = k[c][j];
				k[c][j] = s;
			}
			rhs[p] = rhs[c];
			rhs[c] = t;
		}
		for (int r = c + 1; r < n; r++) {
			double f = k[r][c] / k[c][c];

			for (int j = c; j < n; j++)
				k[r][j] -= f * k[c][j];
			rhs[r] -= f * rhs[c];
		}
	}
	for (int r = n - 1; r >= 0; r--) {
		for (int j = r + 1; j < n; j++)
			rhs[r] -= k[r][j] * rhs[j];
		rhs[r] /= k[r][r];
	}
	return true;
}

/*
 * The step @p from @x to the minimum on the active constraints, and their
 * multipliers @lambda (in @set's order): the KKT system
 * [A -Cw'; Cw 0] [p; lambda] = [b - A x; 0].  Return: the active count, or
 * -1 when singular.
 */
static int equality_step(int n, const double *a, const double *b, const double *c,
			 const bool *active, int m, const double *x, double *p, double *lambda,
			 int *set)
{
	double k[KKT_MAX][KKT_MAX] = { { 0 } }, rhs[KKT_MAX] = { 0 };
	int w = 0;

	for (int i = 0; i < m; i++)
		if (active[i])
			set[w++] = i;
	for (int i = 0; i < n; i++) {
		rhs[i] = b[i];
		for (int j = 0; j < n; j++) {
			k[i][j] = a[i * n + j];
			rhs[i] -= a[i * n + j] * x[j];
		}
		for (int j = 0; j < w; j++) {
			k[i][n + j] = -c[set[j] * n + i];
			k[n + j][i] = c[set[j] * n + i];
		}
	}
	if (!gauss(n + w, k, rhs))
		return -1;
	memcpy(p, rhs, (size_t)n * sizeof(*p));
	memcpy(lambda, rhs + n, (size_t)w * sizeof(*lambda));
	return w;
}

/*
 * The longest step along @p (at most 1) that keeps the inactive
 * constraints; *@block: the one met, or -1.
 */
static double step_length(int n, int m, const double *c, const double *d, const bool *active,
			  const double *x, const double *p, int *block)
{
	double alpha = 1;

	*block = -1;
	for (int i = 0; i < m; i++) {
		double cp = 0, cx = 0, t;

		if (active[i])
			continue;
		for (int j = 0; j < n; j++) {
			cp += c[i * n + j] * p[j];
			cx += c[i * n + j] * x[j];
		}
		if (cp >= 0)
			continue;
		t = fmax(0, (d[i] - cx) / cp);
		if (t < alpha) {
			alpha = t;
			*block = i;
		}
	}
	return alpha;
}

/*
 * One step of the primal active-set method from the feasible @x: to the
 * minimum on the @active constraints, or as far as the first one met (then
 * active); at that minimum, a constraint that holds x back is released.
 * Return: true when x is the minimum (or the system is singular: *@x is
 * then left where it was and the caller sees it unchanged).
 */
static bool active_set_step(int n, const double *a, const double *b, int m, const double *c,
			    const double *d, double *x, bool *active)
{
	double p[BLSQ_MAX_N], lambda[BLSQ_MAX_N + BLSQ_MAX_M], size = 0, scale = 1, alpha;
	int set[BLSQ_MAX_M], w = equality_step(n, a, b, c, active, m, x, p, lambda, set);
	int block, drop = -1;

	if (w < 0)
		return true;
	for (int i = 0; i < n; i++) {
		size = fmax(size, fabs(p[i]));
		scale = fmax(scale, fabs(x[i]));
	}
	if (size <= 1e-12 * scale) {
		for (int j = 0; j < w; j++)
			if (lambda[j] < -1e-12 && (drop < 0 || lambda[j] < lambda[drop]))
				drop = j;
		if (drop < 0)
			return true;
		active[set[drop]] = false;
		return false;
	}
	alpha = step_length(n, m, c, d, active, x, p, &block);
	for (int i = 0; i < n; i++)
		x[i] += alpha * p[i];
	if (block >= 0)
		active[block] = true;
	return false;
}

/* Whether @x meets every constraint, to rounding. */
static bool feasible(int n, int m, const double *c, const double *d, const double *x)
{
	for (int i = 0; i < m; i++) {
		double cx = 0, scale = fabs(d[i]);

		for (int j = 0; j < n; j++) {
			cx += c[i * n + j] * x[j];
			scale += fabs(c[i * n + j] * x[j]);
		}
		if (!(cx - d[i] >= -1e-9 * (1 + scale)))
			return false;
	}
	return true;
}

bool blsq_solve_bounded(int n, const double *a, const double *b, int m, const double *c,
			const double *d, double *x)
{
	bool active[BLSQ_MAX_M] = { false };
	double start[BLSQ_MAX_N];
	bool ok = false;

	memcpy(start, x, (size_t)n * sizeof(*x));
	for (int iter = 0; iter < 4 * (n + m) && !ok; iter++)
		ok = active_set_step(n, a, b, m, c, d, x, active);
	/* An ill-conditioned system can step out of bounds: then nothing moves. */
	if (!ok || !feasible(n, m, c, d, x)) {
		memcpy(x, start, (size_t)n * sizeof(*x));
		return false;
	}
	return true;
}
