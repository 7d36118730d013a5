/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * CPU frequency domains (cpufreq policies) through libcpupower, with the
 * topology the kernel exposes for their CPUs.
 */
#include <stddef.h>
#include <stdint.h>

#include "control/cpumask.h"
#include "control/power_table.h"

#define CPUFREQ_DIR "/sys/devices/system/cpu/cpufreq"
#define CPU_DIR "/sys/devices/system/cpu"

/**
 * struct cpufreq_policy_info - policyN.
 * @cpu: N, the policy's first CPU (libcpupower addresses policies by it).
 * @related: every CPU of the policy, online or not.
 * @online: the related CPUs online when discovered.
 * @freq_khz, @n_freqs: scaling_available_frequencies, ascending; none on
 *	drivers without a table (intel_pstate).
 * @min_khz, @max_khz: cpuinfo_min_freq and cpuinfo_max_freq (hardware limits).
 * @cluster_id, @package_id: topology of @cpu, -1 when not exposed.
 * @capacity: cpu_capacity of @cpu (1024 = the biggest CPU), 0 when not exposed.
 */
struct cpufreq_policy_info {
	unsigned int cpu;
	struct cpumask related;
	struct cpumask online;
	size_t n_freqs;
	uint32_t freq_khz[POWER_TABLE_MAX_OPPS];
	uint32_t min_khz;
	uint32_t max_khz;
	int cluster_id;
	int package_id;
	uint32_t capacity;
};

/** struct cpufreq_inventory - every policy, by ascending first CPU. */
struct cpufreq_inventory {
	size_t n;
	struct cpufreq_policy_info *policies;
};

/**
 * cpufreq_scan() - read every cpufreq policy.  A policy that cannot be read
 * is logged (naming the file) and left out.
 * Return: 0 (also with no cpufreq at all), or -ENOMEM.
 */
int cpufreq_scan(struct cpufreq_inventory *inv);

/** cpufreq_inventory_free() - release what cpufreq_scan() allocated. */
void cpufreq_inventory_free(struct cpufreq_inventory *inv);

/** cpufreq_policy_of_cpu() - the policy that @cpu belongs to, or NULL. */
const struct cpufreq_policy_info *cpufreq_policy_of_cpu(const struct cpufreq_inventory *inv,
							unsigned int cpu);

/**
 * cpufreq_policy_of_cdev() - the policy a cpufreq cooling device throttles.
 * @type: the cooling device's type: "cpufreq-cpuN" (N = the policy's first
 *	CPU) or, before Linux 5.7, "thermal-cpufreq-N" (N = the order in which
 *	the cooling devices registered, which is the order of the policies).
 * Return: the policy, or NULL when @type is neither form or matches none.
 */
const struct cpufreq_policy_info *cpufreq_policy_of_cdev(const struct cpufreq_inventory *inv,
							 const char *type);
