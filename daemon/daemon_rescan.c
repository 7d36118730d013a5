/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rescan: the engine rebuilt from the config when devices come or go
 * (thermal netlink events, a device gone while written) and, while
 * configured zones or devices are missing, every RESCAN_RETRY_US; a reload
 * rebuilds through it too.
 */
#include "daemon_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "build_log.h"
#include "config/config.h"
#include "fd_limit.h"
#include "platform/log.h"

/* While configured devices are missing, look for them again this often. */
#define RESCAN_RETRY_US (5000 * USEC_PER_MSEC)
/* Events come in bursts (a module loads several devices): rescan once. */
#define RESCAN_DELAY_US (200 * USEC_PER_MSEC)

void daemon_schedule_rescan(struct daemon *d, enum rescan_reason why)
{
	uint64_t delay_us = why == RESCAN_DEVICES_CHANGED ? RESCAN_DELAY_US : RESCAN_RETRY_US;
	uint64_t when = daemon_now_us(d) + delay_us, armed = SCHEDULE_NEVER;
	int enabled = SD_EVENT_OFF;

	if (why > d->rescan_why)
		d->rescan_why = why;
	sd_event_source_get_enabled(d->rescan, &enabled);
	sd_event_source_get_time(d->rescan, &armed);
	if (enabled != SD_EVENT_OFF && armed <= when)
		return;	/* one is coming sooner */
	sd_event_source_set_time(d->rescan, when);
	sd_event_source_set_enabled(d->rescan, SD_EVENT_ONESHOT);
}

/* Something configured is missing: look for it again later. */
static bool incomplete(const struct daemon *d)
{
	/* A zone the kernel cannot hand over stays so until it is rebuilt. */
	return d->engine.n_missing ||
	       d->engine.n_zones + d->engine.n_refused < d->config->n_zones;
}

int daemon_build_engine(struct engine *e, const struct pa_config *cfg, bool say_all)
{
	struct fd_reserve reserve;
	int n;

	fd_reserve_hold(&reserve);
	build_log_begin(say_all);	/* a rescan repeats nothing the last build said */
	n = engine_build(e, cfg);
	build_log_end();
	fd_reserve_release(&reserve);
	return n;
}

/* Files the previous engine wrote that @next does not: give them back now. */
static int release_unused(void *userdata, const char *path, const char *value, const char *ours)
{
	struct saved *keep = userdata;

	(void)ours;
	return saved_add(keep, path, value) < 0 ? -ENOMEM : 0;
}

int daemon_rebuild(struct daemon *d, const struct pa_config *cfg, bool reload)
{
	struct engine next, old;
	struct saved keep = { 0 };
	struct zone_notes *old_notes = d->notes;
	size_t old_zones = d->engine.n_zones, old_actors = d->engine.n_actors;
	int n = daemon_build_engine(&next, cfg, reload), r;

	if (n < 0)
		return n;
	if (reload && (size_t)n < cfg->n_zones) {
		saved_restore_new(&d->saved, &next);
		engine_put_back_given_up(&next, &d->engine);	/* the running engine's stay given up */
		engine_free(&next);
		return -EINVAL;
	}
	/* The zones and devices both engines have go on where they were. */
	engine_adopt_state(&next, &d->engine);
	engine_save(&next, release_unused, &keep);
	saved_note_ours(&d->saved, &d->engine);	/* a file given up is restored only where ours is */
	saved_release_except(&d->saved, &keep);
	saved_clear(&keep);
	saved_merge_engine(&d->saved, &next, NULL);
	daemon_save_state(d);
	old = d->engine;
	d->engine = next;
	bus_zones_changed(d->bus, old_zones, old_actors);
	d->notes = NULL;	/* kept in old_notes for the zones that go on */
	r = daemon_reset_schedule(d);
	/* What was said of a zone that goes on stays said (one episode, one line). */
	for (size_t i = 0; r == 0 && i < d->engine.n_zones; i++) {
		long k = engine_zone_index(&old, &d->engine.zones[i]);

		d->was_active[i] = d->engine.zones[i].control.active;
		if (k >= 0)
			d->notes[i] = old_notes[k];
	}
	free(old_notes);
	/* Models the new zones do not carry on: saved, and resumed where they still fit. */
	model_store_save(&d->models, &old, &d->engine);
	model_store_resume(&d->models, &d->engine);
	engine_free(&old);
	return r;
}

void daemon_retry_if_incomplete(struct daemon *d)
{
	if (!incomplete(d)) {
		d->looking = false;
		return;
	}
	if (!d->looking)
		pa_log(PA_LOG_INFO, "configured zones or devices are missing (see above); "
		       "looking for them every %u s", (unsigned int)(RESCAN_RETRY_US / 1000000));
	d->looking = true;
	daemon_schedule_rescan(d, RESCAN_RETRY);
}

int daemon_on_rescan(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct daemon *d = userdata;
	int r;

	(void)s;
	(void)usec;
	pa_log(d->rescan_why == RESCAN_DEVICES_CHANGED ? PA_LOG_INFO : PA_LOG_DEBUG,
	       "rescanning thermal zones and cooling devices");
	d->rescan_why = RESCAN_NONE;
	r = daemon_rebuild(d, d->config, false);
	if (r < 0)
		pa_log(PA_LOG_ERR, "rescan failed: %s; the current zones stay", strerror(-r));
	daemon_retry_if_incomplete(d);
	daemon_tick_now(d);
	return 0;
}
