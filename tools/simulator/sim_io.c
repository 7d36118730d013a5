/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sim_io.h"

#include <errno.h>
#include <fcntl.h>
#include <libconfig.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define USER_HZ 100.0

/* In place, as the kernel changes a file: one write, then the length. */
static void put_fd(int fd, const char *text)
{
	size_t len = strlen(text);

	if (fd < 0)
		return;
	if (pwrite(fd, text, len, 0) == (ssize_t)len)
		(void)!ftruncate(fd, (off_t)len);
}

static int open_in_tree(const struct sim *sim, const char *rel, int flags)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", sim->dir, rel);
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
	return fd;
}

static int lookup_double(config_t *cfg, const char *path, double *v)
{
	double d;
	int i;

	if (config_lookup_float(cfg, path, &d) == CONFIG_TRUE) {
		*v = d;
		return 0;
	}
	if (config_lookup_int(cfg, path, &i) == CONFIG_TRUE) {
		*v = i;
		return 0;
	}
	fprintf(stderr, "simulation description: missing number %s\n", path);
	return -1;
}

static int lookup_string(config_t *cfg, const char *path, char *buf, size_t size)
{
	const char *s;

	if (config_lookup_string(cfg, path, &s) != CONFIG_TRUE) {
		fprintf(stderr, "simulation description: missing string %s\n", path);
		return -1;
	}
	snprintf(buf, size, "%s", s);
	return 0;
}

static bool board_has_gpu(const struct board *b)
{
	for (size_t k = 0; k < b->n_domains; k++)
		if (!b->domains[k].n_cpus)
			return true;
	return false;
}

/*
 * The optional fan: fan = { cooling_device = N; resistance_k_per_w = [ ... ]; },
 * the case-to-ambient resistance for each fan state.  Return: 0 or -1.
 */
static int read_fan(struct sim *sim, config_t *cfg)
{
	config_setting_t *r = config_lookup(cfg, "fan.resistance_k_per_w");
	struct thermal_params *t = &sim->thermal;
	int cdev;

	sim->fan_cdev = -1;
	if (!config_lookup(cfg, "fan"))
		return 0;
	if (config_lookup_int(cfg, "fan.cooling_device", &cdev) != CONFIG_TRUE || cdev < 0 || !r ||
	    !config_setting_is_array(r) || config_setting_length(r) < 1 ||
	    config_setting_length(r) > PLANT_MAX_FAN_STATES) {
		fprintf(stderr, "simulation description: fan needs cooling_device and 1 to %d "
			"resistances\n", PLANT_MAX_FAN_STATES);
		return -1;
	}
	sim->fan_cdev = cdev;
	t->n_fan_states = (size_t)config_setting_length(r);
	for (size_t i = 0; i < t->n_fan_states; i++)
		t->fan_case_to_ambient_k_per_w[i] = config_setting_get_float_elem(r, (int)i);
	return 0;
}

/* The board's GPU needs its devfreq device name (gpu_device); a board without one does not. */
static int read_description(struct sim *sim, const char *path)
{
	struct thermal_params *t = &sim->thermal;
	char board[64];
	config_t cfg;
	int r = -1;

	config_init(&cfg);
	if (config_read_file(&cfg, path) != CONFIG_TRUE) {
		fprintf(stderr, "%s:%d: %s\n", path, config_error_line(&cfg), config_error_text(&cfg));
	} else if (lookup_string(&cfg, "board", board, sizeof(board)) == 0 &&
		   lookup_string(&cfg, "tree", sim->tree_name, sizeof(sim->tree_name)) == 0 &&
		   lookup_string(&cfg, "zone.sensor", sim->sensor, sizeof(sim->sensor)) == 0 &&
		   lookup_double(&cfg, "ambient_c", &t->ambient_c) == 0 &&
		   lookup_double(&cfg, "initial_c", &t->initial_c) == 0 &&
		   lookup_double(&cfg, "die.capacity_j_per_k", &t->die_capacity_j_per_k) == 0 &&
		   lookup_double(&cfg, "die.resistance_k_per_w", &t->die_to_case_k_per_w) == 0 &&
		   lookup_double(&cfg, "case.capacity_j_per_k", &t->case_capacity_j_per_k) == 0 &&
		   lookup_double(&cfg, "case.resistance_k_per_w", &t->case_to_ambient_k_per_w) == 0 &&
		   lookup_double(&cfg, "static_power_w", &t->static_power_w) == 0 &&
		   lookup_double(&cfg, "zone.switch_on_c", &sim->switch_on_c) == 0 &&
		   lookup_double(&cfg, "zone.control_c", &sim->control_c) == 0) {
		sim->board = board_find(board);
		if (!sim->board)
			fprintf(stderr, "%s: unknown board \"%s\"\n", path, board);
		else if (board_has_gpu(sim->board))
			r = lookup_string(&cfg, "gpu_device", sim->gpu_device, sizeof(sim->gpu_device));
		else
			r = 0;
		if (r == 0)
			r = read_fan(sim, &cfg);
	}
	config_destroy(&cfg);
	return r;
}

