/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The power meters of the config: opened with the engine (a meter that
 * cannot be is said with what exists instead, and its actor or zone runs
 * from its power table), read once each active period, dropped at their
 * first fault.  Each metered actor's power table is calibrated from what
 * its meter reads (actor_feed_scale()); a zone's meter is read and shown
 * only (doc/power-meters.md says why).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_build.h"
#include "platform/log.h"

/* Labels offered for "did you mean", and the room their text takes. */
#define MAX_LABELS 64
#define LABELS_TEXT_MAX 2048

/* Why @mc could not be opened (@r), into @why, with what exists instead. */
static void meter_why(const struct meter_config *mc, int r, char *why, size_t size)
{
	char list[METER_LIST_MAX], text[LABELS_TEXT_MAX], hint[160] = "";
	const char *labels[MAX_LABELS], *near;

	hwmon_meter_list(list, sizeof(list));
	if (mc->path) {
		snprintf(why, size, "\"%s\": %s; hwmon devices: %s", mc->path, sysfs_strerror(r),
			 list);
		return;
	}
	if (r == -ENODEV) {
		snprintf(why, size, "no hwmon device is named \"%s\"; hwmon devices: %s", mc->hwmon,
			 list);
		return;
	}
	hwmon_meter_labels(mc->hwmon, text, sizeof(text), labels, MAX_LABELS);
	if (r == -ENOENT && (near = pa_nearest_name(mc->label, labels)))
		snprintf(hint, sizeof(hint), " (did you mean \"%s\"?)", near);
	snprintf(why, size, "hwmon \"%s\" has %s \"%s\"%s%s%s; hwmon devices: %s", mc->hwmon,
		 r == -ENOENT ? "no channel labelled" : "a channel it cannot read labelled",
		 mc->label, hint, r == -ENOENT ? "" : ": ", r == -ENOENT ? "" : sysfs_strerror(r),
		 list);
}

/* @mc opened, or NULL (said, counted in e->n_bad_meters) when it cannot be. */
static struct power_meter *open_meter(struct engine *e, const struct meter_config *mc,
				      const char *who)
{
	struct power_meter *m = malloc(sizeof(*m));
	char why[BUILD_WHY_MAX + METER_LIST_MAX];
	int r = -ENOMEM;

	if (m) {
		power_meter_init(m);
		r = mc->path ? power_meter_open_path(m, mc->path)
			     : power_meter_open_hwmon(m, mc->hwmon, mc->label);
		if (r == 0) {
			pa_log(PA_LOG_INFO, "%s: power meter %s", who, m->name);
			return m;
		}
		power_meter_close(m);
		free(m);
	}
	meter_why(mc, r, why, sizeof(why));
	pa_log(PA_LOG_WARNING, "%s: power_meter (line %u): %s; going on from the power table",
	       who, mc->line, why);
	e->n_bad_meters++;
	return NULL;
}

void build_open_actor_meter(struct build *b, const struct zone_config *zc, size_t i,
			    struct actor *a)
{
	const struct actor_config *ac = &zc->actors[i];
	struct power_meter *m;
	char who[160];

	if (!meter_configured(&ac->meter) || a->meter)
		return;	/* none, or already opened for another zone's config */
	snprintf(who, sizeof(who), "zone %s: actors[%zu] %s", zc->name, i, a->name);
	if ((m = open_meter(b->e, &ac->meter, who))) {
		actor_set_meter(a, m);
		actor_start_calibration(a, zc->period_ms);
	}
}

void build_open_zone_meter(struct build *b, const struct zone_config *zc, struct zone *z)
{
	char who[160];

	if (!meter_configured(&zc->meter))
		return;
	snprintf(who, sizeof(who), "zone %s", zc->name);
	z->setup.meter = open_meter(b->e, &zc->meter, who);
}

void engine_zone_free_meter(struct zone *z)
{
	if (z->setup.meter) {
		power_meter_close(z->setup.meter);
		free(z->setup.meter);
	}
	z->setup.meter = NULL;
	z->period.measured_valid = false;
}

/* The board's meter of @z: its reading, or dropped at a fault. */
static void read_zone_meter(struct zone *z, uint64_t now_us, bool load_known)
{
	uint64_t most_mw = 0, model_mw = 0;
	uint32_t mw = 0;
	int r;

	for (size_t k = 0; k < z->setup.n_actors; k++) {
		const struct actor *a = z->setup.actors[k];

		most_mw += a->max_mw;
		/* A powercap actor has no table: what its own energy counter says it draws. */
		model_mw += a->table.n ? a->model_mw : a->req_mw;
	}
	most_mw *= METER_JUMP_FACTOR;
	z->setup.meter->track.max_mw = most_mw < UINT32_MAX ? (uint32_t)most_mw : UINT32_MAX;
	/* Its actors' modelled power together: whether the board's meter should move. */
	r = power_meter_read(z->setup.meter, now_us, !load_known ? METER_MODEL_UNKNOWN :
			     model_mw < METER_MODEL_UNKNOWN ? (uint32_t)model_mw : METER_MODEL_UNKNOWN - 1,
			     &mw);
	z->period.measured_valid = r == 1;
	z->period.measured_mw = r == 1 ? mw : z->period.measured_mw;
	if (r >= 0)
		return;
	if (-r == METER_UNREADABLE || -r == METER_VANISHED)
		pa_log(PA_LOG_WARNING, "zone %s: power meter %s %s (%s); dropped until a reload, "
		       "going on from the power table", z->setup.name, z->setup.meter->name,
		       meter_fault_name((enum meter_fault)-r), strerror(z->setup.meter->error));
	else
		pa_log(PA_LOG_WARNING, "zone %s: power meter %s %s; dropped until a reload, going "
		       "on from the power table", z->setup.name, z->setup.meter->name,
		       meter_fault_name((enum meter_fault)-r));
	engine_zone_free_meter(z);
}

void engine_read_meters(struct engine *e, uint64_t now_us, const bool *due)
{
	/* A load from a window of a tick or none (a start, a resume) is no actor's load yet. */
	bool load_known = e->load_windows >= ENGINE_LOAD_WINDOWS_KNOWN;

	for (size_t z = 0; z < e->n_zones; z++) {
		struct zone *zone = &e->zones[z];

		if (zone->setup.given_up_to[0] || (due && !due[z]) || !zone->control.active) {
			zone->period.measured_valid = false;
			continue;
		}
		if (zone->setup.meter)
			read_zone_meter(zone, now_us, load_known);
		for (size_t k = 0; k < zone->setup.n_actors; k++)
			actor_read_meter(zone->setup.actors[k], now_us, load_known);
	}
	/* An actor no active zone read this period has no reading for it. */
	for (size_t i = 0; i < e->n_actors; i++) {
		if (e->actors[i]->meter_read_us != now_us)
			e->actors[i]->measured_valid = false;
		/* Read before this period's writes: the state and load it measured. */
		actor_feed_scale(e->actors[i], now_us);
	}
}
