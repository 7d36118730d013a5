/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sensor_combine.h"

#include <math.h>

const char *sensor_kind_name(enum sensor_kind kind)
{
	return kind == SENSOR_MAX ? "max" : kind == SENSOR_SUM ? "sum" : "";
}

/* Σ w·t over the inputs that read, scaled by Σ w (all) / Σ w (those read). */
static int64_t weighted_sum_mc(const int64_t *temp_mc, const bool *read, const double *weight,
			       size_t n)
{
	double total = 0, total_read = 0, sum = 0;

	for (size_t i = 0; i < n; i++) {
		total += weight[i];
		if (!read[i])
			continue;
		total_read += weight[i];
		sum += weight[i] * (double)temp_mc[i];
	}
	return total_read > 0 ? llround(sum * total / total_read) : 0;
}

int64_t sensor_combine_mc(enum sensor_kind kind, const int64_t *temp_mc, const bool *read,
			  const double *weight, size_t n, int32_t offset_mc)
{
	bool any = false;
	int64_t t = 0;

	if (kind == SENSOR_SUM) {
		for (size_t i = 0; i < n; i++)
			any |= read[i];
		return any ? weighted_sum_mc(temp_mc, read, weight, n) + offset_mc : 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (!read[i] || (any && temp_mc[i] <= t))
			continue;
		t = temp_mc[i];
		any = true;
	}
	return any ? t + offset_mc : 0;
}
