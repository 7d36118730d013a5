/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "journal.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>
#include <unistd.h>

#include "log_wrap.h"
#include "platform/log.h"

#define MAX_FIELDS 16
/* journald's socket: it exists only while journald runs. */
#define JOURNAL_SOCKET "/run/systemd/journal/socket"
/* For the tests only: another path stands for journald's socket (see journald_listens()). */
#define JOURNAL_SOCKET_ENV "POWERALLOCD_JOURNAL_SOCKET"
/* One line on stderr: a message (1024 bytes at most) and its fields. */
#define LINE_MAX_BYTES 2048

/* Resolved by journal_setup(): LOG_TARGET_JOURNAL or LOG_TARGET_STDERR, never AUTO. */
static enum log_target log_target = LOG_TARGET_STDERR;
/* stderr failed (its reader went away, its terminal hung up) and no journald listens. */
static bool dropped;
/* stderr is a terminal: a person reads it, and long lines are folded (log_wrap.h). */
static bool stderr_tty;
static int max_priority = PA_LOG_INFO;

/*
 * Whether journald runs: its socket is there.  sd_journal_sendv() cannot
 * tell: it returns 0 when the socket is missing and the message is lost.
 */
static bool journald_listens(void)
{
	const char *path = getenv(JOURNAL_SOCKET_ENV);
	struct stat st;

	return stat(path && *path ? path : JOURNAL_SOCKET, &st) == 0 && S_ISSOCK(st.st_mode);
}

/*
 * Whether systemd connected stderr to the journal (a service's default):
 * it then sets $JOURNAL_STREAM to stderr's "device:inode".  A terminal, a
 * pipe or a file that stderr was redirected to has another.
 */
