/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "journal.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>

#include "platform/log.h"

#define MAX_FIELDS 16

static enum log_target log_target = LOG_TARGET_AUTO;
static int max_priority = PA_LOG_INFO;

static const char *const priority_names[] = { "emerg", "alert", "crit", "err", "warning",
					       "notice", "info", "debug" };

static void to_stderr(int priority, const char *const *fields, const char *message)
{
	fprintf(stderr, "%s: %s", priority_names[priority & 7], message);
	for (size_t i = 0; fields && fields[i]; i++)
		fprintf(stderr, " %s", fields[i]);
	fputc('\n', stderr);
}

static int to_journal(int priority, const char *const *fields, const char *message)
{
	char msg[1100], prio[16];
	struct iovec iov[MAX_FIELDS + 3];
	size_t n = 0;

	snprintf(msg, sizeof(msg), "MESSAGE=%s", message);
	snprintf(prio, sizeof(prio), "PRIORITY=%d", priority);
	iov[n++] = (struct iovec){ msg, strlen(msg) };
	iov[n++] = (struct iovec){ prio, strlen(prio) };
	iov[n++] = (struct iovec){ (char *)"SYSLOG_IDENTIFIER=powerallocd", 29 };
	for (size_t i = 0; fields && fields[i] && n < MAX_FIELDS + 3; i++)
		iov[n++] = (struct iovec){ (char *)fields[i], strlen(fields[i]) };
	return sd_journal_sendv(iov, (int)n);
}

static void emit(int priority, const char *const *fields, const char *message)
{
	if (priority > max_priority)
		return;
	if (log_target != LOG_TARGET_STDERR) {
		int r = to_journal(priority, fields, message);

		if (r >= 0) {
			log_target = LOG_TARGET_JOURNAL;
			return;
		}
		if (log_target == LOG_TARGET_AUTO) {
			/* No journald listening: say so once, then stay on stderr. */
			log_target = LOG_TARGET_STDERR;
			to_stderr(PA_LOG_DEBUG > max_priority ? PA_LOG_NOTICE : PA_LOG_DEBUG,
				  NULL, "no journald; logging to stderr");
		}
	}
	to_stderr(priority, fields, message);
}

static void library_handler(void *userdata, int priority, const char *const *fields,
			    const char *message)
{
	(void)userdata;
	emit(priority, fields, message);
}

void journal_setup(enum log_target target, int priority)
{
	log_target = target;
	max_priority = priority;
	pa_log_set_handler(library_handler, NULL);
}

void journal_set_level(int priority)
{
	max_priority = priority;
}

int journal_enabled(int priority)
{
	return priority <= max_priority;
}

void journal_log(int priority, const char *const *fields, const char *fmt, ...)
{
	char message[1024];
	va_list ap;

	if (!journal_enabled(priority))
		return;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	emit(priority, fields, message);
}

void journal_zone(int priority, const struct zone *z, const char *fmt, ...)
{
	char message[1024], zone[80], temp[40], budget[40];
	const char *fields[] = { zone, temp, budget, NULL };
	va_list ap;

	if (!journal_enabled(priority))
		return;
	snprintf(zone, sizeof(zone), "ZONE=%s", z->name);
	snprintf(temp, sizeof(temp), "TEMPERATURE_MC=%d", z->temp_mc);
	snprintf(budget, sizeof(budget), "BUDGET_MW=%u", z->budget_mw);
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	emit(priority, fields, message);
}

void journal_cycle(const struct zone *z)
{
	const struct pid_output *o = &z->pid_out;
	char f[8][80];
	const char *fields[9];

	if (!journal_enabled(PA_LOG_DEBUG))
		return;
	snprintf(f[0], sizeof(f[0]), "ZONE=%s", z->name);
	snprintf(f[1], sizeof(f[1]), "TEMPERATURE_MC=%d", z->temp_mc);
	snprintf(f[2], sizeof(f[2]), "BUDGET_MW=%u", z->budget_mw);
	snprintf(f[3], sizeof(f[3]), "ERR_MC=%lld", (long long)o->err_mc);
	snprintf(f[4], sizeof(f[4]), "ERR_INTEGRAL=%lld", (long long)o->err_integral_mc);
	snprintf(f[5], sizeof(f[5]), "P_MW=%lld", (long long)o->p_mw);
	snprintf(f[6], sizeof(f[6]), "I_MW=%lld", (long long)o->i_mw);
	snprintf(f[7], sizeof(f[7]), "D_MW=%lld", (long long)o->d_mw);
	for (size_t i = 0; i < 8; i++)
		fields[i] = f[i];
	fields[8] = NULL;
	emit(PA_LOG_DEBUG, fields, z->active ? "period" : "period (below switch-on)");
	for (size_t i = 0; i < z->n_actors; i++) {
		const struct actor *a = z->actors[i];
		char g[7][80];
		const char *afields[8];

		snprintf(g[0], sizeof(g[0]), "ZONE=%s", z->name);
		snprintf(g[1], sizeof(g[1]), "ACTOR=%s", a->name);
		snprintf(g[2], sizeof(g[2]), "REQUESTED_MW=%u", z->request_mw[i]);
		snprintf(g[3], sizeof(g[3]), "GRANTED_MW=%u", a->granted_mw);
		snprintf(g[4], sizeof(g[4]), "STATE=%lu", a->state);
		snprintf(g[5], sizeof(g[5]), "FREQUENCY_KHZ=%u", a->freq_khz);
		snprintf(g[6], sizeof(g[6]), "LOAD=%u", a->load_pct);
		for (size_t k = 0; k < 7; k++)
			afields[k] = g[k];
		afields[7] = NULL;
		emit(PA_LOG_DEBUG, afields, "actor");
	}
}
