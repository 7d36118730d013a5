/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target: device-tree OPP properties, and the power table built from them. */
#include <stdint.h>
#include <stdlib.h>

#include "platform/dt_props.h"
#include "fuzz.h"
#include "control/power_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct opp opps[POWER_TABLE_MAX_OPPS];
	struct power_table table;
	size_t split = size ? data[0] % (size + 1) : 0, n;
	struct opp one;

	/* First byte: where opp-hz ends and opp-microvolt starts. */
	if (size > 1)
		dt_decode_opp(data + 1, split > 0 ? split - 1 : 0, data + split,
			      size - split, &one);
	n = dt_decode_operating_points(data, size, opps, POWER_TABLE_MAX_OPPS);
	if (n > POWER_TABLE_MAX_OPPS)
		abort();
	if (n && power_table_build(opps, n, size ? data[size - 1] * 100u : 0, &table) == 0) {
		for (uint32_t p = 0; p < 5000; p += 997)
			power_table_freq_to_state(&table, power_table_power_to_freq(&table, p, 100));
	}
	return 0;
}
