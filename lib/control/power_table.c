/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "power_table.h"

#include <errno.h>
#include <string.h>

/* The kernel's _get_power(): every division truncates, in this order. */
static uint64_t opp_dynamic_power_uw(uint32_t dpc, uint32_t voltage_uv, uint32_t freq_khz)
{
	uint64_t mv = voltage_uv / 1000;
	uint64_t mhz = freq_khz / 1000;

	return (uint64_t)dpc * mv * mv * mhz / 1000000;
}

static int opp_power_uw(const struct opp *o, uint32_t dpc, uint64_t *uw)
{
	if (o->voltage_uv && dpc)
		*uw = opp_dynamic_power_uw(dpc, o->voltage_uv, o->freq_khz);
	else if (o->power_uw)
		*uw = o->power_uw;
	else if (o->power_mw)
		*uw = (uint64_t)o->power_mw * 1000;
	else
		return -EINVAL;
	*uw += (uint64_t)o->static_power_mw * 1000;
	return *uw > UINT32_MAX ? -ERANGE : 0;
}

static void insert_sorted(struct power_table *t, const struct power_entry *e)
{
	size_t i = t->n;

	while (i > 0 && t->entry[i - 1].freq_khz > e->freq_khz) {
		t->entry[i] = t->entry[i - 1];
		i--;
	}
	t->entry[i] = *e;
	t->n++;
}

int power_table_build(const struct opp *opps, size_t n, uint32_t dpc, struct power_table *table)
{
	memset(table, 0, sizeof(*table));
	if (n == 0)
		return -EINVAL;
	if (n > POWER_TABLE_MAX_OPPS)
		return -E2BIG;

	for (size_t i = 0; i < n; i++) {
		struct power_entry e = { .freq_khz = opps[i].freq_khz,
					 .voltage_uv = opps[i].voltage_uv };
		uint64_t uw;
		int r;

		if (!e.freq_khz)
			return -EINVAL;
		for (size_t j = 0; j < table->n; j++)
			if (table->entry[j].freq_khz == e.freq_khz)
				return -EINVAL;
		r = opp_power_uw(&opps[i], dpc, &uw);
		if (r < 0)
			return r;
		e.power_uw = (uint32_t)uw;
		e.power_mw = (uint32_t)(uw / 1000);
		insert_sorted(table, &e);
	}
	return 0;
}

size_t power_table_falling(const struct power_table *table, bool voltage)
{
	for (size_t i = 1; i < table->n; i++) {
		const struct power_entry *below = &table->entry[i - 1], *e = &table->entry[i];

		if (voltage ? below->voltage_uv && e->voltage_uv && e->voltage_uv < below->voltage_uv
			    : e->power_mw < below->power_mw)
			return i;
	}
	return 0;
}

uint32_t power_table_freq_to_power(const struct power_table *table, uint32_t freq_khz)
{
	for (size_t i = 0; i < table->n; i++)
		if (table->entry[i].freq_khz >= freq_khz)
			return table->entry[i].power_mw;
	return table->n ? table->entry[table->n - 1].power_mw : 0;
}

uint32_t power_table_power_to_freq(const struct power_table *table, uint32_t power_mw,
				   uint32_t load_pct)
{
	uint64_t normalised = (uint64_t)power_mw * 100 / (load_pct ? load_pct : 1);
	size_t i;

	if (!table->n)
		return 0;
	for (i = table->n - 1; i > 0; i--)
		if (normalised >= table->entry[i].power_mw)
			break;
	return table->entry[i].freq_khz;
}

unsigned int power_table_max_state(const struct power_table *table)
{
	return table->n ? (unsigned int)table->n - 1 : 0;
}

unsigned int power_table_freq_to_state(const struct power_table *table, uint32_t freq_khz)
{
	unsigned int max_state = power_table_max_state(table);

	/* entry[n - 1 - k] is the k-th highest frequency. */
	for (unsigned int state = 0; state < max_state; state++)
		if (freq_khz >= table->entry[table->n - 1 - state].freq_khz)
			return state;
	return max_state;
}

uint32_t power_table_state_to_freq(const struct power_table *table, unsigned int state)
{
	unsigned int max_state = power_table_max_state(table);

	if (!table->n)
		return 0;
	if (state > max_state)
		state = max_state;
	return table->entry[table->n - 1 - state].freq_khz;
}

uint32_t power_table_requested_power(const struct power_table *table, uint32_t freq_khz,
				     uint32_t load_pct)
{
	uint64_t p = (uint64_t)power_table_freq_to_power(table, freq_khz) * load_pct / 100;

	return p > UINT32_MAX ? UINT32_MAX : (uint32_t)p;
}

uint32_t power_table_step_up_mw(const struct power_table *table, uint32_t freq_khz)
{
	uint32_t cur_mw = power_table_freq_to_power(table, freq_khz);

	/* The lowest OPP that costs more than the current one, if any. */
	for (size_t k = 0; k < table->n; k++)
		if (table->entry[k].power_mw > cur_mw)
			return table->entry[k].power_mw - cur_mw;
	return 0;
}