static bool stderr_is_journal(void)
{
	const char *stream = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char extra;

	return stream && sscanf(stream, "%llu:%llu%c", &dev, &ino, &extra) == 2 &&
	       fstat(STDERR_FILENO, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
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

/* Writes all of @line (@len bytes) to stderr.  Return: 0 or negative errno. */
static int write_stderr(const char *line, size_t len)
{
	while (len > 0) {
		ssize_t n = write(STDERR_FILENO, line, len);

		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0) {
			line += n;
			len -= (size_t)n;
		}
	}
	return 0;
}

/*
 * stderr failed with @err (-EPIPE: the reader of its pipe went away; -EIO:
 * its terminal hung up): the rest goes to the journal where journald runs,
 * else nowhere.  A full pipe (-EAGAIN) loses one line only.
 */
static void stderr_failed(int err)
{
	char why[128];

	if (err == -EAGAIN)
		return;
	snprintf(why, sizeof(why), "stderr cannot be written (%s); logging to the journal",
		 strerror(-err));
	if (journald_listens()) {
		log_target = LOG_TARGET_JOURNAL;
		to_journal(PA_LOG_NOTICE, NULL, why);
	} else {
		dropped = true;
	}
}

/* "priority: message KEY=value ...", one line, written at once. */
static void to_stderr(int priority, const char *const *fields, const char *message)
{
	char line[LINE_MAX_BYTES];
	size_t len = 0;
	int r;

	len += (size_t)snprintf(line, sizeof(line) - 1, "%s: %s",
				pa_log_level_name(priority & 7), message);
	for (size_t i = 0; fields && fields[i] && len < sizeof(line) - 1; i++)
		len += (size_t)snprintf(line + len, sizeof(line) - 1 - len, " %s", fields[i]);
	len = len < sizeof(line) - 1 ? len : sizeof(line) - 2;	/* truncated */
	line[len] = '\0';
	if (stderr_tty) {
		char folded[LINE_MAX_BYTES * 2];
		struct winsize ws;
		unsigned int columns = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col ?
				       ws.ws_col : LOG_WRAP_DEFAULT_COLUMNS;

		len = log_wrap(line, columns, folded, sizeof(folded) - 1);
		folded[len++] = '\n';
		r = write_stderr(folded, len);
	} else {
		line[len++] = '\n';
		r = write_stderr(line, len);
	}
	if (r < 0)
		stderr_failed(r);
}

static void emit(int priority, const char *const *fields, const char *message)
{
	if (priority > max_priority)
		return;
	/* A message journald refuses (it never should) goes to stderr. */
	if (log_target == LOG_TARGET_JOURNAL && to_journal(priority, fields, message) >= 0)
		return;
	if (!dropped)
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
	bool journald = journald_listens();

	/* As systemd's own daemons decide: the journal where systemd connected stderr to it. */
	if (target == LOG_TARGET_AUTO)
		target = journald && stderr_is_journal() ? LOG_TARGET_JOURNAL : LOG_TARGET_STDERR;
	log_target = target == LOG_TARGET_JOURNAL && journald ? LOG_TARGET_JOURNAL
							       : LOG_TARGET_STDERR;
	dropped = false;
	stderr_tty = isatty(STDERR_FILENO);
	max_priority = priority;
	pa_log_set_handler(library_handler, NULL);
	if (target == LOG_TARGET_JOURNAL && !journald)
		pa_log(PA_LOG_NOTICE, "no journald (no %s): logging to stderr", JOURNAL_SOCKET);
}

void journal_set_level(int priority)
{
	max_priority = priority;
}

int journal_enabled(int priority)
{
	return priority <= max_priority;
}

void pa_log_zone(int priority, const struct zone *z, const char *fmt, ...)
{
	char zone[80], temp[40], budget[40];
	const char *fields[] = { zone, temp, budget, NULL };
	va_list ap;

	if (!journal_enabled(priority))
		return;
	snprintf(zone, sizeof(zone), "ZONE=%s", z->setup.name);
	snprintf(temp, sizeof(temp), "TEMPERATURE_MC=%d", z->sensing.temp_mc);
	snprintf(budget, sizeof(budget), "BUDGET_MW=%u", z->control.budget_mw);
	va_start(ap, fmt);
	pa_logv(priority, fields, fmt, ap);
	va_end(ap);
}

void journal_cycle(const struct zone *z)
{
	const struct pid_output *o = &z->control.pid_out;
	char f[8][80];
	const char *fields[9];

	if (!journal_enabled(PA_LOG_DEBUG))
		return;
	snprintf(f[0], sizeof(f[0]), "ZONE=%s", z->setup.name);
	snprintf(f[1], sizeof(f[1]), "TEMPERATURE_MC=%d", z->sensing.temp_mc);
	snprintf(f[2], sizeof(f[2]), "BUDGET_MW=%u", z->control.budget_mw);
	snprintf(f[3], sizeof(f[3]), "ERR_MC=%lld", (long long)o->err_mc);
	snprintf(f[4], sizeof(f[4]), "ERR_INTEGRAL=%lld", (long long)o->err_integral_mc);
	snprintf(f[5], sizeof(f[5]), "P_MW=%lld", (long long)o->p_mw);
	snprintf(f[6], sizeof(f[6]), "I_MW=%lld", (long long)o->i_mw);
	snprintf(f[7], sizeof(f[7]), "D_MW=%lld", (long long)o->d_mw);
	for (size_t i = 0; i < 8; i++)
		fields[i] = f[i];
	fields[8] = NULL;
	emit(PA_LOG_DEBUG, fields, z->control.active ? "period" : "period (below switch-on)");
	for (size_t i = 0; i < z->setup.n_actors; i++) {
		const struct actor *a = z->setup.actors[i];
		char g[7][80];
		const char *afields[8];

		snprintf(g[0], sizeof(g[0]), "ZONE=%s", z->setup.name);
		snprintf(g[1], sizeof(g[1]), "ACTOR=%s", a->name);
		snprintf(g[2], sizeof(g[2]), "REQUESTED_MW=%u", z->control.request_mw[i]);
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
