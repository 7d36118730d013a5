/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * powerallocd-bench: the cost of one control period through the daemon's
 * real I/O path (lib/engine on a fake tree under umockdev-wrapper): CPU time
 * per period (median), the floor (only the preads a period needs), heap
 * allocations per period after start-up, peak RSS.
 *   powerallocd-bench [--cycles N]        (run by tools/bench-cost)
 * Exits 1 when a period allocated from the heap.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "engine/engine.h"
#include "platform/log.h"

/* Counting allocator: every malloc family call while counting is on. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
static int counting;
static unsigned long allocations;

void *malloc(size_t size)
{
	allocations += counting;
	return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	allocations += counting;
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	allocations += counting;
	return __libc_realloc(p, size);
}

static double thread_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int compare(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), compare);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The files a period reads: /proc/stat, each zone's temp, each actor's frequency. */
static size_t open_floor_files(const struct engine *e, int *fds, size_t max)
{
	size_t n = 0;

	fds[n++] = open(PROC_STAT_PATH, O_RDONLY | O_CLOEXEC);
	for (size_t z = 0; z < e->n_zones; z++)
		for (size_t k = 0; k < e->zones[z].setup.n_inputs && n < max; k++)
			fds[n++] =
				open(e->zones[z].setup.inputs[k].attr.path, O_RDONLY | O_CLOEXEC);
	for (size_t i = 0; i < e->n_actors && n < max; i++) {
		char path[SYSFS_PATH_MAX];

		if (e->actors[i]->kind != ACTOR_CPUFREQ)
			continue;
		sysfs_pathf(path, "/sys/devices/system/cpu/cpufreq/policy%u/scaling_cur_freq",
			    cpumask_next(&e->actors[i]->cpus, 0));
		fds[n++] = open(path, O_RDONLY | O_CLOEXEC);
	}
	return n;
}

/* Hot zone, every CPU busy: every period computes budgets and may write states. */
static void heat(const struct engine *e, unsigned int k)
{
	for (size_t z = 0; z < e->n_zones; z++) {
		for (size_t i = 0; i < e->zones[z].setup.n_inputs; i++) {
			FILE *f = fopen(e->zones[z].setup.inputs[i].attr.path, "w");

			if (f) {
				fprintf(f, "%d\n",
					e->zones[z].setup.control_mc + (int)(k % 7) * 300 - 900);
				fclose(f);
			}
		}
	}
}

int main(int argc, char **argv)
{
	unsigned int cycles = argc > 2 && strcmp(argv[1], "--cycles") == 0 ? (unsigned)atoi(argv[2]) : 2000;
	struct pa_config *cfg = pa_config_new_default();
	double *cost = calloc(cycles, sizeof(double)), *floor_us = calloc(cycles, sizeof(double));
	static char buf[1 << 20];
	int fds[256];
	struct engine e;
	struct rusage ru;
	size_t n_fds;
	int n;

	pa_log_set_level(PA_LOG_ERR);
	if (!cfg || !cost || !floor_us || cycles < 10 || (n = engine_build(&e, cfg)) < 1) {
		fprintf(stderr, "powerallocd-bench: nothing to control (run under tests/helpers/run-in-tree)\n");
		return 1;
	}
	n_fds = open_floor_files(&e, fds, 256);
	for (unsigned int k = 0; k < cycles; k++) {
		double t0, t1;

		heat(&e, k);	/* outside the measured part, as the kernel would */
		counting = 1;
		t0 = thread_us();
		engine_cycle(&e, (uint64_t)k * 100000, NULL);
		t1 = thread_us();
		counting = 0;
		cost[k] = t1 - t0;
		t0 = thread_us();
		for (size_t i = 0; i < n_fds; i++)
			if (pread(fds[i], buf, i == 0 ? sizeof(buf) : 64, 0) < 0)
				return 1;
		floor_us[k] = thread_us() - t0;
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("zones %d actors %zu cycles %u cycle_us %.1f floor_us %.1f ratio %.2f "
	       "allocs_per_cycle %.3f peak_rss_kib %ld\n", n, e.n_actors, cycles,
	       median(cost, cycles), median(floor_us, cycles),
	       median(cost, cycles) / median(floor_us, cycles), (double)allocations / cycles,
	       ru.ru_maxrss);
	engine_restore(&e);
	engine_free(&e);
	pa_config_free(cfg);
	/* The control path must not allocate: a regression fails the run. */
	return allocations ? 1 : 0;
}
