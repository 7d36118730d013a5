/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Sleep seen in the clocks (sleep_gap.h). */
#include "sleep_gap.h"

/* CLOCK_BOOTTIME - CLOCK_MONOTONIC, µs; 0 if the pair is out of order. */
static uint64_t asleep_since_boot_us(uint64_t boottime_us, uint64_t monotonic_us)
{
	return boottime_us > monotonic_us ? boottime_us - monotonic_us : 0;
}

uint64_t sleep_gap_slept_us(const struct sleep_gap *g, uint64_t boottime_us,
			    uint64_t monotonic_us)
{
	uint64_t asleep_us = asleep_since_boot_us(boottime_us, monotonic_us);

	return g->primed && asleep_us > g->asleep_us ? asleep_us - g->asleep_us : 0;
}

uint64_t sleep_gap_check(struct sleep_gap *g, uint64_t boottime_us, uint64_t monotonic_us)
{
	uint64_t slept_us = sleep_gap_slept_us(g, boottime_us, monotonic_us);

	g->asleep_us = asleep_since_boot_us(boottime_us, monotonic_us);
	g->primed = true;
	return slept_us > SLEEP_GAP_MIN_US ? slept_us : 0;
}
