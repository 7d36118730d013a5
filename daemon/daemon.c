/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event loop: the zones' timer (schedule.h), signals, thermal netlink
 * events, reloads and the learnt thermal models (model_store.h).  The rescan
 * is daemon_rescan.c's, the state file and the stop daemon_shutdown.c's.
 */
#include "crash.h"
#include "daemon_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "build_log.h"
#include "config/config.h"
#include "fd_limit.h"
#include "platform/log.h"
#include "engine/zone_sensor.h"

uint64_t daemon_now_us(const struct daemon *d)
{
	uint64_t t = 0;

	sd_event_now(d->event, CLOCK_MONOTONIC, &t);
	return t;
}

int daemon_reset_schedule(struct daemon *d)
{
	size_t n = d->engine.n_zones ? d->engine.n_zones : 1;

	free(d->was_active);
	free(d->notes);
	free(d->actor_notes);
	d->was_active = calloc(n, sizeof(*d->was_active));
	d->notes = calloc(n, sizeof(*d->notes));
	d->actor_notes = calloc(d->engine.n_actors + 1, sizeof(*d->actor_notes));
	if (!d->was_active || !d->notes || !d->actor_notes)
		return -ENOMEM;
	for (size_t k = 0; k < d->engine.n_actors; k++)
		actor_notes_init(&d->actor_notes[k], d->engine.actors[k]->limit.shown);
	return schedule_reset(&d->schedule, d->engine.n_zones);
}

/*
 * Says which zones are polled while idle although idle_poll_ms = 0 waits
 * for events: those whose switch-on no kernel trip event marks.
 */
static void say_untripped_polls(const struct daemon *d)
{
	for (size_t i = 0; i < d->engine.n_zones; i++) {
		const struct zone *z = &d->engine.zones[i];
		char field[80];
		const char *fields[] = { field, NULL };

		if (!schedule_polls_untripped(&d->schedule, z))
			continue;
		snprintf(field, sizeof(field), "ZONE=%s", z->name);
		if (z->tz_id >= 0)
			pa_log_fields(PA_LOG_NOTICE, fields, "zone %s: switch-on %.2f °C is not a "
				      "trip of thermal_zone%d, so no kernel event says when it is "
				      "crossed: read every %d ms while idle (idle_poll_ms = 0)", z->name,
				      z->switch_on_mc / 1000.0, z->tz_id, SCHEDULE_NO_EVENTS_POLL_MS);
		else
			pa_log_fields(PA_LOG_NOTICE, fields, "zone %s: a combined sensor has no "
				      "trips, so no kernel event says when it crosses switch-on: read "
				      "every %d ms while idle (idle_poll_ms = 0)", z->name,
				      SCHEDULE_NO_EVENTS_POLL_MS);
	}
}

/*
 * The idle poll for the schedule from the config: idle_poll_ms = 0 waits
 * for the kernel's thermal netlink events, so without them it is
 * SCHEDULE_NO_EVENTS_POLL_MS, said once per config when @say; with them,
 * the zones whose switch-on is not a kernel trip are polled all the same,
 * said at start and on each reload.
 */
static void set_idle_poll(struct daemon *d, bool say)
{
	d->schedule.idle_poll_ms = d->config->idle_poll_ms;
	if (d->config->idle_poll_ms)
		return;
	if (d->netlink) {
		say_untripped_polls(d);
		return;
	}
	d->schedule.idle_poll_ms = SCHEDULE_NO_EVENTS_POLL_MS;
	if (say)
		pa_log(PA_LOG_NOTICE, "idle_poll_ms = 0 waits for thermal netlink events, "
		       "which are unavailable: polling idle zones every %d ms",
		       SCHEDULE_NO_EVENTS_POLL_MS);
}

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
				     i ? ", " : "", z->name, z->sensing.temp_mc / 1000.0,
				     z->control.budget_mw);
		else
			n = snprintf(status + len, sizeof(status) - len, "%s%s idle", i ? ", " : "",
				     z->name);
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

static void arm_tick(struct daemon *d)
{
	if (!d->sleep.asleep)
		schedule_arm(&d->schedule, &d->engine, d->tick);
}

int daemon_on_tick(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct daemon *d = userdata;
	uint64_t now = daemon_now_us(d);
	int r;

	(void)s;
	(void)usec;
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
	arm_tick(d);
	return 0;
}

/* The power limit changed: every zone runs now under it, and the bus says so. */
static void on_power_limit(void *userdata)
{
	struct daemon *d = userdata;

	bus_power_limit_changed(d->bus);
	for (size_t i = 0; i < d->engine.n_zones; i++)
		d->schedule.next_due_us[i] = daemon_now_us(d);
	arm_tick(d);
}

