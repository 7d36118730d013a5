/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dither.h"

uint32_t dither_grant(const struct power_table *table, uint32_t load_pct, uint32_t granted_mw,
		      uint32_t *carry_mw)
{
	uint64_t sum = (uint64_t)granted_mw + *carry_mw;
	uint32_t grant_mw = sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
	uint32_t khz, spent_mw;

	*carry_mw = 0;
	if (!table->n)
		return grant_mw;
	khz = power_table_power_to_freq(table, grant_mw, load_pct);
	/* power_table_power_to_freq() takes a load of 0 as 1; spend the same way. */
	spent_mw = power_table_requested_power(table, khz, load_pct ? load_pct : 1);
	/*
	 * At the top OPP the rest is carried only while this period's grant
	 * alone would not reach it (the carry then shrinks); a grant the top
	 * cannot spend is not owed.  Only the lowest OPP can cost more than the
	 * grant: then nothing is carried either.
	 */
	if (khz == table->entry[table->n - 1].freq_khz && granted_mw >= spent_mw)
		return grant_mw;
	if (spent_mw <= grant_mw)
		*carry_mw = grant_mw - spent_mw;
	return grant_mw;
}
