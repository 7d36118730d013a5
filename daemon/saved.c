/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "saved.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "control/external_write.h"
#include "platform/cpufreq_policy.h"
#include "platform/log.h"
#include "platform/parse.h"
#include "new_file.h"
#include "platform/thermal.h"

#define STATE_HEADER "# powerallocd state: sysfs files, the values to restore and the " \
	"values powerallocd last left there\n"

/*
 * The attributes powerallocd writes, and so the only ones it restores: '#'
 * stands for a number, '*' for one path component.  The actors' paths are
 * made in lib/ (cooling_state.c, actor_cpufreq_cap.c, actor_powercap.c,
 * engine.c); a file that is not here could be written but not restored, and
 * saved_add() refuses it.
 */
static const char *const written_attrs[] = {
	THERMAL_CLASS_DIR "/thermal_zone#/policy",
	THERMAL_CLASS_DIR "/cooling_device#/cur_state",
	CPUFREQ_DIR "/policy#/scaling_max_freq",
	POWERCAP_CLASS_DIR "/*/constraint_#_power_limit_uw",
};

/* Whether @path is @pattern: '#' one or more digits, '*' a component but "." and "..". */
static bool matches(const char *path, const char *pattern)
{
	for (; *pattern; pattern++) {
		size_t n = *path == *pattern;

		if (*pattern == '#') {
			n = strspn(path, "0123456789");
		} else if (*pattern == '*') {
			n = strcspn(path, "/");
			if (strncmp(path, "..", n) == 0)	/* "", "." or ".." */
				n = 0;
		}
		if (n == 0)
			return false;
		path += n;
	}
	return *path == '\0';
}

static bool written_by_powerallocd(const char *path)
{
	for (size_t i = 0; i < sizeof(written_attrs) / sizeof(written_attrs[0]); i++)
		if (matches(path, written_attrs[i]))
			return true;
	return false;
}

const char *saved_describe(const struct saved *s, char *buf, size_t size)
{
	/* written_attrs[]'s kinds, in its order: one, several. */
	static const char *const names[][2] = {
		{ "zone policy", "zone policies" },
		{ "cooling state", "cooling states" },
		{ "CPU frequency limit", "CPU frequency limits" },
		{ "powercap limit", "powercap limits" },
	};
	size_t count[sizeof(names) / sizeof(names[0])] = { 0 }, len = 0;

	for (size_t i = 0; i < s->n; i++)
		for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			count[k] += matches(s->entries[i].path, written_attrs[k]);
	buf[0] = '\0';
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]) && len < size; k++) {
		if (count[k])
			len += (size_t)snprintf(buf + len, size - len, "%s%zu %s", len ? ", " : "",
						count[k], names[k][count[k] != 1]);
	}
	return buf;
}

static const struct saved_entry *find(const struct saved *s, const char *path)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->entries[i].path, path) == 0)
			return &s->entries[i];
	return NULL;
}

static bool acceptable_value(const char *value)
{
	return *value && !strpbrk(value, "\t\n") && strlen(value) < SAVED_VALUE_MAX;
}

/* Only plain sysfs paths and one-line values are kept. */
static bool acceptable(const char *path, const char *value, const char *ours)
{
	return strncmp(path, "/sys/", 5) == 0 && !strstr(path, "/../") &&
	       !strpbrk(path, "\t\n") && strlen(path) < SYSFS_PATH_MAX &&
	       acceptable_value(value) && (!*ours || acceptable_value(ours));
}

int saved_add(struct saved *s, const char *path, const char *value)
{
	return saved_add_ours(s, path, value, "");
}

int saved_add_ours(struct saved *s, const char *path, const char *value, const char *ours)
{
	if (!acceptable(path, value, ours))
		return -EINVAL;
	if (!written_by_powerallocd(path))
		return -EPERM;
	if (find(s, path))
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 32;
		struct saved_entry *grown = realloc(s->entries, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		s->entries = grown;
		s->cap = cap;
	}
	snprintf(s->entries[s->n].path, sizeof(s->entries[0].path), "%s", path);
	snprintf(s->entries[s->n].value, sizeof(s->entries[0].value), "%s", value);
	snprintf(s->entries[s->n].ours, sizeof(s->entries[0].ours), "%s", ours);
	s->entries[s->n].ours_at = 0;	/* in the state file from its next write */
	s->n++;
	return 1;
}

struct merge {
	struct saved *s;
	size_t added;
};

static int merge_one(void *userdata, const char *path, const char *value, const char *ours)
{
	struct merge *m = userdata;
	int r = saved_add_ours(m->s, path, value, ours);

	if (r > 0)
		m->added++;
	return r < 0 ? r : 0;
}

