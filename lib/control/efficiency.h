/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Efficiency-aware division: spend a zone's budget where it buys the most
 * capacity-weighted throughput for the load that is there, instead of in
 * proportion to what each actor requests.  Pure computation.
 */
#include <stddef.h>
#include <stdint.h>

#include "power_table.h"

/**
 * struct eff_actor - what the division knows of one actor.
 * @table: power of one CPU (or the device) per OPP.
 * @n_cpus: CPUs online (1 for a device).
 * @demand: the work the actor's load asks for, as a fraction of the actor
 *	running flat out at its top OPP (0..1); the caller counts a saturated
 *	CPU, whose load cannot show more, as asking for all of it.
 * @capacity: throughput of one CPU at the top OPP (cpu_capacity, 1024 for
 *	the biggest CPU); a throughput unit per MHz is capacity / top MHz.
 * @weight_q10: the zone's weight for the actor (1024 = 1.0): multiplies its
 *	throughput's value.
 * @max_mw: the most the actor may be granted, mW.
 */
struct eff_actor {
	const struct power_table *table;
	unsigned int n_cpus;
	double demand;
	uint32_t capacity;
	uint32_t weight_q10;
	uint32_t max_mw;
};

/**
 * efficiency_divide() - grants for @n actors within @budget_mw.
 *
 * Each actor's options are idle and each OPP, at the busy fraction its
 * demand gives there (min(1, demand x top / f)); their upper concave hull in
 * (power, weighted throughput) is a list of segments of falling efficiency.
 * The budget buys the steepest segments of all actors first, the last one
 * in part.  Budget left when every demand is met goes to the actors'
 * headroom, so an idle actor is not starved when power is to spare; with no
 * demand at all the whole budget is divided so, by the actors' maxima (a
 * budget of 0 holds every actor at its lowest state however idle it is, as
 * divvy() does).  Grants never exceed @max_mw and add up to at most
 * @budget_mw.
 * @grants_mw: out: one grant per actor, mW.
 */
void efficiency_divide(const struct eff_actor *actors, size_t n, uint32_t budget_mw,
		       uint32_t *grants_mw);

/**
 * efficiency_best_throughput() - the most weighted throughput any mix of the
 * actors' OPPs (time-shared) delivers within @budget_mw: the value of the
 * greedy efficiency_divide() starts from, in the units of eff_actor's
 * capacity x weight.  The simulator's physical limit.
 */
double efficiency_best_throughput(const struct eff_actor *actors, size_t n, double budget_mw);
