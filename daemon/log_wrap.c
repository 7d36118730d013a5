/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "log_wrap.h"

#include <string.h>

/* Narrower than this, the indent and a word would not fit. */
#define LOG_WRAP_MIN_COLUMNS 20

/* Characters in @n bytes of UTF-8 at @s: every byte but the continuation bytes. */
static size_t width_of(const char *s, size_t n)
{
	size_t w = 0;

	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

/* Appends @n bytes of @s to @out at *@len, as far as @size allows (one byte kept for NUL). */
static void put(char *out, size_t size, size_t *len, const char *s, size_t n)
{
	if (*len + 1 >= size)
		return;
	if (n > size - 1 - *len)
		n = size - 1 - *len;
	memcpy(out + *len, s, n);
	*len += n;
}

size_t log_wrap(const char *line, unsigned int columns, char *out, size_t size)
{
	size_t len = 0, col = 0, indent = strlen(LOG_WRAP_INDENT);
	const char *p = line;

	if (!size)
		return 0;
	if (columns < LOG_WRAP_MIN_COLUMNS)
		columns = LOG_WRAP_MIN_COLUMNS;
	while (*p) {
		size_t spaces = strspn(p, " "), n = strcspn(p + spaces, " ");
		const char *word = p + spaces;
		size_t w = width_of(word, n);

		if (!n)
			break;	/* trailing spaces: nothing to fold them before */

		if (col > indent && col + spaces + w > columns) {
			/* Fold: the spaces before the word become the break. */
			put(out, size, &len, "\n" LOG_WRAP_INDENT, 1 + indent);
			col = indent;
		} else {
			put(out, size, &len, p, spaces);
			col += spaces;
		}
		put(out, size, &len, word, n);
		col += w;
		p = word + n;
	}
	out[len] = '\0';
	return len;
}
