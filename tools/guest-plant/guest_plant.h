/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The plant of the arm64 benchmark (tools/bench-arm64), run inside the guest:
 * a first-order thermal model (a die with one time constant to ambient) heated
 * by the CPUs at the frequencies the kernel runs them, as the kernel's Energy
 * Model prices them, and the work they do.  Pure computation; guest-plant.c
 * reads the machine and writes the sensor.
 */
#include <stddef.h>
#include <stdint.h>

#define GP_MAX_CLUSTERS 8
#define GP_MAX_CPUS 16
#define GP_MAX_STATES 32

/* The bcm2711 sensor register (drivers/thermal/broadcom/bcm2711_thermal.c):
 * bits 0-9 the value, bit 10 set while it is valid. */
#define GP_SENSOR_VALUE_MASK 0x3ffu
#define GP_SENSOR_VALID (1u << 10)

/**
 * struct gp_thermal - the die: T' = (ambient + R * P - T) / tau.
 * @ambient_c: ambient, °C.
 * @k_per_w: resistance to ambient, K/W.
 * @tau_s: time constant, s.
 */
struct gp_thermal {
	double ambient_c;
	double k_per_w;
	double tau_s;
};

/**
 * struct gp_cluster - one cpufreq policy and its Energy Model.
 * @n_cpus, @cpu: its CPUs' numbers.
 * @capacity: each CPU's capacity at the top frequency (cpu_capacity, of 1024).
 * @n_states, @freq_khz, @power_uw: the Energy Model's performance states,
 *	by rising frequency; power per CPU busy at that frequency, µW (the
 *	unit of the kernel's Energy Model in debugfs).
 */
struct gp_cluster {
	size_t n_cpus;
	unsigned int cpu[GP_MAX_CPUS];
	unsigned int capacity[GP_MAX_CPUS];
	size_t n_states;
	uint32_t freq_khz[GP_MAX_STATES];
	uint32_t power_uw[GP_MAX_STATES];
};

/**
 * gp_state_power_mw() - what one CPU of @c draws busy at @freq_khz, mW: the
 * highest performance state at or under @freq_khz (the lowest one under it).
 */
double gp_state_power_mw(const struct gp_cluster *c, uint32_t freq_khz);

/**
 * gp_cluster_power_mw() - @c's power at @freq_khz with each CPU busy the
 * share @busy[i] (0..1) of the period, mW.
 */
double gp_cluster_power_mw(const struct gp_cluster *c, uint32_t freq_khz, const double *busy);

/**
 * gp_cluster_work() - @c's work in the period, in capacity units (a CPU of
 * capacity 1024 busy all the period at its top frequency does 1024): each
 * CPU's capacity times @freq_khz over the top state's, times its busy share.
 */
double gp_cluster_work(const struct gp_cluster *c, uint32_t freq_khz, const double *busy);

/** gp_cluster_capacity() - the sum of @c's CPUs' capacities (its work at full speed). */
double gp_cluster_capacity(const struct gp_cluster *c);

/**
 * gp_thermal_step() - the die's temperature after @dt_s at @power_mw from
 * @temp_c, °C: the exact solution of the first-order model for a constant
 * power over the step.
 */
double gp_thermal_step(const struct gp_thermal *th, double temp_c, double power_mw, double dt_s);

/**
 * gp_sensor_word() - the register value that reads as @temp_mc with the
 * zone's coefficients <100 0> (value = m°C / 100, rounded, within 0..1023),
 * with the valid bit set.
 */
uint32_t gp_sensor_word(int64_t temp_mc);
