/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Suspend and resume: logind's PrepareForSleep and the clocks (sleep.h). */
#include "daemon_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "platform/log.h"

#define LOGIND_NAME "org.freedesktop.login1"
#define LOGIND_PATH "/org/freedesktop/login1"
#define LOGIND_MANAGER "org.freedesktop.login1.Manager"

/* A clock now, µs. */
static uint64_t clock_us(clockid_t id)
{
	struct timespec ts = { 0, 0 };

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * USEC_PER_SEC + (uint64_t)ts.tv_nsec / 1000;
}

/* The clocks' difference now as @s's reference; how long the machine slept since the last, µs. */
static uint64_t take_clocks(struct sleep_watch *s)
{
	uint64_t boottime_us = clock_us(CLOCK_BOOTTIME), monotonic_us = clock_us(CLOCK_MONOTONIC);
	uint64_t slept_us = sleep_gap_slept_us(&s->gap, boottime_us, monotonic_us);

	sleep_gap_check(&s->gap, boottime_us, monotonic_us);
	return slept_us;
}

static void say_no_logind(struct sleep_watch *s, const char *why)
{
	if (s->said_no_logind)
		return;
	s->said_no_logind = true;
	pa_log(PA_LOG_INFO, "logind: %s; a suspend is seen from the clocks alone, after it "
	       "(CLOCK_BOOTTIME ahead of CLOCK_MONOTONIC by more than %llu ms since the last "
	       "period)", why, (unsigned long long)(SLEEP_GAP_MIN_US / USEC_PER_MSEC));
}

static void drop_inhibitor(struct sleep_watch *s)
{
	if (s->inhibit_fd >= 0)
		close(s->inhibit_fd);
	s->inhibit_fd = -1;
}

