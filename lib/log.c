/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "log.h"

#include <stdio.h>

static pa_log_handler log_handler;
static void *log_userdata;
static int log_level = PA_LOG_INFO;

void pa_log_set_handler(pa_log_handler handler, void *userdata)
{
	log_handler = handler;
	log_userdata = userdata;
}

void pa_log_set_level(int priority)
{
	log_level = priority;
}

void pa_log(int priority, const char *fmt, ...)
{
	char message[1024];
	va_list ap;

	if (!log_handler && priority > log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	if (log_handler)
		log_handler(log_userdata, priority, message);
	else
		fprintf(stderr, "%s\n", message);
}
