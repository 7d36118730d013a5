/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sensor.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "control/time_units.h"

#define NSEC_PER_USEC 1000

/*
 * struct sensor_reader - the thread that reads a slow sensor.
 * @attr: the sensor, the thread's own.
 * @users: the inputs that read it (the loop's side only).
 * @next: the next reader of the process (the loop's side only).
 * Under @lock, signalled on @changed: what it read last, @temp_mc and
 * @error (0 or negative errno), when that read ended (@done_us, monotonic),
 * the longest any read took (@slowest_us), how often to read (@period_us);
 * @stopping: asked to end; @exited: it ended; @orphaned: nobody waits for
 * it any more, it frees itself.
 */
struct sensor_reader {
	pthread_t thread;
	struct sysfs_attr attr;
	unsigned int users;
	struct sensor_reader *next;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	int64_t temp_mc;
	int error;
	uint64_t done_us;
	uint64_t slowest_us;
	uint64_t period_us;
	bool stopping;
	bool exited;
	bool orphaned;
};

/* Every running reader, for a rebuilt engine's zones to take over. */
static struct sensor_reader *readers;

static uint64_t monotonic_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * USEC_PER_SEC + (uint64_t)ts.tv_nsec / NSEC_PER_USEC;
}

static struct timespec timespec_of_us(uint64_t us)
{
	return (struct timespec){ .tv_sec = (time_t)(us / USEC_PER_SEC),
				  .tv_nsec = (long)(us % USEC_PER_SEC * NSEC_PER_USEC) };
}

