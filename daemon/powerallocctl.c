/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * powerallocctl: what powerallocd is doing, from its D-Bus interface.
 *   powerallocctl [status] [--json]   zones and actors, once
 *   powerallocctl monitor             the same every second, until Ctrl-C
 *   powerallocctl reload              re-read the configuration (root)
 *   powerallocctl limit WATTS --lease SECONDS | --clear
 *                                     cap every actor together (root)
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "build-config.h"
#include "control/cpumask.h"

#define BUS_NAME "org.powerallocd1"
#define BUS_PATH "/org/powerallocd1"
#define MAX_OBJECTS 256
/* The headroom status shows ahead of now, s. */
#define HEADROOM_AHEAD_S 10

/* Exit codes, as powerallocctl(1) lists them. */
#define EXIT_OK 0
#define EXIT_ERROR 1
#define EXIT_USAGE 2
#define EXIT_NOT_RUNNING 3
#define EXIT_DENIED 4

struct actor_view {
	char *name, *kind, *cpus, *reason;
	uint32_t requested, granted, max, load, freq, state, max_state, write_errors;
	double weight;
};

struct zone_view {
	char *name, *sensor, *reason;
	int32_t temp, switch_on, control;
	uint32_t margin, sustainable, budget, learned;
	uint64_t throttled_us;
	int64_t p, i, d;			/* the controller's terms, mW */
	double time_constant, confidence;	/* the thermal model's, s and 0-1 */
	double headroom, headroom_ahead;	/* now and HEADROOM_AHEAD_S ahead; NAN: unknown */
	int active;
	size_t n_actors;
	struct actor_view actors[MAX_OBJECTS];
	size_t n_fallback;			/* devices on the step_wise fallback */
	struct actor_view fallback[MAX_OBJECTS];
};

/* Where errors go: stderr, or a buffer while monitor holds the screen. */
static FILE *errors;
/* The bus the calls went over, to ask whether the daemon is still on it. */
static sd_bus *errors_bus;

/*
 * A call that got no reply because the daemon left the bus while answering
 * (it was stopped) is "not running"; one that timed out while the daemon is
 * still there is an error.
 */
static bool daemon_left(const sd_bus_error *e, int r)
{
	sd_bus_message *m = NULL;
	int owned = 1;

	if (!sd_bus_error_has_name(e, SD_BUS_ERROR_NO_REPLY) && r != -ECONNRESET)
		return false;
	if (errors_bus && sd_bus_call_method(errors_bus, "org.freedesktop.DBus",
					     "/org/freedesktop/DBus", "org.freedesktop.DBus",
					     "NameHasOwner", NULL, &m, "s", BUS_NAME) >= 0)
		sd_bus_message_read(m, "b", &owned);
	sd_bus_message_unref(m);
	return !owned;
}

static int failure_exit(const sd_bus_error *e, int r)
{
	if (sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER,
				   NULL) || daemon_left(e, r)) {
		fprintf(errors, "powerallocd is not running (no %s on the bus)\n", BUS_NAME);
		return EXIT_NOT_RUNNING;
	}
	if (sd_bus_error_has_name(e, SD_BUS_ERROR_ACCESS_DENIED) || r == -EACCES || r == -EPERM) {
		fprintf(errors, "permission denied: only root may do this (%s)\n",
			e->message ? e->message : strerror(-r));
		return EXIT_DENIED;
	}
	fprintf(errors, "powerallocd: %s\n", e->message ? e->message : strerror(-r));
	return EXIT_ERROR;
}

/* One property; on failure *exit_code is set (once) and the value left 0. */
static int get(sd_bus *bus, const char *path, const char *iface, const char *prop, char type,
	       void *out, int *exit_code)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int r;

	if (type == 's')
		r = sd_bus_get_property_string(bus, BUS_NAME, path, iface, prop, &e, out);
	else
		r = sd_bus_get_property_trivial(bus, BUS_NAME, path, iface, prop, &e, type, out);
	if (r < 0 && !*exit_code)
		*exit_code = failure_exit(&e, r);
	sd_bus_error_free(&e);
	return r;
}

