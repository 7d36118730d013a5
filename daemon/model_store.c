/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The zones' thermal models kept between runs (model_store.h). */
#include "model_store.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/log.h"
#include "engine/model_record.h"
#include "control/model_tuning.h"
#include "new_file.h"
#include "control/time_units.h"

/* Whether a zone of @e before @z has @z's name (then @z's file is named by its thermal zone too). */
static bool name_taken(const struct engine *e, const struct zone *z)
{
	for (const struct zone *o = e->zones; o < z; o++)
		if (strcmp(o->setup.name, z->setup.name) == 0)
			return true;
	return false;
}

/* The file of @z's model, in @path (PATH_MAX bytes).  Return: 0 or -ENAMETOOLONG. */
static int zone_path(const struct model_store *s, const struct engine *e, const struct zone *z,
		     char *path)
{
	char key[sizeof(z->setup.name) + 32], name[NAME_MAX + 1];
	int n;

	snprintf(key, sizeof(key), name_taken(e, z) ? "%s@thermal_zone%d" : "%s", z->setup.name,
		 z->setup.tz_id);
	if (model_record_file_name(key, name, sizeof(name)) < 0)
		return -ENAMETOOLONG;
	n = snprintf(path, PATH_MAX, "%s/%s", s->dir, name);
	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

static int on_save_timer(sd_event_source *src, uint64_t usec, void *userdata)
{
	struct model_store *s = userdata;

	model_store_save(s, s->engine, NULL);
	sd_event_source_set_time(src, usec + s->interval_us);
	return sd_event_source_set_enabled(src, SD_EVENT_ONESHOT);
}

void model_store_open(struct model_store *s, const char *dir, sd_event *event,
		      const struct engine *engine, unsigned int interval_s)
{
	struct stat st;
	uint64_t now = 0;
	int r = 0;

	memset(s, 0, sizeof(*s));
	s->engine = engine;
	if (!*dir) {
		pa_log(PA_LOG_INFO, "no state directory: the thermal models are learnt "
		       "anew at every start");
		return;
	}
	if (strlen(dir) + 1 + NAME_MAX >= sizeof(s->dir))
		r = -ENAMETOOLONG;
	else if (stat(dir, &st) < 0)
		r = -errno;
	else if (!S_ISDIR(st.st_mode))
		r = -ENOTDIR;
	else if (access(dir, W_OK | X_OK) < 0)
		r = -errno;
	if (r < 0) {
		pa_log(PA_LOG_NOTICE, "%s: %s; the thermal models are not kept: they are "
		       "learnt anew at every start (see --state-directory)", dir, strerror(-r));
		return;
	}
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	s->interval_us = (uint64_t)interval_s * USEC_PER_SEC;
	if (interval_s && sd_event_now(event, CLOCK_MONOTONIC, &now) >= 0 &&
	    sd_event_add_time(event, &s->timer, CLOCK_MONOTONIC, now + s->interval_us, 0,
			      on_save_timer, s) < 0)
		pa_log(PA_LOG_WARNING, "cannot start the timer that saves the thermal models; they "
		       "are saved at stop and reload only");
}

/*
 * The file at @path, up to @size - 1 bytes, NUL-terminated.
 * Return: its length, or negative errno.
 */
static int read_text(const char *path, char *text, size_t size)
{
	/* Not through a link; a FIFO planted there does not block the open. */
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK), r = 0;
	struct stat st;
	size_t len = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode))
		r = -EINVAL;
	else if ((uint64_t)st.st_size >= size)
		r = -EFBIG;
	while (r == 0 && len < size - 1) {
		ssize_t n = read(fd, text + len, size - 1 - len);

		if (n == 0)
			break;
		if (n > 0)
			len += (size_t)n;
		else if (errno != EINTR)
			r = -errno;
	}
	close(fd);
	text[len] = '\0';
	return r < 0 ? r : (int)len;
}

/* One line about @z's model, with its ZONE= field. */
__attribute__((format(printf, 3, 4)))
static void say(int priority, const struct zone *z, const char *fmt, ...)
{
	char field[sizeof(z->setup.name) + 8], text[PATH_MAX + 256];
	const char *fields[] = { field, NULL };
	va_list ap;

	snprintf(field, sizeof(field), "ZONE=%s", z->setup.name);
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	pa_log_fields(priority, fields, "zone %s: %s", z->setup.name, text);
}

/* The saved model of @z is of no use: removed, said at @priority with @why. */
static void discard_as(int priority, const char *path, const struct zone *z, const char *what,
		       const char *why)
{
	unlink(path);
	say(priority, z, "%s %s discarded (%s); learning anew", what, path, why);
}

static void discard(const char *path, const struct zone *z, const char *what, const char *why)
{
	discard_as(PA_LOG_NOTICE, path, z, what, why);
}

