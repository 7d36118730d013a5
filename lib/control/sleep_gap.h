/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Whether the machine slept between two periods, from its clocks alone (no
 * logind to say so): CLOCK_BOOTTIME counts the time suspended and
 * CLOCK_MONOTONIC does not, so their difference grows by exactly the time
 * the machine slept and by nothing else (both are slewed alike by NTP).
 * Pure: the caller reads the clocks and hands them in.
 */
#include <stdbool.h>
#include <stdint.h>

/*
 * A growth of BOOTTIME - MONOTONIC beyond this is a sleep, µs.  Shorter
 * ones (a suspend aborted at once) leave the controller's trend and the
 * model's block sound enough: a second is a few periods at most.
 */
#define SLEEP_GAP_MIN_US UINT64_C(1000000)

/**
 * struct sleep_gap - the clocks' difference at the last period.
 * @asleep_us: CLOCK_BOOTTIME - CLOCK_MONOTONIC then, µs: the time the
 *	machine had slept since boot.
 * @primed: @asleep_us is set.
 */
struct sleep_gap {
	uint64_t asleep_us;
	bool primed;
};

/**
 * sleep_gap_check() - at a period: how long the machine slept since the
 * previous call, µs, when more than SLEEP_GAP_MIN_US, else 0.  Either way
 * @g takes the clocks now as its reference, so a sleep is reported once.
 * @boottime_us, @monotonic_us: CLOCK_BOOTTIME and CLOCK_MONOTONIC now, µs.
 * The first call (and a difference that shrank, which no clock does)
 * reports nothing.
 */
uint64_t sleep_gap_check(struct sleep_gap *g, uint64_t boottime_us, uint64_t monotonic_us);

/**
 * sleep_gap_slept_us() - how long the machine slept since @g's reference,
 * µs, without moving it (0 when unprimed or when the difference shrank).
 */
uint64_t sleep_gap_slept_us(const struct sleep_gap *g, uint64_t boottime_us,
			    uint64_t monotonic_us);
