/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "log.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>

static pa_log_handler log_handler;
static void *log_userdata;
static int log_level = PA_LOG_INFO;

/* syslog's names, by priority; from "err" on, the names users write. */
static const char *const level_names[] = { "emerg", "alert", "crit", "err", "warning",
					   "notice", "info", "debug", NULL };

const char *pa_log_level_name(int priority)
{
	return priority >= 0 && priority <= PA_LOG_DEBUG ? level_names[priority] : "?";
}

const char *const *pa_log_level_names(void)
{
	return level_names + PA_LOG_ERR;
}

void pa_log_set_handler(pa_log_handler handler, void *userdata)
{
	log_handler = handler;
	log_userdata = userdata;
}

void pa_log_get_handler(pa_log_handler *handler, void **userdata)
{
	*handler = log_handler;
	*userdata = log_userdata;
}

void pa_log_set_level(int priority)
{
	log_level = priority;
}

void pa_log_stderr(void *userdata, int priority, const char *const *fields, const char *message)
{
	(void)userdata;
	if (priority > log_level)
		return;
	fprintf(stderr, "%s", message);
	for (size_t i = 0; fields && fields[i]; i++)
		fprintf(stderr, " %s", fields[i]);
	fputc('\n', stderr);
}

static void emit(int priority, const char *const *fields, const char *fmt, va_list ap)
{
	char message[1024];

	if (!log_handler && priority > log_level)
		return;	/* not even formatted */
	vsnprintf(message, sizeof(message), fmt, ap);
	if (log_handler)
		log_handler(log_userdata, priority, fields, message);
	else
		pa_log_stderr(NULL, priority, fields, message);
}

void pa_log(int priority, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(priority, NULL, fmt, ap);
	va_end(ap);
}

void pa_log_fields(int priority, const char *const *fields, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(priority, fields, fmt, ap);
	va_end(ap);
}

void pa_logv(int priority, const char *const *fields, const char *fmt, va_list ap)
{
	emit(priority, fields, fmt, ap);
}

int pa_log_errno(int error, const char *fmt, ...)
{
	const int saved_errno = errno;
	va_list ap;

	/* vsnprintf()'s %m is strerror(errno). */
	errno = error < 0 ? -error : error;
	va_start(ap, fmt);
	emit(PA_LOG_ERR, NULL, fmt, ap);
	va_end(ap);
	errno = saved_errno;
	return error;
}
