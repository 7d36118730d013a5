/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sensor_model.h"

#include <math.h>

void sensor_model_init(struct sensor_model *s, double step_c, double noise_sd_c, uint64_t seed)
{
	s->step_c = step_c;
	s->noise_sd_c = noise_sd_c;
	s->state = seed;
}

/* splitmix64: a small generator whose sequence is the same on every machine. */
static uint64_t next_u64(struct sensor_model *s)
{
	uint64_t z = (s->state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in (0, 1]: 53 random bits, never 0 (the logarithm below). */
static double next_unit(struct sensor_model *s)
{
	return ((double)(next_u64(s) >> 11) + 1.0) / 9007199254740992.0;
}

double sensor_model_gaussian(struct sensor_model *s)
{
	double u1 = next_unit(s), u2 = next_unit(s);

	/* Box-Muller, one of the pair. */
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

long sensor_model_read_mc(struct sensor_model *s, double true_c)
{
	double mc = true_c * 1000.0, step_mc = s->step_c * 1000.0;

	if (s->noise_sd_c > 0)
		mc += sensor_model_gaussian(s) * s->noise_sd_c * 1000.0;
	if (step_mc >= 1.0)
		return lround(mc / step_mc) * lround(step_mc);
	return lround(mc);
}