/* tests/fixture.py TREE DIR */
static int build_tree(const struct sim *sim)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		execlp("python3", "python3", SIM_FIXTURE_SCRIPT, sim->tree_name, sim->dir, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "cannot build the %s tree with %s\n", sim->tree_name,
			SIM_FIXTURE_SCRIPT);
		return -1;
	}
	return 0;
}

/*
 * The daemon's config: one zone with every domain as an actor, the
 * sustainable power the thermal model actually has at the daemon's control
 * temperature (the description's, or moved by --trip-below or --trip-above),
 * and the period scaled by the speed.
 */
static int write_config(const struct sim *sim, const struct sim_settings *set)
{
	double speed = set->speed;
	const struct thermal_params *t = &sim->thermal;
	double r_total = t->die_to_case_k_per_w + t->case_to_ambient_k_per_w;
	int control_mc = (int)(sim->control_c * 1000) + set->trip_offset_mc;
	double sp_w = (control_mc / 1000.0 - t->ambient_c) / r_total - t->static_power_w;
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/powerallocd.conf", sim->dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "idle_poll_ms = %d;\nzones = ( { name = \"soc\"; sensor = \"%s\";\n"
		"  switch_on_temp = %d; control_temp = %d; sustainable_power = %d;\n"
		"  period_ms = %d; controller = \"%s\"; division = \"%s\";\n",
		(int)(1000 / speed), sim->sensor, (int)(sim->switch_on_c * 1000),
		control_mc, (int)(sp_w * 1000), (int)(SIM_PERIOD_MS / speed), set->controller,
		set->division);
	if (set->zone_keys)
		fprintf(f, "  %s\n", set->zone_keys);
	fprintf(f, "  actors = (\n");
	for (size_t k = 0; k < sim->board->n_domains; k++) {
		const struct board_domain *d = &sim->board->domains[k];

		if (d->n_cpus)
			fprintf(f, "    { type = \"cpufreq\"; cpus = \"%u-%u\"; }%s\n", d->cpus[0],
				d->cpus[d->n_cpus - 1], k + 1 < sim->board->n_domains ? "," : "");
		else
			fprintf(f, "    { type = \"devfreq\"; device = \"%s\"; }%s\n", sim->gpu_device,
				k + 1 < sim->board->n_domains ? "," : "");
	}
	fprintf(f, "  ); } );\n");
	return fclose(f) == 0 ? 0 : -1;
}

static int open_files(struct sim *sim)
{
	char rel[256];
	unsigned int n_clusters = 0;

	/* Every zone of the tree reads the die (one thermal model for the SoC). */
	for (size_t z = 0; z < SIM_MAX_SENSORS; z++) {
		char path[512];

		snprintf(rel, sizeof(rel), "sys/devices/virtual/thermal/thermal_zone%zu/temp", z);
		snprintf(path, sizeof(path), "%s/%s", sim->dir, rel);
		if (access(path, F_OK) != 0)
			break;
		sim->sensor_fd[sim->n_sensors++] = open_in_tree(sim, rel, O_WRONLY);
	}
	sim->stat_fd = open_in_tree(sim, "proc/stat", O_WRONLY);
	sim->fan_fd = -1;
	if (sim->fan_cdev >= 0) {
		snprintf(rel, sizeof(rel), "sys/devices/virtual/thermal/cooling_device%d/cur_state",
			 sim->fan_cdev);
		sim->fan_fd = open_in_tree(sim, rel, O_RDONLY);
		if (sim->fan_fd < 0)
			return -1;
	}
	for (size_t k = 0; k < sim->board->n_domains; k++) {
		const struct board_domain *d = &sim->board->domains[k];

		sim->load_fd[k] = -1;
		if (d->n_cpus) {
			snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpufreq/policy%u/scaling_cur_freq",
				 d->cpus[0]);
			sim->freq_fd[k] = open_in_tree(sim, rel, O_WRONLY);
			sim->n_cpus += d->n_cpus;
			n_clusters++;
		} else {
			snprintf(rel, sizeof(rel), "sys/class/devfreq/%s/cur_freq", sim->gpu_device);
			sim->freq_fd[k] = open_in_tree(sim, rel, O_WRONLY);
			char load[600];

			snprintf(load, sizeof(load), "%s/sys/class/devfreq/%s/load", sim->dir,
				 sim->gpu_device);
			sim->load_fd[k] = open(load, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		}
		/* The fixture registers the clusters' cooling devices first, then the GPU's. */
		snprintf(rel, sizeof(rel), "sys/devices/virtual/thermal/cooling_device%zu/cur_state",
			 d->n_cpus ? k : (size_t)n_clusters);
		sim->state_fd[k] = open_in_tree(sim, rel, O_RDONLY);
		if (sim->freq_fd[k] < 0 || sim->state_fd[k] < 0)
			return -1;
	}
	return sim->stat_fd < 0 || sim->n_cpus > SIM_MAX_CPUS ? -1 : 0;
}

int sim_setup(struct sim *sim, const char *description, const struct sim_settings *set)
{
	memset(sim, 0, sizeof(*sim));
	sim->daemon = -1;
	sim->fan_cdev = sim->fan_fd = -1;
	sim->trace_fd = -1;
	sim->budget_mw = -1;
	sim->trace_last_ms = -1;
	sim->powerallocd = set->powerallocd;
	snprintf(sim->dir, sizeof(sim->dir), "%s/powerallocd-sim.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (read_description(sim, description) < 0 || !mkdtemp(sim->dir))
		return -1;
	if (build_tree(sim) < 0 || write_config(sim, set) < 0 || open_files(sim) < 0) {
		sim_cleanup(sim);
		return -1;
	}
	return 0;
}

static void write_proc_stat(struct sim *sim, const struct plant *pl, double dt_s)
{
	char text[64 * (SIM_MAX_CPUS + 4)];
	size_t len = (size_t)snprintf(text, sizeof(text), "cpu  0 0 0 0 0 0 0 0 0 0\n");
	unsigned int cpu = 0;

	for (size_t k = 0; k < pl->board->n_domains; k++) {
		const struct board_domain *d = &pl->board->domains[k];

		for (unsigned int i = 0; i < d->n_cpus; i++, cpu++) {
			sim->busy_ticks[cpu] += pl->dom[k].busy * dt_s * USER_HZ;
			sim->idle_ticks[cpu] += (1 - pl->dom[k].busy) * dt_s * USER_HZ;
			if (sim->cpu5_offline && d->cpus[i] == 5)
				continue;	/* an offline CPU has no line */
			len += (size_t)snprintf(text + len, sizeof(text) - len,
						"cpu%u %.0f 0 0 %.0f 0 0 0 0 0 0\n", d->cpus[i],
						sim->busy_ticks[cpu], sim->idle_ticks[cpu]);
		}
	}
	snprintf(text + len, sizeof(text) - len, "intr 0\nctxt 0\n");
	put_fd(sim->stat_fd, text);
}

void sim_write_outputs(struct sim *sim, const struct plant *pl, double dt_s)
{
	char text[64];

	snprintf(text, sizeof(text), "%ld\n", sim->spike_now ? 150000L : lround(pl->die_c * 1000));
	for (size_t z = 0; z < sim->n_sensors; z++)
		put_fd(sim->sensor_fd[z], text);
	write_proc_stat(sim, pl, dt_s);
	for (size_t k = 0; k < pl->board->n_domains; k++) {
		uint32_t khz = pl->dom[k].freq_khz ? pl->dom[k].freq_khz
			       : pl->board->domains[k].opps[pl->board->domains[k].n_opps - 1].freq_khz;

		if (sim->load_fd[k] >= 0) {
			snprintf(text, sizeof(text), "%ld@%luHz\n", lround(pl->dom[k].busy * 100),
				 (unsigned long)khz * 1000);
			put_fd(sim->load_fd[k], text);
			snprintf(text, sizeof(text), "%lu\n", (unsigned long)khz * 1000);
		} else {
			snprintf(text, sizeof(text), "%u\n", khz);
		}
		put_fd(sim->freq_fd[k], text);
	}
}

/* A cooling state from @fd, or @fallback when it cannot be read. */
static unsigned long read_state(int fd, unsigned long fallback)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return fallback;
	buf[n] = '\0';
	return strtoul(buf, NULL, 10);
}

void sim_read_states(struct sim *sim, struct plant *pl)
{
	for (size_t k = 0; k < pl->board->n_domains; k++)
		pl->dom[k].state = read_state(sim->state_fd[k], pl->dom[k].state);
	if (sim->fan_fd >= 0) {
		pl->fan_state = read_state(sim->fan_fd, pl->fan_state);
		if (pl->fan_state > sim->fan_highest)
			sim->fan_highest = pl->fan_state;
	}
}

/* Field @col (0-based) of a trace row, or NULL. */
static const char *trace_field(const char *row, int col)
{
	for (int c = 0; c < col && row; c++) {
		row = strchr(row, ',');
		row = row ? row + 1 : NULL;
	}
	return row;
}

/*
 * One complete trace row: the budget (column 10), and the gap since the
 * previous period when both were active (columns 1 and 4), which shows a
 * daemon that did not run on time.
 */
static void trace_row(struct sim *sim, const char *row)
{
	const char *active = trace_field(row, 3), *budget = trace_field(row, 9);
	long time_ms = strtol(row, NULL, 10);
	bool is_active = active && active[0] == '1';

	if (row[0] < '0' || row[0] > '9' || !budget || !strchr(budget, ','))
		return;	/* the header, or not a row */
	sim->budget_mw = strtol(budget, NULL, 10);
	if (time_ms == sim->trace_last_ms)
		return;	/* another actor of the same period */
	if (is_active && sim->trace_last_active && time_ms - sim->trace_last_ms > sim->trace_max_gap_ms)
		sim->trace_max_gap_ms = time_ms - sim->trace_last_ms;
	sim->trace_last_ms = time_ms;
	sim->trace_last_active = is_active;
}

void sim_read_trace(struct sim *sim)
{
	char buf[4096 + sizeof(sim->trace_tail)];
	size_t kept = strlen(sim->trace_tail);
	ssize_t n;

	if (sim->trace_fd < 0) {
		char path[512];

		snprintf(path, sizeof(path), "%s/trace.csv", sim->dir);
		sim->trace_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (sim->trace_fd < 0)
			return;	/* no trace yet */
	}
	/* A row the daemon had not finished writing at the last read comes first. */
	memcpy(buf, sim->trace_tail, kept);
	while ((n = read(sim->trace_fd, buf + kept, sizeof(buf) - 1 - kept)) > 0) {
		char *row = buf, *nl;

		buf[kept + (size_t)n] = '\0';
		while ((nl = strchr(row, '\n'))) {
			*nl = '\0';
			trace_row(sim, row);
			row = nl + 1;
		}
		kept = strlen(row);
		if (kept >= sizeof(sim->trace_tail))
			kept = 0;	/* no row is that long: drop it */
		memmove(buf, row, kept);
	}
	memcpy(sim->trace_tail, buf, kept);
	sim->trace_tail[kept] = '\0';
}

int sim_start_daemon(struct sim *sim)
{
	char conf[512], state[512], trace[512], log[512];

	snprintf(conf, sizeof(conf), "%s/powerallocd.conf", sim->dir);
	snprintf(state, sizeof(state), "%s/state", sim->dir);
	snprintf(trace, sizeof(trace), "%s/trace.csv", sim->dir);
	snprintf(log, sizeof(log), "%s/powerallocd.log", sim->dir);
	sim->daemon = fork();
	if (sim->daemon == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		setenv("UMOCKDEV_DIR", sim->dir, 1);
		if (sim->fault == FAULT_SENSOR_EIO || sim->fault == FAULT_CDEV_VANISH) {
			char faults[600];

			snprintf(faults, sizeof(faults), "%s/faults", sim->dir);
			mkdir(faults, 0755);
			setenv("POWERALLOCD_FAULT_DIR", faults, 1);
			setenv("LD_PRELOAD", SIM_FAULT_SHIM, 1);
		}
		execlp("umockdev-wrapper", "umockdev-wrapper", sim->powerallocd, "-c", conf,
		       "--state-file", state, "--trace", trace, "--log-target", "stderr",
		       (char *)NULL);
		_exit(127);
	}
	if (sim->daemon < 0) {
		perror("fork");
		return -1;
	}
	return 0;
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
		if (read_state(sim->state_fd[k], 1) != 0)
			restored = false;
	if (sim->fan_fd >= 0 && read_state(sim->fan_fd, 1) != 0)
		restored = false;
	if (!policies_restored(sim))
		restored = false;
	if (sim->killed)
		return restored && WIFEXITED(sim->restore_status) && WEXITSTATUS(sim->restore_status) == 0;
	return restored && WIFEXITED(sim->daemon_status) && WEXITSTATUS(sim->daemon_status) == 0;
}

void sim_cleanup(struct sim *sim)
{
	char cmd[600];

	for (size_t z = 0; z < sim->n_sensors; z++)
		close(sim->sensor_fd[z]);
	if (sim->fan_fd >= 0)
		close(sim->fan_fd);
	if (sim->trace_fd >= 0)
		close(sim->trace_fd);
	if (sim->dir[0] && strstr(sim->dir, "powerallocd-sim.") && !getenv("SIM_KEEP_TREE")) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sim->dir);
		(void)!system(cmd);
	}
}