/* @z's model from @rec, saved at @path, when it is worth resuming; else discarded. */
static void resume_record(struct zone *z, const char *path, const struct model_record *rec)
{
	char why[96];
	double confidence;
	int r = model_record_resume(&z->learning.model, rec, &confidence);

	if (r == -EINVAL) {
		discard(path, z, "the corrupt thermal model", "values out of range");
	} else if (r < 0) {
		/* Not a fault: a run too short to learn; at info level. */
		snprintf(why, sizeof(why), "confidence %.3f, under the %.2f at which it would be "
			 "used", confidence, MODEL_TUNING_ENGAGE);
		discard_as(PA_LOG_INFO, path, z, "the thermal model", why);
	} else {
		say(PA_LOG_NOTICE, z, "resumed the thermal model saved in %s: sustainable power %u "
		    "mW, time constant %.0f s, confidence %.2f", path,
		    thermal_model_sustainable_mw(&z->learning.model), z->learning.model.est.time_constant_s,
		    z->learning.model.est.confidence);
	}
}

/* A record that fits @z: its actors' calibrations, whatever its model's confidence, and its model. */
static void resume_fitting(struct zone *z, const char *path, const struct model_record *rec)
{
	size_t n = model_record_resume_scales(z, rec);

	if (n)
		say(PA_LOG_INFO, z, "resumed the power calibration of %zu %s saved in %s", n,
		    n == 1 ? "actor" : "actors", path);
	resume_record(z, path, rec);
}

/* The model saved at @path for @z, when it fits. */
static void resume_zone(struct zone *z, const char *path)
{
	struct model_record rec;
	char text[MODEL_RECORD_TEXT_MAX];
	struct model_fingerprint now;
	char why[128];
	const char *differs;
	int r = read_text(path, text, sizeof(text));

	if (r == -ENOENT)
		return;
	if (r == -EFBIG || r == -EINVAL || r == -ELOOP) {
		discard(path, z, "the thermal model", r == -EFBIG ? "too long" : "not a regular file");
		return;
	}
	if (r < 0) {
		say(PA_LOG_WARNING, z, "cannot read the thermal model %s: %s; learning anew", path,
		    strerror(-r));
		return;
	}
	if (strlen(text) != (size_t)r) {
		discard(path, z, "the corrupt thermal model", "not text");
		return;
	}
	r = model_record_parse(text, &rec, why, sizeof(why));
	model_fingerprint_of(z, &now);
	if (r == -EPROTONOSUPPORT)
		discard(path, z, "the thermal model", why);
	else if (r < 0)
		discard(path, z, "the corrupt thermal model", why);
	else if ((differs = model_fingerprint_differs(&rec.fp, &now)))
		discard(path, z, "the thermal model", differs);
	else
		resume_fitting(z, path, &rec);
}

void model_store_resume(struct model_store *s, struct engine *e)
{
	char path[PATH_MAX];

	if (!s->dir[0])
		return;
	for (size_t i = 0; i < e->n_zones; i++) {
		struct zone *z = &e->zones[i];

		if (z->learning.model.state.updates == 0 && zone_path(s, e, z, path) == 0)
			resume_zone(z, path);
	}
}

/* Writes @z's model to @path.  Return: 0 or negative errno. */
static int save_zone(const struct zone *z, const char *path)
{
	struct model_record rec;
	char text[MODEL_RECORD_TEXT_MAX];
	struct new_file nf;
	int len, r;

	model_record_of(z, &rec);
	len = model_record_format(&rec, z->setup.name, text, sizeof(text));
	if (len < 0)
		return len;
	if ((r = new_file_open(&nf, path, 0600)) < 0)
		return r;
	fwrite(text, 1, (size_t)len, nf.file);
	return new_file_finish(&nf, path);
}

/*
 * Whether @next carries @z's model on: its zone has the model's blocks
 * (a model built anew has none before its first period).
 */
static bool carried_on(const struct zone *z, const struct engine *next)
{
	long k = next ? engine_zone_index(next, z) : -1;

	return k >= 0 && next->zones[k].learning.model.state.updates == z->learning.model.state.updates;
}

void model_store_save(struct model_store *s, const struct engine *e, const struct engine *next)
{
	char path[PATH_MAX];
	bool failed = false;

	if (!s->dir[0])
		return;
	for (size_t i = 0; i < e->n_zones; i++) {
		const struct zone *z = &e->zones[i];
		int r;

		/* A model that learnt nothing leaves what an earlier run saved. */
		if (z->learning.model.state.updates == 0 || carried_on(z, next))
			continue;
		r = zone_path(s, e, z, path);
		if (r == 0)
			r = save_zone(z, path);
		if (r < 0 && !s->save_failed && !failed)
			say(PA_LOG_WARNING, z, "cannot save its thermal model in %s: %s; it will be "
			    "learnt anew at the next start", s->dir, strerror(-r));
		failed |= r < 0;
	}
	s->save_failed = failed;
}

void model_store_close(struct model_store *s)
{
	if (s->engine)
		model_store_save(s, s->engine, NULL);
	s->timer = sd_event_source_unref(s->timer);
}
