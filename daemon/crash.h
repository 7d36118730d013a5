/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * A fault of the daemon's own ends it with every limit restored: the
 * process is replaced by powerallocd --restore (crash.c).
 */
#include "journal.h"

/**
 * crash_restore_setup() - from now on, a SIGSEGV, SIGBUS, SIGILL, SIGFPE
 * or SIGABRT the process raises itself (a bug, or a library's: libconfig
 * 1.5's parser dereferences an allocation that failed) says so on stderr
 * and execs "powerallocd --restore --crashed SIG" on @state_path, logging
 * to @target: the limits go back, the state file goes, and the restore
 * then ends by that signal, as the crash would have (systemd sees the
 * crash and restarts the unit).  The same signals sent by another process
 * (kill(1)) end the daemon as before, for ExecStopPost= to clean up.
 * Return: 0 or negative errno.
 */
int crash_restore_setup(const char *state_path, enum log_target target);

/**
 * crash_end() - what --restore --crashed SIG does once it restored: end by
 * @signo with its default action, without a core dump (the crash's own is
 * gone with its image, and one of the restore tells nothing).
 */
void crash_end(int signo);
