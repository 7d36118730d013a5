/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sim_options.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		"  -S, --state-directory DIR  where the daemon keeps its learnt thermal models\n"
		"                          (default: the run's tree, so every run learns\n"
		"                          anew); runs given the same DIR resume them\n"
		"  -f, --fault NAME        halfway through: sensor-eio (2 s of EIO), spike (one\n"
		"                          150 °C reading), cdev-vanish (ENODEV for 5 s),\n"
		"                          cpu-offline (CPU 5 for 5 s), reload-garbage,\n"
		"                          sigkill (then powerallocd --restore; the run ends)\n"
		"      --no-trip-events    the simulated kernel sends no thermal netlink trip\n"
		"                          events (by default it sends them where its thermal\n"
		"                          core would: the description's kernel = { alarm;\n"
		"                          polling_delay_ms; passive_delay_ms; })\n"
		"  -q, --quiet             only the summary\n"
		"  -C, --check-config      print the daemon's powerallocd.conf for this run and\n"
		"                          what powerallocd --check-config finds with it on the\n"
		"                          simulated tree; simulate nothing\n"
		"  -h, --help\n"
		"\nThe plant (each option changes what it names, the rest stays the description's):\n"
		"      --die-tau SECONDS   the die's time constant, C_die x R_die (0.1 to 10)\n"
		"      --case-tau SECONDS  the case's, C_case x R_case (5 to 1000)\n"
		"      --die-share F       the die's share of the thermal resistance (0.02 to\n"
		"                          0.9); the total, and so the true sustainable power,\n"
		"                          kept\n"
		"      --thermal-resistance K/W  die + case to ambient (1 to 200), the share kept\n"
		"      --power-scale F     the silicon draws F x the power table's figure (0.1 to\n"
		"                          10); the daemon still believes the table\n"
		"      --power-scale-domain NAME=X[,NAME=X...]\n"
		"                          the domain NAME's silicon draws X x its table (0.1\n"
		"                          to 10) instead of --power-scale's (its meter\n"
		"                          measures that); NAME as the board's domains:\n"
		"                          cluster0, cluster1, ..., gpu.  Over a\n"
		"                          description's domain_power_scale = \"NAME=X,...\";\n"
		"      --ambient-step C    the ambient C °C higher (-30 to 30) during the middle\n"
		"                          third (default 0; 15 with the ambient-step workload)\n"
		"      --settled           start the case where it settles while the die holds\n"
		"                          control, the die at the case's temperature\n"
		"      --sensor-step C     the sensor's resolution, °C (0 to 5; default 0: exact)\n"
		"      --sensor-noise C    gaussian noise on each reading, standard deviation\n"
		"                          in °C (0 to 5; default 0)\n"
		"      --seed N            the noise generator's seed (default 1)\n"
		"      --sustainable-power F|none|dt\n"
		"                          the daemon's sustainable power: F x the plant's true\n"
		"                          value (0.01 to 100; default 1), none (not configured,\n"
		"                          the tree's removed: the daemon estimates it) or dt\n"
		"                          (not configured: the tree's, as the device tree sets\n"
		"                          it, else estimated).  The true value is the dynamic\n"
		"                          power the silicon draws when the die settles at the\n"
		"                          daemon's control temperature\n"
		"\nPower meters (doc/power-meters.md; a description may have some, meters = {}):\n"
		"      --meters            a meter on every domain the description gives none:\n"
		"                          hwmon \"sim_rails\" powerN_input (uW), energyN_input\n"
		"                          (uJ), powerN_label = inN_label = vdd_DOMAIN, and a\n"
		"                          powercap zone sim-rapl:N (energy_uj): the true power\n"
		"      --meter-noise PCT   gaussian noise on each reading, standard deviation,\n"
		"                          %% of the power (0 to 50; default 0)\n"
		"      --meter-period-ms MS  how often powerN_input changes, the mean power\n"
		"                          since (10 to 10000; default 1000); the energy\n"
		"                          counters every step (10 ms)\n"
		"      --meter-step-mw MW  powerN_input in steps of MW (1 to 1000; default: to\n"
		"                          the uW), as a coarse rail monitor\n"
		"      --meter-config KIND tell the daemon (a power_meter key per metered actor;\n"
		"                          implies --meters): hwmon (by name and label),\n"
		"                          power, energy or energy_uj (by path); default none:\n"
		"                          its configuration as without meters\n"
		"\nEnvironment:\n"
		"  SIM_KEEP_TREE           set (to anything) to keep the simulated tree after\n"
		"                          the run, at the path printed last (\"kept: ...\"),\n"
		"                          with the daemon's powerallocd.conf, powerallocd.log,\n"
		"                          state file and trace.csv; the trace gains a last\n"
		"                          column, sim_time_ms, the plant's clock, which\n"
		"                          tools/plot-trace uses for its time axis.  Unset,\n"
		"                          the tree is removed when the run ends\n"
		"  SIM_DAEMON_LOG_LEVEL    the daemon's --log-level (err ... debug) for its\n"
		"                          powerallocd.log; unset, its configuration's\n"
		"  SIM_NETLINK_SHIM, SIM_FAULT_SHIM\n"
		"                          the shims preloaded into the daemon: its thermal\n"
		"                          netlink from the simulated kernel, on every run;\n"
		"                          the calls failed by --fault sensor-eio and\n"
		"                          cdev-vanish (default: the build's,\n"
		"                          " SIM_NETLINK_SHIM_TARGET " and\n"
		"                          " SIM_FAULT_SHIM_TARGET ").\n"
		"                          A run whose shim does not load stops before the\n"
		"                          daemon starts, with the ninja command that builds it\n");
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

