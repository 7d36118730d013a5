/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * What the simulated temperature sensor reports: the die's temperature plus
 * gaussian noise from a seeded generator (the same seed gives the same
 * readings), rounded to the sensor's resolution.
 */
#include <stdint.h>

/**
 * struct sensor_model - a sensor's resolution and noise.
 * @step_c: resolution, °C (0: the exact temperature, to the m°C).
 * @noise_sd_c: standard deviation of the noise, °C (0: none).
 * @state: the generator's state (splitmix64).
 */
struct sensor_model {
	double step_c;
	double noise_sd_c;
	uint64_t state;
};

/** sensor_model_init() - a sensor with @step_c resolution and @noise_sd_c noise. */
void sensor_model_init(struct sensor_model *s, double step_c, double noise_sd_c, uint64_t seed);

/**
 * sensor_model_read_mc() - one reading of a die at @true_c: m°C, a multiple
 * of the resolution (the nearest one to the noisy temperature).
 */
long sensor_model_read_mc(struct sensor_model *s, double true_c);

/** sensor_model_gaussian() - the next standard normal draw of @s's generator. */
double sensor_model_gaussian(struct sensor_model *s);
