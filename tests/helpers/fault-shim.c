/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Test-only LD_PRELOAD shim: faults a regular file cannot produce.  While
 * $POWERALLOCD_FAULT_DIR/eio-read holds a path suffix, pread() on a file
 * whose path ends with it fails with EIO (lib/platform/sysfs.c reads every
 * file with pread(), one-shot reads too); while
 * $POWERALLOCD_FAULT_DIR/espipe-pread holds a part of a path ("/kernel/debug/"),
 * pread() on a file whose path holds it fails with ESPIPE and read() reads
 * it, as on debugfs's simple attributes (opened nonseekable); likewise
 * $POWERALLOCD_FAULT_DIR/enodev-write for pwrite() and ENODEV (a device
 * that went away), and $POWERALLOCD_FAULT_DIR/eio-write for pwrite() and
 * EIO (a device that fails a write but is still there).
 * $POWERALLOCD_FAULT_DIR/slow-read holds a suffix and a delay in ms
 * ("thermal_zone1/temp 1000"): pread() on that file sleeps that long first
 * (a sensor behind a slow bus).  While $POWERALLOCD_FAULT_DIR/abort-pread holds
 * a suffix, pread() on a matching file calls abort(): a fault of the
 * process's own, as a bug or a library's assert would raise.  While $POWERALLOCD_FAULT_DIR/no-netlink
 * exists, genl_connect() fails as without netlink (a kernel or container
 * without it); while $POWERALLOCD_FAULT_DIR/quiet-netlink exists, the
 * thermal event group resolves and is joined without asking the kernel, so
 * the daemon listens on a socket that no event reaches (a kernel with
 * thermal netlink whose trips nothing crosses, whatever this machine's
 * kernel has).  boottime-offset-ms (below, clock_gettime()) fakes a suspend.
 * inject-arm, inject-fail and inject-freeze fail the Nth call of a kind
 * (open, read, pread, write, an allocation, sendmsg, recvmsg, connect):
 * fault-inject.c.
 * The simulator and the tests create and remove those files.
 * Never installed.
 *
 * Built without _FILE_OFFSET_BITS, whatever the build passes: with it, the
 * C library's headers name pread() pread64() (and pwrite() pwrite64()), and
 * the shim could not define both.  tests/source/test_fault_shim.py compiles
 * it as a 32-bit and a 64-bit build would.
 */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/errno.h>
#include <time.h>
#include <unistd.h>

#include "fault-inject.h"

/* The suffix in @rule_file, "" when there is none (no fault). */
static void rule(const char *rule_file, char *suffix, size_t size)
{
	fault_rule(rule_file, suffix, size);
}

/*
 * Whether the path of the file open as @fd ends with @suffix, or holds it
 * anywhere with @anywhere ("" never matches).
 */
static int matches_at(int fd, const char *suffix, int anywhere)
{
	char link[64], path[512];
	ssize_t n;
	size_t len;

	if (!suffix[0])
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return 0;
	path[n] = '\0';
	if (anywhere)
		return strstr(path, suffix) != NULL;
	len = strlen(suffix);
	return (size_t)n >= len && strcmp(path + n - len, suffix) == 0;
}

static int matches(int fd, const char *suffix)
{
	return matches_at(fd, suffix, 0);
}

static int faulted(int fd, const char *rule_file)
{
	char suffix[256];

	rule(rule_file, suffix, sizeof(suffix));
	return matches(fd, suffix);
}

/* The delay of the slow-read rule for @fd, ms; 0 when it does not apply. */
static long slow_read_ms(int fd)
{
	char line[256], *space;

	rule("slow-read", line, sizeof(line));
	space = strrchr(line, ' ');
	if (!space)
		return 0;
	*space = '\0';
	return matches(fd, line) ? strtol(space + 1, NULL, 10) : 0;
}

/* Sleeps @ms whole, through signals (a thread cancelled here ends here). */
static void sleep_ms(long ms)
{
	struct timespec left = { ms / 1000, ms % 1000 * 1000000 };

	while (nanosleep(&left, &left) < 0 && errno == EINTR)
		;
}

/*
 * The errno a pread() of @fd fails with under the rules, 0 for none, after
 * the slow-read delay.  Shared by pread() and pread64(): each forwards to its own
 * next symbol, as their offsets differ on 32-bit (below).
 */
