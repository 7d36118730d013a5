/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cpufreq_policy.h"

#include <cpufreq.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "sysfs.h"

/* Ascending insert, ignoring duplicates; returns false when the table is full. */
static bool add_freq(struct cpufreq_policy_info *p, unsigned long khz)
{
	size_t i = p->n_freqs;

	if (khz == 0 || khz > UINT32_MAX)
		return true;
	for (size_t j = 0; j < p->n_freqs; j++)
		if (p->freq_khz[j] == khz)
			return true;
	if (p->n_freqs == POWER_TABLE_MAX_OPPS)
		return false;
	while (i > 0 && p->freq_khz[i - 1] > khz) {
		p->freq_khz[i] = p->freq_khz[i - 1];
		i--;
	}
	p->freq_khz[i] = (uint32_t)khz;
	p->n_freqs++;
	return true;
}

static void read_topology(struct cpufreq_policy_info *p)
{
	char path[SYSFS_PATH_MAX];
	int64_t v;

	p->cluster_id = p->package_id = -1;
	if (sysfs_pathf(path, CPU_DIR "/cpu%u/topology/cluster_id", p->cpu) == 0 &&
	    sysfs_read_s64(path, &v) == 0 && v >= 0 && v <= INT32_MAX)
		p->cluster_id = (int)v;
	if (sysfs_pathf(path, CPU_DIR "/cpu%u/topology/physical_package_id", p->cpu) == 0 &&
	    sysfs_read_s64(path, &v) == 0 && v >= 0 && v <= INT32_MAX)
		p->package_id = (int)v;
	else if (sysfs_pathf(path, CPU_DIR "/cpu%u/topology/package_id", p->cpu) == 0 &&
		 sysfs_read_s64(path, &v) == 0 && v >= 0 && v <= INT32_MAX)
		p->package_id = (int)v;
	if (sysfs_pathf(path, CPU_DIR "/cpu%u/cpu_capacity", p->cpu) == 0 &&
	    sysfs_read_s64(path, &v) == 0 && v > 0 && v <= UINT32_MAX)
		p->capacity = (uint32_t)v;
}

/*
 * A CPU is online when its "online" file says 1, or when it has none (the
 * boot CPU usually cannot be taken offline and has no such file).
 */
static bool cpu_is_online(unsigned int cpu)
{
	char path[SYSFS_PATH_MAX];
	uint64_t online;

	if (sysfs_pathf(path, CPU_DIR "/cpu%u/online", cpu) < 0)
		return false;
	if (sysfs_read_u64(path, &online) == 0)
		return online == 1;
	return sysfs_pathf(path, CPU_DIR "/cpu%u", cpu) == 0 && sysfs_exists(path);
}

static int read_cpus(struct cpufreq_policy_info *p)
{
	struct cpufreq_affected_cpus *cpus = cpufreq_get_related_cpus(p->cpu);

	if (!cpus) {
		pa_log(PA_LOG_WARNING, CPU_DIR "/cpu%u/cpufreq/related_cpus: cannot read; "
		       "policy%u ignored", p->cpu, p->cpu);
		return -EINVAL;
	}
	for (struct cpufreq_affected_cpus *c = cpus; c; c = c->next) {
		if (cpumask_set(&p->related, c->cpu) < 0)
			continue;
		if (cpu_is_online(c->cpu))
			cpumask_set(&p->online, c->cpu);
	}
	cpufreq_put_related_cpus(cpus);
	cpumask_set(&p->related, p->cpu);
	return 0;
}

static int scan_policy(unsigned int cpu, struct cpufreq_policy_info *p)
{
	struct cpufreq_available_frequencies *freqs;
	unsigned long min = 0, max = 0;

	memset(p, 0, sizeof(*p));
	p->cpu = cpu;
	if (read_cpus(p) < 0)
		return -EINVAL;
	if (cpufreq_get_hardware_limits(cpu, &min, &max) != 0 || max == 0 || max > UINT32_MAX ||
	    min > max) {
		pa_log(PA_LOG_WARNING, CPUFREQ_DIR "/policy%u/cpuinfo_max_freq: cannot read; "
		       "policy%u ignored", cpu, cpu);
		return -EINVAL;
	}
	p->min_khz = (uint32_t)min;
	p->max_khz = (uint32_t)max;
	freqs = cpufreq_get_available_frequencies(cpu);
	for (struct cpufreq_available_frequencies *f = freqs; f; f = f->next) {
		if (!add_freq(p, f->frequency)) {
			pa_log(PA_LOG_WARNING, CPUFREQ_DIR "/policy%u/scaling_available_frequencies: "
			       "more than %d frequencies; the lowest %d are kept", cpu,
			       POWER_TABLE_MAX_OPPS, POWER_TABLE_MAX_OPPS);
			break;
		}
	}
	if (freqs)
		cpufreq_put_available_frequencies(freqs);
	read_topology(p);
	return 0;
}

int cpufreq_scan(struct cpufreq_inventory *inv)
{
	int64_t *ids;
	size_t n;

	memset(inv, 0, sizeof(*inv));
	if (sysfs_list_ids(CPUFREQ_DIR, "policy", &ids, &n) < 0)
		return 0;	/* no cpufreq: no policies */
	inv->policies = calloc(n ? n : 1, sizeof(*inv->policies));
	if (!inv->policies) {
		free(ids);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (ids[i] < CPUMASK_MAX_CPUS &&
		    scan_policy((unsigned int)ids[i], &inv->policies[inv->n]) == 0)
			inv->n++;
	free(ids);
	return 0;
}

void cpufreq_inventory_free(struct cpufreq_inventory *inv)
{
	free(inv->policies);
	memset(inv, 0, sizeof(*inv));
}

const struct cpufreq_policy_info *cpufreq_policy_of_cpu(const struct cpufreq_inventory *inv,
							unsigned int cpu)
{
	for (size_t i = 0; i < inv->n; i++)
		if (cpumask_test(&inv->policies[i].related, cpu))
			return &inv->policies[i];
	return NULL;
}

const struct cpufreq_policy_info *cpufreq_policy_of_cdev(const struct cpufreq_inventory *inv,
							 const char *type)
{
	unsigned int n;
	char extra;

	if (sscanf(type, "cpufreq-cpu%u%c", &n, &extra) == 1) {
		const struct cpufreq_policy_info *p = cpufreq_policy_of_cpu(inv, n);

		return p && p->cpu == n ? p : NULL;
	}
	if (sscanf(type, "thermal-cpufreq-%u%c", &n, &extra) == 1)
		return n < inv->n ? &inv->policies[n] : NULL;
	return NULL;
}
