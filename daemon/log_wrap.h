/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * A log line for a person at a terminal: folded at spaces to the
 * terminal's width, the lines after the first indented, so that a message
 * of 300 characters reads as a paragraph rather than one line that runs
 * off the screen.  A pipe, a file or the journal gets the line whole.
 */
#include <stddef.h>

/* Columns when the terminal does not say its width. */
#define LOG_WRAP_DEFAULT_COLUMNS 80
/* The lines after the first start with this. */
#define LOG_WRAP_INDENT "  "

/**
 * log_wrap() - @line (no newline) folded at spaces into @out (@size bytes,
 * NUL-terminated) so that no line is wider than @columns characters (UTF-8
 * counted as characters), each line after the first starting with
 * LOG_WRAP_INDENT, the lines ended by '\n' but the last.  A word wider
 * than a line stays whole on its own line.  @columns under 20 is taken as
 * 20.  Return: the length written (less than the whole where @out is too
 * small: the rest is cut).
 */
size_t log_wrap(const char *line, unsigned int columns, char *out, size_t size);
