/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "build_log.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "platform/log.h"

/* Hashes of the messages of the previous build and of this one. */
static uint64_t said[2][BUILD_LOG_MAX];
static size_t n_said[2];
static int current;
static bool repeat_all;
static char first_error[1024];
static pa_log_handler outer_handler;
static void *outer_userdata;

/* FNV-1a, 64 bits: two different messages of one build hash alike next to never. */
static uint64_t hash(const char *s)
{
	uint64_t h = UINT64_C(14695981039346656037);

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
	return h;
}

static bool said_before(uint64_t h)
{
	const int previous = 1 - current;

	for (size_t i = 0; i < n_said[previous]; i++)
		if (said[previous][i] == h)
			return true;
	return false;
}

static void filter(void *userdata, int priority, const char *const *fields, const char *message)
{
	uint64_t h = hash(message);

	(void)userdata;
	if (priority <= PA_LOG_ERR && !first_error[0])
		snprintf(first_error, sizeof(first_error), "%s", message);
	if (n_said[current] < BUILD_LOG_MAX)
		said[current][n_said[current]++] = h;
	if (!repeat_all && said_before(h))
		return;
	(outer_handler ? outer_handler : pa_log_stderr)(outer_userdata, priority, fields, message);
}

void build_log_begin(bool repeat)
{
	current = 1 - current;
	n_said[current] = 0;
	repeat_all = repeat;
	first_error[0] = '\0';
	pa_log_get_handler(&outer_handler, &outer_userdata);
	pa_log_set_handler(filter, NULL);
}

void build_log_end(void)
{
	pa_log_set_handler(outer_handler, outer_userdata);
}

const char *build_log_first_error(void)
{
	return first_error;
}