/* An "ao" property into @paths (strdup'd). Return: the count, or -1. */
static int get_paths(sd_bus *bus, const char *path, const char *iface, const char *prop,
		     char **paths, int *exit_code)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL;
	const char *p;
	int n = 0, r;

	r = sd_bus_get_property(bus, BUS_NAME, path, iface, prop, &e, &m, "ao");
	if (r >= 0)
		r = sd_bus_message_enter_container(m, 'a', "o");
	while (r >= 0 && n < MAX_OBJECTS && (r = sd_bus_message_read(m, "o", &p)) > 0)
		paths[n++] = strdup(p);
	if (r < 0 && !*exit_code)
		*exit_code = failure_exit(&e, r);
	sd_bus_error_free(&e);
	sd_bus_message_unref(m);
	return r < 0 ? -1 : n;
}

static void read_actor(sd_bus *bus, const char *path, struct actor_view *a, int *x)
{
	const char *i = "org.powerallocd1.Actor";

	get(bus, path, i, "Name", 's', &a->name, x);
	get(bus, path, i, "Kind", 's', &a->kind, x);
	get(bus, path, i, "CPUs", 's', &a->cpus, x);
	get(bus, path, i, "RequestedPower", 'u', &a->requested, x);
	get(bus, path, i, "GrantedPower", 'u', &a->granted, x);
	get(bus, path, i, "MaxPower", 'u', &a->max, x);
	get(bus, path, i, "Load", 'u', &a->load, x);
	get(bus, path, i, "Frequency", 'u', &a->freq, x);
	get(bus, path, i, "CoolingState", 'u', &a->state, x);
	get(bus, path, i, "MaxCoolingState", 'u', &a->max_state, x);
	get(bus, path, i, "WriteErrors", 'u', &a->write_errors, x);
	get(bus, path, i, "Weight", 'd', &a->weight, x);
	get(bus, path, i, "LimitingReason", 's', &a->reason, x);
}

/* The actors listed in the zone's @prop ("Actors", "FallbackDevices") into @views. */
static size_t read_zone_actors(sd_bus *bus, const char *path, const char *prop,
			       struct actor_view *views, int *x)
{
	char *actors[MAX_OBJECTS];
	int n = get_paths(bus, path, "org.powerallocd1.Zone", prop, actors, x);

	for (int k = 0; k < n; k++) {
		read_actor(bus, actors[k], &views[k], x);
		free(actors[k]);
	}
	return n > 0 ? (size_t)n : 0;
}

/* The zone's GetHeadroom(@forecast_s), or NAN when it has none (a failed sensor). */
static double get_headroom(sd_bus *bus, const char *path, uint32_t forecast_s)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	double h = NAN;

	if (sd_bus_call_method(bus, BUS_NAME, path, "org.powerallocd1.Zone", "GetHeadroom", &e,
			       &reply, "u", forecast_s) >= 0 && sd_bus_message_read(reply, "d", &h) < 0)
		h = NAN;
	sd_bus_error_free(&e);
	sd_bus_message_unref(reply);
	return h;
}

static void read_zone(sd_bus *bus, const char *path, struct zone_view *z, int *x)
{
	const char *i = "org.powerallocd1.Zone";

	get(bus, path, i, "Name", 's', &z->name, x);
	get(bus, path, i, "Sensor", 's', &z->sensor, x);
	get(bus, path, i, "Temperature", 'i', &z->temp, x);
	get(bus, path, i, "SwitchOnTemperature", 'i', &z->switch_on, x);
	get(bus, path, i, "ControlTemperature", 'i', &z->control, x);
	get(bus, path, i, "ControlMargin", 'u', &z->margin, x);
	get(bus, path, i, "SustainablePower", 'u', &z->sustainable, x);
	get(bus, path, i, "PowerBudget", 'u', &z->budget, x);
	get(bus, path, i, "Active", 'b', &z->active, x);
	get(bus, path, i, "LearnedSustainablePower", 'u', &z->learned, x);
	get(bus, path, i, "ThermalTimeConstant", 'd', &z->time_constant, x);
	get(bus, path, i, "ModelConfidence", 'd', &z->confidence, x);
	get(bus, path, i, "LimitingReason", 's', &z->reason, x);
	get(bus, path, i, "ThrottledUsec", 't', &z->throttled_us, x);
	get(bus, path, i, "ProportionalTerm", 'x', &z->p, x);
	get(bus, path, i, "IntegralTerm", 'x', &z->i, x);
	get(bus, path, i, "DerivativeTerm", 'x', &z->d, x);
	z->headroom = get_headroom(bus, path, 0);
	z->headroom_ahead = get_headroom(bus, path, HEADROOM_AHEAD_S);
	z->n_actors = read_zone_actors(bus, path, "Actors", z->actors, x);
	z->n_fallback = read_zone_actors(bus, path, "FallbackDevices", z->fallback, x);
}

