/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fastest recent rise of a zone's temperature (rise.h). */
#include "rise.h"

#include <math.h>

void rise_track(struct rise_tracker *t, int32_t temp_mc, uint64_t now_us)
{
	uint64_t elapsed_us;
	double rate, kept;

	if (!t->primed || now_us <= t->last_us) {
		t->primed = true;
		t->last_temp_mc = temp_mc;
		t->last_us = now_us > t->last_us ? now_us : t->last_us;
		return;
	}
	elapsed_us = now_us - t->last_us;
	/* Forget exponentially, so a rise long ago stops keeping the zone awake. */
	kept = t->max_rate_mc_per_s * exp(-(double)elapsed_us / (RISE_FORGET_S * 1e6));
	rate = ((double)temp_mc - t->last_temp_mc) * 1e6 / (double)elapsed_us;
	if (rate < kept)
		rate = kept;
	t->max_rate_mc_per_s = rate > UINT32_MAX ? UINT32_MAX : (uint32_t)rate;
	t->last_temp_mc = temp_mc;
	t->last_us = now_us;
}

void rise_restart(struct rise_tracker *t)
{
	t->primed = false;
}

bool rise_could_reach(const struct rise_tracker *t, int32_t threshold_mc, uint32_t horizon_ms,
		      uint32_t band_limit_mc)
{
	int64_t below = (int64_t)threshold_mc - t->last_temp_mc;
	int64_t reach = (int64_t)t->max_rate_mc_per_s * horizon_ms / 1000;

	if (!t->primed || below <= 0)
		return t->primed;
	if (reach > band_limit_mc)
		reach = band_limit_mc;
	return below <= reach;
}