static void on_thermal_event(void *userdata, const struct thermal_event *ev)
{
	struct daemon *d = userdata;

	pa_log(PA_LOG_DEBUG, "thermal event %s (zone %d, trip %d, cooling device %d)",
	       thermal_event_name(ev->kind), ev->tz_id, ev->trip_id, ev->cdev_id);
	if (ev->kind == THERMAL_EVENT_TRIP_UP || ev->kind == THERMAL_EVENT_TRIP_DOWN) {
		/* A hint: each zone that reads it re-reads its temperature from sysfs now. */
		for (size_t i = 0; i < d->engine.n_zones; i++)
			if (zone_sensor_reads_tz(&d->engine.zones[i], ev->tz_id))
				d->schedule.next_due_us[i] = daemon_now_us(d);
		arm_tick(d);
		return;
	}
	daemon_schedule_rescan(d, RESCAN_DEVICES_CHANGED);
}

/*
 * SIGHUP or Reload(): 0, or negative errno when the new config is rejected,
 * with the reason in @why (@why_size bytes) and in the journal.
 */
static int reload(struct daemon *d, char *why, size_t why_size)
{
	struct pa_config *next;
	struct pa_config_error err;
	int r;

	sd_notify(0, "RELOADING=1");
	r = pa_config_load_file(d->opts->config_path, &next, &err);
	if (r < 0) {
		snprintf(why, why_size, "%s", err.text);
	} else if ((r = daemon_rebuild(d, next, true)) < 0) {
		snprintf(why, why_size, "%s could not be applied: %s", d->opts->config_path,
			 r != -EINVAL ? strerror(-r) : *build_log_first_error() ?
			 build_log_first_error() : "a configured zone cannot be controlled");
		pa_config_free(next);
	} else {
		bool was_polling = d->config->idle_poll_ms != 0;

		pa_config_free(d->config);
		d->config = next;
		set_idle_poll(d, was_polling);
		metrics_configure(&d->metrics, next->metrics_dir, next->metrics_interval_ms);
		if (d->opts->log_level < 0)
			journal_set_level((int)next->log_level);
		pa_log(PA_LOG_NOTICE, "reloaded %s: %zu %s", d->opts->config_path,
		       d->engine.n_zones, plural(d->engine.n_zones, "zone", "zones"));
		daemon_retry_if_incomplete(d);
		daemon_on_tick(d->tick, 0, d);
	}
	if (r < 0)
		pa_log(PA_LOG_ERR, "reload rejected: %s; the running config stays", why);
	sd_notify(0, "READY=1");
	return r < 0 ? r : 0;
}

static int bus_reload(void *userdata, char *why, size_t why_size)
{
	return reload(userdata, why, why_size);
}

/*
 * What stops the loop, each limit restored: kill(1)'s default, Ctrl-C,
 * Ctrl-\ (rather than a core dump with the limits in place) and a CPU time
 * limit reached.  SIGHUP reloads; main.c ignores the other signals that
 * would end the process.
 */
static const int stop_signals[] = { SIGTERM, SIGINT, SIGQUIT, SIGXCPU };

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	struct daemon *d = userdata;

	(void)s;
	if (si->ssi_signo == SIGHUP) {
		char why[sizeof(((struct pa_config_error *)0)->text)];

		reload(d, why, sizeof(why));
		return 0;
	}
	pa_log(PA_LOG_INFO, "%s: stopping", strsignal((int)si->ssi_signo));
	return sd_event_exit(d->event, 0);
}

