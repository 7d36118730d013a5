/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * powerallocd-sim: the real powerallocd, under umockdev-wrapper, controlling
 * a simulated SoC through the same files it uses on hardware.  The plant
 * (plant.c) writes the temperature, /proc/stat, scaling_cur_freq and the
 * GPU's frequency and load in place every step, and reads the cooling
 * states back.
 */
#include <errno.h>
#include <getopt.h>
#include <libconfig.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "plant.h"
#include "sim_io.h"

struct sim_options {
	const char *description;
	enum workload workload;
	double duration_s;
	double speed;
	const char *controller;
	const char *division;
	const char *zone_keys;
	int trip_offset_mc;	/* the daemon's control minus the description's */
	const char *powerallocd;
	enum sim_fault fault;
	int quiet;
};

struct series {
	double settled_work;	/* DMIPS-seconds delivered in the second half */
	double settled_limit;	/* the physical limit over the same time */
	double max_die_c;
	double above_s;
	double abs_err_sum;
	size_t abs_err_n;
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: powerallocd-sim [OPTIONS]\n"
		"Runs powerallocd against a simulated SoC and reports how well it held the\n"
		"control temperature.\n\n"
		"  -s, --sim FILE          simulation description (default: the RockPro64)\n"
		"  -w, --workload NAME     steady, burst, shift or ambient-step (default steady)\n"
		"  -d, --duration SECONDS  simulated time (default 60)\n"
		"  -x, --speed N           run N times faster than real time, 1 to 10 (default 1)\n"
		"  -c, --controller NAME   default, kernel or step_wise (default default)\n"
		"  -D, --division NAME     efficiency or request (default efficiency)\n"
		"  -k, --zone-keys TEXT    more keys for the daemon's zone, as in\n"
		"                          powerallocd.conf(5): \"k_po = 300; k_d = 50;\"\n"
		"  -t, --trip-below MC     give the daemon a control temperature MC m°C (0 to\n"
		"                          5000) under the description's; overshoot, time\n"
		"                          above and error stay measured against the\n"
		"                          description's (default 0)\n"
		"  -T, --trip-above MC     the same, MC m°C over the description's\n"
		"  -p, --powerallocd PATH  the daemon (default: the one built with this tool)\n"
		"  -f, --fault NAME        halfway through: sensor-eio (2 s of EIO), spike (one\n"
		"                          150 °C reading), cdev-vanish (ENODEV for 5 s),\n"
		"                          cpu-offline (CPU 5 for 5 s), reload-garbage,\n"
		"                          sigkill (then powerallocd --restore; the run ends)\n"
		"  -q, --quiet             only the summary\n"
		"  -h, --help\n");
}

/*
 * --trip-below / --trip-above: @text m°C (0 to 5000) in the direction @sign;
 * the two options set the same offset, so a second one is refused rather
 * than silently replacing the first.
 */
static int parse_trip_offset(const char *option, const char *text, int sign, int *offset_mc)
{
	char *end;
	long v = strtol(text, &end, 10);

	if (end == text || *end || v < 0 || v > 5000) {
		fprintf(stderr, "%s: m°C from 0 to 5000, not \"%s\"\n", option, text);
		return -1;
	}
	if (*offset_mc) {
		fprintf(stderr, "%s: the daemon's control temperature is already moved\n", option);
		return -1;
	}
	*offset_mc = sign * (int)v;
	return 0;
}