/* A number from @min to @max for --@option. */
static int parse_number(const char *option, const char *text, double min, double max, double *v)
{
	char *end;

	*v = strtod(text, &end);
	if (end == text || *end || !(*v >= min && *v <= max)) {
		fprintf(stderr, "--%s: a number from %g to %g, not \"%s\"\n", option, min, max,
			text);
		return -1;
	}
	return 0;
}

static int parse_sustainable(const char *text, struct sim_options *o)
{
	if (strcmp(text, "none") == 0) {
		o->sp = SIM_SP_NONE;
		return 0;
	}
	if (strcmp(text, "dt") == 0) {
		o->sp = SIM_SP_TREE;
		return 0;
	}
	o->sp = SIM_SP_FACTOR;
	return parse_number("sustainable-power", text, 0.01, 100, &o->sp_factor);
}

enum {
	OPT_DIE_TAU = 256, OPT_CASE_TAU, OPT_DIE_SHARE, OPT_RESISTANCE, OPT_POWER_SCALE,
	OPT_AMBIENT_STEP, OPT_SETTLED, OPT_SENSOR_STEP, OPT_SENSOR_NOISE, OPT_SEED,
	OPT_SUSTAINABLE, OPT_NO_TRIP_EVENTS, OPT_METERS, OPT_METER_NOISE, OPT_METER_PERIOD,
	OPT_METER_CONFIG, OPT_POWER_SCALE_DOMAIN, OPT_METER_STEP,
};

/* The meters' options. */
static int parse_meter_option(int c, const char *arg, struct sim_options *o)
{
	struct sim_meter_options *m = &o->meters;
	double v;

	switch (c) {
	case OPT_METERS: m->all = true; return 0;
	case OPT_METER_NOISE: return parse_number("meter-noise", arg, 0, 50, &m->noise_pct);
	case OPT_METER_STEP: return parse_number("meter-step-mw", arg, 1, 1000, &m->step_mw);
	case OPT_METER_PERIOD:
		if (parse_number("meter-period-ms", arg, 10, 10000, &v) < 0)
			return -1;
		m->period_ms = (int)v;
		return 0;
	case OPT_METER_CONFIG:
		if (sim_meter_config_parse(arg, &m->config) < 0) {
			fprintf(stderr, "--meter-config: hwmon, power, energy, energy_uj or none, "
				"not \"%s\"\n", arg);
			return -1;
		}
		m->all = m->all || m->config != SIM_METER_CONFIG_NONE;
		return 0;
	default: usage(stderr); return -1;
	}
}

