/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An actor's power meter, read once a period: what the calibration of its
 * power model compares the table with.  A configured meter that faults is
 * dropped with one warning and the actor goes on from its table, as
 * without a meter.
 */
#include <stdlib.h>
#include <string.h>

#include "actor.h"
#include "platform/log.h"

void actor_set_meter(struct actor *a, struct power_meter *m)
{
	actor_free_meter(a);
	a->meter = m;
	a->meter_owned = true;
	a->meter_dropped = METER_OK;
}

void actor_free_meter(struct actor *a)
{
	actor_stop_calibration(a);
	if (a->meter && a->meter_owned) {
		power_meter_close(a->meter);
		free(a->meter);
	}
	if (a->meter_owned)
		a->meter = NULL;
	a->meter_owned = false;
	a->measured_valid = false;
}

void actor_meter_fault(struct actor *a, int fault, const char *outcome)
{
	const struct power_meter *m = a->meter;

	if (fault == METER_UNREADABLE || fault == METER_VANISHED)
		pa_log(PA_LOG_WARNING, "%s: power meter %s %s (%s); %s", a->name, m->name,
		       meter_fault_name((enum meter_fault)fault), strerror(m->error), outcome);
	else
		pa_log(PA_LOG_WARNING, "%s: power meter %s %s; %s", a->name, m->name,
		       meter_fault_name((enum meter_fault)fault), outcome);
}

int actor_read_meter(struct actor *a, uint64_t now_us, bool load_known)
{
	uint32_t mw = 0;
	bool had_value;
	int r;

	if (!a->meter || a->meter_read_us == now_us)
		return a->measured_valid;
	had_value = a->meter->track.have_last;
	a->meter_read_us = now_us;
	/* A reading above ten times the table's most is no reading of this rail. */
	a->meter->track.max_mw = a->max_mw <= UINT32_MAX / METER_JUMP_FACTOR
					 ? a->max_mw * METER_JUMP_FACTOR : UINT32_MAX;
	/* Its table's power for the state and load measured (uncalibrated): whether the meter should move. */
	r = power_meter_read(a->meter, now_us, load_known ? a->model_mw : METER_MODEL_UNKNOWN, &mw);
	a->measured_valid = r == 1;
	/* An energy counter that did not move (not its first value): its next move measures the wait. */
	a->meter_unmoved = r == 0 && had_value;
	if (r == 1)
		a->measured_mw = mw;
	if (r < 0 && a->meter_owned) {
		actor_meter_fault(a, -r, "dropped until a reload, going on from the power table");
		actor_free_meter(a);
		a->meter_dropped = (enum meter_fault)-r;	/* for the status */
	}
	return r;
}