/* SIGHUP and the stop signals, blocked and served by the loop.  Return: 0 or negative errno. */
static int add_signals(struct daemon *d)
{
	sigset_t mask;
	int r;

	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaddset(&mask, stop_signals[i]);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return -errno;
	r = sd_event_add_signal(d->event, NULL, SIGHUP, on_signal, d);
	for (size_t i = 0; r >= 0 && i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		r = sd_event_add_signal(d->event, NULL, stop_signals[i], on_signal, d);
	return r;
}

static int setup_event(struct daemon *d)
{
	int r;

	if ((r = sd_event_default(&d->event)) < 0 || (r = add_signals(d)) < 0 ||
	    (r = sd_event_add_time(d->event, &d->tick, CLOCK_MONOTONIC, 0, 0, daemon_on_tick, d)) < 0 ||
	    (r = sd_event_add_time(d->event, &d->rescan, CLOCK_MONOTONIC, SCHEDULE_NEVER, 0,
				   daemon_on_rescan, d)) < 0)
		return r;
	sd_event_source_set_enabled(d->rescan, SD_EVENT_OFF);
	if ((r = power_limit_init(&d->limit, d->event, on_power_limit, d)) < 0)
		return r;
	/* WATCHDOG=1 from the loop itself, when systemd asks for it. */
	return sd_event_set_watchdog(d->event, true) < 0 ? -EIO : 0;
}

static int setup_engine(struct daemon *d)
{
	const char *trace = d->opts->trace_path ? d->opts->trace_path : d->config->trace_file;
	int n = daemon_build_engine(&d->engine, d->config, true), r;

	if (n < 0)
		return pa_log_errno(n, "cannot read the thermal subsystem: %m");
	if (d->config->n_zones && (size_t)n < d->config->n_zones)
		pa_log(PA_LOG_WARNING, "%d of %zu configured %s controlled; see above", n,
		       d->config->n_zones, plural(d->config->n_zones, "zone is", "zones are"));
	if (n == 0)
		pa_log(PA_LOG_NOTICE, "no controllable zone; waiting for thermal zones");
	if ((r = saved_merge_engine(&d->saved, &d->engine, NULL)) < 0)
		return r;
	daemon_save_state(d);
	if (trace && *trace && (r = trace_open(&d->trace, trace)) < 0)
		pa_log(PA_LOG_ERR, "%s: cannot write the trace: %s", trace, strerror(-r));
	return daemon_reset_schedule(d);
}

int daemon_run(const struct options *opts)
{
	struct daemon d = { .opts = opts, .sleep.inhibit_fd = -1, .engine = ENGINE_INIT };
	int r;

	d.config = daemon_load_config(opts);
	if (!d.config)
		return EXIT_BAD_CONFIG;
	journal_setup(opts->log_target, opts->log_level >= 0 ? opts->log_level
							      : (int)d.config->log_level);
	fd_limit_raise();
	/* Its originals are the only copy of the kernel's values: never overwritten unread. */
	if ((r = saved_adopt(&d.saved, opts->state_path)) < 0) {
		pa_log(PA_LOG_ERR, "%s: cannot read the state file of a previous run: %s; not "
		       "starting, so that it is not overwritten (powerallocd --restore, or remove "
		       "it)", opts->state_path, strerror(-r));
		saved_clear(&d.saved);
		pa_config_free(d.config);
		return EXIT_FAILURE_RUNTIME;
	}
	daemon_make_state_dir(opts->state_path);
	if ((r = crash_restore_setup(opts->state_path, opts->log_target)) < 0)
		pa_log(PA_LOG_WARNING, "cannot set the restore on a fault up: %s; a crash leaves its "
		       "limits for powerallocd --restore", strerror(-r));
	if ((r = setup_event(&d)) < 0 || (r = setup_engine(&d)) < 0) {
		pa_log(PA_LOG_ERR, "cannot start: %s", strerror(-r));
		daemon_teardown(&d);
		return EXIT_FAILURE_RUNTIME;
	}
	d.start_us = daemon_now_us(&d);
	model_store_open(&d.models, opts->state_dir, d.event, &d.engine, opts->model_save_interval_s);
	model_store_resume(&d.models, &d.engine);
	d.netlink = netlink_open(d.event, on_thermal_event, &d);
	set_idle_poll(&d, true);
	if ((r = metrics_open(&d.metrics, d.event, &d.engine)) < 0)
		pa_log(PA_LOG_ERR, "cannot set the metrics timer up: %s; no metrics", strerror(-r));
	metrics_configure(&d.metrics, d.config->metrics_dir, d.config->metrics_interval_ms);
	d.view = (struct bus_view){ .engine = &d.engine, .state = "idle", .reload = bus_reload,
				    .limit = &d.limit, .userdata = &d };
	if (strcmp(opts->bus, "none") != 0)
		d.bus = bus_open(d.event, strcmp(opts->bus, "session") == 0, &d.view);
	sleep_open(&d, strcmp(opts->bus, "system") == 0);
	daemon_retry_if_incomplete(&d);
	r = sd_event_loop(d.event);
	if (r < 0)
		pa_log(PA_LOG_ERR, "the event loop failed: %s; putting every limit back and exiting",
		       strerror(-r));
	if (daemon_teardown(&d) > 0 && r >= 0)
		return EXIT_RESTORE_INCOMPLETE;
	return r < 0 ? EXIT_FAILURE_RUNTIME : EXIT_OK;
}
