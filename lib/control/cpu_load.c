/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "cpu_load.h"

#include <errno.h>
#include <string.h>

#include "parse_number.h"

#define MIN_COLUMNS 4
#define MAX_COLUMNS 10

/* A cursor over one line, [p, end) with end at the newline. */
struct cursor {
	const char *p;
	const char *end;
};

/* The number at the cursor, which moves past its digits. */
static int parse_column(struct cursor *c, uint64_t *value)
{
	size_t used;
	int r = parse_u64_prefix(c->p, (size_t)(c->end - c->p), value, &used);

	if (r == 0)
		c->p += used;
	return r;
}

static void skip_spaces(struct cursor *c)
{
	while (c->p < c->end && *c->p == ' ')
		c->p++;
}

/* Sums the value columns of a cpu line; the cursor is past "cpuN". */
static int parse_times(struct cursor *c, struct cpu_times *t)
{
	uint64_t col[MAX_COLUMNS] = { 0 };
	unsigned int n = 0;
	int r;

	for (;;) {
		skip_spaces(c);
		if (c->p == c->end)
			break;
		if (n == MAX_COLUMNS)
			return -EINVAL;
		r = parse_column(c, &col[n++]);
		if (r < 0)
			return r;
		if (c->p < c->end && *c->p != ' ')
			return -EINVAL;
	}
	if (n < MIN_COLUMNS)
		return -EINVAL;

	/* Columns 8 and 9 (guest, guest_nice) are already counted in user and nice. */
	t->idle = col[3] + col[4];
	t->total = 0;
	for (unsigned int i = 0; i < 8; i++) {
		if (t->total > UINT64_MAX - col[i])
			return -ERANGE;
		t->total += col[i];
	}
	return 0;
}

/*
 * Finds the next line in [*pos, end): sets *line and advances *pos past its
 * newline.  Return: 0, -EINVAL when the line has no newline, -E2BIG when it
 * is longer than CPU_STAT_MAX_LINE.
 */
static int next_line(const char **pos, const char *end, struct cursor *line)
{
	size_t avail = (size_t)(end - *pos);
	size_t scan = avail < CPU_STAT_MAX_LINE ? avail : CPU_STAT_MAX_LINE;
	const char *nl = memchr(*pos, '\n', scan);

	if (!nl)
		return avail > CPU_STAT_MAX_LINE ? -E2BIG : -EINVAL;
	line->p = *pos;
	line->end = nl;
	*pos = nl + 1;
	return 0;
}

static int parse_cpu_line(struct cursor *line, struct cpu_stat *stat, int *last_cpu)
{
	struct cpu_times times;
	uint64_t cpu;
	int r;

	r = parse_column(line, &cpu);
	if (r < 0)
		return r;
	if (cpu >= CPUMASK_MAX_CPUS)
		return -ERANGE;
	if ((int)cpu <= *last_cpu)
		return -EINVAL;
	r = parse_times(line, &times);
	if (r < 0)
		return r;
	*last_cpu = (int)cpu;
	cpumask_set(&stat->online, (unsigned int)cpu);
	stat->cpu[cpu] = times;
	return 0;
}

static int starts_with(const struct cursor *c, const char *prefix)
{
	size_t n = strlen(prefix);

	return (size_t)(c->end - c->p) >= n && memcmp(c->p, prefix, n) == 0;
}

int cpu_stat_parse(const char *buf, size_t len, struct cpu_stat *stat)
{
	const char *pos = buf, *end = buf + len;
	struct cpu_times aggregate;
	struct cursor line;
	int last_cpu = -1;
	int r;

	cpumask_clear(&stat->online);
	r = len ? next_line(&pos, end, &line) : -ENODATA;
	if (r < 0)
		return r;
	if (!starts_with(&line, "cpu "))
		return -ENODATA;
	line.p += 3;
	r = parse_times(&line, &aggregate);
	if (r < 0)
		return r;

	while (pos < end) {
		if ((size_t)(end - pos) < 4 || memcmp(pos, "cpu", 3) != 0 ||
		    pos[3] < '0' || pos[3] > '9')
			break;
		r = next_line(&pos, end, &line);
		if (r < 0)
			return r;
		line.p += 3;
		r = parse_cpu_line(&line, stat, &last_cpu);
		if (r < 0)
			return r;
	}
	return last_cpu < 0 ? -ENODATA : 0;
}

unsigned int cpu_load_pct(const struct cpu_stat *prev, const struct cpu_stat *cur,
			  unsigned int cpu, unsigned int last_pct)
{
	const struct cpu_times *a, *b;
	uint64_t d_total, d_idle;

	if (!cpumask_test(&prev->online, cpu) || !cpumask_test(&cur->online, cpu))
		return 0;
	a = &prev->cpu[cpu];
	b = &cur->cpu[cpu];
	if (b->total < a->total || b->idle < a->idle)
		return 0;
	d_total = b->total - a->total;
	d_idle = b->idle - a->idle;
	if (d_total == 0)
		return last_pct > 100 ? 100 : last_pct;	/* no tick counted: as it was */
	if (d_idle > d_total)
		return 0;
	/* Divide first when 100 * busy would overflow; the loss is < 1%. */
	if (d_total - d_idle > UINT64_MAX / 100) {
		uint64_t pct = (d_total - d_idle) / (d_total / 100);

		return pct > 100 ? 100 : (unsigned int)pct;
	}
	return (unsigned int)(100 * (d_total - d_idle) / d_total);
}

bool cpu_stat_elapsed(const struct cpu_stat *prev, const struct cpu_stat *cur)
{
	bool compared = false;

	for (unsigned int c = cpumask_next(&cur->online, 0); c < CPUMASK_MAX_CPUS;
	     c = cpumask_next(&cur->online, c + 1)) {
		if (!cpumask_test(&prev->online, c))
			continue;
		if (cur->cpu[c].total != prev->cpu[c].total)
			return true;
		compared = true;
	}
	return !compared;
}

void cpu_loads_update(struct cpu_loads *loads, const struct cpu_stat *prev,
		      const struct cpu_stat *cur)
{
	for (unsigned int c = cpumask_next(&prev->online, 0); c < CPUMASK_MAX_CPUS;
	     c = cpumask_next(&prev->online, c + 1))
		if (!cpumask_test(&cur->online, c))
			loads->pct[c] = 0;
	for (unsigned int c = cpumask_next(&cur->online, 0); c < CPUMASK_MAX_CPUS;
	     c = cpumask_next(&cur->online, c + 1))
		loads->pct[c] = (uint8_t)cpu_load_pct(prev, cur, c, loads->pct[c]);
}

unsigned int cpu_loads_sum_pct(const struct cpu_loads *loads, const struct cpumask *cpus,
			       unsigned int *saturated)
{
	unsigned int sum = 0, full = 0;

	for (unsigned int c = cpumask_next(cpus, 0); c < CPUMASK_MAX_CPUS;
	     c = cpumask_next(cpus, c + 1)) {
		unsigned int load = loads->pct[c];

		sum += load;
		full += load >= CPU_LOAD_SATURATED_PCT;
	}
	if (saturated)
		*saturated = full;
	return sum;
}