static int on_inhibit_reply(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct sleep_watch *s = userdata;
	const sd_bus_error *e = sd_bus_message_get_error(m);
	int fd = -1, r;

	(void)error;
	if (e) {
		char why[300];

		snprintf(why, sizeof(why), "no sleep delay inhibitor (%s: %s)", e->name,
			 e->message ? e->message : "");
		say_no_logind(s, why);
		return 0;
	}
	r = sd_bus_message_read(m, "h", &fd);
	if (r >= 0 && (fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0)
		r = -errno;
	if (r < 0) {
		say_no_logind(s, "its inhibitor reply cannot be read");
		return 0;
	}
	drop_inhibitor(s);
	s->inhibit_fd = fd;
	pa_log(PA_LOG_DEBUG, "logind: holding a sleep delay inhibitor");
	return 0;
}

/* Asks logind for a delay inhibitor; the reply comes to on_inhibit_reply(). */
static void take_inhibitor(struct sleep_watch *s)
{
	int r = sd_bus_call_method_async(s->bus, NULL, LOGIND_NAME, LOGIND_PATH, LOGIND_MANAGER,
					 "Inhibit", on_inhibit_reply, s, "ssss", "sleep",
					 "powerallocd", "Save the thermal models and stop control "
					 "before sleep", "delay");

	if (r < 0)
		say_no_logind(s, strerror(-r));
}

/*
 * After the machine slept @slept_us: what the gap corrupts is forgotten,
 * every zone runs now, every state is written, and the line is due after
 * the period.
 */
static void resume(struct daemon *d, uint64_t slept_us, const char *by)
{
	struct sleep_watch *s = &d->sleep;
	uint64_t now = daemon_now_us(d);

	s->zones_read = engine_resume(&d->engine, now);
	for (size_t i = 0; i < d->engine.n_zones; i++)
		d->schedule.next_due_us[i] = now;
	s->resumed = true;
	s->slept_us = slept_us;
	s->by = by;
}

/* PrepareForSleep(true): models saved, periods stopped, then logind may go on. */
static void going_to_sleep(struct daemon *d)
{
	struct sleep_watch *s = &d->sleep;
	uint64_t now = daemon_now_us(d);

	if (s->asleep)
		return;
	s->asleep = true;
	sd_event_source_set_enabled(d->tick, SD_EVENT_OFF);
	model_store_save(&d->models, &d->engine, NULL);
	take_clocks(s);
	sd_event_source_set_time(s->wake_timeout, now + SLEEP_WAKE_TIMEOUT_S * USEC_PER_SEC);
	sd_event_source_set_enabled(s->wake_timeout, SD_EVENT_ONESHOT);
	pa_log(PA_LOG_INFO, "going to sleep: thermal models saved, control stopped until resume");
	drop_inhibitor(s);
}

/* Awake again (logind said so, or the timeout): resume and run the period now. */
static void woke(struct daemon *d, const char *by)
{
	struct sleep_watch *s = &d->sleep;

	s->asleep = false;
	sd_event_source_set_enabled(s->wake_timeout, SD_EVENT_OFF);
	resume(d, take_clocks(s), by);
	daemon_tick_now(d);
}

static int on_prepare_for_sleep(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct daemon *d = userdata;
	int start = 0;

	(void)error;
	if (sd_bus_message_read(m, "b", &start) < 0)
		return 0;
	if (start) {
		going_to_sleep(d);
		return 0;
	}
	take_inhibitor(&d->sleep);
	/* Not asleep: the periods went on, and the clocks tell of any sleep. */
	if (d->sleep.asleep)
		woke(d, "logind");
	return 0;
}

static int on_wake_timeout(sd_event_source *src, uint64_t usec, void *userdata)
{
	struct daemon *d = userdata;

	(void)src, (void)usec;
	pa_log(PA_LOG_WARNING, "logind said the machine goes to sleep, but %d s awake later it "
	       "has not said that it woke: resuming control", SLEEP_WAKE_TIMEOUT_S);
	woke(d, "timeout");
	return 0;
}

static int on_disconnected(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	struct sleep_watch *s = userdata;

	(void)m, (void)error;
	drop_inhibitor(s);
	sd_bus_flush_close_unref(s->bus);
	s->bus = NULL;
	s->said_no_logind = false;
	say_no_logind(s, "the system bus went away");
	return 0;
}

static int connect_logind(struct daemon *d)
{
	struct sleep_watch *s = &d->sleep;
	int r = sd_bus_open_system(&s->bus);

	if (r >= 0)
		r = sd_bus_attach_event(s->bus, d->event, SD_EVENT_PRIORITY_NORMAL);
	if (r >= 0)
		r = sd_bus_match_signal(s->bus, NULL, LOGIND_NAME, LOGIND_PATH, LOGIND_MANAGER,
					"PrepareForSleep", on_prepare_for_sleep, d);
	if (r >= 0)
		r = sd_bus_match_signal(s->bus, NULL, "org.freedesktop.DBus.Local", NULL,
					"org.freedesktop.DBus.Local", "Disconnected",
					on_disconnected, s);
	if (r < 0) {
		sd_bus_flush_close_unref(s->bus);
		s->bus = NULL;
		return r;
	}
	take_inhibitor(s);
	return 0;
}

void sleep_open(struct daemon *d, bool logind)
{
	struct sleep_watch *s = &d->sleep;
	int r;

	s->inhibit_fd = -1;
	take_clocks(s);
	if (sd_event_add_time(d->event, &s->wake_timeout, CLOCK_MONOTONIC, SCHEDULE_NEVER, 0,
			      on_wake_timeout, d) >= 0)
		sd_event_source_set_enabled(s->wake_timeout, SD_EVENT_OFF);
	if (!logind) {
		say_no_logind(s, "not asked (not on the system bus)");
		return;
	}
	if ((r = connect_logind(d)) < 0) {
		char why[128];

		snprintf(why, sizeof(why), "cannot connect to the system bus: %s", strerror(-r));
		say_no_logind(s, why);
	}
}

bool sleep_before_period(struct daemon *d)
{
	struct sleep_watch *s = &d->sleep;
	uint64_t slept_us;

	if (s->asleep)
		return false;
	slept_us = sleep_gap_check(&s->gap, clock_us(CLOCK_BOOTTIME), clock_us(CLOCK_MONOTONIC));
	if (slept_us)
		resume(d, slept_us, "clocks");
	return true;
}

/* What the resumed period wrote, for its line: "cpufreq-cpu0 state 3, intel-rapl:0 15000 mW". */
static void applied_text(const struct engine *e, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < e->n_actors && len < size; k++) {
		const struct actor *a = e->actors[k];
		int n;

		if (a->kind == ACTOR_POWERCAP)
			n = snprintf(buf + len, size - len, "%s%s %u mW", k ? ", " : "", a->name,
				     a->granted_mw);
		else
			n = snprintf(buf + len, size - len, "%s%s state %lu", k ? ", " : "", a->name,
				     a->state);
		len += n > 0 ? (size_t)n : 0;
	}
	if (!e->n_actors)
		snprintf(buf, size, "no actor");
}

void sleep_after_period(struct daemon *d)
{
	struct sleep_watch *s = &d->sleep;
	char applied[400], slept[40], by[40];
	const char *fields[] = { slept, by, NULL };

	if (!s->resumed)
		return;
	s->resumed = false;
	applied_text(&d->engine, applied, sizeof(applied));
	snprintf(slept, sizeof(slept), "SLEPT_MS=%llu",
		 (unsigned long long)(s->slept_us / USEC_PER_MSEC));
	snprintf(by, sizeof(by), "RESUME_SEEN_BY=%s", s->by);
	pa_log_fields(PA_LOG_NOTICE, fields, "resumed after %.1f s asleep (seen by %s): %zu of %zu "
		      "zones read afresh, derivatives, model blocks and CPU loads restarted; every "
		      "state written again: %s", s->slept_us / 1e6, s->by, s->zones_read,
		      d->engine.n_zones, applied);
}

void sleep_close(struct sleep_watch *s)
{
	drop_inhibitor(s);
	sd_bus_flush_close_unref(s->bus);
	s->bus = NULL;
	s->wake_timeout = sd_event_source_unref(s->wake_timeout);
}
