/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The period: the tick timer's handler runs the zones due, then says what
 * changed (journal, D-Bus, sd_notify, the trace) and arms the next tick.
 */
#include "daemon_internal.h"

#include <stdio.h>
#include <string.h>
#include <systemd/sd-daemon.h>

#include "journal.h"

/* The Manager's State on D-Bus. */
static void update_state(struct daemon *d)
{
	const char *state = d->engine.n_zones ? "idle" : "no-zones";

	for (size_t i = 0; i < d->engine.n_zones; i++)
		if (d->engine.zones[i].control.active)
			state = "controlling";
	if (d->view.state != state) {
		d->view.state = state;
		bus_state_changed(d->bus);
	}
}

static void update_status(struct daemon *d)
{
	char status[sizeof(d->status)] = "";
	size_t len = 0;

	if (d->engine.n_zones == 0)
		snprintf(status, sizeof(status), "no controllable zone; waiting for thermal zones");
	for (size_t i = 0; i < d->engine.n_zones && len < sizeof(status) - 1; i++) {
		const struct zone *z = &d->engine.zones[i];
		int n;

		if (z->control.active)
			n = snprintf(status + len, sizeof(status) - len, "%s%s %.1f °C budget %u mW",
				     i ? ", " : "", z->setup.name, z->sensing.temp_mc / 1000.0,
				     z->control.budget_mw);
		else
			n = snprintf(status + len, sizeof(status) - len, "%s%s idle", i ? ", " : "",
				     z->setup.name);
		len += n > 0 ? (size_t)n : 0;
	}
	if (strcmp(status, d->status) != 0) {
		snprintf(d->status, sizeof(d->status), "%s", status);
		sd_notifyf(0, "STATUS=%s", d->status);
	}
}

/* Logs and signals the state changes of zone @i after its period. */
static void report_zone(struct daemon *d, size_t i, uint64_t now)
{
	struct zone *z = &d->engine.zones[i];
	enum limit_reason said = d->notes[i].reason;

	zone_notes_update(&d->notes[i], z, now);
	if (z->control.active != d->was_active[i])
		bus_zone_changed(d->bus, i, "Active");
	if (d->notes[i].reason != said)
		bus_zone_changed(d->bus, i, "LimitingReason");
	if (d->notes[i].fault != z->sensing.fault_shown)
		bus_zone_changed(d->bus, i, "SensorFault");
	d->notes[i].fault = z->sensing.fault_shown;
	d->was_active[i] = z->control.active;
	journal_cycle(z);
	trace_zone(&d->trace, (now - d->start_us) / USEC_PER_MSEC, z, d->engine.cap_mw);
}

int daemon_on_tick(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct daemon *d = userdata;
	uint64_t now = daemon_now_us(d);
	int r;

	(void)s;
	(void)usec;
	d->tick_now = false;
	/* Asleep (logind said so): no period until resume; else a sleep the clocks show. */
	if (!sleep_before_period(d))
		return 0;
	schedule_mark_due(&d->schedule, &d->engine, now);
	d->engine.cap_mw = d->limit.limit_mw;
	r = engine_cycle(&d->engine, now, d->schedule.due);
	/* What the cycle wrote, in the state file: --restore after a crash leaves another's. */
	saved_note_ours(&d->saved, &d->engine);
	power_limit_note_lowest(&d->limit, &d->engine);
	/* A device went away (hotplug, module unload): find out what is left.  A
	 * write that failed on a device still there is the engine's to retry. */
	if (r == -ENODEV)
		daemon_schedule_rescan(d, RESCAN_DEVICES_CHANGED);
	for (size_t i = 0; i < d->engine.n_zones; i++) {
		if (!d->schedule.due[i])
			continue;
		report_zone(d, i, now);
		schedule_ran(&d->schedule, &d->engine, i, now);
	}
	for (size_t k = 0; k < d->engine.n_actors; k++)
		if (actor_notes_update(&d->actor_notes[k], d->engine.actors[k], now))
			bus_actor_changed(d->bus, k, "LimitingReason");
	/* STATUS= first, so that whoever waits for READY=1 finds it set. */
	update_status(d);
	update_state(d);
	if (!d->ready) {
		d->ready = true;
		sd_notify(0, "READY=1");
	}
	sleep_after_period(d);
	daemon_arm_tick(d);
	return 0;
}
