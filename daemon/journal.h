/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Where the daemon's log goes: journald with structured fields, or stderr
 * with the same fields as key=value (a shell, a container, an initramfs,
 * tests).  Messages are written with lib/platform/log.h's pa_log*(), the
 * library's and the daemon's alike; journal_setup() routes them here.
 */
#include <stdarg.h>

#include "engine/zone.h"

enum log_target {
	LOG_TARGET_AUTO,	/* journald where systemd connected stderr to it, else stderr */
	LOG_TARGET_JOURNAL,	/* journald where it runs, else stderr */
	LOG_TARGET_STDERR,
};

/**
 * journal_setup() - where to log and the most detailed priority (3..7).
 * journald runs when its socket is there; systemd connected stderr to it
 * when $JOURNAL_STREAM names stderr's device and inode.  When stderr fails
 * (a pipe whose reader is gone, a terminal that hung up) the rest goes to
 * journald where it runs, else nowhere.
 */
void journal_setup(enum log_target target, int max_priority);

/** journal_set_level() - change the most detailed priority (reload). */
void journal_set_level(int max_priority);

/** journal_enabled() - whether @priority is logged (skip costly formatting). */
int journal_enabled(int priority);

/** pa_log_zone() - pa_log_fields() of a state change of @z: ZONE=, TEMPERATURE_MC=, BUDGET_MW=. */
void pa_log_zone(int priority, const struct zone *z, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** journal_cycle() - the per-period debug record of @z and each of its actors. */
void journal_cycle(const struct zone *z);