int saved_merge_engine(struct saved *s, const struct engine *e, size_t *added)
{
	struct merge m = { .s = s };
	int r = engine_save(e, merge_one, &m);

	if (added)
		*added = m.added;
	return r;
}

/* The entry for @path, looked for from the cursor on (the order it was added in). */
static struct saved_entry *find_from_cursor(struct saved *s, const char *path)
{
	for (size_t k = 0; k < s->n; k++) {
		size_t i = (s->cursor + k) % s->n;

		if (strcmp(s->entries[i].path, path) == 0) {
			s->cursor = i + 1;
			return &s->entries[i];
		}
	}
	return NULL;
}

/* @ours as the state file's field: padded with spaces; blank (unknown) when too long. */
static void ours_field(char field[SAVED_OURS_WIDTH], const char *ours)
{
	size_t len = strlen(ours);

	memset(field, ' ', SAVED_OURS_WIDTH);
	if (len <= SAVED_OURS_WIDTH)
		memcpy(field, ours, len);
}

static int note_ours(void *userdata, const char *path, const char *value, const char *ours)
{
	struct saved *s = userdata;
	struct saved_entry *e = find_from_cursor(s, path);
	char field[SAVED_OURS_WIDTH];

	(void)value;
	if (!e || !acceptable_value(ours) || strcmp(e->ours, ours) == 0)
		return 0;
	snprintf(e->ours, sizeof(e->ours), "%s", ours);
	if (!s->state_open || !e->ours_at)
		return 0;
	ours_field(field, ours);
	if (pwrite(s->state_fd, field, sizeof(field), e->ours_at) != (ssize_t)sizeof(field) &&
	    !s->sync_failed) {
		s->sync_failed = true;
		pa_log(PA_LOG_WARNING, "cannot update the state file with the value written to %s: "
		       "%s; after a crash, --restore may write an original over another program's "
		       "value there", path, strerror(errno ? errno : EIO));
	}
	return 0;
}

void saved_note_ours(struct saved *s, const struct engine *e)
{
	engine_save(e, note_ours, s);
}

/* Writes @value back to @path; a failure is logged with both. */
static int put_back(const char *path, const char *value)
{
	int r = sysfs_write_str(path, value);

	if (r < 0)
		return pa_log_errno(r, "%s: cannot restore \"%s\": %m", path, value);
	return r;
}

/*
 * Whether @there, found in @e's file, is another writer's to leave: a number
 * by external_write_leaves() (a cooling state is deeper when higher, a
 * frequency or power limit when lower), a governor when it is neither ours
 * nor the original.
 */
static bool leaves(const struct saved_entry *e, const char *there)
{
	uint64_t there_v, ours_v, original_v;
	size_t len = strlen(e->path), tail = strlen("/cur_state");

	if (parse_u64(there, strlen(there), &there_v) < 0 ||
	    parse_u64(e->ours, strlen(e->ours), &ours_v) < 0 ||
	    parse_u64(e->value, strlen(e->value), &original_v) < 0)
		return strcmp(there, e->ours) != 0 && strcmp(there, e->value) != 0;
	return external_write_leaves(there_v, ours_v, original_v,
				     len > tail && strcmp(e->path + len - tail, "/cur_state") == 0);
}

/*
 * Writes @e's original back unless the file holds another writer's value
 * (leaves(); a file that cannot be read is written: the write says why).
 * Return: 0 written, 1 left, negative errno (logged).
 */
static int restore_entry(const struct saved_entry *e)
{
	char there[SAVED_VALUE_MAX];

	if (strcmp(e->ours, ACTOR_HANDED_OVER) == 0) {
		pa_log(PA_LOG_INFO, "%s: left to the kernel's governor (put back when its zone was "
		       "given up)", e->path);
		return 0;
	}
	if (e->ours[0] && sysfs_read_str(e->path, there, sizeof(there)) >= 0 && leaves(e, there)) {
		pa_log(PA_LOG_NOTICE, "%s: left \"%s\" as another writer set it (ours was \"%s\", "
		       "found at start \"%s\")", e->path, there, e->ours, e->value);
		return 1;
	}
	return put_back(e->path, e->value);
}

static int restore_if_new(void *userdata, const char *path, const char *value, const char *ours)
{
	const struct saved *s = userdata;

	(void)ours;
	if (!find(s, path))
		put_back(path, value);
	return 0;
}

void saved_restore_new(const struct saved *s, const struct engine *e)
{
	engine_save(e, restore_if_new, (void *)s);
}

