/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Dividing a budget that bounds what is drawn (the external power cap):
 * an actor draws at least what its lowest state draws, so a grant under
 * that floor saves nothing and the difference is drawn over the budget.
 * Here no party is granted less than its floor, and what the floors take
 * is taken from the others.  Pure computation.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "divvy.h"
#include "power_table.h"

/**
 * floors_divide_fn - divides @budget_mw among the parties @idx[0..@n) of
 * the caller's set (@ctx), one grant per index into @grants_mw, mW.
 */
typedef void floors_divide_fn(const void *ctx, const size_t *idx, size_t n, uint32_t budget_mw,
			      uint32_t *grants_mw);

/**
 * floors_divide() - divide @budget_mw among @n parties none of which draws
 * less than its floor.
 * @floor_mw: what each draws at its lowest state, mW (0: no floor).
 * @divide: the division (divvy(), efficiency_divide()) of a budget among
 *	some of the parties, with @ctx.
 * @grants_mw: out: one grant per party, mW.
 *
 * @divide divides the budget among every party; each one it grants less
 * than its floor is held at its floor, and what is left of the budget once
 * the floors held are paid is divided again among the others, until none
 * is granted less than its floor (at most @n + 1 divisions; with every
 * floor 0, one).  A budget under the floors' sum so holds every party at
 * its floor (its lowest state), and one over it is divided among the
 * parties that can use more, the grants adding up to the budget (to the
 * division's rounding).  At most DIVVY_MAX_ACTORS parties are divided.
 */
void floors_divide(size_t n, const uint32_t *floor_mw, uint32_t budget_mw,
		   floors_divide_fn *divide, const void *ctx, uint32_t *grants_mw);

/**
 * floors_divvy() - floors_divide() with divvy() as the division: the grants
 * in @actors' granted_mw.  @kernel: divide all of them by divvy_kernel()
 * (which grants every maximum when nothing is requested); a division among
 * fewer, after some were held at their floors, is divvy()'s, so that the
 * budget still binds.
 */
void floors_divvy(struct divvy_actor *actors, size_t n, const uint32_t *floor_mw,
		  uint32_t budget_mw, bool kernel);

/**
 * floors_fill_opps() - spend what the OPPs leave of a budget.  An actor
 * throttled by OPPs spends the power of the highest OPP its grant reaches
 * (power_table_power_to_freq() at its load), so the grants' parts between
 * OPPs go unspent; here each grant is lowered to the least that keeps its
 * OPP, and what that frees, with what the budget had left, buys whole OPP
 * steps, the dearest that fits first, until none fits: the grants then add
 * up to at most the budget (or to the lowest OPPs' power, where that is
 * more) and what is left over is less than any actor's next step.
 * @tables: per actor, its power table (one CPU's, or the device's); an
 *	empty one (a powercap limit, not quantised) keeps its grant.
 * @load_pct: per actor, its load as power_table_power_to_freq() takes it.
 * @n: how many (at most DIVVY_MAX_ACTORS are filled).
 * @grants_mw: in: the grants; out: the grants filled, mW.
 */
void floors_fill_opps(const struct power_table *const *tables, const uint32_t *load_pct, size_t n,
		      uint32_t budget_mw, uint32_t *grants_mw);
