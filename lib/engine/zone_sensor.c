/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "zone_sensor.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "platform/log.h"
#include "platform/thermal.h"

int zone_sensor_open(struct zone *z)
{
	for (size_t i = 0; i < z->setup.n_inputs; i++) {
		struct sensor_input *in = &z->setup.inputs[i];
		char path[SYSFS_PATH_MAX];
		int r;

		sysfs_pathf(path, THERMAL_CLASS_DIR "/thermal_zone%d/temp", in->tz_id);
		if ((r = sensor_open(in, path)) < 0) {
			pa_log(PA_LOG_ERR, "zone %s: %s: %s; zone skipped", z->setup.name, path,
			       sysfs_strerror(r));
			return r;
		}
	}
	return 0;
}

void zone_sensor_start(struct zone *z)
{
	for (size_t i = 0; i < z->setup.n_inputs; i++)
		sensor_start(&z->setup.inputs[i], z->setup.name, z->setup.pid.period_ms);
}

const char *zone_sensor_strerror(int error)
{
	return error == -EINVAL ? "not a number" : error == -ERANGE ? "not a plausible temperature" :
	       error == -ETIME ? "stuck in a read" : strerror(-error);
}

void zone_sensor_fault_words(int error, int64_t temp_mc, char *buf, size_t size)
{
	if (error == -ERANGE)
		snprintf(buf, size, "%s: %lld m°C is outside %d..%d m°C", zone_sensor_strerror(error),
			 (long long)temp_mc, ZONE_TEMP_MIN_MC, ZONE_TEMP_MAX_MC);
	else
		snprintf(buf, size, "%s", zone_sensor_strerror(error));
}

/* The zone's maximum power, mW: the sum of its actors'. */
static uint32_t max_power_mw(const struct zone *z)
{
	uint64_t mw = 0;

	for (size_t i = 0; i < z->setup.n_actors; i++)
		mw += z->setup.actors[i]->max_mw;
	return mw < UINT32_MAX ? (uint32_t)mw : UINT32_MAX;
}

/*
 * Whether @jump_mc is a spike, its words into @why: beyond what the zone's
 * confident model allows since the previous reading (ZONE_SPIKE_MARGIN_MC),
 * or without one, beyond ZONE_SPIKE_MC.
 */
static bool spike(const struct zone *z, int64_t temp_mc, int64_t jump_mc, char *why, size_t size)
{
	int64_t bound_mc = ZONE_SPIKE_MC;
	bool model = z->learning.model.est.confidence >= ZONE_MODEL_CONFIDENT && z->learning.model_elapsed_us;

	if (model)
		bound_mc = 2 * (int64_t)thermal_model_max_change_mc(&z->learning.model.est,
								    z->sensing.temp_mc, max_power_mw(z),
								    z->learning.model_elapsed_us / 1e6) +
			   ZONE_SPIKE_MARGIN_MC;
	if (jump_mc <= bound_mc && jump_mc >= -bound_mc)
		return false;
	if (model)
		snprintf(why, size, "a spike: %lld m°C, %+lld m°C from the previous reading, more "
			 "than the %lld m°C its thermal model allows in %llu ms", (long long)temp_mc,
			 (long long)jump_mc, (long long)bound_mc,
			 (unsigned long long)(z->learning.model_elapsed_us / 1000));
	else
		snprintf(why, size, "a spike: %lld m°C, %+lld m°C from the previous reading, more "
			 "than the %lld m°C a zone can change in one period", (long long)temp_mc,
			 (long long)jump_mc, (long long)bound_mc);
	return true;
}