static int read_fault(int fd)
{
	char part[256];
	long delay_ms;
	int err = fault_inject(INJECT_PREAD, NULL, NULL);

	if (err)
		return err;
	if (faulted(fd, "abort-pread"))
		abort();	/* a fault of the daemon's own: SIGABRT, raised by the process */
	if (faulted(fd, "eio-read"))
		return EIO;
	rule("espipe-pread", part, sizeof(part));
	if (matches_at(fd, part, 1))
		return ESPIPE;
	if ((delay_ms = slow_read_ms(fd)) > 0)
		sleep_ms(delay_ms);
	return 0;
}

/* The errno a write to @fd fails with under the rules, 0 for none. */
static int write_fault(int fd)
{
	int err = fault_inject(INJECT_WRITE, NULL, NULL);

	if (err)
		return err;
	if (faulted(fd, "enodev-write"))
		return ENODEV;
	if (faulted(fd, "eio-write"))
		return EIO;
	return 0;
}

/* -1 with errno @err, as the call that failed would return. */
static ssize_t failed(int err)
{
	errno = err;
	return -1;
}

/*
 * Each of the four is its own symbol with its own next: a program built with
 * _FILE_OFFSET_BITS=64 (meson's default) calls pread64() and pwrite64() with
 * a 64-bit offset, one built without it pread() and pwrite() with off_t,
 * which is 32 bits on a 32-bit machine.  On 64-bit the C library makes the
 * pairs one function; here they stay apart so that both ABIs hold.
 */
