/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fault shim's Nth-call injection: in powerallocd only (not the shell
 * and env of umockdev-wrapper), with $POWERALLOCD_FAULT_DIR and
 * $POWERALLOCD_INJECT set (else it costs nothing), it counts
 * the calls of each kind (fault-inject.h) from when a trigger says so, and
 * fails the Nth of one kind.  Files in $POWERALLOCD_FAULT_DIR:
 *
 *   inject-arm     what starts the count: "now" (from the daemon's first
 *                  call, when it is there at start; else from its first
 *                  call after it appears) or "open SUFFIX" (from the open of
 *                  a path ending with SUFFIX, that open counted: a reload
 *                  opens the config file first).  Read until armed.
 *   inject-fail    "KIND N": the Nth call of KIND once armed fails (EIO for
 *                  files, ENOMEM for an allocation, ENOBUFS for a message,
 *                  ECONNREFUSED for a connect); absent: count only.  Read
 *                  when armed.
 *   inject-freeze  while there: nothing more counted or failed (the test's
 *                  window is over: a stop is no point to fail).
 *
 * and written:
 *
 *   inject-counts  "KIND COUNT" per line: the calls counted, at the freeze
 *                  and at exit (a dry run finds the points so).
 *   inject-done    "KIND N PATH-OR-CALLER" once the call was failed.
 *
 * An allocation by umockdev's preload library, the loader or the shim is
 * not counted: test machinery, not the daemon's.  Rule files are read with
 * raw system calls, which nothing here wraps.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fault-inject.h"

static const char *const kind_names[INJECT_CALLS] = {
	"open", "read", "pread", "write", "alloc", "sendmsg", "recvmsg", "connect",
};
static const int kind_errno[INJECT_CALLS] = {
	EIO, EIO, EIO, EIO, ENOMEM, ENOBUFS, ENOBUFS, ECONNREFUSED,
};

enum inject_state { OFF, WAITING, ARMED, FROZEN };

static enum inject_state state = OFF;
static unsigned long counts[INJECT_CALLS];
static int fail_kind = -1;
static unsigned long fail_n;
/* A call of the shim's own, or made while it works: not counted. */
static __thread int busy __attribute__((tls_model("initial-exec")));

/* Where the objects whose allocations are not counted are loaded. */
#define EXCLUDED_MAX 8
static struct { uintptr_t start, end; } excluded[EXCLUDED_MAX];
static int n_excluded;

static int raw_open(const char *path, int flags)
{
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags | O_CLOEXEC, 0600);
}

static void fault_path(const char *rule_file, char *path, size_t size)
{
	const char *dir = getenv("POWERALLOCD_FAULT_DIR");

	snprintf(path, size, "%s/%s", dir ? dir : "/nonexistent", rule_file);
}

int fault_rule(const char *rule_file, char *text, unsigned long size)
{
	char path[512];
	long n;
	int fd;

	text[0] = '\0';
	if (!getenv("POWERALLOCD_FAULT_DIR"))
		return 0;
	fault_path(rule_file, path, sizeof(path));
	fd = raw_open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = syscall(SYS_read, fd, text, size - 1);
	syscall(SYS_close, fd);
	text[n > 0 ? n : 0] = '\0';
	text[strcspn(text, "\n")] = '\0';
	return 1;
}

static int rule_there(const char *rule_file)
{
	char path[512];

	fault_path(rule_file, path, sizeof(path));
	return syscall(SYS_faccessat, AT_FDCWD, path, F_OK, 0) == 0;
}

static void put(const char *rule_file, const char *text)
{
	char path[512];
	int fd;

	fault_path(rule_file, path, sizeof(path));
	fd = raw_open(path, O_WRONLY | O_CREAT | O_TRUNC);
	if (fd < 0)
		return;
	syscall(SYS_write, fd, text, strlen(text));	/* short: the test sees it */
	syscall(SYS_close, fd);
}