static void reader_free(struct sensor_reader *r)
{
	sysfs_attr_close(&r->attr);
	pthread_cond_destroy(&r->changed);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

/* Under r->lock: one reading that began at @start_us. */
static void publish(struct sensor_reader *r, int64_t temp_mc, int error, uint64_t start_us)
{
	uint64_t done_us = monotonic_us();

	r->temp_mc = temp_mc;
	r->error = error;
	r->done_us = done_us;
	if (done_us - start_us > r->slowest_us)
		r->slowest_us = done_us - start_us;
}

/*
 * Reads the sensor every period (at once after a read longer than that) and
 * publishes each reading, until asked to stop; the lock is held only to
 * publish and to wait.
 */
static void *reader_run(void *arg)
{
	struct sensor_reader *r = arg;
	bool orphaned;

	for (;;) {
		uint64_t start_us = monotonic_us();
		int64_t temp = 0;
		int error = sysfs_attr_read_s64(&r->attr, &temp);
		struct timespec next;

		pthread_mutex_lock(&r->lock);
		publish(r, temp, error, start_us);
		next = timespec_of_us(start_us + r->period_us);
		while (!r->stopping && pthread_cond_timedwait(&r->changed, &r->lock, &next) == 0)
			;
		if (r->stopping)
			break;	/* with the lock */
		pthread_mutex_unlock(&r->lock);
	}
	r->exited = true;
	orphaned = r->orphaned;
	pthread_cond_broadcast(&r->changed);
	pthread_mutex_unlock(&r->lock);
	if (orphaned)
		reader_free(r);	/* nobody else holds it any more */
	return NULL;
}

/*
 * The lock, the condition (on the monotonic clock) and the thread of @r,
 * with every signal blocked: they are the loop's to take.
 */
static int reader_init(struct sensor_reader *r)
{
	pthread_condattr_t attr;
	sigset_t all, old;
	int e;

	pthread_mutex_init(&r->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	e = pthread_cond_init(&r->changed, &attr);
	pthread_condattr_destroy(&attr);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (e == 0 && (e = pthread_create(&r->thread, NULL, reader_run, r)) != 0)
		pthread_cond_destroy(&r->changed);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e)
		pthread_mutex_destroy(&r->lock);
	return e;
}

/*
 * @in, read by the zone @zone every @period_ms, took @read_us for the
 * reading (@temp_mc, @error) that ended at @done_us: log it once, and hand
 * the sensor to a reader that starts with that reading.  Without one
 * (logged), it stays on the loop.
 */
static void start_reader(struct sensor_input *in, const char *zone, uint32_t period_ms,
			 int64_t temp_mc, int error, uint64_t done_us, uint64_t read_us)
{
	char field[80];
	const char *fields[] = { field, NULL };
	struct sensor_reader *r;
	int e = ENOMEM;

	in->slow = true;
	snprintf(field, sizeof(field), "ZONE=%s", zone);
	pa_log_fields(PA_LOG_WARNING, fields, "zone %s: %s took %llu ms to read; reading it off "
		      "the control loop from now on", zone, in->attr.path,
		      (unsigned long long)(read_us / USEC_PER_MSEC));
	r = calloc(1, sizeof(*r));
	if (r) {
		*r = (struct sensor_reader){ .attr = in->attr, .users = 1, .next = readers,
					     .temp_mc = temp_mc, .error = error,
					     .done_us = done_us, .slowest_us = read_us,
					     .period_us = period_ms * USEC_PER_MSEC };
		e = reader_init(r);
	}
	if (e) {
		pa_log_fields(PA_LOG_ERR, fields, "zone %s: cannot start a reader for %s: %s; it "
			      "stays on the control loop", zone, in->attr.path, strerror(e));
		free(r);
		return;
	}
	readers = r;
	in->attr.fd = -1;	/* the reader's now; the path stays for messages */
	in->reader = r;
}

/* The reader's latest reading; -ETIME when it is too old. */
static int latest(const struct sensor_input *in, int64_t *temp_mc)
{
	struct sensor_reader *r = in->reader;
	uint64_t now_us = monotonic_us(), too_old_us;
	int error;

	pthread_mutex_lock(&r->lock);
	*temp_mc = r->temp_mc;
	error = r->error;
	/* One read that took seconds must not make a stuck sensor trusted for ever. */
	too_old_us = r->done_us + 2 * (r->slowest_us < SENSOR_STOP_MS * USEC_PER_MSEC ?
				       r->slowest_us : SENSOR_STOP_MS * USEC_PER_MSEC) +
		     SENSOR_STALE_PERIODS * r->period_us;
	pthread_mutex_unlock(&r->lock);
	return now_us > too_old_us ? -ETIME : error;
}

int sensor_open(struct sensor_input *in, const char *path)
{
	int r = sysfs_attr_open(&in->attr, path, false);

	in->reader = NULL;
	in->slow = false;
	for (struct sensor_reader *reader = readers; r == 0 && reader; reader = reader->next) {
		if (!sysfs_attr_same_file(&reader->attr, &in->attr))
			continue;
		reader->users++;
		sysfs_attr_close(&in->attr);
		in->reader = reader;
		in->slow = true;
		break;
	}
	return r;
}

void sensor_start(struct sensor_input *in, const char *zone, uint32_t period_ms)
{
	struct sensor_reader *r = in->reader;
	int64_t temp_mc;

	if (!r) {
		sensor_read_mc(in, zone, period_ms, &temp_mc);
		return;
	}
	pthread_mutex_lock(&r->lock);
	r->period_us = period_ms * USEC_PER_MSEC;
	pthread_mutex_unlock(&r->lock);
}

int sensor_read_mc(struct sensor_input *in, const char *zone, uint32_t period_ms,
		   int64_t *temp_mc)
{
	uint64_t start_us, done_us;
	int r;

	if (in->reader)
		return latest(in, temp_mc);
	start_us = monotonic_us();
	r = sysfs_attr_read_s64(&in->attr, temp_mc);
	done_us = monotonic_us();
	if (!in->slow && done_us - start_us >= SENSOR_SLOW_MS * USEC_PER_MSEC)
		start_reader(in, zone, period_ms, *temp_mc, r, done_us, done_us - start_us);
	return r;
}

/* Stops @r, or leaves it to free itself when its read does not end in time. */
static void reader_stop(struct sensor_reader *r)
{
	struct timespec deadline = timespec_of_us(monotonic_us() + SENSOR_STOP_MS * USEC_PER_MSEC);
	pthread_t thread = r->thread;
	char path[SYSFS_PATH_MAX];
	bool exited;

	snprintf(path, sizeof(path), "%s", r->attr.path);
	pthread_mutex_lock(&r->lock);
	r->stopping = true;
	pthread_cond_broadcast(&r->changed);
	while (!r->exited && pthread_cond_timedwait(&r->changed, &r->lock, &deadline) == 0)
		;
	exited = r->exited;
	r->orphaned = !exited;
	pthread_mutex_unlock(&r->lock);
	if (exited) {
		pthread_join(thread, NULL);
		reader_free(r);
		return;
	}
	pthread_detach(thread);	/* r may be gone already: it is the thread's */
	pa_log(PA_LOG_WARNING, "%s: still in a read after %d ms; its reader is left to end on its "
	       "own", path, SENSOR_STOP_MS);
}

void sensor_close(struct sensor_input *in)
{
	struct sensor_reader *r = in->reader, **link = &readers;

	in->reader = NULL;
	sysfs_attr_close(&in->attr);
	if (!r || --r->users > 0)
		return;
	while (*link != r)
		link = &(*link)->next;
	*link = r->next;
	reader_stop(r);
}
