/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one-shot commands: --check-config and --restore, and loading the config. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "daemon.h"
#include "engine/engine.h"
#include "platform/log.h"
#include "saved.h"
#include "platform/thermal.h"
#include "engine/zone_sensor.h"


struct pa_config *daemon_load_config(const struct options *opts)
{
	struct pa_config *c;
	struct pa_config_error err;
	int r = pa_config_load_file(opts->config_path, &c, &err);

	if (r == -ENOENT && !opts->config_given) {
		c = pa_config_new_default();
		if (c)
			fprintf(stderr, "%s: not found; using the defaults and the kernel's thermal "
				"bindings\n", opts->config_path);
		return c;
	}
	if (r < 0) {
		fprintf(stderr, "%s\n", err.text);
		return NULL;
	}
	return c;
}

static void print_gains(const struct zone *z)
{
	const struct pid_params *p = &z->setup.pid;
	char target[48] = "";

	if (p->mode == PID_MODE_DEFAULT)
		snprintf(target, sizeof(target), ", aims %u m°C under control",
			 p->fixes.control_margin_mc);

	/* Three lines, so that each fits 80 columns. */
	printf("    controller %s, %s division, period %u ms\n", p->mode == PID_MODE_KERNEL ?
	       "kernel" : p->mode == PID_MODE_STEP_WISE ? "step_wise (gains unused)" : "default",
	       z->setup.efficiency_division ? "efficiency" : "request", p->period_ms);
	printf("    gains k_po %.1f k_pu %.1f k_i %.1f mW/°C, k_d %.3f\n",
	       p->gains.k_po * 1000.0 / 1024, p->gains.k_pu * 1000.0 / 1024,
	       p->gains.k_i * 1000.0 / 1024, p->gains.k_d / 1024.0);
	printf("    integral cutoff %d m°C%s\n", p->gains.integral_cutoff_mc, target);
}

static void print_fallback(const struct fallback_device *f)
{
	printf("    step_wise fallback %s (cooling_device%d), states 0-%lu\n      trips",
	       f->actor->name, f->actor->cdev_id, f->actor->max_state);
	for (size_t k = 0; k < f->n_trips; k++)
		printf(" %d", f->trip_mc[k]);
	printf(" m°C\n");
}

static uint64_t monotonic_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/*
 * @m's reading now, for a power meter at most @max_mw: an energy counter
 * read twice 100 ms apart; one that does not move in that time is read in
 * the daemon's first period.
 */
static void print_meter(struct power_meter *m, uint32_t max_mw)
{
	const struct timespec wait = { 0, 100 * 1000000L };
	uint32_t mw = 0;
	int r;

	m->track.have_last = false;	/* from now, not from the build's sample */
	m->track.max_mw = max_mw <= UINT32_MAX / METER_JUMP_FACTOR ? max_mw * METER_JUMP_FACTOR : 0;
	r = power_meter_read(m, monotonic_us(), 0, &mw);
	if (r == 0) {
		nanosleep(&wait, NULL);
		r = power_meter_read(m, monotonic_us(), 0, &mw);
	}
	if (r == 1)
		printf("      power meter %s: %u mW\n", m->name, mw);
	else if (r == 0)
		printf("      power meter %s: no energy counted in 100 ms; reading in the first "
		       "period\n", m->name);
	else
		printf("      power meter %s: %s%s%s\n", m->name,
		       meter_fault_name((enum meter_fault)-r), m->error ? ": " : "",
		       m->error ? strerror(m->error) : "");
}

static void print_actor(const struct actor *a)
{
	printf("    actor %s (%s), weight %.2f, %s\n      max %u mW, states 0-%lu, power model: "
	       "%s\n",
	       a->name, actor_kind_name(a->kind), a->weight_q10 / 1024.0,
	       a->cdev_id >= 0 ? "cooling device" : "sysfs limit", a->max_mw, a->max_state,
	       a->kind == ACTOR_POWERCAP ? "measured (energy_uj)" : opp_source_name(a->source));
	for (size_t k = 0; k < a->table.n; k++)
		printf("      %8u kHz %8u mW%s\n", a->table.entry[k].freq_khz,
		       a->table.entry[k].power_mw,
		       a->kind == ACTOR_CPUFREQ || a->kind == ACTOR_CPUFREQ_CAP ? " per CPU" : "");
	if (a->meter)
		print_meter(a->meter, a->max_mw);
}

/* The board's meter of @z, at most ten times its actors' most together. */
static void print_zone_meter(const struct zone *z)
{
	uint64_t most_mw = 0;

	if (!z->setup.meter)
		return;
	for (size_t k = 0; k < z->setup.n_actors; k++)
		most_mw += z->setup.actors[k]->max_mw;
	printf("    board's power:\n");
	print_meter(z->setup.meter, most_mw < UINT32_MAX ? (uint32_t)most_mw : 0);
}

