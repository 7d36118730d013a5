/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The text libconfig parses: the config file with each @include replaced by
 * the file it names, all read here and parsed from memory.  libconfig 1.5's
 * scanner reads files itself and exits the process on a read error (flex's
 * YY_FATAL_ERROR: "input in flex scanner failed"), which a directory, a
 * FIFO, a device or a failing disk gives; and it has no hook for includes
 * (config_set_include_func is 1.7's).  So every file is read through
 * lib/platform (a regular file, at most PA_CONFIG_MAX_BYTES), and a map
 * from the text's lines back to each file's keeps errors naming the file
 * and line they are in.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "config_keys.h"
#include "platform/sysfs.h"

/* A run of the text's lines from @first on, lines @line on of file @file. */
struct cfg_span {
	unsigned int first;
	unsigned int file;
	unsigned int line;
};

/* Grows @*array of @*n (capacity @*cap) elements of @size by one; NULL when out of memory. */
static void *grow(void **array, size_t *n, size_t *cap, size_t size)
{
	if (*n == *cap) {
		size_t more = *cap ? *cap * 2 : 16;
		void *p = realloc(*array, more * size);

		if (!p)
			return NULL;
		*array = p;
		*cap = more;
	}
	return (char *)*array + (*n)++ * size;
}

/* Starts a span: the text's current line is @line of file @file. */
static int add_span(struct cfg_source *s, unsigned int file, unsigned int line)
{
	struct cfg_span *sp;

	if (s->n_spans && s->spans[s->n_spans - 1].first == s->line)
		s->n_spans--;	/* nothing of the last span made it to the text */
	sp = grow((void **)&s->spans, &s->n_spans, &s->spans_cap, sizeof(*sp));
	if (!sp)
		return -ENOMEM;
	*sp = (struct cfg_span){ s->line, file, line };
	return 0;
}

static int add_text(struct cfg_source *s, const char *text, size_t len)
{
	char *p;

	if (s->len + len > PA_CONFIG_MAX_BYTES)
		return -EFBIG;
	if (s->len + len + 1 > s->cap) {
		size_t cap = (s->len + len + 1) * 2;

		if (!(p = realloc(s->text, cap)))
			return -ENOMEM;
		s->text = p;
		s->cap = cap;
	}
	memcpy(s->text + s->len, text, len);
	s->len += len;
	s->text[s->len] = '\0';
	for (size_t i = 0; i < len; i++)
		s->line += text[i] == '\n';
	return 0;
}

void cfg_source_where(const struct cfg_source *s, unsigned int line, const char **file,
		      unsigned int *file_line)
{
	size_t i = s->n_spans;

	while (i > 1 && s->spans[i - 1].first > line)
		i--;
	if (!i || line == 0) {
		*file = s->n_files ? s->files[0] : "";
		*file_line = line;
		return;
	}
	*file = s->files[s->spans[i - 1].file];
	*file_line = s->spans[i - 1].line + (line - s->spans[i - 1].first);
}

void cfg_source_free(struct cfg_source *s)
{
	for (size_t i = 0; i < s->n_files; i++)
		free(s->files[i]);
	free(s->files);
	free(s->spans);
	free(s->text);
	memset(s, 0, sizeof(*s));
}

/* Records in @err the error @message at @line of @file (0: the file as a whole). */
static int fail(struct pa_config_error *err, const char *file, unsigned int line, int r,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int fail(struct pa_config_error *err, const char *file, unsigned int line, int r,
		const char *fmt, ...)
{
	va_list ap;

	snprintf(err->file, sizeof(err->file), "%s", file);
	err->line = line;
	err->key[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	if (line)
		snprintf(err->text, sizeof(err->text), "%s:%u: %s", file, line, err->message);
	else
		snprintf(err->text, sizeof(err->text), "%s: %s", file, err->message);
	return r;
}

/*
 * Reads @path whole into @*text (NUL-terminated, free()), refusing what is
 * not a regular file, more than PA_CONFIG_MAX_BYTES or not text (a NUL).
 * On an error, says in @err what about @path.
 */
static int read_file(const char *path, char **text, struct pa_config_error *err)
{
	char *buf = malloc(PA_CONFIG_MAX_BYTES + 1), *nul, *shrunk;
	ssize_t n = buf ? sysfs_read_bin(path, buf, PA_CONFIG_MAX_BYTES) : -ENOMEM;
	unsigned int line = 1;

	if (n < 0) {
		free(buf);
		if (n == -EFBIG)
			return fail(err, path, 0, -EFBIG, "cannot read: larger than %d bytes",
				    PA_CONFIG_MAX_BYTES);
		return n == -ENOMEM ? (int)n : fail(err, path, 0, (int)n, "cannot read: %s",
						       sysfs_strerror((int)n));
	}
	if ((nul = memchr(buf, '\0', (size_t)n))) {
		for (const char *p = buf; p < nul; p++)
			line += *p == '\n';
		free(buf);
		return fail(err, path, line, -EINVAL, "a NUL byte: not a text file");
	}
	buf[n] = '\0';
	shrunk = realloc(buf, (size_t)n + 1);
	*text = shrunk ? shrunk : buf;
	return 0;
}

/*
 * Where @name, as an @include of @including, is read: as given when
 * absolute, else in @including's directory.  Into @path (PATH_MAX bytes).
 */
static int include_path(const char *including, const char *name, char *path, size_t size)
{
	const char *slash = strrchr(including, '/');
	int n;

	if (name[0] == '/' || !slash)
		n = snprintf(path, size, "%s", name);
	else
		n = snprintf(path, size, "%.*s/%s", (int)(slash - including), including, name);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/*
 * An @include directive at @p, the start of a line, as libconfig takes
 * them: on its own line, "[ \t]*@include[ \t]+\"NAME\"", with \\ and \" in
 * NAME.  Return: 1 with NAME in @name and @*end after its closing quote, 0
 * when the line is none, -EINVAL when the quote does not close on the line.
 */
static int include_at(const char *p, char *name, size_t size, const char **end)
{
	size_t n = 0;

	p += strspn(p, " \t");
	if (strncmp(p, "@include", 8) != 0 || (p[8] != ' ' && p[8] != '\t'))
		return 0;
	p += 8 + strspn(p + 8, " \t");
	if (*p++ != '"')
		return 0;
	for (; *p && *p != '"' && *p != '\n'; p++) {
		if (*p == '\\' && (p[1] == '\\' || p[1] == '"'))
			p++;
		if (n + 1 < size)
			name[n++] = *p;
	}
	name[n] = '\0';
	if (*p != '"')
		return -EINVAL;
	*end = p + 1;
	return 1;
}

/* Where libconfig's scanner is in a file: an @include counts only in code. */
enum scan_state { IN_CODE, IN_STRING, IN_LINE_COMMENT, IN_BLOCK_COMMENT };

/* The state after the character at @p (and its next, for "//", "/ *" and "* /"), in @state. */
static const char *scan(const char *p, enum scan_state *state)
{
	switch (*state) {
	case IN_CODE:
		if (*p == '"')
			*state = IN_STRING;
		else if (*p == '#' || (p[0] == '/' && p[1] == '/'))
			*state = IN_LINE_COMMENT;
		else if (p[0] == '/' && p[1] == '*')
			*state = IN_BLOCK_COMMENT, p++;
		break;
	case IN_STRING:
		if (*p == '\\' && p[1])
			p++;
		else if (*p == '"')
			*state = IN_CODE;
		break;
	case IN_LINE_COMMENT:
		if (*p == '\n')
			*state = IN_CODE;
		break;
	case IN_BLOCK_COMMENT:
		if (p[0] == '*' && p[1] == '/')
			*state = IN_CODE, p++;
		break;
	}
	return p + 1;
}

static int expand(struct cfg_source *s, const char *name, const char *text, unsigned int depth,
		  struct pa_config_error *err);

/*
 * The @include of @file (index @file_index) at its line @line, named
 * @name, read and expanded into @s's text, which then goes on with the
 * rest of @line.
 */
static int include(struct cfg_source *s, unsigned int file_index, unsigned int line,
		   const char *name, unsigned int depth, struct pa_config_error *err)
{
	const char *file = s->files[file_index];
	char path[PATH_MAX], *text = NULL;
	int r;

	if (depth > PA_CONFIG_INCLUDE_DEPTH_MAX)
		return fail(err, file, line, -EINVAL, "@include \"%s\": nested more than %d deep "
			    "(does a file include itself?)", name, PA_CONFIG_INCLUDE_DEPTH_MAX);
	if ((r = include_path(file, name, path, sizeof(path))) < 0)
		return fail(err, file, line, r, "@include \"%s\": path too long", name);
	if ((r = read_file(path, &text, err)) < 0) {
		char why[sizeof(err->text)];

		if (r == -ENOMEM)
			return r;
		memcpy(why, err->text, sizeof(why));
		return fail(err, file, line, r, "@include \"%s\": %s", name, why);
	}
	r = expand(s, path, text, depth, err);
	free(text);
	if (r == 0 && s->len && s->text[s->len - 1] != '\n')
		r = add_text(s, "\n", 1);
	return r < 0 ? r : add_span(s, file_index, line);
}

/* Appends @text, file @name's contents, to @s's text, its @includes expanded. */
static int expand(struct cfg_source *s, const char *name, const char *text, unsigned int depth,
		  struct pa_config_error *err)
{
	enum scan_state state = IN_CODE;
	unsigned int file = (unsigned int)s->n_files, line = 1;
	char **slot, include_name[PATH_MAX];
	const char *p = text, *run = text, *after;
	int r;

	if (!(slot = grow((void **)&s->files, &s->n_files, &s->files_cap, sizeof(*slot))))
		return -ENOMEM;
	if (!(*slot = strdup(name)))
		return s->n_files--, -ENOMEM;
	if ((r = add_span(s, file, 1)) < 0)
		return r;
	while (*p) {
		if ((p == text || p[-1] == '\n') && state == IN_CODE &&
		    (r = include_at(p, include_name, sizeof(include_name), &after)) != 0) {
			if (r < 0)
				return fail(err, name, line, r, "@include without its closing quote");
			if ((r = add_text(s, run, (size_t)(p - run))) < 0 ||
			    (r = include(s, file, line, include_name, depth + 1, err)) < 0)
				return r;
			p = run = after;
			continue;
		}
		for (after = scan(p, &state); p < after; p++)
			line += *p == '\n';
	}
	return add_text(s, run, (size_t)(p - run));
}

/* As fail(), for a whole that is over PA_CONFIG_MAX_BYTES. */
static int too_large(const char *name, struct pa_config_error *err)
{
	return fail(err, name, 0, -EFBIG, "with its @includes, larger than %d bytes",
		    PA_CONFIG_MAX_BYTES);
}

int cfg_source_from_string(struct cfg_source *s, const char *text, const char *name,
			   struct pa_config_error *err)
{
	int r;

	memset(s, 0, sizeof(*s));
	memset(err, 0, sizeof(*err));
	s->line = 1;
	r = expand(s, name, text, 0, err);
	if (r == 0 && !s->text)
		r = add_text(s, "", 0);
	if (r == -EFBIG && !err->text[0])
		r = too_large(name, err);
	if (r == -ENOMEM)
		fail(err, name, 0, r, "out of memory");
	return r;
}

int cfg_source_read(struct cfg_source *s, const char *path, struct pa_config_error *err)
{
	char *text = NULL;
	int r;

	memset(s, 0, sizeof(*s));
	memset(err, 0, sizeof(*err));
	if ((r = read_file(path, &text, err)) < 0)
		return r == -ENOMEM ? fail(err, path, 0, r, "out of memory") : r;
	r = cfg_source_from_string(s, text, path, err);
	free(text);
	return r;
}