ssize_t pread(int fd, void *buf, size_t count, off_t offset)
{
	static ssize_t (*next)(int, void *, size_t, off_t);
	int err = read_fault(fd);

	if (!next)
		next = (ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
	if (err)
		return failed(err);
	return next(fd, buf, count, offset);
}

ssize_t pread64(int fd, void *buf, size_t count, off64_t offset)
{
	static ssize_t (*next)(int, void *, size_t, off64_t);
	int err = read_fault(fd);

	if (!next)
		next = (ssize_t (*)(int, void *, size_t, off64_t))dlsym(RTLD_NEXT, "pread64");
	if (err)
		return failed(err);
	return next(fd, buf, count, offset);
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset)
{
	static ssize_t (*next)(int, const void *, size_t, off_t);
	int err = write_fault(fd);

	if (!next)
		next = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
	if (err)
		return failed(err);
	return next(fd, buf, count, offset);
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off64_t offset)
{
	static ssize_t (*next)(int, const void *, size_t, off64_t);
	int err = write_fault(fd);

	if (!next)
		next = (ssize_t (*)(int, const void *, size_t, off64_t))dlsym(RTLD_NEXT, "pwrite64");
	if (err)
		return failed(err);
	return next(fd, buf, count, offset);
}

/*
 * libnl's, not socket(): umockdev's preload library comes first and hands
 * the sockets it wraps straight to the C library.
 */
struct nl_sock;

/* Whether $POWERALLOCD_FAULT_DIR/@rule_file exists. */
static int rule_set(const char *rule_file)
{
	char text[8];

	return fault_rule(rule_file, text, sizeof(text));
}

int genl_connect(struct nl_sock *sk)
{
	static int (*next)(struct nl_sock *);

	if (!next)
		next = (int (*)(struct nl_sock *))dlsym(RTLD_NEXT, "genl_connect");
	if (rule_set("no-netlink"))
		return -NLE_AF_NOSUPPORT;
	return next(sk);
}

/* Any group number will do: quiet-netlink never joins it. */
#define QUIET_GROUP 1

int genl_ctrl_resolve_grp(struct nl_sock *sk, const char *family, const char *grp)
{
	static int (*next)(struct nl_sock *, const char *, const char *);

	if (!next)
		next = (int (*)(struct nl_sock *, const char *, const char *))
			dlsym(RTLD_NEXT, "genl_ctrl_resolve_grp");
	if (rule_set("quiet-netlink"))
		return QUIET_GROUP;
	return next(sk, family, grp);
}

int nl_socket_add_membership(struct nl_sock *sk, int group)
{
	static int (*next)(struct nl_sock *, int);

	if (!next)
		next = (int (*)(struct nl_sock *, int))dlsym(RTLD_NEXT, "nl_socket_add_membership");
	if (rule_set("quiet-netlink"))
		return 0;
	return next(sk, group);
}

/*
 * A suspend without suspending: while $POWERALLOCD_FAULT_DIR/boottime-offset-ms
 * holds a number of ms, CLOCK_BOOTTIME reads that much ahead (the daemon
 * sees the time slept as CLOCK_BOOTTIME running ahead of CLOCK_MONOTONIC;
 * a test raises the number to "sleep").  Only the daemon's own calls go
 * through here; CLOCK_MONOTONIC, which its timers run on, is untouched.
 */
int clock_gettime(clockid_t id, struct timespec *ts)
{
	static int (*next)(clockid_t, struct timespec *);
	char text[32];
	long long offset_ms;
	int r;

	if (!next)
		next = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	r = next(id, ts);
	if (r < 0 || id != CLOCK_BOOTTIME)
		return r;
	rule("boottime-offset-ms", text, sizeof(text));
	offset_ms = strtoll(text, NULL, 10);
	if (offset_ms > 0) {
		long long ns = ts->tv_nsec + offset_ms % 1000 * 1000000;

		ts->tv_sec += offset_ms / 1000 + ns / 1000000000;
		ts->tv_nsec = ns % 1000000000;
	}
	return r;
}

/*
 * The calls fault-inject.c counts and fails, each on to the next
 * definition (umockdev's, then the C library's).  An allocation goes to the
 * C library's own (__libc_malloc()), which needs no dlsym(): dlsym()
 * allocates.
 */
#define NEXT(name) \
	static __typeof__(&name) next; \
	if (!next) \
		next = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

/* An open's mode, when its flags take one. */
#define OPEN_MODE(flags, mode) \
	do { \
		if ((flags) & (O_CREAT | O_TMPFILE)) { \
			va_list ap; \
			va_start(ap, flags); \
			mode = va_arg(ap, int); \
			va_end(ap); \
		} \
	} while (0)

int open(const char *path, int flags, ...)
{
	NEXT(open);
	int mode = 0, err = fault_inject(INJECT_OPEN, path, NULL);

	OPEN_MODE(flags, mode);
	return err ? (int)failed(err) : next(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	NEXT(open64);
	int mode = 0, err = fault_inject(INJECT_OPEN, path, NULL);

	OPEN_MODE(flags, mode);
	return err ? (int)failed(err) : next(path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	NEXT(openat);
	int mode = 0, err = fault_inject(INJECT_OPEN, path, NULL);

	OPEN_MODE(flags, mode);
	return err ? (int)failed(err) : next(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	NEXT(openat64);
	int mode = 0, err = fault_inject(INJECT_OPEN, path, NULL);

	OPEN_MODE(flags, mode);
	return err ? (int)failed(err) : next(dirfd, path, flags, mode);
}

ssize_t read(int fd, void *buf, size_t count)
{
	NEXT(read);
	int err = fault_inject(INJECT_READ, NULL, NULL);

	return err ? failed(err) : next(fd, buf, count);
}

ssize_t write(int fd, const void *buf, size_t count)
{
	NEXT(write);
	int err = fault_inject(INJECT_WRITE, NULL, NULL);

	return err ? failed(err) : next(fd, buf, count);
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	NEXT(sendmsg);
	int err = fault_inject(INJECT_SENDMSG, NULL, NULL);

	return err ? failed(err) : next(fd, msg, flags);
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	NEXT(recvmsg);
	int err = fault_inject(INJECT_RECVMSG, NULL, NULL);

	return err ? failed(err) : next(fd, msg, flags);
}

int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	NEXT(connect);
	int err = fault_inject(INJECT_CONNECT, NULL, NULL);

	return err ? (int)failed(err) : next(fd, addr, len);
}

#ifndef FAULT_SHIM_NO_ALLOC
/* Not in a sanitized build (FAULT_SHIM_NO_ALLOC): ASan's allocator is the process's there. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);

void *malloc(size_t size)
{
	if (fault_inject(INJECT_ALLOC, NULL, __builtin_return_address(0)))
		return errno = ENOMEM, NULL;
	return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
	if (fault_inject(INJECT_ALLOC, NULL, __builtin_return_address(0)))
		return errno = ENOMEM, NULL;
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
	if (fault_inject(INJECT_ALLOC, NULL, __builtin_return_address(0)))
		return errno = ENOMEM, NULL;
	return __libc_realloc(p, size);
}
#endif
