/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * powerallocd: the service.  The engine (lib/engine/engine.h) does the control;
 * this is the glue: sd-event timers and signals, netlink events, the state
 * file, journald, the trace, sd_notify.
 */
#include <stdbool.h>

#include "journal.h"

/* Exit codes, as powerallocd(8) lists them. */
#define EXIT_OK 0
#define EXIT_FAILURE_RUNTIME 1
#define EXIT_USAGE 2
#define EXIT_BAD_CONFIG 3
#define EXIT_RESTORE_INCOMPLETE 4
/* --check-config: no zone configured, and none that automatic configuration
 * controls (where --check-controllable gives EXIT_NOTHING_TO_CONTROL). */
#define EXIT_NOTHING_CONTROLLABLE 5
/* --check-controllable, for systemd's ExecCondition=: 1 to 254 skips the
 * unit, 255 fails it. */
#define EXIT_NOTHING_TO_CONTROL 1
#define EXIT_CONDITION_ERROR 255

/**
 * struct options - the command line.
 * @config_path: the config file; @config_given: it was named on the command
 *	line (then it must exist; the default may be absent).
 * @log_level: syslog priority, -1 for the config's.
 * @log_target: journald, stderr, or auto (journal.h says which it picks).
 * @trace_path: CSV trace, overriding the config's trace_file; NULL for none given.
 * @state_path: the state file.
 * @state_dir: where the zones' thermal models are kept; "" for nowhere.
 * @model_save_interval_s: how often they are saved while running, s (0:
 *	at stop and reload only).
 * @bus: "system" (default), "session" or "none".
 * @crashed_signal: with --restore, the fatal signal of the daemon that
 *	exec'd it (crash.c), 0 for none.
 */
struct options {
	const char *config_path;
	bool config_given;
	int log_level;
	enum log_target log_target;
	const char *trace_path;
	const char *state_path;
	const char *state_dir;
	unsigned int model_save_interval_s;
	const char *bus;
	int crashed_signal;
};

/** daemon_run() - run until SIGTERM/SIGINT, then restore.  Return: an exit code. */
int daemon_run(const struct options *opts);

/**
 * daemon_check_config() - parse, discover read-only and print.  Return:
 * EXIT_OK; EXIT_BAD_CONFIG when the file is unusable, a configured zone
 * cannot be controlled or a configured meter read; EXIT_NOTHING_CONTROLLABLE
 * when none is configured and automatic configuration controls none;
 * EXIT_FAILURE_RUNTIME when sysfs cannot be read.
 */
int daemon_check_config(const struct options *opts);

/**
 * daemon_check_controllable() - discover read-only as daemon_check_config()
 * does, saying only why zones are not controlled and the outcome.
 * Return: EXIT_OK when a zone is controllable, or zones are configured that
 * may yet appear; EXIT_NOTHING_TO_CONTROL when none is and none is
 * configured; EXIT_CONDITION_ERROR when the file is unusable, refuses every
 * configured zone (e->n_refused), or sysfs cannot be read.
 */
int daemon_check_controllable(const struct options *opts);

/** daemon_restore() - restore from the state file and remove it.  Return: an exit code. */
int daemon_restore(const struct options *opts);

/**
 * daemon_load_config() - the config at opts->config_path; the defaults when
 * it is the default path and does not exist.  Errors are printed.
 * Return: the config or NULL.
 */
struct pa_config *daemon_load_config(const struct options *opts);
