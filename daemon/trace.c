/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "trace.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "platform/log.h"
#include "meter_view.h"
#include "new_file.h"

int trace_open(struct trace *t, const char *path)
{
	struct new_file nf;
	int r;

	snprintf(t->path, sizeof(t->path), "%s", path);
	t->file = NULL;
	if ((r = new_file_open(&nf, path, 0644)) < 0)
		return r;
	fputs("time_ms,zone,temp_mc,active,err_mc,err_integral_mc,p_mw,i_mw,d_mw,budget_mw,"
	      "actor,load_pct,freq_khz,req_mw,granted_mw,max_mw,state,switch_on_mc,control_mc,"
	      "learned_sp_mw,model_tau_s,model_gain_mk_per_w,model_offset_mc,model_confidence,"
	      "feed_forward_mw,model_tuned,aim_mc,zone_limit,actor_limit,cap_mw,power_limit_mw,"
	      "measured_mw,power_scale,power_scale_confidence,table_mw\n",
	      nf.file);
	if ((r = new_file_commit(&nf, path)) < 0)
		return r;
	t->file = nf.file;
	return 0;
}

void trace_zone(struct trace *t, uint64_t time_ms, const struct zone *z, uint32_t power_limit_mw)
{
	const struct pid_output *o = &z->control.pid_out;
	const struct thermal_estimate *m = &z->learning.model.est;
	char model[128];

	if (!t->file)
		return;
	/* The zone's thermal model and what the controller takes of it, the same on each of its rows. */
	snprintf(model, sizeof(model), "%u,%.1f,%.0f,%.0f,%.3f,%u,%d",
		 thermal_model_sustainable_mw(&z->learning.model), m->time_constant_s,
		 m->gain_k_per_w * 1000, m->offset_c * 1000, m->confidence,
		 zone_feed_forward_mw(z), z->control.tuning.engaged);
	/*
	 * After them, at the end so that older readers keep their columns: the aim,
	 * the reasons, the caps; then the actor's meter and its table's calibration,
	 * then its table's power (uncalibrated, beside the measured; 0 without a table).
	 */
	for (size_t i = 0; i < z->setup.n_actors + z->setup.n_fallback; i++) {
		/* Power actors, then the devices on the step_wise fallback (0 mW). */
		const struct actor *a = i < z->setup.n_actors
						? z->setup.actors[i]
						: z->setup.fallback[i - z->setup.n_actors].actor;
		uint32_t req_mw = i < z->setup.n_actors ? z->control.request_mw[i] : a->req_mw;
		struct meter_view_scale scale = meter_view_scale(a);
		char measured[16] = "";	/* empty without a reading this period */

		if (meter_view_state(a) == METER_VIEW_READING)
			snprintf(measured, sizeof(measured), "%u", a->measured_mw);
		fprintf(t->file,
			"%" PRIu64 ",%s,%d,%d,%lld,%lld,%lld,%lld,%lld,%u,%s,%u,%u,%u,%u,%u,%lu,"
			"%d,%d,%s,%d,%s,%s,%u,%u,%s,%.4f,%.3f,%u\n",
			time_ms, z->setup.name, z->sensing.temp_mc, z->control.active,
			(long long)o->err_mc, (long long)o->err_integral_mc, (long long)o->p_mw,
			(long long)o->i_mw, (long long)o->d_mw, z->control.budget_mw, a->name,
			a->load_pct, a->freq_khz, req_mw, a->granted_mw, a->max_mw, a->state,
			z->setup.switch_on_mc, z->setup.control_mc, model,
			pid_aim_mc(&z->control.pid_run, z->setup.control_mc),
			limit_reason_name(z->sensing.limit.now), limit_reason_name(a->limit.now),
			z->period.capped ? z->period.cap_mw : 0, power_limit_mw, measured,
			scale.scale, scale.confidence, meter_view_table_mw(a));
	}
	/* A line-complete file at every period, so it can be followed while it grows. */
	if (fflush(t->file) != 0) {
		pa_log(PA_LOG_ERR, "%s: %s; tracing stopped", t->path, strerror(errno));
		fclose(t->file);
		t->file = NULL;
	}
}

void trace_close(struct trace *t)
{
	if (t->file)
		fclose(t->file);
	t->file = NULL;
}
