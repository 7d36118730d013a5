/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What libconfig's bare "syntax error" most likely means, found in the text
 * around the line it names.  libconfig says no more than that; the one
 * mistake it hides that users make is a list of groups written in square
 * brackets ("zones = [ { ... } ];"): libconfig's [ ] hold scalars only.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "config_keys.h"

/* The text being scanned, with the line of the last character read. */
struct scan {
	FILE *f;
	unsigned int line;
	int pending;	/* a character read ahead, or EOF for none */
};

static int next_char(struct scan *s)
{
	int c = s->pending;

	if (c != EOF)
		s->pending = EOF;
	else
		c = getc(s->f);
	if (c == '\n')
		s->line++;
	return c;
}

/* Skips to the end of the line, which is left to be read. */
static void skip_line(struct scan *s)
{
	int c;

	while ((c = getc(s->f)) != EOF && c != '\n')
		;
	s->pending = c;
}

/* Skips a string or comment opened by @c (a '/' not opening one is itself). */
static int skip_string_or_comment(struct scan *s, int c)
{
	int prev = 0, d;

	if (c == '"') {
		while ((d = next_char(s)) != EOF && !(d == '"' && prev != '\\'))
			prev = prev == '\\' ? 0 : d;
		return ' ';
	}
	if (c == '#') {
		skip_line(s);
		return ' ';
	}
	d = next_char(s);
	if (d == '/') {
		skip_line(s);
		return ' ';
	}
	if (d != '*') {
		s->pending = d;
		if (d == '\n')
			s->line--;	/* counted again when read */
		return c;
	}
	while ((d = next_char(s)) != EOF && !(prev == '*' && d == '/'))
		prev = d;
	return ' ';
}

/* The next character outside strings and comments (each of which reads as a space). */
static int next_code(struct scan *s)
{
	int c = next_char(s);

	return c == '"' || c == '#' || c == '/' ? skip_string_or_comment(s, c) : c;
}

static bool is_name_char(int c)
{
	return isalnum(c) || c == '_' || c == '-' || c == '*';
}

bool cfg_syntax_group_in_array(FILE *f, unsigned int line, char *key, size_t key_size)
{
	struct scan s = { f, 1, EOF };
	char word[KEY_NAME_MAX + 1] = "", last[KEY_NAME_MAX + 1] = "";
	size_t len = 0;
	bool open = false;	/* after a '[', nothing but spaces yet */
	int c;

	while ((c = next_code(&s)) != EOF && s.line <= line) {
		if (open && isspace(c))
			continue;
		if (open && c == '{' && s.line == line) {
			snprintf(key, key_size, "%s", last);
			return true;
		}
		open = c == '[';
		if (is_name_char(c)) {
			if (len < KEY_NAME_MAX)
				word[len++] = (char)c;
		} else if (len) {
			word[len] = '\0';
			memcpy(last, word, len + 1);
			len = 0;
		}
	}
	return false;
}
