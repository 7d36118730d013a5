/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Files powerallocd creates (the state file, the trace) are written under a
 * new temporary name in the same directory, then renamed over the final
 * name.  The temporary is created with O_CREAT|O_EXCL|O_NOFOLLOW, so nothing
 * already there is followed or overwritten (a symbolic link planted at either
 * name), and rename() replaces a link at the final name instead of writing
 * through it.
 */
#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

/**
 * struct new_file - a file being created.
 * @file: open for writing; NULL once closed.
 * @tmp: its temporary name, beside the final one.
 */
struct new_file {
	FILE *file;
	char tmp[PATH_MAX];
};

/**
 * new_file_open() - create a new file beside @path under a temporary name
 * ("@path.tmp.PID.N", the first N not taken: a temporary a crashed run left
 * does not block) with @mode less the umask.
 * Return: 0 or negative errno.
 */
int new_file_open(struct new_file *nf, const char *path, mode_t mode);

/**
 * new_file_commit() - flush, then rename the file to @path; it stays open
 * for appending.  On failure the temporary is removed and the file closed.
 * Return: 0 or negative errno.
 */
int new_file_commit(struct new_file *nf, const char *path);

/**
 * new_file_finish() - flush the file and sync it to the disk, rename it to
 * @path and close it: the whole new file or the old one, even after a
 * power cut.  On failure the temporary is removed and the file closed.
 * Return: 0 or negative errno.
 */
int new_file_finish(struct new_file *nf, const char *path);

/** new_file_discard() - close and remove the temporary (a file not committed). */
void new_file_discard(struct new_file *nf);

/**
 * new_file_make_dir() - make the directory that @path is in, mode 0700
 * whatever the umask, when it is missing: only that directory, never its
 * parents (the state file's directory, /run/powerallocd, where systemd did
 * not make it).  @dir: out, that directory (PATH_MAX bytes).
 * Return: 1 made, 0 already there (or @path has no directory part),
 * -ENOENT when its parent is missing, other negative errno.
 */
int new_file_make_dir(const char *path, char *dir);
