/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Powers above this (16.7 kW) are treated as this; keeps all products in 64 bits. */
#define DIVVY_MAX_MW ((UINT32_C(1) << 24) - 1)
/* Weight 1.0 in Q10; weights above 64.0 are treated as 64.0. */
#define DIVVY_WEIGHT_ONE 1024u
#define DIVVY_MAX_WEIGHT (64u * DIVVY_WEIGHT_ONE)
/* Actors past this many are left untouched (a zone has a handful). */
#define DIVVY_MAX_ACTORS 256

/**
 * struct divvy_actor - one actor's share of a zone's budget.
 * @req_mw: power it asks for, mW.
 * @weight_q10: its weight, Q10 (1024 = 1.0).
 * @max_mw: the most it can use, mW.
 * @granted_mw: output: its grant, mW, <= @max_mw.
 */
struct divvy_actor {
	uint32_t req_mw;
	uint32_t weight_q10;
	uint32_t max_mw;
	uint32_t granted_mw;
};

/**
 * divvy() - divide @budget_mw among @n actors.
 *
 * First pass: each actor gets budget * wreq_i / sum(wreq), wreq = weight *
 * req, rounded to the closest mW.  Actors granted more than their max give
 * the surplus back and it is re-divided among the others by their headroom
 * (max - granted).  An actor that requests nothing gets only its headroom's
 * share of what the others leave, as in the kernel; when no actor requests
 * anything (sum(wreq) == 0) all of the budget is left, and it is divided by
 * the actors' maxima: a budget of 0 holds every actor at its lowest state
 * whatever its load, so that idle periods in a hot zone do not lift the
 * limits (Linux 6.13 grants every actor its max then: divvy_kernel()).
 *
 * The grants add up to at most budget + n (rounding) unless every actor gets
 * its max (budget >= sum(max)), and an actor's grant never decreases when
 * its request grows.
 */
void divvy(struct divvy_actor *actors, size_t n, uint32_t budget_mw);

/**
 * divvy_kernel() - divvy() as Linux 6.13's divvy_up_power() divides: the
 * same, but when no actor requests anything every actor is granted its max,
 * whatever the budget (the kernel's law, controller = "kernel").
 */
void divvy_kernel(struct divvy_actor *actors, size_t n, uint32_t budget_mw);