/* Whether the sane reading @temp_mc is one a stuck sensor holds; its words into @why. */
static bool stuck(struct zone *z, int64_t temp_mc, char *why, size_t size)
{
	uint32_t max_mw = max_power_mw(z);
	const struct stuck_sensor *s = &z->sensing.stuck;
	/* A slow sensor moves late: with a confident model, only a move it expected counts. */
	const struct thermal_estimate *est =
		z->learning.model.est.confidence >= ZONE_MODEL_CONFIDENT ? &z->learning.model.est : NULL;
	char model[96] = "";

	/* No power measured since the previous reading (the first one, after a
	 * sleep): no reference and no movement to judge by. */
	if (!z->learning.model_elapsed_us)
		return false;
	if (!stuck_sensor_step_model(&z->sensing.stuck, (int32_t)temp_mc, zone_mean_power_mw(z), max_mw,
				     z->learning.model_elapsed_us, est))
		return false;
	if (est)
		snprintf(model, sizeof(model), ", where its thermal model expected %+d m°C",
			 s->expected_mc);
	snprintf(why, size, "stuck: %lld m°C for %u readings while the zone's power moved by up "
		 "to %u mW (over %d %% of its %u mW maximum) for %llu s%s", (long long)temp_mc,
		 s->reads, s->moved_mw, STUCK_POWER_PCT, max_mw,
		 (unsigned long long)(s->moved_us / 1000000), model);
	return true;
}

/* The kind of fault a negative errno of zone_sensor_judge() is. */
static enum sensor_fault fault_kind(int r)
{
	return r == 0 ? SENSOR_FAULT_NONE : r == -ERANGE ? SENSOR_FAULT_RANGE :
	       r == -EDOM ? SENSOR_FAULT_SPIKE : r == -ESTALE ? SENSOR_FAULT_STUCK :
	       SENSOR_FAULT_READ;
}

int zone_sensor_judge(struct zone *z, int r, int64_t temp_mc, char *why, size_t size)
{
	if (r == 0 && (temp_mc < ZONE_TEMP_MIN_MC || temp_mc > ZONE_TEMP_MAX_MC))
		r = -ERANGE;
	if (r == 0 && z->sensing.reading_sane && spike(z, temp_mc, temp_mc - z->sensing.temp_mc, why, size))
		r = -EDOM;
	else if (r == 0 && stuck(z, temp_mc, why, size))
		r = -ESTALE;
	else if (r < 0)
		zone_sensor_fault_words(r, temp_mc, why, size);
	if (r < 0 && r != -ESTALE)
		stuck_sensor_reset(&z->sensing.stuck);	/* the next reading starts a new hold */
	z->sensing.sensor_fault = fault_kind(r);
	return r;
}

/* One input's reading; out of the plausible range is a failed read. */
static int read_input(struct zone *z, struct sensor_input *in, int64_t *temp_mc)
{
	int r = sensor_read_mc(in, z->setup.name, z->setup.pid.period_ms, temp_mc);

	if (r == 0 && (*temp_mc < ZONE_TEMP_MIN_MC || *temp_mc > ZONE_TEMP_MAX_MC))
		r = -ERANGE;
	return r;
}

/* What a combined zone does without the inputs that failed (@read: those that read). */
static void instead(const struct zone *z, const bool *read, char *buf, size_t size)
{
	double total = 0, total_read = 0;
	bool any = false;

	for (size_t i = 0; i < z->setup.n_inputs; i++) {
		total += z->setup.inputs[i].weight;
		total_read += read[i] ? z->setup.inputs[i].weight : 0;
		any |= read[i];
	}
	if (!any)
		snprintf(buf, size, "no input reads");
	else if (z->setup.sensor_kind == SENSOR_MAX)
		snprintf(buf, size, "the zone takes the hottest of the other inputs");
	else
		snprintf(buf, size, "the zone's sum uses the other inputs, their weights scaled by "
			 "%.2f to the configured total", total / total_read);
}

