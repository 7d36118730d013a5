/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * What building the engine says, said once: a rescan that finds the same
 * problem again (a configured device still missing, a zone still refused,
 * every 5 s while the daemon looks for them) does not repeat its message;
 * a message that changed, or one the previous build did not say, is said.
 * The first error of a build is kept, for the answer to a rejected reload.
 */
#include <stdbool.h>

/* Messages of one build remembered; more are said again at the next build. */
#define BUILD_LOG_MAX 1024

/**
 * build_log_begin() - route the library's messages through the filter
 * until build_log_end().  @repeat: say every message, even those the
 * previous build said (at start and on a reload, which a person asked for).
 */
void build_log_begin(bool repeat);

/** build_log_end() - back to the journal directly; this build's messages become the previous. */
void build_log_end(void);

/** build_log_first_error() - the first error-priority message of the last build, "" for none. */
const char *build_log_first_error(void);
