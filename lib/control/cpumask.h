/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Highest CPU number + 1 that powerallocd handles (the kernel's NR_CPUS on
 * most distribution kernels is 4096 or less). */
#define CPUMASK_MAX_CPUS 4096

/**
 * struct cpumask - a fixed-size set of logical CPU numbers.
 *
 * Fixed size so that it can live in structs that the control path uses
 * without heap allocation.
 */
struct cpumask {
	uint64_t bits[CPUMASK_MAX_CPUS / 64];
};

/** cpumask_clear() - empty @mask. */
void cpumask_clear(struct cpumask *mask);

/** cpumask_set() - add @cpu to @mask. Return: 0, or -ERANGE past CPUMASK_MAX_CPUS. */
int cpumask_set(struct cpumask *mask, unsigned int cpu);

/** cpumask_test() - whether @cpu is in @mask (false for any @cpu out of range). */
bool cpumask_test(const struct cpumask *mask, unsigned int cpu);

/** cpumask_or() - add every CPU of @other to @mask. */
void cpumask_or(struct cpumask *mask, const struct cpumask *other);

/** cpumask_weight() - number of CPUs in @mask. */
unsigned int cpumask_weight(const struct cpumask *mask);

/**
 * cpumask_next() - the first CPU in @mask at or after @cpu.
 * Return: that CPU, or CPUMASK_MAX_CPUS when there is none.
 * Iterate with: for (c = cpumask_next(m, 0); c < CPUMASK_MAX_CPUS; c = cpumask_next(m, c + 1))
 */
unsigned int cpumask_next(const struct cpumask *mask, unsigned int cpu);

/**
 * cpumask_parse_list() - parse a kernel-style CPU list ("0-3,6", "4", "0-1,4-5").
 * @text: the list, NUL-terminated; blanks around items are allowed.
 * @mask: result.
 * @why:  on error, set to a static description of what is wrong.
 *
 * Ranges must ascend ("3-0" is an error), CPU numbers must be below
 * CPUMASK_MAX_CPUS and the list must not be empty.
 * Return: 0, -EINVAL for bad syntax or a reversed range, -ERANGE for a CPU
 * number that is too large.
 */
int cpumask_parse_list(const char *text, struct cpumask *mask, const char **why);

/**
 * cpumask_format_list() - write @mask as a CPU list ("0-3,6") into @buf.
 * Return: the length written (excluding NUL), or -ENOSPC when @size is too small.
 */
int cpumask_format_list(const struct cpumask *mask, char *buf, size_t size);