/* Logs each input of a combined sensor that failed (@error) or reads again, once. */
static void note_inputs(struct zone *z, const bool *read, const int *error, const int64_t *temp_mc)
{
	char field[80], what[128], fault[128];
	const char *fields[] = { field, NULL };

	snprintf(field, sizeof(field), "ZONE=%s", z->setup.name);
	for (size_t i = 0; i < z->setup.n_inputs; i++) {
		struct sensor_input *in = &z->setup.inputs[i];

		if (!read[i] && !in->failed) {
			instead(z, read, what, sizeof(what));
			zone_sensor_fault_words(error[i], temp_mc[i], fault, sizeof(fault));
			pa_log_fields(PA_LOG_WARNING, fields, "zone %s: input %s: %s: %s; %s",
				      z->setup.name, in->name, in->attr.path, fault, what);
		} else if (read[i] && in->failed) {
			pa_log_fields(PA_LOG_NOTICE, fields, "zone %s: input %s reads again (%lld "
				      "m°C)", z->setup.name, in->name, (long long)temp_mc[i]);
		}
		in->failed = !read[i];
	}
}

int zone_sensor_read(struct zone *z, int64_t *temp_mc)
{
	int64_t t[SENSOR_MAX_INPUTS] = { 0 };
	double weight[SENSOR_MAX_INPUTS];
	bool read[SENSOR_MAX_INPUTS], any = false;
	int error[SENSOR_MAX_INPUTS], first_error = 0;
	size_t first = 0;

	for (size_t i = 0; i < z->setup.n_inputs; i++) {
		error[i] = read_input(z, &z->setup.inputs[i], &t[i]);
		read[i] = error[i] == 0;
		weight[i] = z->setup.inputs[i].weight;
		any |= read[i];
		if (!read[i] && !first_error) {
			first_error = error[i];
			first = i;
		}
	}
	if (z->setup.sensor_kind != SENSOR_ONE)
		note_inputs(z, read, error, t);
	if (!any) {
		*temp_mc = t[first];
		return first_error ? first_error : -ENODEV;
	}
	*temp_mc = sensor_combine_mc(z->setup.sensor_kind, t, read, weight, z->setup.n_inputs,
				     z->setup.sensor_offset_mc);
	return 0;
}

void zone_sensor_close(struct zone *z)
{
	for (size_t i = 0; i < z->setup.n_inputs; i++)
		sensor_close(&z->setup.inputs[i]);
}

void zone_sensor_name(const struct zone *z, char *buf, size_t size)
{
	size_t len;

	if (z->setup.sensor_kind == SENSOR_ONE) {
		snprintf(buf, size, "thermal_zone%d",
			 z->setup.n_inputs ? z->setup.inputs[0].tz_id : z->setup.tz_id);
		return;
	}
	snprintf(buf, size, "%s(", sensor_kind_name(z->setup.sensor_kind));
	for (size_t i = 0; i < z->setup.n_inputs && (len = strlen(buf)) < size; i++) {
		char weight[32] = "";

		if (z->setup.sensor_kind == SENSOR_SUM)
			snprintf(weight, sizeof(weight), "%g*", z->setup.inputs[i].weight);
		snprintf(buf + len, size - len, "%s%sthermal_zone%d", i ? "," : "", weight,
			 z->setup.inputs[i].tz_id);
	}
	len = strlen(buf);
	if (z->setup.sensor_offset_mc)
		snprintf(buf + len, size - len, ")%+d", z->setup.sensor_offset_mc);
	else
		snprintf(buf + len, size - len, ")");
}

bool zone_sensor_reads_tz(const struct zone *z, int tz_id)
{
	for (size_t i = 0; i < z->setup.n_inputs; i++)
		if (z->setup.inputs[i].tz_id == tz_id)
			return true;
	return false;
}

void zone_sensor_adopt(struct zone *z, const struct zone *old)
{
	for (size_t i = 0; i < z->setup.n_inputs; i++)
		for (size_t k = 0; k < old->setup.n_inputs; k++)
			if (strcmp(z->setup.inputs[i].attr.path, old->setup.inputs[k].attr.path) ==
			    0)
				z->setup.inputs[i].failed = old->setup.inputs[k].failed;
}