static void free_actor_views(struct actor_view *views, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		free(views[k].name);
		free(views[k].kind);
		free(views[k].cpus);
		free(views[k].reason);
	}
}

static void free_zones(struct zone_view *zones, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free_actor_views(zones[i].actors, zones[i].n_actors);
		free_actor_views(zones[i].fallback, zones[i].n_fallback);
		free(zones[i].name);
		free(zones[i].sensor);
		free(zones[i].reason);
	}
	free(zones);
}

struct snapshot {
	char *version, *state, *limit_unmet;
	uint32_t limit_mw;		/* the power limit, 0: none */
	uint64_t limit_expires_us;	/* CLOCK_MONOTONIC */
	size_t n_zones;
	struct zone_view *zones;
};

/* Everything the daemon shows. Return: EXIT_OK or an exit code (reported). */
static int read_snapshot(sd_bus *bus, struct snapshot *s)
{
	const char *m = "org.powerallocd1.Manager";
	char *paths[MAX_OBJECTS];
	int x = 0, n;

	memset(s, 0, sizeof(*s));
	if (get(bus, BUS_PATH, m, "Version", 's', &s->version, &x) < 0)
		return x;
	get(bus, BUS_PATH, m, "State", 's', &s->state, &x);
	get(bus, BUS_PATH, m, "PowerLimit", 'u', &s->limit_mw, &x);
	get(bus, BUS_PATH, m, "PowerLimitExpiresUsec", 't', &s->limit_expires_us, &x);
	get(bus, BUS_PATH, m, "PowerLimitUnmet", 's', &s->limit_unmet, &x);
	n = get_paths(bus, BUS_PATH, m, "Zones", paths, &x);
	s->zones = calloc(n > 0 ? (size_t)n : 1, sizeof(*s->zones));
	for (int i = 0; s->zones && i < n; i++) {
		read_zone(bus, paths[i], &s->zones[s->n_zones++], &x);
		free(paths[i]);
	}
	return s->zones ? x : EXIT_ERROR;
}

static void free_snapshot(struct snapshot *s)
{
	free(s->version);
	free(s->state);
	free(s->limit_unmet);
	free_zones(s->zones, s->n_zones);
}

/* How many CPUs a list such as "0-3,6" names (0 for "", a device, or a list it cannot read). */
static unsigned int count_cpus(const char *list)
{
	struct cpumask mask;

	return *list && cpumask_parse_list(list, &mask, NULL) == 0 ? cpumask_weight(&mask) : 0;
}

/*
 * One actor's row, 80 columns: the load averaged over its CPUs (percent of
 * one CPU, as top(1) shows a core), and for a device without a power
 * model (a fan on the step_wise fallback) only its state.
 */
static void print_actor_row(const struct actor_view *a)
{
	unsigned int cpus = count_cpus(a->cpus);

	if (strcmp(a->kind, "cooling_device") == 0) {
		printf("  %-20s %-11s %-7s %4s %5s %6s %6s %6s %2u/%-2u\n", a->name, "cdev", "-", "-",
		       "-", "-", "-", "-", a->state, a->max_state);
		return;
	}
	printf("  %-20s %-11s %-7s %3u%% %5u %6u %6u %6u %2u/%-2u\n", a->name, a->kind,
	       *a->cpus ? a->cpus : "-", cpus ? a->load / cpus : a->load, a->freq / 1000,
	       a->requested, a->granted, a->max, a->state, a->max_state);
}

/* The actors held back, and why. */
static void print_limited(const struct actor_view *actors, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (actors[k].reason && strcmp(actors[k].reason, "none") != 0)
			printf("  %-20s limited by %s\n", actors[k].name, actors[k].reason);
}

