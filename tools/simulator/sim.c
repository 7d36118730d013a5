/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * powerallocd-sim: the real powerallocd, under umockdev-wrapper, controlling
 * a simulated SoC through the same files it uses on hardware.  The plant
 * (plant.c) writes the temperature, /proc/stat, scaling_cur_freq and the
 * GPU's frequency and load in place every step, and reads the cooling
 * states back.
 */
#include <errno.h>
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
#include "sim_options.h"
#include "sim_preload.h"

struct series {
	double settled_work;	/* DMIPS-seconds delivered in the second half */
	double settled_limit;	/* the physical limit over the same time */
	double max_die_c;
	double above_s;
	double abs_err_sum;
	size_t abs_err_n;
};

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
	double sustainable_w = plant_sustainable_w(&pl->p, control_c, plant_ambient_c(pl));

	if (pl->t_s < pl->duration_s / 2)
		return;
	s->settled_work += pl->work_done - work_before;
	s->settled_limit += plant_best_work_rate(pl, sustainable_w) * dt_s;
}

/* A domain's column in the per-second lines: 10 characters, its name or "MHz/state". */
#define SIM_DOMAIN_COLUMN "%10.9s"

/* The heading of the per-second lines: names, then units (at most 80 columns for 4 domains). */
static void print_heading(const struct plant *pl)
{
	printf("   time     die    case  power  budget ");
	for (size_t k = 0; k < pl->board->n_domains; k++)
		printf(SIM_DOMAIN_COLUMN, pl->board->domains[k].name);
	printf("\n      s      °C      °C     mW      mW ");
	for (size_t k = 0; k < pl->board->n_domains; k++)
		printf(SIM_DOMAIN_COLUMN, "MHz/state");
	printf("\n");
}

