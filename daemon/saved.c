/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "saved.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

#define STATE_HEADER "# powerallocd state: sysfs files and the values to restore\n"

static const struct saved_entry *find(const struct saved *s, const char *path)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->entries[i].path, path) == 0)
			return &s->entries[i];
	return NULL;
}

/* Only plain sysfs paths and one-line values are kept. */
static bool acceptable(const char *path, const char *value)
{
	return strncmp(path, "/sys/", 5) == 0 && !strstr(path, "/../") &&
	       !strpbrk(path, "\t\n") && strlen(path) < SYSFS_PATH_MAX && *value &&
	       !strpbrk(value, "\t\n") && strlen(value) < SAVED_VALUE_MAX;
}

int saved_add(struct saved *s, const char *path, const char *value)
{
	if (!acceptable(path, value))
		return -EINVAL;
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
	s->n++;
	return 1;
}

struct merge {
	struct saved *s;
	size_t added;
};

static int merge_one(void *userdata, const char *path, const char *value)
{
	struct merge *m = userdata;
	int r = saved_add(m->s, path, value);

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

static int restore_if_new(void *userdata, const char *path, const char *value)
{
	const struct saved *s = userdata;
	int r;

	if (find(s, path))
		return 0;
	r = sysfs_write_str(path, value);
	if (r < 0)
		pa_log(PA_LOG_ERR, "%s: cannot restore \"%s\": %s", path, value, strerror(-r));
	return 0;
}

void saved_restore_new(const struct saved *s, const struct engine *e)
{
	engine_save(e, restore_if_new, (void *)s);
}

int saved_write(const struct saved *s, const char *path)
{
	char tmp[SYSFS_PATH_MAX + 8];
	FILE *f;
	int r = 0;

	snprintf(tmp, sizeof(tmp), "%s.new", path);
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	fputs(STATE_HEADER, f);
	for (size_t i = 0; i < s->n; i++)
		fprintf(f, "%s\t%s\n", s->entries[i].path, s->entries[i].value);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0)
		r = -errno;
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) != 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}

int saved_read(struct saved *s, const char *path)
{
	char line[SYSFS_PATH_MAX + SAVED_VALUE_MAX + 8];
	FILE *f = fopen(path, "re");
	unsigned int number = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t');
		int r;

		number++;
		if (line[0] == '#')
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (tab)
			*tab = '\0';
		r = tab ? saved_add(s, line, tab + 1) : -EINVAL;
		if (r == -ENOMEM) {
			fclose(f);
			return r;
		}
		if (r < 0)
			pa_log(PA_LOG_WARNING, "%s:%u: not \"sysfs path<TAB>value\"; line ignored", path,
			       number);
	}
	fclose(f);
	return 0;
}

size_t saved_restore(const struct saved *s)
{
	size_t failed = 0;

	for (size_t i = 0; i < s->n; i++) {
		int r = sysfs_write_str(s->entries[i].path, s->entries[i].value);

		if (r < 0) {
			pa_log(PA_LOG_ERR, "%s: cannot restore \"%s\": %s", s->entries[i].path,
			       s->entries[i].value, strerror(-r));
			failed++;
		}
	}
	return failed;
}

void saved_release_except(struct saved *s, const struct saved *keep)
{
	size_t kept = 0;

	for (size_t i = 0; i < s->n; i++) {
		const struct saved_entry *e = &s->entries[i];

		if (find(keep, e->path)) {
			s->entries[kept++] = *e;
			continue;
		}
		if (sysfs_write_str(e->path, e->value) < 0)
			pa_log(PA_LOG_ERR, "%s: cannot restore \"%s\"", e->path, e->value);
	}
	s->n = kept;
}

void saved_clear(struct saved *s)
{
	free(s->entries);
	memset(s, 0, sizeof(*s));
}