/* Seconds until @usec on CLOCK_MONOTONIC (the lease's clock), 0 when past. */
static double seconds_until(uint64_t usec)
{
	struct timespec now;
	uint64_t now_us;

	clock_gettime(CLOCK_MONOTONIC, &now);
	now_us = (uint64_t)now.tv_sec * 1000000 + (uint64_t)now.tv_nsec / 1000;
	return usec > now_us ? (usec - now_us) / 1e6 : 0;
}

static void print_table(const struct snapshot *s)
{
	printf("powerallocd %s: %s\n", s->version, s->state);
	if (s->limit_mw)
		printf("power limit %.3f W, lease ends in %.0f s%s%s\n", s->limit_mw / 1000.0,
		       seconds_until(s->limit_expires_us), *s->limit_unmet ? ": unmet, " : "",
		       s->limit_unmet);
	if (!s->n_zones)
		printf("no controllable zone\n");
	for (size_t i = 0; i < s->n_zones; i++) {
		const struct zone_view *z = &s->zones[i];

		printf("\nZONE %s (%s) %.2f °C: switch-on %.1f, control %.1f °C (aims %.2f)\n",
		       z->name, z->sensor, z->temp / 1000.0, z->switch_on / 1000.0,
		       z->control / 1000.0, (z->control - (int64_t)z->margin) / 1000.0);
		printf("  %s, budget %u mW of %u mW sustainable; actors' power in mW\n",
		       z->active ? "active" : "idle", z->budget, z->sustainable);
		printf("  limiting reason %s, throttled %.1f s in all\n", z->reason,
		       z->throttled_us / 1e6);
		printf("  controller terms: P %lld, I %lld, D %lld mW\n", (long long)z->p,
		       (long long)z->i, (long long)z->d);
		printf("  learned: %u mW sustainable, time constant %.0f s, confidence %.2f\n",
		       z->learned, z->time_constant, z->confidence);
		printf("  headroom %.2f now, %.2f in %d s (0 switch-on, 1 control)\n", z->headroom,
		       z->headroom_ahead, HEADROOM_AHEAD_S);
		printf("  %-20s %-11s %-7s %4s %5s %6s %6s %6s %5s\n", "ACTOR", "KIND", "CPUS", "LOAD",
		       "MHz", "REQ", "GRANT", "MAX", "STATE");
		/* The step_wise fallback's devices follow. */
		for (size_t k = 0; k < z->n_actors; k++)
			print_actor_row(&z->actors[k]);
		for (size_t k = 0; k < z->n_fallback; k++)
			print_actor_row(&z->fallback[k]);
		print_limited(z->actors, z->n_actors);
		print_limited(z->fallback, z->n_fallback);
	}
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void json_string(const char *s)
{
	putchar('"');
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void json_actor(const struct actor_view *a)
{
	printf("{\"name\":");
	json_string(a->name);
	printf(",\"kind\":");
	json_string(a->kind);
	printf(",\"cpus\":");
	json_string(a->cpus);
	printf(",\"limiting_reason\":");
	json_string(a->reason);
	printf(",\"load_pct\":%u,\"frequency_khz\":%u,\"requested_mw\":%u,\"granted_mw\":%u,"
	       "\"max_mw\":%u,\"cooling_state\":%u,\"max_cooling_state\":%u,\"weight\":%.3f,"
	       "\"write_errors\":%u}",
	       a->load, a->freq, a->requested, a->granted, a->max, a->state, a->max_state,
	       a->weight, a->write_errors);
}

/* A number, or null for NAN. */
static void json_double(const char *key, double v)
{
	if (isnan(v))
		printf(",\"%s\":null", key);
	else
		printf(",\"%s\":%.4f", key, v);
}

static void print_json(const struct snapshot *s)
{
	printf("{\"version\":");
	json_string(s->version);
	printf(",\"state\":");
	json_string(s->state);
	printf(",\"power_limit_mw\":%u,\"power_limit_expires_usec\":%llu,\"power_limit_unmet\":",
	       s->limit_mw, (unsigned long long)s->limit_expires_us);
	json_string(s->limit_unmet);
	printf(",\"zones\":[");
	for (size_t i = 0; i < s->n_zones; i++) {
		const struct zone_view *z = &s->zones[i];

		printf("%s{\"name\":", i ? "," : "");
		json_string(z->name);
		printf(",\"sensor\":");
		json_string(z->sensor);
		printf(",\"limiting_reason\":");
		json_string(z->reason);
		printf(",\"throttled_us\":%llu,\"p_mw\":%lld,\"i_mw\":%lld,\"d_mw\":%lld",
		       (unsigned long long)z->throttled_us, (long long)z->p, (long long)z->i,
		       (long long)z->d);
		printf(",\"temperature_mc\":%d,\"switch_on_mc\":%d,\"control_mc\":%d,"
		       "\"control_margin_mc\":%u,\"sustainable_power_mw\":%u,\"budget_mw\":%u,"
		       "\"active\":%s,\"learned_sustainable_power_mw\":%u,"
		       "\"thermal_time_constant_s\":%.1f,\"model_confidence\":%.3f",
		       z->temp, z->switch_on, z->control, z->margin, z->sustainable, z->budget,
		       z->active ? "true" : "false", z->learned, z->time_constant, z->confidence);
		json_double("headroom", z->headroom);
		json_double("headroom_10s", z->headroom_ahead);
		printf(",\"actors\":[");
		for (size_t k = 0; k < z->n_actors; k++) {
			if (k)
				putchar(',');
			json_actor(&z->actors[k]);
		}
		printf("],\"fallback_devices\":[");
		for (size_t k = 0; k < z->n_fallback; k++) {
			if (k)
				putchar(',');
			json_actor(&z->fallback[k]);
		}
		printf("]}");
	}
	printf("]}\n");
}

static int status(sd_bus *bus, bool json)
{
	struct snapshot s;
	int x = read_snapshot(bus, &s);

	if (x == EXIT_OK) {
		if (json)
			print_json(&s);
		else
			print_table(&s);
	}
	free_snapshot(&s);
	return x;
}

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

/*
 * The status every second on the terminal's alternate screen, until
 * interrupted; the screen is then given back and what went wrong, if
 * anything, printed where it stays.
 */
static int monitor(sd_bus *bus)
{
	char *text = NULL;
	size_t size = 0;
	bool cut_short;
	int x = EXIT_OK;

	errors = open_memstream(&text, &size);
	if (!errors)
		errors = stderr;
	signal(SIGINT, on_interrupt);
	signal(SIGTERM, on_interrupt);
	printf("\033[?1049h");
	while (!interrupted && x == EXIT_OK) {
		/* Home and clear, like watch(1). */
		printf("\033[H\033[2J");
		x = status(bus, false);
		fflush(stdout);
		if (x == EXIT_OK)
			sleep(1);
	}
	/* A call the interrupt cut short (EINTR from the bus) is no failure: stopping was asked for. */
	cut_short = interrupted && x != EXIT_OK;
	printf("\033[?1049l");
	fflush(stdout);
	if (errors != stderr) {
		fclose(errors);
		if (!cut_short)
			fputs(text, stderr);
		free(text);
	}
	errors = stderr;
	return cut_short ? EXIT_OK : x;
}

static int reload(sd_bus *bus)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int r = sd_bus_call_method(bus, BUS_NAME, BUS_PATH, "org.powerallocd1.Manager", "Reload",
				   &e, NULL, "");
	int x = r < 0 ? failure_exit(&e, r) : EXIT_OK;

	if (r >= 0)
		printf("configuration reloaded\n");
	sd_bus_error_free(&e);
	return x;
}

/* SetPowerLimit(@limit_mw, @lease_s), or with @limit_mw 0 ClearPowerLimit(). */
static int limit(sd_bus *bus, uint32_t limit_mw, uint32_t lease_s)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int r, x;

	if (limit_mw)
		r = sd_bus_call_method(bus, BUS_NAME, BUS_PATH, "org.powerallocd1.Manager",
				       "SetPowerLimit", &e, NULL, "uu", limit_mw, lease_s);
	else
		r = sd_bus_call_method(bus, BUS_NAME, BUS_PATH, "org.powerallocd1.Manager",
				       "ClearPowerLimit", &e, NULL, "");
	x = r < 0 ? failure_exit(&e, r) : EXIT_OK;
	if (r >= 0 && limit_mw)
		printf("power limit %.3f W for %u s\n", limit_mw / 1000.0, lease_s);
	else if (r >= 0)
		printf("power limit cleared\n");
	sd_bus_error_free(&e);
	return x;
}

