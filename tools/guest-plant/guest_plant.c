// SPDX-License-Identifier: GPL-2.0-or-later
#include <math.h>

#include "guest_plant.h"

double gp_state_power_mw(const struct gp_cluster *c, uint32_t freq_khz)
{
	size_t k = 0;

	if (c->n_states == 0)
		return 0;
	while (k + 1 < c->n_states && c->freq_khz[k + 1] <= freq_khz)
		k++;
	return c->power_uw[k] / 1000.0;
}

double gp_cluster_power_mw(const struct gp_cluster *c, uint32_t freq_khz, const double *busy)
{
	double per_cpu_mw = gp_state_power_mw(c, freq_khz);
	double sum_mw = 0;

	for (size_t i = 0; i < c->n_cpus; i++)
		sum_mw += per_cpu_mw * busy[i];
	return sum_mw;
}

double gp_cluster_work(const struct gp_cluster *c, uint32_t freq_khz, const double *busy)
{
	double top_khz = c->n_states ? c->freq_khz[c->n_states - 1] : 0;
	double work = 0;

	if (top_khz <= 0)
		return 0;
	for (size_t i = 0; i < c->n_cpus; i++)
		work += c->capacity[i] * (freq_khz / top_khz) * busy[i];
	return work;
}

double gp_cluster_capacity(const struct gp_cluster *c)
{
	double sum = 0;

	for (size_t i = 0; i < c->n_cpus; i++)
		sum += c->capacity[i];
	return sum;
}

double gp_thermal_step(const struct gp_thermal *th, double temp_c, double power_mw, double dt_s)
{
	double settle_c = th->ambient_c + th->k_per_w * power_mw / 1000.0;

	return settle_c + (temp_c - settle_c) * exp(-dt_s / th->tau_s);
}

uint32_t gp_sensor_word(int64_t temp_mc)
{
	int64_t value = temp_mc >= 0 ? (temp_mc + 50) / 100 : 0;

	if (value > (int64_t)GP_SENSOR_VALUE_MASK)
		value = GP_SENSOR_VALUE_MASK;
	return (uint32_t)value | GP_SENSOR_VALID;
}
