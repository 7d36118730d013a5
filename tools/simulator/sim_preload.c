/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The shims preloaded into the daemon, checked to load before it starts (sim_preload.h). */
#include "sim_preload.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * One shim: its name, what a run without it would do instead, the
 * environment variable that may name another file, the file the build
 * makes and its ninja target.
 */
struct shim {
	const char *name;
	const char *without;
	const char *env;
	const char *built;
	const char *target;
};

static const struct shim netlink_shim = {
	"the netlink shim", "the daemon would listen to this machine's thermal netlink, not to "
	"the simulated kernel's", "SIM_NETLINK_SHIM",
	SIM_BUILD_DIR "/" SIM_NETLINK_SHIM_TARGET, SIM_NETLINK_SHIM_TARGET,
};
static const struct shim fault_shim = {
	"the fault shim", "the fault would not be injected", "SIM_FAULT_SHIM",
	SIM_BUILD_DIR "/" SIM_FAULT_SHIM_TARGET, SIM_FAULT_SHIM_TARGET,
};

static const char *shim_path(const struct shim *s)
{
	const char *path = getenv(s->env);

	return path && *path ? path : s->built;
}

/*
 * Whether @path loads as ld.so would preload it into the daemon (built by
 * the same build, so of this machine's architecture): dlopen()ed in a
 * child, so that a constructor or a crash stays there; why not into @why.
 */
static bool loads(const char *path, char *why, size_t size)
{
	int status = 0, pipe_fd[2];
	ssize_t n, got = 0;
	pid_t pid;

	/* LD_PRELOAD splits its list at spaces and colons: such a path is never loaded whole. */
	if (strpbrk(path, " :\t")) {
		snprintf(why, size, "%s: LD_PRELOAD cannot name a path with a space or a colon", path);
		return false;
	}
	if (pipe2(pipe_fd, O_CLOEXEC) < 0) {
		snprintf(why, size, "%s: %m", path);
		return false;
	}
	if ((pid = fork()) < 0) {
		snprintf(why, size, "%s: %m", path);
		close(pipe_fd[0]);
		close(pipe_fd[1]);
		return false;
	}
	if (pid == 0) {
		const char *error;

		if (dlopen(path, RTLD_LAZY | RTLD_LOCAL))
			_exit(0);
		error = dlerror();
		(void)!write(pipe_fd[1], error, strlen(error));
		_exit(1);
	}
	close(pipe_fd[1]);
	while (got < (ssize_t)size - 1 && (n = read(pipe_fd[0], why + got, size - 1 - (size_t)got)) > 0)
		got += n;
	why[got] = '\0';
	close(pipe_fd[0]);
	if (waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return true;
	if (!got)
		snprintf(why, size, "%s: the child that loaded it failed (status 0x%x)", path, status);
	return false;
}

/* @s loads, or it is said with why and what the run would do, and its target added to @targets. */
static bool check(const struct shim *s, const char *for_what, char *targets, size_t size)
{
	const char *path = shim_path(s);
	char why[1024];
	size_t used = strlen(targets);

	if (loads(path, why, sizeof(why)))
		return true;
	fprintf(stderr, "powerallocd-sim: %s%s%s%s does not load: %s; without it %s\n", s->name,
		for_what, path == s->built ? "" : " named by ", path == s->built ? "" : s->env, why,
		s->without);
	snprintf(targets + used, size - used, " %s", s->target);
	return false;
}

int sim_preload_check(bool faults, const char *fault_name)
{
	char targets[512] = "", for_fault[96];
	bool ok = check(&netlink_shim, "", targets, sizeof(targets));

	snprintf(for_fault, sizeof(for_fault), " of --fault %s", fault_name);
	if (faults)
		ok = check(&fault_shim, for_fault, targets, sizeof(targets)) && ok;
	if (ok)
		return 0;
	fprintf(stderr, "powerallocd-sim: nothing run; build what it needs:\n  ninja -C %s%s\n",
		SIM_BUILD_DIR, targets);
	return -1;
}

void sim_preload_list(bool faults, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s", shim_path(&netlink_shim), faults ? ":" : "",
		 faults ? shim_path(&fault_shim) : "");
}
