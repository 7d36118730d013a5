/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "log.h"

#include <stddef.h>
#include <stdio.h>

static pa_log_handler log_handler;
static void *log_userdata;
static int log_level = PA_LOG_INFO;

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

static void emit(int priority, const char *const *fields, const char *fmt, va_list ap)
{
	char message[1024];

	if (!log_handler && priority > log_level)
		return;
	vsnprintf(message, sizeof(message), fmt, ap);
	if (log_handler) {
		log_handler(log_userdata, priority, fields, message);
		return;
	}
	fprintf(stderr, "%s", message);
	for (size_t i = 0; fields && fields[i]; i++)
		fprintf(stderr, " %s", fields[i]);
	fputc('\n', stderr);
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
