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
#include "ctl_print.h"
#include "ctl_read.h"

static int status(sd_bus *bus, bool json)
{
	struct snapshot s;
	int x = ctl_read_snapshot(bus, &s);

	if (x == EXIT_OK) {
		if (json)
			ctl_print_json(&s);
		else
			ctl_print_table(&s);
	}
	ctl_free_snapshot(&s);
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

	ctl_errors = open_memstream(&text, &size);
	if (!ctl_errors)
		ctl_errors = stderr;
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
	if (ctl_errors != stderr) {
		fclose(ctl_errors);
		if (!cut_short)
			fputs(text, stderr);
		free(text);
	}
	ctl_errors = stderr;
	return cut_short ? EXIT_OK : x;
}

static int reload(sd_bus *bus)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	int r = sd_bus_call_method(bus, BUS_NAME, BUS_PATH, "org.powerallocd1.Manager", "Reload",
				   &e, NULL, "");
	int x = r < 0 ? ctl_failure_exit(&e, r) : EXIT_OK;

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
	x = r < 0 ? ctl_failure_exit(&e, r) : EXIT_OK;
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

	ctl_errors = stderr;
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
	ctl_bus = bus;
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
