/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event loop: signals, thermal netlink events, the power limit,
 * reloads and the learnt thermal models (model_store.h).  The period is
 * tick.c's, the clock and schedule clock.c's, the rescan daemon_rescan.c's,
 * the state file and the stop daemon_shutdown.c's.
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
		snprintf(field, sizeof(field), "ZONE=%s", z->setup.name);
		if (z->setup.tz_id >= 0)
			pa_log_fields(PA_LOG_NOTICE, fields,
				      "zone %s: switch-on %.2f °C is not a "
				      "trip of thermal_zone%d, so no kernel event says when it is "
				      "crossed: read every %d ms while idle (idle_poll_ms = 0)",
				      z->setup.name, z->setup.switch_on_mc / 1000.0, z->setup.tz_id,
				      SCHEDULE_NO_EVENTS_POLL_MS);
		else
			pa_log_fields(PA_LOG_NOTICE, fields, "zone %s: a combined sensor has no "
				      "trips, so no kernel event says when it crosses switch-on: read "
				      "every %d ms while idle (idle_poll_ms = 0)", z->setup.name,
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

/* The power limit changed: every zone runs now under it, and the bus says so. */
static void on_power_limit(void *userdata)
{
	struct daemon *d = userdata;

	bus_power_limit_changed(d->bus);
	for (size_t i = 0; i < d->engine.n_zones; i++)
		d->schedule.next_due_us[i] = daemon_now_us(d);
	daemon_arm_tick(d);
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
		daemon_arm_tick(d);
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
