/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "efficiency.h"

#include <math.h>
#include <string.h>

#include "divvy.h"

struct segment {
	double power_mw;
	double value;
};

/* Power (mW) and weighted throughput of @a at OPP @k, for its demand. */
static void option(const struct eff_actor *a, size_t k, double *power_mw, double *value)
{
	const struct power_entry *e = &a->table->entry[k];
	double top = a->table->entry[a->table->n - 1].freq_khz;
	double busy = fmin(1.0, a->demand * top / e->freq_khz);

	/* mW as the kernel compares them, so that the top OPP fits max_mw. */
	*power_mw = (double)e->power_mw * a->n_cpus * busy;
	*value = busy * e->freq_khz / top * a->capacity * a->n_cpus * a->weight_q10 / 1024.0;
}

/*
 * The upper concave hull from idle, as segments of falling slope.  Each
 * OPP's point is computed once; the hull then takes, from the last corner,
 * the point with the steepest rise (O(OPPs^2) comparisons, no divisions
 * repeated per step but the slope's).
 */
static size_t segments(const struct eff_actor *a, struct segment *seg)
{
	double p[POWER_TABLE_MAX_OPPS], v[POWER_TABLE_MAX_OPPS];
	double px = 0, vx = 0;
	size_t n = 0, n_opps = a->table->n;

	for (size_t k = 0; k < n_opps; k++)
		option(a, k, &p[k], &v[k]);
	while (n < POWER_TABLE_MAX_OPPS) {
		double best = 0;
		size_t pick = n_opps;

		for (size_t k = 0; k < n_opps; k++)
			if (p[k] > px && v[k] > vx && p[k] <= a->max_mw &&
			    (v[k] - vx) / (p[k] - px) > best) {
				best = (v[k] - vx) / (p[k] - px);
				pick = k;
			}
		if (pick == n_opps)
			break;
		seg[n++] = (struct segment){ p[pick] - px, v[pick] - vx };
		px = p[pick];
		vx = v[pick];
	}
	return n;
}

static double slope(const struct segment *s)
{
	return s->value / s->power_mw;
}

/* Whatever is left goes to headroom, in proportion to it. */
static void spread(const struct eff_actor *actors, size_t n, double left, double *grant)
{
	double headroom = 0;

	for (size_t i = 0; i < n; i++)
		headroom += actors[i].max_mw - grant[i];
	for (size_t i = 0; i < n && headroom > 0; i++)
		grant[i] += fmin(left, headroom) * (actors[i].max_mw - grant[i]) / headroom;
}

/*
 * Whole mW adding up to the floor of the total: each grant rounded down, the
 * mW left over going to the largest fractions (so no power is lost to
 * rounding, and none is added).
 */
static void round_grants(const struct eff_actor *actors, size_t n, const double *grant,
			 uint32_t *grants_mw)
{
	double total = 0;
	uint32_t sum = 0;
	long spare;

	for (size_t i = 0; i < n; i++) {
		double g = fmin(floor(grant[i]), actors[i].max_mw);

		grants_mw[i] = (uint32_t)g;
		sum += grants_mw[i];
		total += grant[i];
	}
	for (spare = (long)floor(total + 1e-9) - (long)sum; spare > 0; spare--) {
		size_t best = n;

		for (size_t i = 0; i < n; i++)
			if (grants_mw[i] < actors[i].max_mw && grant[i] > grants_mw[i] &&
			    (best == n || grant[i] - grants_mw[i] > grant[best] - grants_mw[best]))
				best = i;
		if (best == n)
			break;
		grants_mw[best]++;
	}
}

/*
 * The greedy over every actor's hull: @grant[i] gets the power of the
 * segments bought for actor i, steepest first, within @budget_mw.
 * Returns the weighted throughput bought; *left_mw is what was not spent.
 */
static double fill(const struct eff_actor *actors, size_t n, double budget_mw, double *grant,
		   double *left_mw)
{
	static struct segment seg[DIVVY_MAX_ACTORS][POWER_TABLE_MAX_OPPS];
	size_t count[DIVVY_MAX_ACTORS], next[DIVVY_MAX_ACTORS] = { 0 };
	double left = budget_mw, value = 0;

	for (size_t i = 0; i < n; i++) {
		count[i] = actors[i].table && actors[i].table->n ? segments(&actors[i], seg[i]) : 0;
		grant[i] = 0;
	}
	while (left > 0) {
		size_t best = n;
		const struct segment *s;

		for (size_t i = 0; i < n; i++)
			if (next[i] < count[i] &&
			    (best == n || slope(&seg[i][next[i]]) > slope(&seg[best][next[best]])))
				best = i;
		if (best == n)
			break;
		s = &seg[best][next[best]++];
		if (s->power_mw > left) {
			grant[best] += left;
			value += s->value * left / s->power_mw;
			left = 0;
			break;
		}
		grant[best] += s->power_mw;
		value += s->value;
		left -= s->power_mw;
	}
	*left_mw = left;
	return value;
}

double efficiency_best_throughput(const struct eff_actor *actors, size_t n, double budget_mw)
{
	double grant[DIVVY_MAX_ACTORS], left;

	return fill(actors, n > DIVVY_MAX_ACTORS ? DIVVY_MAX_ACTORS : n, budget_mw, grant, &left);
}

void efficiency_divide(const struct eff_actor *actors, size_t n, uint32_t budget_mw,
		       uint32_t *grants_mw)
{
	double grant[DIVVY_MAX_ACTORS], left;

	if (n > DIVVY_MAX_ACTORS)
		n = DIVVY_MAX_ACTORS;
	/* No demand buys no segment: all of the budget is left, spread by headroom. */
	fill(actors, n, budget_mw, grant, &left);
	spread(actors, n, left, grant);
	round_grants(actors, n, grant, grants_mw);
}
