/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target: /proc/stat parsing and the loads between two samples. */
#include <stdint.h>
#include <stdlib.h>

#include "control/cpu_load.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cpu_stat a, b;
	size_t half = size / 2;

	/* Two samples from the two halves: any pair of inputs as prev and cur. */
	if (cpu_stat_parse((const char *)data, half, &a) < 0)
		return 0;
	if (cpu_stat_parse((const char *)data + half, size - half, &b) < 0)
		b = a;
	for (unsigned int c = cpumask_next(&b.online, 0); c < CPUMASK_MAX_CPUS;
	     c = cpumask_next(&b.online, c + 1))
		if (cpu_load_pct(&a, &b, c, 100) > 100 || cpu_load_pct(&a, &b, c, UINT32_MAX) > 100)
			abort();
	return 0;
}