/* A combined sensor's inputs, as found: each thermal zone, its type and weight. */
static void print_inputs(const struct zone *z)
{
	if (z->setup.sensor_kind == SENSOR_ONE)
		return;
	printf("    sensor %s of", sensor_kind_name(z->setup.sensor_kind));
	for (size_t k = 0; k < z->setup.n_inputs; k++) {
		printf("%s %s (thermal_zone%d", k ? "," : "", z->setup.inputs[k].name,
		       z->setup.inputs[k].tz_id);
		if (z->setup.sensor_kind == SENSOR_SUM)
			printf(", weight %g", z->setup.inputs[k].weight);
		printf(")");
	}
	printf(", offset %d m°C\n", z->setup.sensor_offset_mc);
}

/*
 * The first zone before @e's zone @i that holds @a, or NULL: an actor
 * several zones share is printed whole once, under the first.
 */
static const struct zone *shown_under(const struct engine *e, size_t i, const struct actor *a)
{
	for (size_t k = 0; k < i; k++)
		if (zone_has_actor(&e->zones[k], a))
			return &e->zones[k];
	return NULL;
}

static void print_engine(const struct engine *e)
{
	for (size_t i = 0; i < e->n_zones; i++) {
		const struct zone *z = &e->zones[i];
		char sensor[SYSFS_PATH_MAX], on[64];

		zone_sensor_name(z, sensor, sizeof(sensor));
		printf("zone %s: %s, %s, control %d m°C\n    sustainable power %u mW (%s)\n",
		       z->setup.name, sensor, zone_switch_on_text(z, on, sizeof(on)),
		       z->setup.control_mc,
		       z->setup.pid.sustainable_power_mw, zone_sp_source_name(z));
		print_inputs(z);
		print_zone_meter(z);
		print_gains(z);
		for (size_t k = 0; k < z->setup.n_actors; k++) {
			const struct zone *first = shown_under(e, i, z->setup.actors[k]);

			if (first)
				printf("    actor %s (%s), as in zone %s above\n",
				       z->setup.actors[k]->name,
				       actor_kind_name(z->setup.actors[k]->kind),
				       first->setup.name);
			else
				print_actor(z->setup.actors[k]);
		}
		for (size_t k = 0; k < z->setup.n_fallback; k++)
			print_fallback(&z->setup.fallback[k]);
	}
}

/* The configured zones @e could not build, on stderr after a ':'. */
static void print_missing(const struct pa_config *c, const struct engine *e)
{
	const char *sep = " ";

	for (size_t i = 0; i < c->n_zones; i++) {
		bool built = false;

		for (size_t k = 0; k < e->n_zones && !built; k++)
			built = strcmp(e->zones[k].setup.name, c->zones[i].name) == 0;
		if (!built) {
			fprintf(stderr, "%s%s", sep, c->zones[i].name);
			sep = ", ";
		}
	}
	fprintf(stderr, "\n");
}

int daemon_check_config(const struct options *opts)
{
	struct pa_config *c;
	struct engine e;
	int n, status = EXIT_OK;

	/* Notices too: why a zone is not controlled is one.  Set before the file is read,
	 * so that its warnings (a retired key, a switch-on below room temperature) say so. */
	journal_setup(LOG_TARGET_STDERR, opts->log_level >= 0 ? opts->log_level : PA_LOG_NOTICE);
	c = daemon_load_config(opts);
	if (!c)
		return EXIT_BAD_CONFIG;
	/* Discovery only: nothing is written, and no write permission is needed. */
	sysfs_set_read_only(true);
	n = engine_build(&e, c);
	if (n < 0) {
		fprintf(stderr, "cannot read the thermal subsystem: %s\n", strerror(-n));
		pa_config_free(c);
		return EXIT_FAILURE_RUNTIME;
	}
	printf("%s: %s, %zu zone%s %s\n", opts->config_path, c->n_zones ? "configured zones" :
	       "no zones configured (automatic)", e.n_zones, e.n_zones == 1 ? "" : "s",
	       e.n_zones ? "controllable" : "controllable: powerallocd would wait for one");
	print_engine(&e);
	if (c->n_zones && (size_t)n < c->n_zones) {
		fprintf(stderr, "%s: %zu of %zu configured zones cannot be controlled (see above):",
			opts->config_path, c->n_zones - (size_t)n, c->n_zones);
		print_missing(c, &e);
		status = EXIT_BAD_CONFIG;
	}
	if (!c->n_zones && !e.n_zones) {
		/* Nothing to control: a CI gate on the check fails, as the unit is skipped. */
		fprintf(stderr, "%s: no zones configured and none that automatic configuration "
			"controls (see above): powerallocd would control nothing\n",
			opts->config_path);
		status = EXIT_NOTHING_CONTROLLABLE;
	}
	if (e.n_bad_meters) {
		/* A meter named wrong is the config's to fix: it fails as a zone refused does. */
		fprintf(stderr, "%s: %zu configured power %s cannot be read (see above)\n",
			opts->config_path, e.n_bad_meters, plural(e.n_bad_meters, "meter", "meters"));
		status = EXIT_BAD_CONFIG;
	}
	engine_free(&e);
	pa_config_free(c);
	return status;
}

