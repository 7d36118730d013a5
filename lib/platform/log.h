/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Logging from the library.  The library says what went wrong, once, with
 * the file it concerns; where the words go is the program's business: the
 * daemon sends them to the journal, tests collect them.  Until a handler is
 * set, messages at or above the threshold go to stderr.
 */
#include <stdarg.h>

/* Priorities are syslog's: 3 err, 4 warning, 5 notice, 6 info, 7 debug. */
#define PA_LOG_ERR 3
#define PA_LOG_WARNING 4
#define PA_LOG_NOTICE 5
#define PA_LOG_INFO 6
#define PA_LOG_DEBUG 7

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
