/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* More operating points than any cpufreq or devfreq table we know of. */
#define POWER_TABLE_MAX_OPPS 64

/**
 * struct opp - one operating point as the platform describes it.
 * @freq_khz: frequency, kHz.
 * @voltage_uv: supply voltage, uV; 0 when @power_mw is given instead.
 * @power_mw: dynamic power of one CPU (or the device) at full load, mW;
 *	used when there is no voltage (a table in the config).
 * @power_uw: the same in uW (the energy model's unit); used before @power_mw.
 * @static_power_mw: leakage power at this OPP, mW (0 = not modelled).
 */
struct opp {
	uint32_t freq_khz;
	uint32_t voltage_uv;
	uint32_t power_mw;
	uint32_t power_uw;
	uint32_t static_power_mw;
};

/**
 * struct power_entry - one row of a power table.
 * @freq_khz: kHz.
 * @voltage_uv: uV (0 when the power was given directly).
 * @power_uw: power of one CPU (or the device) at 100% load, uW.
 * @power_mw: the same in mW, as the kernel compares it (uW / 1000).
 */
struct power_entry {
	uint32_t freq_khz;
	uint32_t voltage_uv;
	uint32_t power_uw;
	uint32_t power_mw;
};

/**
 * struct power_table - a device's power at each frequency, ascending.
 * Fixed size so that lookups in the control path never allocate.
 */
struct power_table {
	size_t n;
	struct power_entry entry[POWER_TABLE_MAX_OPPS];
};

/**
 * power_table_build() - power table from OPPs and a dynamic power coefficient.
 * @opps: operating points, in any order.
 * @n: their number.
 * @dpc: dynamic power coefficient, uW per MHz per V^2 (the device tree's
 *	dynamic-power-coefficient); 0 when every OPP carries @power_mw.
 * @table: result, sorted by ascending frequency.
 *
 * Power per OPP is the kernel's integer form (drivers/opp/of.c _get_power()):
 * uW = dpc * mV * mV * MHz / 10^6, mV = uV / 1000, MHz = kHz / 1000, each
 * division truncating, plus static_power_mw * 1000.
 * Return: 0; -EINVAL for no OPPs, a zero frequency, a duplicate frequency,
 * or an OPP with neither (voltage and dpc) nor power; -E2BIG for more than
 * POWER_TABLE_MAX_OPPS; -ERANGE when a power does not fit in 32 bits of uW.
 */
int power_table_build(const struct opp *opps, size_t n, uint32_t dpc, struct power_table *table);

/**
 * power_table_falling() - the first entry of @table (ascending frequency)
 * whose power (@voltage false; mW, as the kernel compares them) or whose
 * voltage (@voltage true; where it and the entry below both carry one) is
 * under the entry's below.  A device's power rises with its frequency: a
 * table in which it falls is no model of it (27000 mW at 408 MHz and 179
 * mW at 1416 MHz made an estimated sustainable power of 108000 mW beside a
 * cluster whose most was 716 mW).  Its voltage rises too, but not always
 * in real tables: Exynos5422's mainline device tree has its A15s at 1.8 GHz
 * on 1237500 uV, under 1.7 GHz's 1250000, and their power still rises.
 * Return: the entry's index (1 or more), 0 when none falls.
 */
size_t power_table_falling(const struct power_table *table, bool voltage);

/**
 * power_table_freq_to_power() - power of one CPU at @freq_khz, mW.
 *
 * The lowest OPP at or above @freq_khz, or the highest OPP when @freq_khz is
 * above them all (the kernel's cpu_freq_to_power()).  0 for an empty table.
 */
uint32_t power_table_freq_to_power(const struct power_table *table, uint32_t freq_khz);

/**
 * power_table_power_to_freq() - the highest frequency whose power fits @power_mw.
 * @power_mw: power granted to the whole device or policy, mW.
 * @load_pct: sum of the per-CPU loads (0..100 each, so up to 100 * CPUs);
 *	0 is taken as 1, as the kernel does.
 *
 * The grant is normalised to one fully loaded CPU (power * 100 / load) and
 * compared with each OPP's power; the lowest OPP when none fits (the kernel's
 * cpufreq power2state()).
 * Return: kHz, 0 for an empty table.
 */
uint32_t power_table_power_to_freq(const struct power_table *table, uint32_t power_mw,
				   uint32_t load_pct);

/**
 * power_table_freq_to_state() - cooling state that caps a device at @freq_khz.
 *
 * State k is the k-th highest frequency (state 0 = no throttling); a
 * frequency between OPPs maps to the state of the OPP below it, and one
 * below every OPP to the deepest state.
 * Return: the state, 0 for an empty table.
 */
unsigned int power_table_freq_to_state(const struct power_table *table, uint32_t freq_khz);

/** power_table_state_to_freq() - kHz of cooling state @state (deepest when out of range). */
uint32_t power_table_state_to_freq(const struct power_table *table, unsigned int state);

/** power_table_max_state() - deepest cooling state (number of OPPs - 1). */
unsigned int power_table_max_state(const struct power_table *table);

/**
 * power_table_requested_power() - power a policy is using now, mW.
 * @freq_khz: its current frequency, kHz.
 * @load_pct: sum of its CPUs' loads (percent each).
 * Return: P(freq) * load / 100, mW (the kernel's get_dynamic_power()).
 */
uint32_t power_table_requested_power(const struct power_table *table, uint32_t freq_khz,
				     uint32_t load_pct);

/**
 * power_table_step_up_mw() - what one fully loaded CPU adds by moving from
 * @freq_khz's OPP (as power_table_freq_to_power() finds it) to the next one
 * up, mW.
 *
 * A load is a percentage of the current frequency, so a CPU busy all the
 * time at a throttled OPP would use more than it does, and the kernel's
 * request (what it uses now) keeps it where it is when the budget is
 * divided in proportion to requests; adding this for each such CPU lets it
 * ask for one OPP more (zone.c).
 * Return: mW; 0 at the top OPP and for an empty table.
 */
uint32_t power_table_step_up_mw(const struct power_table *table, uint32_t freq_khz);
