/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sensor_fault.h"

#include <math.h>
#include <stdlib.h>

#include "enum_name.h"

static const char *const fault_names[SENSOR_FAULTS] = {
	[SENSOR_FAULT_NONE] = "none",
	[SENSOR_FAULT_READ] = "read-error",
	[SENSOR_FAULT_RANGE] = "out-of-range",
	[SENSOR_FAULT_SPIKE] = "spike",
	[SENSOR_FAULT_STUCK] = "stuck",
};

const char *sensor_fault_name(enum sensor_fault f)
{
	return ENUM_NAME(fault_names, f);
}

int32_t stuck_expected_mc(const struct thermal_estimate *est, double *slow_mc,
			  uint32_t power_mw, uint32_t ref_power_mw, double elapsed_s)
{
	double diff_mw = (double)power_mw - ref_power_mw;
	double left = est->time_constant_s > 0 ? exp(-elapsed_s / est->time_constant_s) : 0;

	/* K/W times mW is m°C: the slow node's way to its new steady state, and the die's step. */
	*slow_mc = *slow_mc * left + est->gain_k_per_w * diff_mw * (1 - left);
	return (int32_t)lround(fmax(fmin(*slow_mc + est->fast_gain_k_per_w * diff_mw, INT32_MAX),
				    INT32_MIN));
}

/* A new value: learn the sensor's step from the change, start a new hold. */
static void hold(struct stuck_sensor *s, int32_t temp_mc, uint32_t power_mw)
{
	uint32_t step_mc = s->step_mc;

	if (s->primed) {
		uint32_t change_mc = (uint32_t)llabs((long long)temp_mc - s->temp_mc);

		if (!step_mc || change_mc < step_mc)
			step_mc = change_mc;
	}
	*s = (struct stuck_sensor){ .primed = true, .temp_mc = temp_mc, .reads = 1,
				    .ref_power_mw = power_mw, .step_mc = step_mc };
}

bool stuck_sensor_step_model(struct stuck_sensor *s, int32_t temp_mc, uint32_t power_mw,
			     uint32_t max_power_mw, uint64_t elapsed_us,
			     const struct thermal_estimate *est)
{
	uint32_t away_mw, step_mc;

	if (!s->primed || temp_mc != s->temp_mc) {
		hold(s, temp_mc, power_mw);
		return false;
	}
	s->reads += s->reads < UINT32_MAX;
	away_mw = power_mw > s->ref_power_mw ? power_mw - s->ref_power_mw :
					       s->ref_power_mw - power_mw;
	if ((uint64_t)away_mw * 100 > (uint64_t)max_power_mw * STUCK_POWER_PCT && max_power_mw) {
		s->moved_us += elapsed_us;
		if (away_mw > s->moved_mw)
			s->moved_mw = away_mw;
	}
	s->stuck = s->reads >= STUCK_MIN_READS && s->moved_us >= (uint64_t)STUCK_MOVED_MS * 1000;
	s->expected_mc = est ? stuck_expected_mc(est, &s->slow_mc, power_mw, s->ref_power_mw,
						 elapsed_us / 1e6) : 0;
	step_mc = s->step_mc ? s->step_mc : STUCK_STEP_UNKNOWN_MC;
	if (est && llabs(s->expected_mc) <= (long long)STUCK_MODEL_STEPS * step_mc)
		s->stuck = false;
	return s->stuck;
}

bool stuck_sensor_step(struct stuck_sensor *s, int32_t temp_mc, uint32_t power_mw,
		       uint32_t max_power_mw, uint64_t elapsed_us)
{
	return stuck_sensor_step_model(s, temp_mc, power_mw, max_power_mw, elapsed_us, NULL);
}

void stuck_sensor_reset(struct stuck_sensor *s)
{
	*s = (struct stuck_sensor){ .step_mc = s->step_mc };	/* the sensor's step is its own */
}

bool spike_quiet_step(struct spike_quiet *q, uint64_t now_us, uint32_t *unsaid)
{
	if (q->said && now_us < q->said_us + (uint64_t)SPIKE_QUIET_MS * 1000) {
		q->unsaid += q->unsaid < UINT32_MAX;
		return false;
	}
	*unsaid = q->unsaid;
	*q = (struct spike_quiet){ .said = true, .said_us = now_us };
	return true;
}