/* Closes the state file kept open. */
static void close_state(struct saved *s)
{
	if (s->state_open)
		close(s->state_fd);
	s->state_open = false;
}

int saved_write(struct saved *s, const char *path)
{
	struct new_file nf;
	char field[SAVED_OURS_WIDTH];
	int r = new_file_open(&nf, path, 0600);

	close_state(s);
	if (r < 0)
		return r;
	fputs(STATE_HEADER, nf.file);
	for (size_t i = 0; i < s->n; i++) {
		struct saved_entry *e = &s->entries[i];

		fprintf(nf.file, "%s\t%s\t", e->path, e->value);
		e->ours_at = ftell(nf.file);
		ours_field(field, e->ours);
		fprintf(nf.file, "%.*s\n", SAVED_OURS_WIDTH, field);
	}
	if ((r = new_file_finish(&nf, path)) < 0)
		return r;
	/* Kept open: what each period writes is noted in place (saved_note_ours()). */
	s->state_fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	s->state_open = s->state_fd >= 0;
	s->sync_failed = false;
	return s->state_open ? 0 : -errno;
}

/* Adds the line @number of @path, @len bytes without its newline; logs a refusal. */
static int read_line(struct saved *s, const char *path, unsigned int number, char *line,
		     size_t len)
{
	char *tab = memchr(line, '\t', len);
	int r = -EINVAL;

	if (line[0] == '#')
		return 0;
	if (tab && !memchr(line, '\0', len)) {
		char *ours = strchr(tab + 1, '\t');
		size_t end;

		*tab = '\0';
		if (ours) {	/* the field as written, padded: an older file has none */
			*ours++ = '\0';
			end = strlen(ours);
			while (end && ours[end - 1] == ' ')
				ours[--end] = '\0';
		}
		r = saved_add_ours(s, line, tab + 1, ours ? ours : "");
	}
	if (r == -EPERM)
		pa_log(PA_LOG_WARNING, "%s:%u: %s is not a file powerallocd writes; refused", path,
		       number, line);
	else if (r == -EINVAL)
		pa_log(PA_LOG_WARNING, "%s:%u: not \"sysfs path<TAB>value\"; line ignored", path,
		       number);
	return r == -ENOMEM ? r : 0;
}

int saved_read(struct saved *s, const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t size = 0;
	ssize_t len;
	unsigned int number = 0;
	int r = 0;

	if (!f)
		return -errno;
	/* A line of any length is one entry. */
	while (r == 0 && (len = getline(&line, &size, f)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		r = read_line(s, path, ++number, line, (size_t)len);
	}
	if (r == 0 && ferror(f))
		r = -EIO;
	free(line);
	fclose(f);
	return r;
}

size_t saved_restore(struct saved *s)
{
	size_t failed = 0;
	int r;

	s->left = 0;
	for (size_t i = 0; i < s->n; i++) {
		if ((r = restore_entry(&s->entries[i])) < 0)
			s->entries[failed++] = s->entries[i];
		s->left += r > 0;
	}
	s->n = failed;
	return failed;
}

/* Adds to @s the entries of @previous whose files are there.  Return: how many. */
static size_t keep_existing(struct saved *s, const struct saved *previous)
{
	size_t kept = 0;

	/* A file that is gone went with its device: one that comes back starts afresh. */
	for (size_t i = 0; i < previous->n; i++) {
		const struct saved_entry *e = &previous->entries[i];

		if (sysfs_lexists(e->path) && saved_add_ours(s, e->path, e->value, e->ours) > 0)
			kept++;
	}
	return kept;
}

int saved_adopt(struct saved *s, const char *path)
{
	struct saved previous = { 0 };
	size_t found, kept;
	int r = saved_read(&previous, path);

	if (r == 0) {
		found = previous.n;
		saved_restore(&previous);
		kept = keep_existing(s, &previous);
		pa_log(PA_LOG_NOTICE, "found the state file of a previous run (%s): %zu originals "
		       "written back, %zu kept to restore at stop (could not be written), %zu "
		       "dropped (their files are gone)", path, found - previous.n, kept,
		       previous.n - kept);
	}
	saved_clear(&previous);
	return r == -ENOENT ? 0 : r;
}

void saved_release_except(struct saved *s, const struct saved *keep)
{
	size_t kept = 0;

	for (size_t i = 0; i < s->n; i++) {
		const struct saved_entry *e = &s->entries[i];

		if (find(keep, e->path))
			s->entries[kept++] = *e;
		else
			restore_entry(e);
	}
	s->n = kept;
}

void saved_clear(struct saved *s)
{
	close_state(s);
	free(s->entries);
	memset(s, 0, sizeof(*s));
}