static void write_counts(void)
{
	char text[512];
	size_t len = 0;

	for (int k = 0; k < INJECT_CALLS && len < sizeof(text); k++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s %lu\n", kind_names[k],
					__atomic_load_n(&counts[k], __ATOMIC_RELAXED));
	put("inject-counts", text);
}

/* Takes inject-fail: the kind and N to fail, none when absent. */
static void read_fail_rule(void)
{
	char text[128], name[32];
	unsigned long n;

	if (!fault_rule("inject-fail", text, sizeof(text)) ||
	    sscanf(text, "%31s %lu", name, &n) != 2)
		return;
	for (int k = 0; k < INJECT_CALLS; k++)
		if (strcmp(name, kind_names[k]) == 0) {
			fail_kind = k;
			fail_n = n;
		}
}

/* Whether inject-arm arms the count at this call (@path: an open's). */
static int arms_now(enum inject_call call, const char *path)
{
	char text[300];
	size_t len, plen;

	if (!fault_rule("inject-arm", text, sizeof(text)))
		return 0;
	if (strcmp(text, "now") == 0)
		return 1;
	if (strncmp(text, "open ", 5) != 0 || call != INJECT_OPEN || !path)
		return 0;
	len = strlen(text + 5);
	plen = strlen(path);
	return plen >= len && strcmp(path + plen - len, text + 5) == 0;
}

static int step(enum inject_call call, const char *path, void *caller)
{
	unsigned long n;
	char done[600];

	if (state == WAITING && arms_now(call, path)) {
		read_fail_rule();
		state = ARMED;
	}
	if (state != ARMED)
		return 0;
	if (rule_there("inject-freeze")) {
		state = FROZEN;
		write_counts();
		return 0;
	}
	if (call == INJECT_ALLOC)
		for (int k = 0; k < n_excluded; k++)
			if ((uintptr_t)caller >= excluded[k].start && (uintptr_t)caller < excluded[k].end)
				return 0;
	n = __atomic_add_fetch(&counts[call], 1, __ATOMIC_RELAXED);
	if ((int)call != fail_kind || n != fail_n)
		return 0;
	snprintf(done, sizeof(done), "%s %lu %s\n", kind_names[call], n,
		 path ? path : call == INJECT_ALLOC ? "(allocation)" : "-");
	put("inject-done", done);
	return kind_errno[call];
}

int fault_inject(enum inject_call call, const char *path, void *caller)
{
	int err;

	if (state == OFF || state == FROZEN || busy)
		return 0;
	busy = 1;
	err = step(call, path, caller);
	busy = 0;
	return err;
}

/* dl_iterate_phdr()'s step: the load range of each object not to count. */
static int note_excluded(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	if (n_excluded == EXCLUDED_MAX || !info->dlpi_name ||
	    (!strstr(info->dlpi_name, "umockdev") && !strstr(info->dlpi_name, "fault-shim") &&
	     !strstr(info->dlpi_name, "ld-linux")))
		return 0;
	for (int k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || n_excluded == EXCLUDED_MAX)
			continue;
		excluded[n_excluded].start = start;
		excluded[n_excluded++].end = start + ph->p_memsz;
	}
	return 0;
}

__attribute__((constructor)) static void inject_init(void)
{
	char text[16];

	if (strcmp(program_invocation_short_name, "powerallocd") != 0 ||
	    !getenv("POWERALLOCD_FAULT_DIR") || !getenv("POWERALLOCD_INJECT"))
		return;
	busy = 1;
	dl_iterate_phdr(note_excluded, NULL);
	busy = 0;
	state = WAITING;
	if (fault_rule("inject-arm", text, sizeof(text)) && strcmp(text, "now") == 0) {
		read_fail_rule();
		state = ARMED;
	}
}

__attribute__((destructor)) static void inject_fini(void)
{
	if (state == ARMED)
		write_counts();
}