/*
 * limit's arguments: WATTS (@watts, above 0) and --lease SECONDS (@lease),
 * or --clear (@clear) alone, into *@limit_mw (0 to clear) and *@lease_s.
 * Return: whether they make sense (else the reason is printed).
 */
static bool parse_limit(const char *watts, const char *lease, bool clear, uint32_t *limit_mw,
			uint32_t *lease_s)
{
	char *end = NULL;
	double w = watts ? strtod(watts, &end) : 0;
	unsigned long long s;

	*limit_mw = *lease_s = 0;
	if (clear) {
		if (watts || lease)
			fprintf(stderr, "limit --clear takes no WATTS or --lease\n");
		return !watts && !lease;
	}
	if (!watts || end == watts || *end || !(w >= 0.001 && w < 4294967.0)) {
		fprintf(stderr, "limit: WATTS must be a number of watts, 0.001 or more, not "
			"\"%s\"\n", watts ? watts : "");
		return false;
	}
	errno = 0;
	s = lease ? strtoull(lease, &end, 10) : 0;
	if (!lease || end == lease || *end || *lease == '-' || errno || s > UINT32_MAX) {
		fprintf(stderr, "limit needs --lease SECONDS (the limit lifts when the lease ends "
			"unless renewed), not \"%s\"\n", lease ? lease : "");
		return false;
	}
	*limit_mw = (uint32_t)(w * 1000 + 0.5);
	*lease_s = (uint32_t)s;
	return true;
}