static void print_second(struct sim *sim, const struct plant *pl)
{
	printf("%5.0f s %7.2f %7.2f %6.0f %7ld ", pl->t_s, pl->die_c, pl->case_c,
	       pl->power_w * 1000, sim->budget_mw);
	for (size_t k = 0; k < pl->board->n_domains; k++) {
		char cell[32];

		snprintf(cell, sizeof(cell), "%u/s%lu", pl->dom[k].freq_khz / 1000, pl->dom[k].state);
		printf(SIM_DOMAIN_COLUMN, cell);
	}
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
	/* The plant's 0 on the daemon's clock: its first row, and the time since it was read. */
	if (sim->trace_last_ms >= 0)
		sim->plant_start_daemon_ms = (double)sim->trace_last_ms +
			(double)(next.tv_sec - sim->first_row_seen.tv_sec) * 1e3 +
			(double)(next.tv_nsec - sim->first_row_seen.tv_nsec) / 1e6;
	for (int step = 1; pl->t_s < o->duration_s - dt_s / 2 && !interrupted; step++) {
		sim_apply_fault(sim, pl->t_s);
		if (sim->killed)
			break;	/* nothing controls the plant any more */
		double work_before = pl->work_done;

		sim_read_states(sim, pl);
		plant_step(pl, dt_s);
		sim_write_outputs(sim, pl, dt_s);
		sim_events_step(sim, lround(pl->t_s * 1000));
		record(s, pl, sim->control_c);
		record_work(s, pl, work_before, sim->control_c, dt_s);
		if (step % steps_per_second == 0) {
			/* The swings of the second half: rows read from its start on. */
			sim->trace_settled = pl->t_s >= o->duration_s / 2;
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

/*
 * The domains whose scale differs from the plant's, "cluster1 1.40 x, gpu
 * 0.70 x", into @buf; "" where none does.
 */
static void domain_scales(const struct plant *pl, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < pl->board->n_domains && n < size; k++)
		if (plant_domain_scale(&pl->p, k) != pl->p.power_scale)
			n += (size_t)snprintf(buf + n, size - n, "%s%s %.2f x", n ? ", " : "",
					      pl->board->domains[k].name,
					      plant_domain_scale(&pl->p, k));
}

/* The plant as varied, its true sustainable power, the daemon's, the sensor. */
static void print_plant(const struct sim *sim, const struct plant *pl,
			const struct sim_options *o)
{
	const struct thermal_params *t = &pl->p;
	double r_total = t->die_to_case_k_per_w + t->case_to_ambient_k_per_w;
	char used[64], mixed[160];

	domain_scales(pl, mixed, sizeof(mixed));
	printf("  plant: die tau %.2f s, case tau %.1f s, die share %.2f of %.1f K/W,\n"
	       "         silicon %.2f x table, ambient step %+.1f °C%s\n", plant_die_tau_s(t),
	       plant_case_tau_s(t), t->die_to_case_k_per_w / r_total, r_total, t->power_scale,
	       t->ambient_step_c, o->settled ? ", settled start" : "");
	if (*mixed)
		printf("         but %s\n", mixed);
	if (o->sensor_step_c > 0 || o->sensor_noise_c > 0)
		printf("  sensor: %.2f °C steps, noise sd %.2f °C, seed %llu\n", o->sensor_step_c,
		       o->sensor_noise_c, (unsigned long long)o->seed);
	else
		printf("  sensor: exact\n");
	if (*mixed)
		printf("  true sustainable power     %6.0f mW (the domains' scales differ)\n",
		       sim->sustainable_w * 1000);
	else
		printf("  true sustainable power     %6.0f mW (%.0f mW of the power table's)\n",
		       sim->sustainable_w * 1000, sim->sustainable_w * 1000 / t->power_scale);
	sim_daemon_sustainable(sim, used, sizeof(used));
	/* Its number right-aligned with the others: "2767 mW (configured 2200 mW)". */
	printf("  the daemon's sustainable   %*s%s\n", (int)(6 - strspn(used, "0123456789")), "",
	       used);
}

/*
 * The simulated kernel: how it sees crossings, the events it sent, and
 * how long after the sensor first crossed switch-on the daemon's zone had
 * one ("none": switch-on is no trip of the zone, or the kernel had not
 * polled it yet; "-": not crossed, the die started over it or stayed
 * under).
 */
static void print_trip_events(const struct sim *sim)
{
	const struct sim_kernel_params *k = &sim->kernel;

	if (!sim->trip_events) {
		printf("  trip events                off (--no-trip-events)\n");
		return;
	}
	printf("  kernel                     %s alarm, polls %d ms, %d ms passive\n",
	       sim_alarm_name(k->alarm), k->polling_delay_ms, k->passive_delay_ms);
	printf("  trip events sent           %6lu (%lu lost: the daemon's socket full)\n",
	       sim->events_sent, sim->events_lost);
	if (sim->switch_on_crossed_ms < 0)
		printf("  switch-on trip event       - (not crossed)\n");
	else if (sim->switch_on_event_ms < 0)
		printf("  switch-on trip event       none (crossed at %.2f s)\n",
		       sim->switch_on_crossed_ms / 1000.0);
	else
		printf("  switch-on trip event       %6ld ms after the crossing at %.2f s\n",
		       sim->switch_on_event_ms - sim->switch_on_crossed_ms,
		       sim->switch_on_crossed_ms / 1000.0);
}

/*
 * When the zone first became active, on the plant's clock, after the
 * sensor first crossed switch-on (to within the 5 ms x the speed that the
 * simulator took to see the daemon's first row: 0 when it came sooner).
 */
static void print_first_active(const struct sim *sim, double speed)
{
	double at_ms;

	if (!sim->first_active_mc)
		return;
	printf("  first active period at     %6.2f °C (the sensor's)\n",
	       sim->first_active_mc / 1000.0);
	if (sim->first_model_sp_mw >= 0 && sim->first_model_confidence >= 0)
		printf("  model, first active period %6ld mW, confidence %.2f\n",
		       sim->first_model_sp_mw, sim->first_model_confidence);
	if (sim->switch_on_crossed_ms < 0 || sim->plant_start_daemon_ms < 0)
		return;
	at_ms = ((double)sim->first_active_daemon_ms - sim->plant_start_daemon_ms) * speed;
	printf("  first active period        %6.0f ms after the sensor crossed switch-on\n",
	       fmax(0, at_ms - (double)sim->switch_on_crossed_ms));
}

/* The plant's meters: "none", or the device, its sample period and noise, then the rails. */
static void print_meters(const struct sim *sim)
{
	char line[256];

	sim_meters_describe(&sim->meters, line, sizeof(line));
	printf("  meters                     %s\n", line);
	if (!sim->meters.n)
		return;
	sim_meters_rails(&sim->meters, sim->board, line, sizeof(line));
	printf("  metered domains            %s\n", line);
}

static void print_swings(const struct sim *sim, const struct sim_options *o)
{
	printf("  budget swings, second half %6u (0-%.0f%% to %.0f-100%% of %.0f mW or back)\n",
	       sim->budget_swings, SIM_BUDGET_LOW * 100, SIM_BUDGET_HIGH * 100,
	       sim->max_budget_mw);
	printf("  limit cycle                %s\n", strcmp(o->controller, "step_wise") == 0 ?
	       "n/a (step_wise has no budget)" :
	       sim_limit_cycle(sim, o->duration_s / 2) ? "yes" : "no");
}

static void print_summary(const struct sim *sim, const struct plant *pl, const struct series *s,
			  const struct sim_options *o, int restored)
{
	printf("\nsummary: %s workload, %s controller, %s division, %.0f s at %.0fx%s%s\n",
	       workload_name(o->workload), o->controller, o->division, pl->t_s, o->speed,
	       o->fault ? ", fault " : "", o->fault ? sim_fault_name(o->fault) : "");
	print_plant(sim, pl, o);
	printf("  control temperature        %6.2f °C\n", sim->control_c);
	if (o->trip_offset_mc)
		printf("  the daemon's control       %6.2f °C\n",
		       sim->control_c + o->trip_offset_mc / 1000.0);
	printf("  maximum temperature        %6.2f °C\n", s->max_die_c);
	printf("  max overshoot              %6.2f °C\n", fmax(0, s->max_die_c - sim->control_c));
	printf("  time above control         %6.1f s\n", s->above_s);
	print_first_active(sim, o->speed);
	print_trip_events(sim);
	print_meters(sim);
	printf("  mean |error|, second half  %6.2f °C\n",
	       s->abs_err_n ? s->abs_err_sum / (double)s->abs_err_n : 0);
	printf("  work delivered             %6.2f %% of demanded\n",
	       pl->work_demanded > 0 ? 100 * pl->work_done / pl->work_demanded : 100);
	printf("  work, second half          %6.1f %% of the physical limit\n",
	       s->settled_limit > 0 ? 100 * s->settled_work / s->settled_limit : 100);
	print_swings(sim, o);
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
				 .powerallocd = SIM_DEFAULT_POWERALLOCD, .sp_factor = 1, .seed = 1,
				 .meters = { .period_ms = -1, .noise_pct = -1 } };
	struct sim_settings set;
	struct series s = { 0 };
	struct plant pl;
	struct sim sim;
	int restored;

	if (sim_parse_options(argc, argv, &o) < 0)
		return 2;
	/* A run without its shims would simulate nothing it says: stop before the tree is made. */
	if (!o.check_config && sim_preload_check(sim_fault_needs_shim(o.fault),
						 sim_fault_name(o.fault)) < 0)
		return 1;
	signal(SIGINT, on_interrupt);
	signal(SIGTERM, on_interrupt);
	set = (struct sim_settings){ .controller = o.controller, .division = o.division,
				     .zone_keys = o.zone_keys, .trip_offset_mc = o.trip_offset_mc,
				     .speed = o.speed, .powerallocd = o.powerallocd,
				     .state_dir = o.state_dir,
				     .vary = &o.vary, .sp = o.sp, .sp_factor = o.sp_factor,
				     .sensor_step_c = o.sensor_step_c,
				     .sensor_noise_c = o.sensor_noise_c, .seed = o.seed,
				     .trip_events = !o.no_trip_events, .meters = &o.meters };
	if (sim_setup(&sim, o.description, &set) < 0)
		return 1;
	sim.fault = o.fault;
	sim.fault_at_s = o.duration_s / 2;
	plant_init(&pl, sim.board, &sim.thermal, o.workload, o.duration_s);
	if (o.settled)
		plant_start_settled(&pl, sim.control_c);
	sim_write_outputs(&sim, &pl, 0);
	sim.last_sensor_mc = sim.sensor_mc;
	sim_events_start(&sim, 0);
	if (o.check_config) {
		int status = sim_check_config(&sim);

		sim_cleanup(&sim);
		return status == 0 ? 0 : 1;
	}
	if (!o.quiet) {
		printf("simulating %s (%s)\n", sim.board->name, o.description);
		printf("workload %s, %s controller, control %.1f °C\n", workload_name(o.workload),
		       o.controller, sim.control_c);
		/* Named for a look while it runs; said when it goes, so that no one looks after. */
		printf("tree: %s (the daemon's log, trace, state; %s)\n", sim.dir,
		       getenv("SIM_KEEP_TREE") ? "kept" : "removed at the end unless SIM_KEEP_TREE=1");
		print_heading(&pl);
		fflush(stdout);
	}
	if (sim_start_daemon(&sim) < 0) {
		sim_cleanup(&sim);
		return 1;
	}
	sim_wait_first_period(&sim, 10);
	run_loop(&sim, &pl, &o, &s);
	restored = sim_stop_daemon(&sim);
	sim_read_trace(&sim);
	print_summary(&sim, &pl, &s, &o, restored);
	if (getenv("SIM_KEEP_TREE")) {
		sim_trace_add_plant_clock(&sim, o.speed);
		printf("kept: %s (SIM_KEEP_TREE is set)\n", sim.dir);
	}
	sim_cleanup(&sim);
	return restored ? 0 : 1;
}