int daemon_check_controllable(const struct options *opts)
{
	struct pa_config *c = daemon_load_config(opts);
	struct engine e;
	size_t refused;
	int n;

	if (!c)
		return EXIT_CONDITION_ERROR;	/* said on stderr */
	sysfs_set_read_only(true);
	journal_setup(opts->log_target, opts->log_level >= 0 ? opts->log_level : PA_LOG_NOTICE);
	n = engine_build(&e, c);
	if (n < 0) {
		pa_log(PA_LOG_ERR, "cannot read the thermal subsystem: %s", strerror(-n));
		pa_config_free(c);
		return EXIT_CONDITION_ERROR;
	}
	refused = e.n_refused;
	engine_free(&e);
	if (n > 0) {
		pa_log(PA_LOG_NOTICE, "%s: %d %s controllable", opts->config_path, n,
		       plural((size_t)n, "zone", "zones"));
	} else if (c->n_zones && refused >= c->n_zones) {
		/* The file asks for control that this machine cannot give: fail, visibly. */
		pa_log(PA_LOG_ERR, "%s: no configured zone can be controlled (%zu "
		       "configured; see above, powerallocd --check-config says more)",
		       opts->config_path, c->n_zones);
		n = -1;
	} else if (c->n_zones) {
		/* A driver that comes later (a module udev loads) brings them: wait, as configured. */
		pa_log(PA_LOG_WARNING, "%s: none of the %zu configured zones can be "
		       "controlled yet (see above); powerallocd starts and takes them when "
		       "their devices appear", opts->config_path, c->n_zones);
		n = 1;
	} else {
		pa_log(PA_LOG_NOTICE, "%s: no zones configured and none that automatic "
		       "configuration controls (see above): nothing to do, powerallocd does "
		       "not start and leaves thermal control as it is (thermald keeps running "
		       "where it runs)", opts->config_path);
	}
	pa_config_free(c);
	return n > 0 ? EXIT_OK : n < 0 ? EXIT_CONDITION_ERROR : EXIT_NOTHING_TO_CONTROL;
}

int daemon_restore(const struct options *opts)
{
	struct saved s = { 0 };
	size_t total, failed;
	int r;

	char kinds[160];

	journal_setup(opts->log_target, opts->log_level >= 0 ? opts->log_level : PA_LOG_INFO);
	r = saved_read(&s, opts->state_path);
	/* What was done goes to stdout, as --check-config's report: the log may be the journal. */
	if (r == -ENOENT) {
		printf("nothing to restore: no state file %s (powerallocd stopped and restored "
		       "everything itself, or has not run)\n", opts->state_path);
		return EXIT_OK;
	}
	if (r < 0) {
		pa_log(PA_LOG_ERR, "%s: %s", opts->state_path, strerror(-r));
		return EXIT_RESTORE_INCOMPLETE;
	}
	total = s.n;
	saved_describe(&s, kinds, sizeof(kinds));
	failed = saved_restore(&s);
	if (failed)
		pa_log(PA_LOG_ERR, "restored %zu of %zu %s from %s", total - failed -
		       s.left, total, plural(total, "file", "files"), opts->state_path);
	else if (s.left)
		printf("restored %zu of %zu %s from %s (%s); %zu left with the value another "
		       "program set since powerallocd wrote it (said above)\n", total - s.left, total,
		       plural(total, "file", "files"), opts->state_path, kinds, s.left);
	else
		printf("restored %zu %s from %s%s%s\n", total, plural(total, "file", "files"),
		       opts->state_path, total ? ": " : "", kinds);
	saved_clear(&s);
	if (failed)
		return EXIT_RESTORE_INCOMPLETE;
	if (unlink(opts->state_path) < 0)
		pa_log(PA_LOG_WARNING, "%s: cannot remove: %s", opts->state_path,
		       strerror(errno));
	return EXIT_OK;
}
