/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Grant dithering: an actor throttled by OPPs can only spend the power of
 * one of them, and power2state takes the highest that fits, so a grant
 * between two OPPs is partly left unspent in every period.  Carrying the
 * unspent part into the next period (error diffusion) makes the actor
 * alternate between the two OPPs so that its power, averaged over a few
 * periods, is its grant: the zone then settles at control instead of below
 * it, and delivers the work the budget pays for.  Pure computation.
 */
#include <stdint.h>

#include "power_table.h"

/**
 * dither_grant() - the grant to convert to an OPP this period.
 * @table: the actor's power per OPP (of one CPU, or the device).
 * @load_pct: sum of its CPUs' loads, as power_table_power_to_freq() takes it.
 * @granted_mw: this period's grant, mW.
 * @carry_mw: in: what earlier grants left unspent, mW; out: what this
 *	period leaves, less than the gap between two adjacent OPPs at
 *	@load_pct, or than the carry it was given.  Start it at 0.
 *
 * The grant plus the carry is converted as power2state converts a grant;
 * the carry becomes what that OPP leaves of it (at @load_pct).  Nothing is
 * carried when @granted_mw alone reaches the top OPP (there is nothing
 * higher to spend it on) or when even the lowest OPP costs more, so the
 * carry never winds up.  An empty table carries nothing.
 * Return: @granted_mw + *@carry_mw on entry, saturated at UINT32_MAX, mW.
 */
uint32_t dither_grant(const struct power_table *table, uint32_t load_pct, uint32_t granted_mw,
		      uint32_t *carry_mw);
