/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpumask.h"

/* A "cpuN" line of /proc/stat longer than this is malformed (ten 20-digit
 * numbers need about 220 bytes). */
#define CPU_STAT_MAX_LINE 512

/**
 * struct cpu_times - one CPU's counters from /proc/stat, in USER_HZ ticks.
 * @total: user + nice + system + idle + iowait + irq + softirq + steal
 *	(guest time is already inside user and nice, so it is not added again).
 * @idle: idle + iowait.
 */
struct cpu_times {
	uint64_t total;
	uint64_t idle;
};

/**
 * struct cpu_stat - one sample of /proc/stat's per-CPU lines.
 * @online: CPUs that had a line (offline CPUs have none).
 * @cpu: counters, valid where @online is set.
 */
struct cpu_stat {
	struct cpumask online;
	struct cpu_times cpu[CPUMASK_MAX_CPUS];
};

/**
 * cpu_stat_parse() - parse the contents of /proc/stat.
 * @buf: the bytes read; need not be NUL-terminated and is never read past @len.
 * @len: their number.
 * @stat: result.
 *
 * Reads the aggregate "cpu" line and the "cpuN" lines that follow it and
 * stops at the first other line, so the long lines later in the file (intr,
 * softirq) are never scanned.  Each cpuN line needs 4 to 10 decimal values
 * and a newline.
 * Return: 0; -EINVAL for a malformed line (missing columns, more than 10,
 * garbage, a duplicate or out-of-order CPU, no newline), -ERANGE for a
 * number that overflows 64 bits or a CPU above CPUMASK_MAX_CPUS - 1,
 * -E2BIG for a line over CPU_STAT_MAX_LINE bytes, -ENODATA when there is no
 * cpu line at all.
 */
int cpu_stat_parse(const char *buf, size_t len, struct cpu_stat *stat);

/**
 * cpu_load_pct() - load of @cpu between two samples, percent (0..100).
 * @last_pct: @cpu's load over the pair of samples before, percent.
 *
 * 100 * (d_total - d_idle) / d_total.  A CPU whose counters did not move
 * (d_total 0) keeps @last_pct: /proc/stat counts in USER_HZ ticks (10 ms),
 * so a period shorter than the kernel's tick (HZ = 100: half of 5 ms periods)
 * or a busy CPU whose tick is stopped (nohz_full) sees no tick, and 0 would
 * read a busy cluster as idle (issue 41: under the kernel's law, load 0,
 * request 0, its lowest power asked, and the cluster held at its lowest OPP
 * for 80 s).  A CPU offline in either sample, or a counter that went
 * backwards (the CPU went offline and came back, resetting its counters),
 * gives 0, as before.
 *
 * The kernel's cpufreq cooling device (drivers/thermal/cpufreq_cooling.c,
 * get_load()) takes an SMP CPU's load from the scheduler instead,
 * sched_cpu_util() * 100 / capacity: a decaying average of utilization
 * (PELT) that always has a value, so a busy CPU never reads 0 for want of a
 * tick; keeping the last load stands in for that.  On a uniprocessor kernel
 * it takes the idle-time deltas of get_cpu_idle_time() (µs, as of the
 * call), 0 only when no time passed or the CPU was idle throughout.  An
 * offline CPU is 0 there too.  Unlike sched_cpu_util(), ours is percent of
 * time busy at whatever frequency ran, not of the CPU's capacity.
 */
unsigned int cpu_load_pct(const struct cpu_stat *prev, const struct cpu_stat *cur,
			  unsigned int cpu, unsigned int last_pct);

/**
 * struct cpu_loads - each CPU's load over the last pair of samples, percent,
 * kept from one pair to the next (cpu_load_pct()'s @last_pct): allocated
 * once, updated in place each period.
 */
struct cpu_loads {
	uint8_t pct[CPUMASK_MAX_CPUS];
};

/**
 * cpu_loads_update() - @loads over the samples @prev and @cur: each CPU
 * online in @cur by cpu_load_pct() from its last load; one online in @prev
 * only (gone offline) 0.
 */
void cpu_loads_update(struct cpu_loads *loads, const struct cpu_stat *prev,
		      const struct cpu_stat *cur);

/**
 * cpu_stat_elapsed() - whether time passed between two samples: false only
 * when some CPU is online in both and none of those counted a tick (USER_HZ,
 * 10 ms) in between.  Loads from two such samples would read 0 %, as if
 * every CPU were idle, and a cooling device caps nothing at 0 % load.
 */
bool cpu_stat_elapsed(const struct cpu_stat *prev, const struct cpu_stat *cur);

/*
 * A CPU busy this much of a period may want more than its frequency gives:
 * its load cannot show it, so its demand is unknown, at least what it ran.
 */
#define CPU_LOAD_SATURATED_PCT 95

/**
 * cpu_loads_sum_pct() - sum of @loads over @cpus (percent, up to 100 per
 * CPU); *@saturated (when not NULL) is set to how many of them were at or
 * above CPU_LOAD_SATURATED_PCT.
 */
unsigned int cpu_loads_sum_pct(const struct cpu_loads *loads, const struct cpumask *cpus,
			       unsigned int *saturated);