static void usage(FILE *out)
{
	fprintf(out, "Usage: powerallocctl [--bus system|session] [status [--json] | monitor | reload |\n"
		"                     limit WATTS --lease SECONDS | limit --clear]\n"
		"  status       zones and actors: temperatures, budgets, why they are limited,\n"
		"               headroom, loads, frequencies, requested/granted/maximum power,\n"
		"               cooling states, the power limit (the default)\n"
		"  --json       the same as one JSON object\n"
		"  monitor      refresh the status every second until Ctrl-C\n"
		"  reload       make powerallocd re-read its configuration (root only)\n"
		"  limit        cap every power actor together at WATTS until the lease ends\n"
		"               (--lease SECONDS, 1 to 86400; run again to renew), or lift\n"
		"               the cap (--clear) (root only)\n"
		"  --version    print the version\n"
		"See powerallocctl(1).\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "bus", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "lease", required_argument, NULL, 'l' },
		{ "clear", no_argument, NULL, 'c' },
		{ 0 },
	};
	const char *command = "status", *which = "system", *watts = NULL, *lease = NULL;
	bool json = false, clear = false;
	uint32_t limit_mw = 0, lease_s = 0;
	sd_bus *bus = NULL;
	int c, r, x;

	errors = stderr;
	while ((c = getopt_long(argc, argv, "jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'b': which = optarg; break;
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': printf("powerallocctl %s\n", PACKAGE_VERSION); return EXIT_OK;
		case 'l': lease = optarg; break;
		case 'c': clear = true; break;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc)
		command = argv[optind++];
	if (strcmp(command, "limit") == 0 && optind < argc)
		watts = argv[optind++];
	if (optind < argc || (strcmp(command, "status") && strcmp(command, "monitor") &&
			      strcmp(command, "reload") && strcmp(command, "limit")) ||
	    (json && strcmp(command, "status")) || (strcmp(which, "system") &&
						    strcmp(which, "session")) ||
	    ((lease || clear) && strcmp(command, "limit"))) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(command, "limit") == 0 &&
	    !parse_limit(watts, lease, clear, &limit_mw, &lease_s))
		return EXIT_USAGE;
	r = strcmp(which, "session") == 0 ? sd_bus_open_user(&bus) : sd_bus_open_system(&bus);
	if (r < 0) {
		fprintf(stderr, "cannot connect to the %s bus: %s\n", which, strerror(-r));
		return EXIT_NOT_RUNNING;
	}
	errors_bus = bus;
	if (strcmp(command, "reload") == 0)
		x = reload(bus);
	else if (strcmp(command, "limit") == 0)
		x = limit(bus, limit_mw, lease_s);
	else if (strcmp(command, "monitor") == 0)
		x = monitor(bus);
	else
		x = status(bus, json);
	sd_bus_flush_close_unref(bus);
	return x;
}
