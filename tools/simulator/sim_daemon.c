/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon under the simulator: started under umockdev-wrapper on the
 * tree, watched, stopped, and checked to have put everything back.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim_io.h"
#include "sim_netlink.h"
#include "sim_preload.h"

/*
 * The daemon's thermal netlink: a datagram socket pair, our end kept, its
 * end inherited and read by its netlink socket through SIM_NETLINK_SHIM
 * (sim_netlink_shim.c).  Return: its end, or -1 (said on stderr).
 */
static int open_netlink(struct sim *sim)
{
	int pair[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, pair) < 0) {
		perror("socketpair");
		return -1;
	}
	sim->event_fd = pair[0];
	return pair[1];
}

/*
 * In the child: its end (@fd, -1: none) inherited and named in its
 * environment, the netlink shim preloaded, the fault shim too for @faults
 * (both checked to load: sim_preload_check()).
 */
static void give_netlink(int fd, bool faults)
{
	char number[16], preload[2100];

	if (fd >= 0) {
		fcntl(fd, F_SETFD, 0);
		snprintf(number, sizeof(number), "%d", fd);
		setenv(SIM_NETLINK_FD_ENV, number, 1);
	}
	sim_preload_list(faults, preload, sizeof(preload));
	setenv("LD_PRELOAD", preload, 1);
}

int sim_start_daemon(struct sim *sim)
{
	char conf[512], state[512], trace[512], log[512];
	int netlink_fd = open_netlink(sim);

	snprintf(conf, sizeof(conf), "%s/powerallocd.conf", sim->dir);
	snprintf(state, sizeof(state), "%s/state", sim->dir);
	snprintf(trace, sizeof(trace), "%s/trace.csv", sim->dir);
	snprintf(log, sizeof(log), "%s/powerallocd.log", sim->dir);
	sim->daemon = fork();
	if (sim->daemon == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		const char *level;

		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		setenv("UMOCKDEV_DIR", sim->dir, 1);
		bool faulty = sim_fault_needs_shim(sim->fault);

		if (faulty) {
			char faults[600];

			snprintf(faults, sizeof(faults), "%s/faults", sim->dir);
			mkdir(faults, 0755);
			setenv("POWERALLOCD_FAULT_DIR", faults, 1);
		}
		give_netlink(netlink_fd, faulty);
		/* The learnt models in the tree, unless asked to keep them elsewhere. */
		/* SIM_DAEMON_LOG_LEVEL: its debug lines (a calibration's windows) in the log. */
		level = getenv("SIM_DAEMON_LOG_LEVEL");
		execlp("umockdev-wrapper", "umockdev-wrapper", sim->powerallocd, "-c", conf,
		       "--state-file", state, "--state-directory",
		       sim->state_dir ? sim->state_dir : sim->dir, "--trace", trace,
		       "--log-target", "stderr", level ? "--log-level" : (char *)NULL, level,
		       (char *)NULL);
		_exit(127);
	}
	if (netlink_fd >= 0)
		close(netlink_fd);
	if (sim->daemon < 0) {
		perror("fork");
		return -1;
	}
	return 0;
}

int sim_check_config(const struct sim *sim)
{
	char conf[512], line[512];
	int status;
	pid_t pid;
	FILE *f;

	snprintf(conf, sizeof(conf), "%s/powerallocd.conf", sim->dir);
	f = fopen(conf, "r");
	if (!f) {
		perror(conf);
		return -1;
	}
	printf("the daemon's powerallocd.conf:\n");
	while (fgets(line, sizeof(line), f))
		printf("  %s", line);
	fclose(f);
	printf("\n");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(STDOUT_FILENO, STDERR_FILENO);
		setenv("UMOCKDEV_DIR", sim->dir, 1);
		execlp("umockdev-wrapper", "umockdev-wrapper", sim->powerallocd, "--check-config",
		       "-c", conf, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		perror("powerallocd --check-config");
		return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool sim_daemon_exited(struct sim *sim)
{
	if (!sim->daemon_done && waitpid(sim->daemon, &sim->daemon_status, WNOHANG) == sim->daemon) {
		char path[600], line[512];
		FILE *log;

		sim->daemon_done = true;
		/* The tree, the log with it, goes at the end: show the log now. */
		fprintf(stderr, "powerallocd exited early:\n");
		snprintf(path, sizeof(path), "%s/powerallocd.log", sim->dir);
		log = fopen(path, "re");
		while (log && fgets(line, sizeof(line), log))
			fprintf(stderr, "  %s", line);
		if (log)
			fclose(log);
	}
	return sim->daemon_done;
}

/* Every zone of the tree back on the kernel's governor (the fixture's). */
static bool policies_restored(const struct sim *sim)
{
	for (size_t z = 0; z < sim->n_sensors; z++) {
		char path[600], buf[64] = "";
		FILE *f;

		snprintf(path, sizeof(path), "%s/sys/devices/virtual/thermal/thermal_zone%zu/policy",
			 sim->dir, z);
		f = fopen(path, "r");
		if (!f || !fgets(buf, sizeof(buf), f) || strncmp(buf, "step_wise", 9) != 0) {
			if (f)
				fclose(f);
			return false;
		}
		fclose(f);
	}
	return true;
}

int sim_stop_daemon(struct sim *sim)
{
	bool restored = true;

	if (sim->daemon <= 0)
		return 0;
	if (!sim->daemon_done) {
		kill(sim->daemon, SIGTERM);
		waitpid(sim->daemon, &sim->daemon_status, 0);
		sim->daemon_done = true;
	}
	/* The tree starts every state at 0: the fan too must be back there. */
	for (size_t k = 0; k < sim->board->n_domains; k++)
		if (sim_read_state(sim->state_fd[k], 1) != 0)
			restored = false;
	if (sim->fan_fd >= 0 && sim_read_state(sim->fan_fd, 1) != 0)
		restored = false;
	if (!policies_restored(sim))
		restored = false;
	if (sim->killed)
		return restored && WIFEXITED(sim->restore_status) && WEXITSTATUS(sim->restore_status) == 0;
	return restored && WIFEXITED(sim->daemon_status) && WEXITSTATUS(sim->daemon_status) == 0;
}

int sim_wait_first_period(struct sim *sim, double timeout_s)
{
	const struct timespec poll = { 0, 5 * 1000 * 1000 };

	for (double waited_s = 0; waited_s < timeout_s; waited_s += 0.005) {
		sim_read_trace(sim);
		if (sim->trace_last_ms >= 0) {
			clock_gettime(CLOCK_MONOTONIC, &sim->first_row_seen);
			return 0;
		}
		if (sim_daemon_exited(sim))
			return -1;
		nanosleep(&poll, NULL);
	}
	fprintf(stderr, "powerallocd ran no period in %.0f s; simulating anyway\n", timeout_s);
	return -1;
}
