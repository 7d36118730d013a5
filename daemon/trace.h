/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * --trace FILE / trace_file: one CSV row per zone and actor per period, for
 * tuning and plots (tools/plot-trace).  Columns:
 *   time_ms,zone,temp_mc,active,err_mc,err_integral_mc,p_mw,i_mw,d_mw,budget_mw,
 *   actor,load_pct,freq_khz,req_mw,granted_mw,max_mw,state,switch_on_mc,control_mc,
 *   learned_sp_mw,model_tau_s,model_gain_mk_per_w,model_offset_mc,model_confidence,
 *   feed_forward_mw,model_tuned,aim_mc,zone_limit,actor_limit,cap_mw,power_limit_mw,
 *   measured_mw,power_scale,power_scale_confidence
 * learned_sp_mw to model_confidence are the zone's thermal model
 * (lib/control/thermal_model.h): learnt sustainable power, time constant,
 * gain, offset and confidence (0 to 1); then what the controller runs on.
 * The last five came later, at the end so that a reader of the older columns
 * finds them where they were: the temperature the controller aims at, the
 * zone's and the actor's limiting reasons of the period (limit_reason_name()),
 * the zone's share of the power cap (0: none) and the cap itself (0: none);
 * then the power the actor's meter measured over the period (empty without
 * a reading) and the calibration of its table learnt from it (1 and 0: the
 * table as it is; daemon/meter_view.h).
 * powerallocd(8) documents them.
 */
#include <stdint.h>
#include <stdio.h>

#include "engine/zone.h"

/** struct trace - the trace file (@file, NULL while closed) and its @path. */
struct trace {
	FILE *file;
	char path[256];
};

/**
 * trace_open() - create @path anew (replacing what is there, a link
 * included, never writing through it: see new_file.h) with the header.
 * Return: 0 or negative errno.
 */
int trace_open(struct trace *t, const char *path);

/**
 * trace_zone() - the rows of @z for the period at @time_ms (since start),
 * with the power cap on every actor, @power_limit_mw (0: none).
 */
void trace_zone(struct trace *t, uint64_t time_ms, const struct zone *z, uint32_t power_limit_mw);

/** trace_close() - flush and close (no-op when not open). */
void trace_close(struct trace *t);
