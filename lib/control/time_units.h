/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/* Microseconds in a millisecond and in a second, for CLOCK_MONOTONIC times in us. */
#include <stdint.h>

#define USEC_PER_MSEC UINT64_C(1000)
#define USEC_PER_SEC UINT64_C(1000000)