static int parse_options(int argc, char **argv, struct sim_options *o)
{
	static const struct option longopts[] = {
		{ "sim", required_argument, NULL, 's' },
		{ "workload", required_argument, NULL, 'w' },
		{ "duration", required_argument, NULL, 'd' },
		{ "speed", required_argument, NULL, 'x' },
		{ "controller", required_argument, NULL, 'c' },
		{ "division", required_argument, NULL, 'D' },
		{ "zone-keys", required_argument, NULL, 'k' },
		{ "trip-below", required_argument, NULL, 't' },
		{ "trip-above", required_argument, NULL, 'T' },
		{ "powerallocd", required_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "fault", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "s:w:d:x:c:D:k:t:T:p:f:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 's': o->description = optarg; break;
		case 'w':
			if (workload_parse(optarg, &o->workload) < 0) {
				fprintf(stderr, "unknown workload \"%s\"\n", optarg);
				return -1;
			}
			break;
		case 'd': o->duration_s = atof(optarg); break;
		case 'x': o->speed = atof(optarg); break;
		case 'c': o->controller = optarg; break;
		case 'D': o->division = optarg; break;
		case 'k': o->zone_keys = optarg; break;
		case 't':
		case 'T':
			if (parse_trip_offset(c == 'T' ? "--trip-above" : "--trip-below", optarg,
					      c == 'T' ? 1 : -1, &o->trip_offset_mc) < 0)
				return -1;
			break;
		case 'p': o->powerallocd = optarg; break;
		case 'q': o->quiet = 1; break;
		case 'f':
			if (sim_fault_parse(optarg, &o->fault) < 0) {
				fprintf(stderr, "unknown fault \"%s\"\n", optarg);
				return -1;
			}
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (o->duration_s < 1 || o->duration_s > 86400 || o->speed < 1 || o->speed > 10 ||
	    (strcmp(o->controller, "default") != 0 && strcmp(o->controller, "kernel") != 0 &&
	     strcmp(o->controller, "step_wise") != 0) ||
	    (strcmp(o->division, "request") != 0 && strcmp(o->division, "efficiency") != 0)) {
		fprintf(stderr, "duration 1-86400 s, speed 1-10, controller default, kernel or "
			"step_wise\n");
		return -1;
	}
	return 0;
}

/* Ctrl-C or SIGTERM: stop the daemon, report, clean up, as at the end. */
static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void record(struct series *s, const struct plant *pl, double control_c)
{
	if (pl->die_c > s->max_die_c)
		s->max_die_c = pl->die_c;
	if (pl->die_c > control_c)
		s->above_s += 0.01;
	/* "Settled": the second half of the run. */
	if (pl->t_s >= pl->duration_s / 2) {
		s->abs_err_sum += fabs(pl->die_c - control_c);
		s->abs_err_n++;
	}
}

/* Work this step, and what the thermal limit allows at control temperature. */
static void record_work(struct series *s, const struct plant *pl, double work_before,
			double control_c, double dt_s)
{
	const struct thermal_params *t = &pl->p;
	double sustainable_w = (control_c - plant_ambient_c(pl)) /
			       (t->die_to_case_k_per_w + t->case_to_ambient_k_per_w) - t->static_power_w;

	if (pl->t_s < pl->duration_s / 2)
		return;
	s->settled_work += pl->work_done - work_before;
	s->settled_limit += plant_best_work_rate(pl, sustainable_w) * dt_s;
}

static void print_second(struct sim *sim, const struct plant *pl)
{
	printf("%6.0f s  die %6.2f °C  case %6.2f °C  power %5.0f mW  budget %5ld mW",
	       pl->t_s, pl->die_c, pl->case_c, pl->power_w * 1000, sim->budget_mw);
	for (size_t k = 0; k < pl->board->n_domains; k++)
		printf("  %s %4u MHz (s%lu)", pl->board->domains[k].name,
		       pl->dom[k].freq_khz / 1000, pl->dom[k].state);
	printf("\n");
	fflush(stdout);
}

/*
 * How far the plant is behind its schedule at @next, in simulated seconds.
 * A simulator held up by the machine catches up by stepping unpaced, and
 * the daemon, paced by the clock, sees that much simulated time pass
 * without a period: its trace shows no gap, so this is measured here.
 */
static void note_lag(struct sim *sim, const struct timespec *next, double speed)
{
	struct timespec now;
	double late_s;

	clock_gettime(CLOCK_MONOTONIC, &now);
	late_s = (double)(now.tv_sec - next->tv_sec) + (double)(now.tv_nsec - next->tv_nsec) / 1e9;
	if (late_s * speed > sim->max_lag_s)
		sim->max_lag_s = late_s * speed;
}

/* Steps the plant in real time / speed until the duration is simulated. */
static void run_loop(struct sim *sim, struct plant *pl, const struct sim_options *o,
		     struct series *s)
{
	const double dt_s = 0.01;
	struct timespec next;
	long step_ns = (long)(dt_s / o->speed * 1e9);
	int steps_per_second = (int)lround(1.0 / dt_s);

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (int step = 1; pl->t_s < o->duration_s - dt_s / 2 && !interrupted; step++) {
		sim_apply_fault(sim, pl->t_s);
		if (sim->killed)
			break;	/* nothing controls the plant any more */
		double work_before = pl->work_done;

		sim_read_states(sim, pl);
		plant_step(pl, dt_s);
		sim_write_outputs(sim, pl, dt_s);
		record(s, pl, sim->control_c);
		record_work(s, pl, work_before, sim->control_c, dt_s);
		if (step % steps_per_second == 0) {
			sim_read_trace(sim);
			if (!o->quiet)
				print_second(sim, pl);
		}
		next.tv_nsec += step_ns;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		note_lag(sim, &next, o->speed);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		if (!sim->killed && sim_daemon_exited(sim))
			break;
	}
}

static void print_summary(const struct sim *sim, const struct plant *pl, const struct series *s,
			  const struct sim_options *o, int restored)
{
	printf("\nsummary: %s workload, %s controller, %s division, %.0f s simulated at %.0fx%s%s\n",
	       workload_name(o->workload), o->controller, o->division, pl->t_s, o->speed,
	       o->fault ? ", fault " : "", o->fault ? sim_fault_name(o->fault) : "");
	printf("  control temperature        %6.2f °C\n", sim->control_c);
	if (o->trip_offset_mc)
		printf("  the daemon's control       %6.2f °C\n",
		       sim->control_c + o->trip_offset_mc / 1000.0);
	printf("  maximum temperature        %6.2f °C\n", s->max_die_c);
	printf("  max overshoot              %6.2f °C\n", fmax(0, s->max_die_c - sim->control_c));
	printf("  time above control         %6.1f s\n", s->above_s);
	printf("  mean |error|, second half  %6.2f °C\n",
	       s->abs_err_n ? s->abs_err_sum / (double)s->abs_err_n : 0);
	printf("  work delivered             %6.2f %% of demanded\n",
	       pl->work_demanded > 0 ? 100 * pl->work_done / pl->work_demanded : 100);
	printf("  work, second half          %6.1f %% of the physical limit\n",
	       s->settled_limit > 0 ? 100 * s->settled_work / s->settled_limit : 100);
	if (sim->fan_cdev >= 0)
		printf("  fan, deepest state         %6lu\n", sim->fan_highest);
	/* In simulated time: a daemon that missed periods lets the plant run on. */
	printf("  longest gap, active periods %5.0f ms (period %d ms)\n",
	       (double)sim->trace_max_gap_ms * o->speed, SIM_PERIOD_MS);
	printf("  longest lag, simulator     %5.0f ms (simulated, stepped unpaced)\n",
	       sim->max_lag_s * 1000);
	printf("  daemon stopped, limits and policy restored: %s\n", restored ? "yes" : "NO");
}

int main(int argc, char **argv)
{
	struct sim_options o = { .description = SIM_DEFAULT_DESCRIPTION, .duration_s = 60,
				 .speed = 1, .controller = "default", .division = "efficiency",
				 .powerallocd = SIM_DEFAULT_POWERALLOCD };
	struct sim_settings set;
	struct series s = { 0 };
	struct plant pl;
	struct sim sim;
	int restored;

	if (parse_options(argc, argv, &o) < 0)
		return 2;
	signal(SIGINT, on_interrupt);
	signal(SIGTERM, on_interrupt);
	set = (struct sim_settings){ .controller = o.controller, .division = o.division,
				     .zone_keys = o.zone_keys, .trip_offset_mc = o.trip_offset_mc,
				     .speed = o.speed,
				     .powerallocd = o.powerallocd };
	if (sim_setup(&sim, o.description, &set) < 0)
		return 1;
	sim.fault = o.fault;
	sim.fault_at_s = o.duration_s / 2;
	plant_init(&pl, sim.board, &sim.thermal, o.workload, o.duration_s);
	if (!o.quiet) {
		printf("simulating %s (%s), workload %s, %s controller, control %.1f °C\n",
		       sim.board->name, o.description, workload_name(o.workload), o.controller,
		       sim.control_c);
		printf("tree: %s (the daemon's log, trace and state file are there too)\n", sim.dir);
		fflush(stdout);
	}
	sim_write_outputs(&sim, &pl, 0);
	if (sim_start_daemon(&sim) < 0) {
		sim_cleanup(&sim);
		return 1;
	}
	run_loop(&sim, &pl, &o, &s);
	restored = sim_stop_daemon(&sim);
	sim_read_trace(&sim);
	print_summary(&sim, &pl, &s, &o, restored);
	sim_cleanup(&sim);
	return restored ? 0 : 1;
}
