/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/* What a call writes to one of the process's streams, for tests that check exact lines. */

/**
 * capture() - run @fn(@arg) with @fd (STDOUT_FILENO or STDERR_FILENO)
 * sent to a temporary file, and return what it wrote (malloc'd, at most
 * 64 KiB, NUL-terminated).  Fails the test when nothing was written.
 */
char *capture(int fd, void (*fn)(const void *arg), const void *arg);

/** capture_any() - capture(), where writing nothing is an answer too (""). */
char *capture_any(int fd, void (*fn)(const void *arg), const void *arg);
