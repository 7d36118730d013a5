/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cpumask.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void cpumask_clear(struct cpumask *mask)
{
	memset(mask, 0, sizeof(*mask));
}

int cpumask_set(struct cpumask *mask, unsigned int cpu)
{
	if (cpu >= CPUMASK_MAX_CPUS)
		return -ERANGE;
	mask->bits[cpu / 64] |= UINT64_C(1) << (cpu % 64);
	return 0;
}

bool cpumask_test(const struct cpumask *mask, unsigned int cpu)
{
	if (cpu >= CPUMASK_MAX_CPUS)
		return false;
	return (mask->bits[cpu / 64] >> (cpu % 64)) & 1;
}

unsigned int cpumask_weight(const struct cpumask *mask)
{
	unsigned int n = 0;

	for (size_t i = 0; i < CPUMASK_MAX_CPUS / 64; i++)
		n += (unsigned int)__builtin_popcountll(mask->bits[i]);
	return n;
}

unsigned int cpumask_next(const struct cpumask *mask, unsigned int cpu)
{
	while (cpu < CPUMASK_MAX_CPUS) {
		uint64_t word = mask->bits[cpu / 64] >> (cpu % 64);

		if (word)
			return cpu + (unsigned int)__builtin_ctzll(word);
		cpu = (cpu / 64 + 1) * 64;
	}
	return CPUMASK_MAX_CPUS;
}

/* Reads a decimal CPU number; stops at the first non-digit. */
static int parse_cpu_number(const char **p, unsigned int *cpu, const char **why)
{
	unsigned long v = 0;
	const char *s = *p;

	if (*s < '0' || *s > '9') {
		*why = "expected a CPU number";
		return -EINVAL;
	}
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (unsigned long)(*s - '0');
		if (v >= CPUMASK_MAX_CPUS) {
			*why = "CPU number above 4095";
			return -ERANGE;
		}
	}
	*cpu = (unsigned int)v;
	*p = s;
	return 0;
}

static void skip_blanks(const char **p)
{
	while (**p == ' ' || **p == '\t')
		(*p)++;
}

int cpumask_parse_list(const char *text, struct cpumask *mask, const char **why)
{
	const char *p = text;
	const char *unused;
	int r;

	if (!why)
		why = &unused;
	cpumask_clear(mask);
	for (;;) {
		unsigned int first, last;

		skip_blanks(&p);
		r = parse_cpu_number(&p, &first, why);
		if (r < 0)
			return r;
		last = first;
		skip_blanks(&p);
		if (*p == '-') {
			p++;
			skip_blanks(&p);
			r = parse_cpu_number(&p, &last, why);
			if (r < 0)
				return r;
			if (last < first) {
				*why = "reversed range (write the lower CPU first)";
				return -EINVAL;
			}
			skip_blanks(&p);
		}
		for (unsigned int c = first; c <= last; c++)
			cpumask_set(mask, c);
		if (*p == '\0')
			return 0;
		if (*p != ',') {
			*why = "unexpected character (expected ',' or '-')";
			return -EINVAL;
		}
		p++;
	}
}

int cpumask_format_list(const struct cpumask *mask, char *buf, size_t size)
{
	size_t len = 0;
	unsigned int c = cpumask_next(mask, 0);

	if (size == 0)
		return -ENOSPC;
	buf[0] = '\0';
	while (c < CPUMASK_MAX_CPUS) {
		unsigned int last = c;
		int n;

		while (last + 1 < CPUMASK_MAX_CPUS && cpumask_test(mask, last + 1))
			last++;
		if (last == c)
			n = snprintf(buf + len, size - len, "%s%u", len ? "," : "", c);
		else
			n = snprintf(buf + len, size - len, "%s%u-%u", len ? "," : "", c, last);
		if (n < 0 || (size_t)n >= size - len)
			return -ENOSPC;
		len += (size_t)n;
		c = cpumask_next(mask, last + 1);
	}
	return (int)len;
}

void cpumask_or(struct cpumask *mask, const struct cpumask *other)
{
	for (size_t k = 0; k < CPUMASK_MAX_CPUS / 64; k++)
		mask->bits[k] |= other->bits[k];
}
