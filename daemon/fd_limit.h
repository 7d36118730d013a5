/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Open files: powerallocd keeps a few open per zone and per device (sensor,
 * cooling states, frequencies), so a machine with hundreds of zones needs
 * more descriptors than the usual soft limit of 1024; and whatever the
 * limit, the daemon's own files (the state file, sd_notify's socket, netlink,
 * the bus, the trace) must still find one after the zones took theirs.
 */

/* Descriptors set aside while the engine is built, for the daemon's own files. */
#define FD_RESERVE 16

/** struct fd_reserve - descriptors held open (-1: none could be). */
struct fd_reserve {
	int fd[FD_RESERVE];
};

/**
 * fd_limit_raise() - raise the soft RLIMIT_NOFILE to the hard one.  A
 * refusal (EPERM under a seccomp filter without @resources) is logged at
 * debug level only: the unit sets LimitNOFILE= itself.
 */
void fd_limit_raise(void);

/** fd_reserve_hold() - take FD_RESERVE descriptors (as many as there are). */
void fd_reserve_hold(struct fd_reserve *r);

/** fd_reserve_release() - give them back. */
void fd_reserve_release(struct fd_reserve *r);
