/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "fallback.h"

#include <errno.h>

int fallback_add_trip(struct fallback_device *f, int32_t trip_mc, int32_t hyst_mc)
{
	size_t k;

	if (f->n_trips == FALLBACK_MAX_TRIPS)
		return -E2BIG;
	for (k = f->n_trips; k > 0 && f->trip_mc[k - 1] > trip_mc; k--) {
		f->trip_mc[k] = f->trip_mc[k - 1];
		f->hyst_mc[k] = f->hyst_mc[k - 1];
		f->crossed[k] = f->crossed[k - 1];
	}
	f->trip_mc[k] = trip_mc;
	f->hyst_mc[k] = hyst_mc < 0 ? 0 : hyst_mc;
	f->crossed[k] = false;
	f->n_trips++;
	return 0;
}

unsigned long fallback_upper(const struct fallback_device *f, unsigned long max_state)
{
	size_t crossed = 0;

	for (size_t k = 0; k < f->n_trips; k++)
		crossed += f->crossed[k];
	if (!f->n_trips)
		return 0;
	/* In 64 bits: max_state x crossed overflows an unsigned long on 32-bit. */
	return (unsigned long)(((uint64_t)max_state * crossed + f->n_trips - 1) / f->n_trips);
}

unsigned long fallback_step(struct fallback_device *f, int32_t temp_mc, int32_t prev_temp_mc,
			    unsigned long max_state)
{
	unsigned long upper;

	/* The kernel's trip hysteresis: crossed at the trip, uncrossed below trip - hyst. */
	for (size_t k = 0; k < f->n_trips; k++) {
		if (temp_mc >= f->trip_mc[k])
			f->crossed[k] = true;
		else if (temp_mc < f->trip_mc[k] - f->hyst_mc[k])
			f->crossed[k] = false;
	}
	upper = fallback_upper(f, max_state);
	if (f->state < upper && temp_mc >= prev_temp_mc)
		f->state++;
	else if (f->state > upper && temp_mc <= prev_temp_mc)
		f->state--;
	return f->state;
}
