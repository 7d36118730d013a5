/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The faults tools/sim injects halfway through a run (--fault): rule files
 * for the test-only LD_PRELOAD shim (EIO, ENODEV), a spike, an offline CPU,
 * a garbage reload, SIGKILL followed by powerallocd --restore.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_io.h"

static const char *const fault_names[] = { "none", "sensor-eio", "spike", "cdev-vanish",
					   "cpu-offline", "reload-garbage", "sigkill" };

int sim_fault_parse(const char *name, enum sim_fault *f)
{
	int i = name_index(fault_names, 7, name);

	if (i >= 0)
		*f = (enum sim_fault)i;
	return i < 0 ? -1 : 0;
}

const char *sim_fault_name(enum sim_fault f)
{
	return (unsigned int)f < 7 ? fault_names[f] : "?";
}

bool sim_fault_needs_shim(enum sim_fault f)
{
	return f == FAULT_SENSOR_EIO || f == FAULT_CDEV_VANISH;
}

/*
 * The shim's rule file @name holds @suffix, or is removed when @suffix is
 * NULL; written only when that changes (the shim reads it at every access).
 */
static void shim_rule(struct sim *sim, const char *name, const char *suffix)
{
	char path[600], tmp[610];
	FILE *f;

	if ((suffix != NULL) == sim->rule_on)
		return;
	sim->rule_on = suffix != NULL;
	snprintf(path, sizeof(path), "%s/faults/%s", sim->dir, name);
	if (!suffix) {
		unlink(path);
		return;
	}
	/* Whole, or not at all: written aside, then renamed in place. */
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	f = fopen(tmp, "w");
	if (f) {
		fprintf(f, "%s\n", suffix);
		fclose(f);
		rename(tmp, path);
	}
}

static void reload_garbage(struct sim *sim)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/powerallocd.conf", sim->dir);
	f = fopen(path, "w");
	if (f) {
		fputs("zones = ( garbage\n", f);
		fclose(f);
	}
	kill(sim->daemon, SIGHUP);
}

/* SIGKILL, then what the unit's ExecStopPost does: powerallocd --restore. */
static void kill_and_restore(struct sim *sim)
{
	char state[600];
	pid_t pid;

	kill(sim->daemon, SIGKILL);
	waitpid(sim->daemon, &sim->daemon_status, 0);
	sim->daemon_done = true;
	snprintf(state, sizeof(state), "%s/state", sim->dir);
	pid = fork();
	if (pid == 0) {
		setenv("UMOCKDEV_DIR", sim->dir, 1);
		/* Its report ("restored 4 files from ...") beside the daemon's log, not in the run's. */
		dup2(STDERR_FILENO, STDOUT_FILENO);
		execlp("umockdev-wrapper", "umockdev-wrapper", sim->powerallocd, "--restore",
		       "--state-file", state, "--log-target", "stderr", (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &sim->restore_status, 0);
	sim->killed = true;
}

void sim_apply_fault(struct sim *sim, double t_s)
{
	double since = t_s - sim->fault_at_s;

	sim->spike_now = false;
	if (sim->fault == FAULT_NONE || since < 0)
		return;
	switch (sim->fault) {
	case FAULT_SENSOR_EIO:
		shim_rule(sim, "eio-read", since < 2.0 ? "thermal_zone0/temp" : NULL);
		break;
	case FAULT_SPIKE:
		/* Held for one control period, so the daemon reads it once. */
		sim->spike_now = since < 0.1;
		break;
	case FAULT_CDEV_VANISH:
		shim_rule(sim, "enodev-write", since < 5.0 ? "cooling_device1/cur_state" : NULL);
		break;
	case FAULT_CPU_OFFLINE:
		sim->cpu5_offline = since < 5.0;
		break;
	case FAULT_RELOAD_GARBAGE:
		if (!sim->reloaded)
			reload_garbage(sim);
		sim->reloaded = true;
		break;
	case FAULT_SIGKILL:
		if (!sim->killed)
			kill_and_restore(sim);
		break;
	default:
		break;
	}
}
