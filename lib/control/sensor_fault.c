/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sensor_fault.h"

#include <string.h>

static const char *const fault_names[SENSOR_FAULTS] = {
	[SENSOR_FAULT_NONE] = "none",
	[SENSOR_FAULT_READ] = "read-error",
	[SENSOR_FAULT_RANGE] = "out-of-range",
	[SENSOR_FAULT_SPIKE] = "spike",
	[SENSOR_FAULT_STUCK] = "stuck",
};

const char *sensor_fault_name(enum sensor_fault f)
{
	return (unsigned int)f < SENSOR_FAULTS ? fault_names[f] : "?";
}

bool stuck_sensor_step(struct stuck_sensor *s, int32_t temp_mc, uint32_t power_mw,
		       uint32_t max_power_mw, uint64_t elapsed_us)
{
	uint32_t away_mw;

	if (!s->primed || temp_mc != s->temp_mc) {
		*s = (struct stuck_sensor){ .primed = true, .temp_mc = temp_mc, .reads = 1,
					    .ref_power_mw = power_mw };
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
	return s->stuck;
}

void stuck_sensor_reset(struct stuck_sensor *s)
{
	memset(s, 0, sizeof(*s));
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
