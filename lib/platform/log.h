/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The one logging API of the library and the daemon.  The code says what
 * went wrong, once, with the file it concerns; where the words go is the
 * program's business: the daemon sends them to the journal or stderr
 * (daemon/journal.h), tests collect them.  Until a handler is set, messages
 * at or above the threshold go to stderr.
 */
#include <stdarg.h>

/*
 * Priorities are syslog's: 3 err, 4 warning, 5 notice, 6 info, 7 debug;
 * the configuration's log_level and --log-level name one of them.
 */
#define PA_LOG_ERR 3
#define PA_LOG_WARNING 4
#define PA_LOG_NOTICE 5
#define PA_LOG_INFO 6
#define PA_LOG_DEBUG 7

/** pa_log_level_name() - syslog's name of @priority ("err", "info", ...), "?" outside 0..7. */
const char *pa_log_level_name(int priority);

/**
 * pa_log_level_names() - the names of PA_LOG_ERR..PA_LOG_DEBUG as users
 * write them ("err" to "debug"), NULL-terminated: name i is priority
 * PA_LOG_ERR + i.
 */
const char *const *pa_log_level_names(void);

/*
 * @fields: structured fields of the message ("ZONE=cpu"), NULL-terminated,
 * or NULL; journald keeps them, stderr shows them as KEY=value.
 */
typedef void (*pa_log_handler)(void *userdata, int priority, const char *const *fields,
			       const char *message);

/** pa_log_set_handler() - route messages to @handler (NULL: back to stderr). */
void pa_log_set_handler(pa_log_handler handler, void *userdata);

/** pa_log_get_handler() - the handler set now (NULL: stderr) and its @userdata. */
void pa_log_get_handler(pa_log_handler *handler, void **userdata);

/**
 * pa_log_stderr() - the handler until another is set: @message and its
 * @fields on stderr, unless less important than pa_log_set_level()'s.
 */
void pa_log_stderr(void *userdata, int priority, const char *const *fields, const char *message);

/** pa_log_set_level() - drop messages less important than @priority (stderr only). */
void pa_log_set_level(int priority);

/** pa_log() - log one message (no trailing newline needed). */
void pa_log(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/** plural() - @one for a count of 1, else @many: "1 zone", "2 zones". */
static inline const char *plural(unsigned long long n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/** pa_log_fields() - log one message with structured @fields (NULL-terminated). */
void pa_log_fields(int priority, const char *const *fields, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** pa_logv() - pa_log_fields() with the arguments in @ap, for wrappers that add fields. */
void pa_logv(int priority, const char *const *fields, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/**
 * pa_log_errno() - log one error (PA_LOG_ERR) caused by @error, a negative
 * errno, and return @error: "return pa_log_errno(r, "%s: cannot read: %m",
 * path);".  %m in @fmt is strerror(-@error); errno is left as it was.
 */
int pa_log_errno(int error, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
