/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The only way powerallocd touches /sys and /proc.  Attributes that the
 * control path reads or writes every period are opened once (struct
 * sysfs_attr) and re-read with pread at offset 0; discovery uses the
 * one-shot helpers.  Every function returns a negative errno and logs
 * nothing: the caller logs once, with the path.  Every open refuses, with
 * -SYSFS_ENOTREG, a path that is not a regular file (a FIFO, socket, device
 * or directory), without waiting: sysfs and procfs attributes always are.
 * Some regular files refuse pread() with ESPIPE (debugfs's simple
 * attributes, such as the Energy Model's and the OPPs'): the one-shot reads
 * read them from the start with read(); an attribute kept open fails every
 * read with -ESPIPE (sysfs_attr_read()).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SYSFS_PATH_MAX 256
/* sysfs attributes are at most a page. */
#define SYSFS_VALUE_MAX 4096
/*
 * The error for a path that is not a regular file: "Wrong medium type", an
 * errno no sysfs, procfs or debugfs read gives, so that sysfs_strerror()
 * says "not a regular file" for nothing else (ESPIPE, which it was, is also
 * what pread() on a debugfs file gives).
 */
#define SYSFS_ENOTREG EMEDIUMTYPE

/**
 * struct sysfs_attr - an attribute opened once.
 * @fd: the descriptor, -1 when closed.
 * @failures: the caller's consecutive failed accesses; the first was logged
 *	(so that a device that stays broken is logged once, not every period).
 * @path: the path it was opened with, for messages.
 */
struct sysfs_attr {
	int fd;
	unsigned int failures;
	char path[SYSFS_PATH_MAX];
};

#define SYSFS_ATTR_INIT { .fd = -1, .failures = 0, .path = "" }

/**
 * sysfs_set_read_only() - from now on, refuse every write (-EROFS) and open
 * attributes meant for writing as placeholders (fd -1), so that discovery
 * can run without touching anything, and without write permission
 * (powerallocd --check-config).
 */
void sysfs_set_read_only(bool read_only);

/** sysfs_read_only() - whether writes are refused. */
bool sysfs_read_only(void);

/**
 * sysfs_set_fault_hook() - for tests: @hook is asked before every read and
 * write of an attribute and may make it fail with a negative errno it
 * returns (what a regular file cannot do: -ENODEV, -EIO).  NULL removes it.
 */
void sysfs_set_fault_hook(int (*hook)(const char *path, bool write));

/**
 * sysfs_strerror() - strerror() of the negative errno @error, but "not a
 * regular file" for -SYSFS_ENOTREG, which only the open of one gives, and
 * what -ESPIPE from a kept attribute's pread() or pwrite() means.
 */
const char *sysfs_strerror(int error);

/**
 * sysfs_attr_open() - open @path for reading (O_RDONLY) or writing
 * (O_WRONLY|O_NOFOLLOW); both with O_CLOEXEC.
 * Return: 0 or negative errno (-ENAMETOOLONG for a path over SYSFS_PATH_MAX,
 * -SYSFS_ENOTREG for one that is not a regular file).
 */
int sysfs_attr_open(struct sysfs_attr *attr, const char *path, bool write);

/**
 * sysfs_attr_same_file() - whether @a and @b are open on the same file (a
 * file at the same path after a device went and came back is another).
 */
bool sysfs_attr_same_file(const struct sysfs_attr *a, const struct sysfs_attr *b);

/** sysfs_attr_close() - close @attr if open. */
void sysfs_attr_close(struct sysfs_attr *attr);

/**
 * sysfs_attr_read() - the attribute's current contents, NUL-terminated,
 * read with pread() at offset 0.
 * Return: the length read, or negative errno: -ESPIPE for a file that
 * refuses pread() (a debugfs simple attribute), which a kept descriptor
 * cannot read again and which is not reopened every period.
 */
ssize_t sysfs_attr_read(const struct sysfs_attr *attr, char *buf, size_t size);

/** sysfs_attr_read_u64() - read and strictly parse an unsigned number. */
int sysfs_attr_read_u64(const struct sysfs_attr *attr, uint64_t *value);

/** sysfs_attr_read_s64() - read and strictly parse a signed number. */
int sysfs_attr_read_s64(const struct sysfs_attr *attr, int64_t *value);

/** sysfs_attr_write_u64() - write @value in decimal, in one write at offset 0. */
int sysfs_attr_write_u64(const struct sysfs_attr *attr, uint64_t value);

/**
 * sysfs_pathf() - printf into @buf (SYSFS_PATH_MAX bytes).
 * Return: 0 or -ENAMETOOLONG.
 */
int sysfs_pathf(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * sysfs_read_str() - one-shot read of a text attribute, trailing newline removed.
 * Return: length or negative errno (-EFBIG when it does not fit @size).
 */
ssize_t sysfs_read_str(const char *path, char *buf, size_t size);

/** sysfs_read_u64() - one-shot read of an unsigned number. */
int sysfs_read_u64(const char *path, uint64_t *value);

/** sysfs_read_s64() - one-shot read of a signed number. */
int sysfs_read_s64(const char *path, int64_t *value);

/**
 * sysfs_read_bin() - one-shot read of a binary file (device-tree property),
 * with pread(), or with read() from the start where pread() is refused
 * (ESPIPE: debugfs).
 * Return: length read or negative errno (-EFBIG when larger than @size).
 */
ssize_t sysfs_read_bin(const char *path, void *buf, size_t size);

/** sysfs_write_str() - one-shot write of @value (O_WRONLY|O_NOFOLLOW). */
int sysfs_write_str(const char *path, const char *value);

/** sysfs_exists() - whether @path exists (following links). */
bool sysfs_exists(const char *path);

/**
 * sysfs_attr_still_there() - whether @attr's path still names the file it
 * holds open, following links.  A device that was removed fails this, also
 * when another took its number (cooling_deviceN is handed out again); one
 * that is still there may fail a write and take the next one.
 */
bool sysfs_attr_still_there(const struct sysfs_attr *attr);

/** sysfs_lexists() - whether @path exists, without following a final link. */
bool sysfs_lexists(const char *path);

/**
 * sysfs_link_name() - last component of the target of link @path.
 * Return: its length or negative errno (-EINVAL when @path is no link).
 */
ssize_t sysfs_link_name(const char *path, char *buf, size_t size);

/**
 * sysfs_list_dir() - call @fn for each entry of @dir but "." and "..".
 * A non-zero return from @fn stops the walk and is returned.
 * Return: 0, @fn's value, or negative errno when @dir cannot be read.
 */
int sysfs_list_dir(const char *dir, int (*fn)(const char *name, void *userdata),
		   void *userdata);

/**
 * sysfs_list_ids() - the numbers N >= 0 of entries "@prefixN" of @dir, ascending.
 * @ids: set to a malloc'd array (NULL when none), free() it.
 * Return: 0 or negative errno.
 */
int sysfs_list_ids(const char *dir, const char *prefix, int64_t **ids, size_t *n);
