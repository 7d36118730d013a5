/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "capture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

char *capture_any(int fd, void (*fn)(const void *arg), const void *arg)
{
	FILE *f = tmpfile(), *stream = fd == STDERR_FILENO ? stderr : stdout;
	int saved = dup(fd);
	char *text = calloc(1, 65536);

	assert_non_null(f);
	fflush(stream);
	dup2(fileno(f), fd);
	fn(arg);
	fflush(stream);
	dup2(saved, fd);
	close(saved);
	rewind(f);
	assert_non_null(text);
	(void)!fread(text, 1, 65535, f);
	fclose(f);
	return text;
}

char *capture(int fd, void (*fn)(const void *arg), const void *arg)
{
	char *text = capture_any(fd, fn, arg);

	assert_true(text[0] != '\0');
	return text;
}