/* The plant's options (no short forms). */
static int parse_plant_option(int c, const char *arg, struct sim_options *o)
{
	struct plant_variation *v = &o->vary;
	double seed;

	switch (c) {
	case OPT_DIE_TAU: return parse_number("die-tau", arg, 0.1, 10, &v->die_tau_s);
	case OPT_CASE_TAU: return parse_number("case-tau", arg, 5, 1000, &v->case_tau_s);
	case OPT_DIE_SHARE: return parse_number("die-share", arg, 0.02, 0.9, &v->die_share);
	case OPT_RESISTANCE:
		return parse_number("thermal-resistance", arg, 1, 200, &v->resistance_k_per_w);
	case OPT_POWER_SCALE: return parse_number("power-scale", arg, 0.1, 10, &v->power_scale);
	case OPT_POWER_SCALE_DOMAIN: v->domain_scales = arg; return 0;
	case OPT_AMBIENT_STEP:
		return parse_number("ambient-step", arg, -30, 30, &v->ambient_step_c);
	case OPT_SETTLED: o->settled = 1; return 0;
	case OPT_SENSOR_STEP: return parse_number("sensor-step", arg, 0, 5, &o->sensor_step_c);
	case OPT_SENSOR_NOISE:
		return parse_number("sensor-noise", arg, 0, 5, &o->sensor_noise_c);
	case OPT_SEED:
		if (parse_number("seed", arg, 0, 4294967295.0, &seed) < 0)
			return -1;
		o->seed = (uint64_t)seed;
		return 0;
	case OPT_SUSTAINABLE: return parse_sustainable(arg, o);
	case OPT_NO_TRIP_EVENTS: o->no_trip_events = 1; return 0;
	default: return parse_meter_option(c, arg, o);
	}
}

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
	{ "state-directory", required_argument, NULL, 'S' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "check-config", no_argument, NULL, 'C' },
	{ "fault", required_argument, NULL, 'f' },
	{ "help", no_argument, NULL, 'h' },
	{ "die-tau", required_argument, NULL, OPT_DIE_TAU },
	{ "case-tau", required_argument, NULL, OPT_CASE_TAU },
	{ "die-share", required_argument, NULL, OPT_DIE_SHARE },
	{ "thermal-resistance", required_argument, NULL, OPT_RESISTANCE },
	{ "power-scale", required_argument, NULL, OPT_POWER_SCALE },
	{ "power-scale-domain", required_argument, NULL, OPT_POWER_SCALE_DOMAIN },
	{ "ambient-step", required_argument, NULL, OPT_AMBIENT_STEP },
	{ "settled", no_argument, NULL, OPT_SETTLED },
	{ "sensor-step", required_argument, NULL, OPT_SENSOR_STEP },
	{ "sensor-noise", required_argument, NULL, OPT_SENSOR_NOISE },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "sustainable-power", required_argument, NULL, OPT_SUSTAINABLE },
	{ "no-trip-events", no_argument, NULL, OPT_NO_TRIP_EVENTS },
	{ "meters", no_argument, NULL, OPT_METERS },
	{ "meter-noise", required_argument, NULL, OPT_METER_NOISE },
	{ "meter-period-ms", required_argument, NULL, OPT_METER_PERIOD },
	{ "meter-step-mw", required_argument, NULL, OPT_METER_STEP },
	{ "meter-config", required_argument, NULL, OPT_METER_CONFIG },
	{ 0 },
};

static int parse_option(int c, struct sim_options *o)
{
	switch (c) {
	case 's': o->description = optarg; return 0;
	case 'w':
		if (workload_parse(optarg, &o->workload) < 0) {
			fprintf(stderr, "unknown workload \"%s\"\n", optarg);
			return -1;
		}
		return 0;
	case 'd': o->duration_s = atof(optarg); return 0;
	case 'x': o->speed = atof(optarg); return 0;
	case 'c': o->controller = optarg; return 0;
	case 'D': o->division = optarg; return 0;
	case 'k': o->zone_keys = optarg; return 0;
	case 't':
	case 'T':
		return parse_trip_offset(c == 'T' ? "--trip-above" : "--trip-below", optarg,
					 c == 'T' ? 1 : -1, &o->trip_offset_mc);
	case 'p': o->powerallocd = optarg; return 0;
	case 'S': o->state_dir = optarg; return 0;
	case 'q': o->quiet = 1; return 0;
	case 'C': o->check_config = 1; return 0;
	case 'f':
		if (sim_fault_parse(optarg, &o->fault) < 0) {
			fprintf(stderr, "unknown fault \"%s\"\n", optarg);
			return -1;
		}
		return 0;
	case 'h': usage(stdout); exit(0);
	default: return parse_plant_option(c, optarg, o);
	}
}

int sim_parse_options(int argc, char **argv, struct sim_options *o)
{
	int c;

	while ((c = getopt_long(argc, argv, "s:w:d:x:c:D:k:t:T:p:S:f:qCh", longopts, NULL)) != -1)
		if (parse_option(c, o) < 0)
			return -1;
	if (optind < argc) {
		fprintf(stderr, "unexpected argument \"%s\"\n", argv[optind]);
		return -1;
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
