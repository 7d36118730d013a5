/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "meter_view.h"

#include "control/enum_name.h"

/* The calibration found meter and table apart beyond 0.3-3 x (and stopped calibrating). */
static bool implausible(const struct actor *a)
{
	return a->meter && a->power_scale.implausible;
}

enum meter_view_state meter_view_state(const struct actor *a)
{
	if (a->meter_dropped != METER_OK || implausible(a))
		return METER_VIEW_DROPPED;
	if (!a->meter)
		return METER_VIEW_NONE;
	return a->measured_valid ? METER_VIEW_READING : METER_VIEW_WAITING;
}

const char *meter_view_state_name(enum meter_view_state s)
{
	static const char *const names[] = { "none", "waiting", "reading", "dropped" };

	return ENUM_NAME(names, s);
}

const char *meter_view_fault(const struct actor *a)
{
	if (a->meter_dropped != METER_OK)
		return meter_fault_name(a->meter_dropped);
	return implausible(a) ? "implausible" : "";
}

const char *meter_view_name(const struct actor *a)
{
	return a->meter ? a->meter->name : "";
}

uint32_t meter_view_table_mw(const struct actor *a)
{
	return a->table.n ? a->model_mw : 0;
}

struct meter_view_scale meter_view_scale(const struct actor *a)
{
	struct meter_view_scale v = { false, 1.0, 0.0, 0.0 };

	/* Either drop, a fault or implausibility, stops the calibration (actor_calibrate.c). */
	if (a->calibrating) {
		v.calibrating = true;
		v.scale = a->power_scale.scale;
		v.offset_mw = a->power_scale.offset_mw;
		v.confidence = a->power_scale.confidence;
	}
	return v;
}
