/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The fault shim's Nth-call injection (fault-inject.c): the calls it counts,
 * and the hook each wrapper of the shim asks before it calls on.
 */

/* The kinds of call counted, each a name in the rule files ("open", ...). */
enum inject_call {
	INJECT_OPEN,		/* open, open64, openat, openat64 */
	INJECT_READ,		/* read */
	INJECT_PREAD,		/* pread, pread64 */
	INJECT_WRITE,		/* write, pwrite, pwrite64 */
	INJECT_ALLOC,		/* malloc, calloc, realloc */
	INJECT_SENDMSG,		/* sendmsg: netlink, the bus, sd_notify */
	INJECT_RECVMSG,		/* recvmsg */
	INJECT_CONNECT,		/* connect: the bus */
	INJECT_CALLS
};

/**
 * fault_inject() - count a call of @call (@path: the file an open names,
 * else NULL; @caller: where an allocation was called from, else NULL) and
 * say whether it fails.
 * Return: the errno it fails with, 0 to go on.
 */
int fault_inject(enum inject_call call, const char *path, void *caller);

/**
 * fault_rule() - the first line of $POWERALLOCD_FAULT_DIR/@rule_file into
 * @text ("" when absent), read with raw system calls: the shim's own reads
 * are no call of the daemon's, to count or to fail.
 * Return: whether the file exists.
 */
int fault_rule(const char *rule_file, char *text, unsigned long size);
