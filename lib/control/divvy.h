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
 * (max - granted).  A zone whose actors request nothing (sum(wreq) == 0) draws
 * no power, so every actor is granted its max rather than being throttled to
 * its lowest state as the kernel does.
 *
 * The grants add up to at most budget + n (rounding) unless every actor gets
 * its max, and an actor's grant never decreases when its request grows.
 */
void divvy(struct divvy_actor *actors, size_t n, uint32_t budget_mw);
