/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The step_wise fallback for cooling devices without a power model (fans,
 * ACPI processor throttling, ...): when powerallocd takes a zone over, the
 * kernel stops driving every device bound to it, so the zone drives those
 * the way the kernel's step_wise would.  Pure computation.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Trips one device may be bound to in one zone. */
#define FALLBACK_MAX_TRIPS 16

struct actor;

/**
 * struct fallback_device - one such device as one zone drives it.
 * @actor: the device (kind ACTOR_COOLING_DEVICE), owned by the engine.
 * @n_trips: the zone's trips the kernel binds it to.
 * @trip_mc, @hyst_mc: their temperatures and hysteresis, ascending, m°C.
 * @crossed: whether each trip counts as crossed (until the temperature
 *	falls below the trip minus its hysteresis).
 * @state: the cooling state this zone asks of the device (0 = none).
 */
struct fallback_device {
	struct actor *actor;
	size_t n_trips;
	int32_t trip_mc[FALLBACK_MAX_TRIPS];
	int32_t hyst_mc[FALLBACK_MAX_TRIPS];
	bool crossed[FALLBACK_MAX_TRIPS];
	unsigned long state;
};

/**
 * fallback_add_trip() - bind @f to one more trip (@trip_mc, @hyst_mc, m°C),
 * kept in ascending order.  Return: 0, or -E2BIG when it has as many as it
 * can hold.
 */
int fallback_add_trip(struct fallback_device *f, int32_t trip_mc, int32_t hyst_mc);

/**
 * fallback_upper() - the deepest state @f may take with the trips crossed
 * now: max_state x crossed / bound, rounded up, so a fan bound to three
 * trips (the usual one level per trip) gets one level per trip crossed.
 */
unsigned long fallback_upper(const struct fallback_device *f, unsigned long max_state);

/**
 * fallback_step() - one period at @temp_mc after @prev_temp_mc (m°C): update
 * the crossed trips, then one state more while under the upper limit and
 * not cooling, one less while over it and not warming (step_wise, which
 * moves a state per period).  Return: the new f->state.
 */
unsigned long fallback_step(struct fallback_device *f, int32_t temp_mc, int32_t prev_temp_mc,
			    unsigned long max_state);
