/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "new_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporaries left by as many crashed runs with our pid are stepped over. */
#define NEW_FILE_ATTEMPTS 32

int new_file_open(struct new_file *nf, const char *path, mode_t mode)
{
	int fd = -1;

	nf->file = NULL;
	for (unsigned int n = 0; n < NEW_FILE_ATTEMPTS && fd < 0; n++) {
		int len = snprintf(nf->tmp, sizeof(nf->tmp), "%s.tmp.%ld.%u", path, (long)getpid(),
				   n);

		if (len < 0 || (size_t)len >= sizeof(nf->tmp))
			return -ENAMETOOLONG;
		fd = open(nf->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	nf->file = fdopen(fd, "w");
	if (!nf->file) {
		int r = -errno;

		close(fd);
		unlink(nf->tmp);
		return r;
	}
	return 0;
}

int new_file_commit(struct new_file *nf, const char *path)
{
	int r = 0;

	if (fflush(nf->file) != 0 || rename(nf->tmp, path) != 0)
		r = -errno;
	if (r < 0)
		new_file_discard(nf);
	return r;
}

int new_file_finish(struct new_file *nf, const char *path)
{
	int r;

	if (fflush(nf->file) != 0 || fsync(fileno(nf->file)) != 0) {
		r = -errno;
		new_file_discard(nf);
		return r;
	}
	r = new_file_commit(nf, path);
	if (r == 0 && fclose(nf->file) != 0)
		r = -errno;
	nf->file = NULL;
	return r;
}

void new_file_discard(struct new_file *nf)
{
	if (nf->file)
		fclose(nf->file);
	nf->file = NULL;
	unlink(nf->tmp);
}

int new_file_make_dir(const char *path, char *dir)
{
	const char *slash = strrchr(path, '/');
	int fd, r = 0;

	if (strlen(path) >= PATH_MAX)
		return -ENAMETOOLONG;
	snprintf(dir, PATH_MAX, "%.*s", slash ? (int)(slash - path) : 0, path);
	if (!*dir || mkdir(dir, 0700) < 0)
		return !*dir || errno == EEXIST ? 0 : -errno;
	/* The umask may have taken bits the owner needs: the mode is set again. */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fchmod(fd, 0700) < 0)
		r = -errno;
	if (fd >= 0)
		close(fd);
	return r < 0 ? r : 1;
}
