/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Suspend and resume.  With logind on the system bus the daemon holds a
 * delay inhibitor: on PrepareForSleep(true) it saves the thermal models,
 * stops its periods and lets go of the inhibitor; on PrepareForSleep(false)
 * it takes a new one and resumes.  Without logind (or besides it) a growth
 * of CLOCK_BOOTTIME - CLOCK_MONOTONIC between periods says that the machine
 * slept (lib/control/sleep_gap.h).  Either way a resume reads every zone
 * afresh, forgets what the gap corrupts (engine_resume()), writes every
 * actor's state again in the next period, changed or not (firmware may
 * have reset the limits), and says so in one line.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "control/sleep_gap.h"

/*
 * Monotonic time after PrepareForSleep(true) at which the daemon resumes
 * control even without PrepareForSleep(false), s: CLOCK_MONOTONIC stands
 * still while the machine sleeps, so this much of it is time awake
 * (logind lost, a suspend that failed unsaid).  logind's own delay is at
 * most InhibitDelayMaxSec, 5 s by default.
 */
#define SLEEP_WAKE_TIMEOUT_S 60

struct daemon;

/**
 * struct sleep_watch - the daemon's view of suspend and resume.
 * @bus: its own connection to the system bus for logind, NULL without.
 * @inhibit_fd: the delay inhibitor logind handed out, -1 when none is held.
 * @asleep: logind said the machine goes to sleep: no period runs until it
 *	says the machine woke (or SLEEP_WAKE_TIMEOUT_S pass awake).
 * @wake_timeout: that timeout.
 * @gap: the clocks at the last period, or at PrepareForSleep(true).
 * @said_no_logind: the daemon said that it runs without logind.
 * @resumed: a resume whose line is due after the next period.
 * @slept_us, @by, @zones_read: how long the machine slept (µs), what said
 *	so, and how many zones read afresh, for that line.
 */
struct sleep_watch {
	sd_bus *bus;
	int inhibit_fd;
	bool asleep;
	sd_event_source *wake_timeout;
	struct sleep_gap gap;
	bool said_no_logind;
	bool resumed;
	uint64_t slept_us;
	const char *by;
	size_t zones_read;
};

/**
 * sleep_open() - start watching: the clocks always; logind when @logind
 * (the daemon is on the system bus): subscribe to PrepareForSleep and take
 * a delay inhibitor.  Without logind (no bus, logind absent, the inhibitor
 * refused) it says so once, at info level, and goes on with the clocks.
 */
void sleep_open(struct daemon *d, bool logind);

/**
 * sleep_before_period() - at the start of each tick: false while asleep
 * (no period runs); else, when the clocks say that the machine slept since
 * the last period, the resume (engine_resume(), every zone due now).
 */
bool sleep_before_period(struct daemon *d);

/** sleep_after_period() - after each tick's period: a resume's one line, once. */
void sleep_after_period(struct daemon *d);

/** sleep_close() - drop the inhibitor, the connection and the timer. */
void sleep_close(struct sleep_watch *s);
