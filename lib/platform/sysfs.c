/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sysfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse.h"

static bool read_only;
static int (*fault_hook)(const char *path, bool write);

void sysfs_set_fault_hook(int (*hook)(const char *path, bool write))
{
	fault_hook = hook;
}

static int fault(const char *path, bool write)
{
	return fault_hook ? fault_hook(path, write) : 0;
}

void sysfs_set_read_only(bool ro)
{
	read_only = ro;
}

bool sysfs_read_only(void)
{
	return read_only;
}

/*
 * Opens @path, refusing anything but a regular file (sysfs and procfs
 * attributes are regular files).  O_NONBLOCK, which a regular file ignores,
 * keeps the open of a FIFO from waiting for a writer (or a reader) forever.
 */
static int open_regular(const char *path, bool write)
{
	int flags = write ? O_WRONLY | O_NOFOLLOW : O_RDONLY;
	struct stat st;
	int fd = open(path, flags | O_CLOEXEC | O_NONBLOCK), r;

	/* A FIFO without a reader, or a socket, cannot even be opened for writing. */
	if (fd < 0 && errno == ENXIO && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return -SYSFS_ENOTREG;
	if (fd < 0)
		return -errno;
	r = fstat(fd, &st) < 0 ? -errno : S_ISREG(st.st_mode) ? 0 : -SYSFS_ENOTREG;
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

const char *sysfs_strerror(int error)
{
	if (error == -SYSFS_ENOTREG)
		return "not a regular file";
	if (error == -ESPIPE)
		return "refuses reads and writes at an offset (Illegal seek), as debugfs's simple "
		       "attributes do";
	return strerror(-error);
}

bool sysfs_attr_same_file(const struct sysfs_attr *a, const struct sysfs_attr *b)
{
	struct stat sa, sb;

	return a->fd >= 0 && b->fd >= 0 && fstat(a->fd, &sa) == 0 && fstat(b->fd, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int sysfs_attr_open(struct sysfs_attr *attr, const char *path, bool write)
{
	int fd;

	attr->fd = -1;
	attr->failures = 0;
	if (strlen(path) >= sizeof(attr->path))
		return -ENAMETOOLONG;
	strcpy(attr->path, path);
	if (write && read_only)
		return 0;
	fd = open_regular(path, write);
	if (fd < 0)
		return fd;
	attr->fd = fd;
	return 0;
}

void sysfs_attr_close(struct sysfs_attr *attr)
{
	if (attr->fd >= 0)
		close(attr->fd);
	attr->fd = -1;
}

/*
 * A kept descriptor's contents, read again at offset 0.  A file that refuses
 * pread() (ESPIPE: debugfs's simple attributes, opened nonseekable) cannot
 * be read again through a kept descriptor, nor sought back to 0, and is not
 * reopened on the control path: its reads fail with -ESPIPE, which the
 * caller takes as a failed read (sysfs_strerror() names it).
 */
static ssize_t read_fd(int fd, char *buf, size_t size)
{
	ssize_t n;

	if (size == 0)
		return -EINVAL;
	n = pread(fd, buf, size - 1, 0);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}

ssize_t sysfs_attr_read(const struct sysfs_attr *attr, char *buf, size_t size)
{
	int r = fault(attr->path, false);

	if (r < 0)
		return r;
	if (attr->fd < 0)
		return -EBADF;
	return read_fd(attr->fd, buf, size);
}

int sysfs_attr_read_u64(const struct sysfs_attr *attr, uint64_t *value)
{
	char buf[32];
	ssize_t n = sysfs_attr_read(attr, buf, sizeof(buf));

	return n < 0 ? (int)n : parse_u64(buf, (size_t)n, value);
}

int sysfs_attr_read_s64(const struct sysfs_attr *attr, int64_t *value)
{
	char buf[32];
	ssize_t n = sysfs_attr_read(attr, buf, sizeof(buf));

	return n < 0 ? (int)n : parse_s64(buf, (size_t)n, value);
}

/*
 * One write at offset 0, as sysfs wants.  The truncate is a no-op on sysfs
 * (like the O_TRUNC of a shell redirection) but makes a regular file, as in
 * test trees, hold exactly the value written.
 */
static int write_fd(int fd, const char *value)
{
	size_t len = strlen(value);
	ssize_t n = pwrite(fd, value, len, 0);

	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return -EIO;
	(void)!ftruncate(fd, (off_t)len);
	return 0;
}

int sysfs_attr_write_u64(const struct sysfs_attr *attr, uint64_t value)
{
	char buf[24];
	int r;

	if (read_only)
		return -EROFS;
	if ((r = fault(attr->path, true)) < 0)
		return r;
	if (attr->fd < 0)
		return -EBADF;
	snprintf(buf, sizeof(buf), "%" PRIu64, value);
	return write_fd(attr->fd, buf);
}

int sysfs_pathf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, SYSFS_PATH_MAX, fmt, ap);
	va_end(ap);
	return n < 0 || n >= SYSFS_PATH_MAX ? -ENAMETOOLONG : 0;
}

/*
 * @fd, just opened (at offset 0), read with read() up to @size bytes or its
 * end: for a file that refuses pread() (debugfs's simple attributes, such as
 * the Energy Model's and the OPPs'), which read() reads from the start.
 * Return: the length, -EFBIG when there is more than @size, or negative errno.
 */
static ssize_t read_from_start(int fd, char *buf, size_t size)
{
	size_t len = 0;
	char extra;
	ssize_t n;

	while (len < size) {
		n = read(fd, buf + len, size - len);
		if (n == 0)
			return (ssize_t)len;
		if (n > 0)
			len += (size_t)n;
		else if (errno != EINTR)
			return -errno;
	}
	while ((n = read(fd, &extra, 1)) < 0 && errno == EINTR)
		;
	return n > 0 ? -EFBIG : n < 0 ? -errno : (ssize_t)len;
}

ssize_t sysfs_read_bin(const char *path, void *buf, size_t size)
{
	int fd = open_regular(path, false);
	ssize_t n;
	char extra;

	if (fd < 0)
		return fd;
	/* pread, as every other read here: one call from the start of the file. */
	n = pread(fd, buf, size, 0);
	if (n >= 0 && (size_t)n == size && pread(fd, &extra, 1, (off_t)size) > 0)
		n = -EFBIG;
	else if (n < 0 && errno == ESPIPE)
		n = read_from_start(fd, buf, size);
	else if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

ssize_t sysfs_read_str(const char *path, char *buf, size_t size)
{
	ssize_t n;

	if (size < 2)
		return -EINVAL;
	n = sysfs_read_bin(path, buf, size - 1);
	if (n < 0)
		return n;
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return n;
}

int sysfs_read_u64(const char *path, uint64_t *value)
{
	char buf[32];
	ssize_t n = sysfs_read_bin(path, buf, sizeof(buf));

	return n < 0 ? (int)n : parse_u64(buf, (size_t)n, value);
}

int sysfs_read_s64(const char *path, int64_t *value)
{
	char buf[32];
	ssize_t n = sysfs_read_bin(path, buf, sizeof(buf));

	return n < 0 ? (int)n : parse_s64(buf, (size_t)n, value);
}

int sysfs_write_str(const char *path, const char *value)
{
	int fd, r;

	if (read_only)
		return -EROFS;
	fd = open_regular(path, true);
	if (fd < 0)
		return fd;
	r = write_fd(fd, value);
	close(fd);
	return r;
}

bool sysfs_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

bool sysfs_attr_still_there(const struct sysfs_attr *attr)
{
	struct stat at_path, held;

	if (attr->fd < 0)
		return stat(attr->path, &at_path) == 0;
	return stat(attr->path, &at_path) == 0 && fstat(attr->fd, &held) == 0 &&
	       at_path.st_dev == held.st_dev && at_path.st_ino == held.st_ino;
}

bool sysfs_lexists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

ssize_t sysfs_link_name(const char *path, char *buf, size_t size)
{
	char target[PATH_MAX];
	const char *base;
	ssize_t n = readlink(path, target, sizeof(target) - 1);

	if (n < 0)
		return -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (strlen(base) >= size)
		return -ENAMETOOLONG;
	strcpy(buf, base);
	return (ssize_t)strlen(buf);
}

int sysfs_list_dir(const char *dir, int (*fn)(const char *name, void *userdata),
		   void *userdata)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int r = 0;

	if (!d)
		return -errno;
	while (r == 0 && (e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			r = fn(e->d_name, userdata);
	closedir(d);
	return r;
}

struct id_list {
	const char *prefix;
	int64_t *ids;
	size_t n, cap;
};

static int collect_id(const char *name, void *userdata)
{
	struct id_list *l = userdata;
	size_t len = strlen(l->prefix);
	uint64_t id;

	if (strncmp(name, l->prefix, len) != 0 ||
	    parse_u64(name + len, strlen(name + len), &id) < 0 || id > INT64_MAX ||
	    strchr(name + len, '\n'))
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		int64_t *grown = realloc(l->ids, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		l->ids = grown;
		l->cap = cap;
	}
	l->ids[l->n++] = (int64_t)id;
	return 0;
}

static int compare_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int sysfs_list_ids(const char *dir, const char *prefix, int64_t **ids, size_t *n)
{
	struct id_list l = { .prefix = prefix };
	int r = sysfs_list_dir(dir, collect_id, &l);

	if (r < 0) {
		free(l.ids);
		*ids = NULL;
		*n = 0;
		return r;
	}
	if (l.n)
		qsort(l.ids, l.n, sizeof(*l.ids), compare_id);
	*ids = l.ids;
	*n = l.n;
	return 0;
}
