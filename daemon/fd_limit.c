/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "fd_limit.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "platform/log.h"

void fd_limit_raise(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= rl.rlim_max)
		return;
	if (setrlimit(RLIMIT_NOFILE, &(struct rlimit){ rl.rlim_max, rl.rlim_max }) < 0)
		pa_log(PA_LOG_DEBUG, "cannot raise the open files limit from %llu to %llu: %s",
		       (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max,
		       strerror(errno));
	else
		pa_log(PA_LOG_DEBUG, "open files limit raised from %llu to %llu",
		       (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max);
}

void fd_reserve_hold(struct fd_reserve *r)
{
	for (size_t i = 0; i < FD_RESERVE; i++)
		r->fd[i] = open("/", O_PATH | O_CLOEXEC);
}

void fd_reserve_release(struct fd_reserve *r)
{
	for (size_t i = 0; i < FD_RESERVE; i++)
		if (r->fd[i] >= 0)
			close(r->fd[i]);
}
