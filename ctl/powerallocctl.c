/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * powerallocctl: what powerallocd is doing, from its D-Bus interface.
 *   powerallocctl [status] [--json | --summary] [ZONE...]
 *                                     zones and actors, once
 *   powerallocctl monitor [--summary] [ZONE...]
 *                                     the same every second, until Ctrl-C
 *   powerallocctl reload              re-read the configuration (root)
 *   powerallocctl limit POWER --lease SECONDS | --clear
 *                                     cap every actor together (root)
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "build-config.h"
#include "config/config.h"
#include "ctl_print.h"
#include "ctl_read.h"

/*
 * The command line: @command and its options; @zones: the zones status and
 * monitor show (NULL-terminated), NULL for every zone; @power: limit's
 * POWER as typed, @limit_mw as understood.
 */
struct args {
	const char *command, *bus, *power, *lease;
	bool json, summary, clear;
	char **zones;
	uint64_t limit_mw;
	uint32_t lease_s;
};

static const char *const commands[] = { "status", "monitor", "reload", "limit", NULL };

/* A usage error: what is wrong (printf-style), where the usage is. Return: EXIT_USAGE. */
__attribute__((format(printf, 1, 2))) static int bad_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("powerallocctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'powerallocctl --help'.\n", stderr);
	return EXIT_USAGE;
}

static int status(sd_bus *bus, const struct args *a)
{
	struct snapshot s;
	int x = ctl_read_snapshot(bus, &s, a->zones);

	if (x == EXIT_OK) {
		if (a->json)
			ctl_print_json(&s);
		else if (a->summary)
			ctl_print_summary(&s);
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

/* The terminal's height in lines; 0 when stdout is none (a pipe: nothing is cut). */
static size_t screen_rows(void)
{
	struct winsize ws;

	return ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 ? ws.ws_row : 0;
}

/*
 * One refresh of monitor: the time, then the status, cut to the terminal's
 * height so that the top stays in view, with a last line that says how many
 * lines did not fit and how to see them.
 */
static int monitor_frame(sd_bus *bus, const struct args *a)
{
	FILE *screen = stdout;
	char *text = NULL, stamp[64], *line, *next;
	size_t size = 0, rows = screen_rows(), lines = 0, shown = 1;
	time_t now = time(NULL);
	int x;

	/* glibc's stdout may be assigned: the status is drawn whole, then cut. */
	stdout = open_memstream(&text, &size);
	if (!stdout) {
		stdout = screen;
		fprintf(ctl_errors, "powerallocctl: %s\n", strerror(errno));
		return EXIT_ERROR;
	}
	x = status(bus, a);
	fclose(stdout);
	stdout = screen;
	for (line = text; *line; line++)
		lines += *line == '\n';
	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", localtime(&now));
	/* Home and clear, like watch(1). */
	printf("\033[H\033[2J%s, every 1 s; Ctrl-C to stop\n", stamp);
	for (line = text; *line && (!rows || lines + 2 <= rows || shown + 2 <= rows); line = next) {
		next = strchr(line, '\n') + 1;
		fwrite(line, 1, (size_t)(next - line), stdout);
		shown++;
	}
	if (*line && a->summary)
		printf("... %zu more lines: name the zones (monitor --summary ZONE...)",
		       lines + 1 - shown);
	else if (*line)
		printf("... %zu more lines: monitor --summary, or name the zones (monitor ZONE...)",
		       lines + 1 - shown);
	free(text);
	return x;
}

/*
 * The status every second on the terminal's alternate screen, until
 * interrupted; the screen is then given back and what went wrong, if
 * anything, printed where it stays.
 */
static int monitor(sd_bus *bus, const struct args *a)
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
		x = monitor_frame(bus, a);
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

/*
 * limit's POWER into *@mw: a number with its unit, W (4.5W, to the mW) or
 * mW (4500mW).  A bare number is refused: limit took watts in earlier versions, and
 * every other power powerallocctl shows is in mW; either reading of "5"
 * would throttle someone's machine by a factor of 1000.  Return: whether it
 * is one (else the reason is said).
 */
static bool parse_power_mw(const char *text, uint64_t *mw)
{
	const char *p = text, *frac = "";
	uint64_t whole = 0, milli = 0;
	size_t digits = 0;
	bool negative = *p == '-', dotted;

	p += negative;
	/* Past 12 digits, a number too large for any machine: the range check refuses it. */
	for (; isdigit((unsigned char)*p); p++, digits++)
		whole = digits < 12 ? whole * 10 + (uint64_t)(*p - '0') : UINT32_MAX * 10ULL;
	dotted = *p == '.';
	if (dotted)
		for (frac = ++p; isdigit((unsigned char)*p); p++)
			digits++;
	if (!digits) {
		fprintf(stderr, "powerallocctl: limit: \"%s\" is not a power: write it in W (4.5W) "
			"or mW (4500mW)\n", text);
		return false;
	}
	if (strcmp(p, "W") == 0) {
		/* Three decimals are mW; more must be zeros. */
		for (int k = 0; k < 3; k++)
			milli = milli * 10 + (isdigit((unsigned char)*frac) ? (uint64_t)(*frac++ - '0') : 0);
		*mw = whole * 1000 + milli;
	} else if (*p == '\0') {
		fprintf(stderr, "powerallocctl: limit: \"%s\" has no unit: write %sW for watts%s%s%s "
			"(limit took a bare number as watts before)\n", text, text,
			dotted ? "" : " or ", dotted ? "" : text, dotted ? "" : "mW for milliwatts");
		return false;
	} else if (strcmp(p, "mW") == 0) {
		*mw = whole;
	} else {
		fprintf(stderr, "powerallocctl: limit: \"%s\": the unit must be W or mW "
			"(4.5W, 4500mW)\n", text);
		return false;
	}
	for (; isdigit((unsigned char)*frac); frac++)
		if (*frac != '0') {
			fprintf(stderr, "powerallocctl: limit: \"%s\" is finer than 1 mW: give whole "
				"mW (4500mW) or W to three decimals (4.5W)\n", text);
			return false;
		}
	if (negative || !*mw) {
		fprintf(stderr, "powerallocctl: limit: \"%s\": a power cap is 1 mW or more; "
			"'powerallocctl limit --clear' lifts a cap\n", text);
		return false;
	}
	return true;
}

/* limit's arguments: POWER and --lease SECONDS, or --clear alone.  Return: EXIT_OK or EXIT_USAGE (said). */
static int parse_limit(struct args *a)
{
	char *end = NULL;
	unsigned long long s;

	if (a->clear)
		return a->power || a->lease ? bad_usage("limit --clear takes no POWER or --lease")
					    : EXIT_OK;
	if (!a->power)
		return bad_usage("limit needs a POWER (4.5W, 4500mW) and --lease SECONDS");
	if (!parse_power_mw(a->power, &a->limit_mw))
		return EXIT_USAGE;
	if (!a->lease)
		return bad_usage("limit needs --lease SECONDS (the cap lifts when the lease ends "
				 "unless renewed)");
	errno = 0;
	s = strtoull(a->lease, &end, 10);
	if (end == a->lease || *end || *a->lease == '-' || errno || s > UINT32_MAX)
		return bad_usage("limit needs --lease SECONDS, a whole number of seconds (1 to "
				 "86400), not \"%s\"", a->lease);
	a->lease_s = (uint32_t)s;
	return EXIT_OK;
}

/* ClearPowerLimit(), saying whether there was a cap to lift. */
static int clear_limit(sd_bus *bus)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	uint32_t was_mw = 0;
	int r, x;

	r = sd_bus_get_property_trivial(bus, BUS_NAME, BUS_PATH, "org.powerallocd1.Manager",
					"PowerLimit", &e, 'u', &was_mw);
	if (r >= 0)
		r = sd_bus_call_method(bus, BUS_NAME, BUS_PATH, "org.powerallocd1.Manager",
				       "ClearPowerLimit", &e, NULL, "");
	x = r < 0 ? ctl_failure_exit(&e, r) : EXIT_OK;
	if (r >= 0 && was_mw)
		printf("power limit %u mW cleared\n", was_mw);
	else if (r >= 0)
		printf("no power limit was set: nothing to clear\n");
	sd_bus_error_free(&e);
	return x;
}

/*
 * SetPowerLimit(limit_mw, lease_s) of @a, once the cap is one the machine's
 * power actors can draw (a cap above it caps nothing: a unit mistaken).
 */
static int limit(sd_bus *bus, const struct args *a)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	uint64_t max_mw;
	int r, x;

	if (a->clear)
		return clear_limit(bus);
	if ((x = ctl_read_max_power(bus, &max_mw)) != EXIT_OK)
		return x;
	if (!max_mw) {
		fprintf(stderr, "powerallocctl: limit: powerallocd drives no power actor: there is "
			"nothing to cap\n");
		return EXIT_ERROR;
	}
	if (a->limit_mw > max_mw) {
		fprintf(stderr, "powerallocctl: limit: %s is %llu mW, more than this machine's power "
			"actors can draw together: give 1mW to %llumW (%.3fW)\n", a->power,
			(unsigned long long)a->limit_mw, (unsigned long long)max_mw, max_mw / 1000.0);
		return EXIT_USAGE;
	}
	r = sd_bus_call_method(bus, BUS_NAME, BUS_PATH, "org.powerallocd1.Manager",
			       "SetPowerLimit", &e, NULL, "uu", (uint32_t)a->limit_mw, a->lease_s);
	x = r < 0 ? ctl_failure_exit(&e, r) : EXIT_OK;
	if (r >= 0)
		printf("power limit %llu mW for %u s\n", (unsigned long long)a->limit_mw, a->lease_s);
	sd_bus_error_free(&e);
	return x;
}

static void usage(FILE *out)
{
	fprintf(out, "Usage: powerallocctl [--bus system|session] [COMMAND]\n"
		"  status [--json | --summary] [ZONE...]\n"
		"               zones and actors: temperatures, budgets, why they are limited,\n"
		"               headroom, loads, frequencies, requested/granted/maximum power,\n"
		"               cooling states, the power limit (the default command);\n"
		"               --json: as one JSON object; --summary: one line per zone;\n"
		"               ZONE...: those zones only\n"
		"  monitor [--summary] [ZONE...]\n"
		"               the status every second, with the time, until Ctrl-C\n"
		"  reload       make powerallocd re-read its configuration (root only)\n"
		"  limit POWER --lease SECONDS\n"
		"               cap every power actor together at POWER, with its unit (4.5W,\n"
		"               4500mW) until the lease ends (1 to 86400 s; run again to\n"
		"               renew) (root only)\n"
		"  limit --clear\n"
		"               lift the cap (root only)\n"
		"  -V, --version  print the version\n"
		"See powerallocctl(1).\n");
}

/* The command and what follows it, after the options; the checks that need both. */
static int parse_operands(int argc, char **argv, struct args *a)
{
	const char *near;
	bool limit = false, shows = false;
	size_t k = 0;

	if (optind < argc)
		a->command = argv[optind++];
	while (commands[k] && strcmp(commands[k], a->command) != 0)
		k++;
	if (!commands[k]) {
		near = pa_nearest_name(a->command, commands);
		if (near)
			return bad_usage("unknown command '%s': did you mean '%s'?", a->command, near);
		return bad_usage("unknown command '%s' (commands: status, monitor, reload, limit)",
				 a->command);
	}
	limit = strcmp(a->command, "limit") == 0;
	shows = strcmp(a->command, "status") == 0 || strcmp(a->command, "monitor") == 0;
	if (limit && optind < argc)
		a->power = argv[optind++];
	if (shows && optind < argc)
		a->zones = &argv[optind];	/* argv ends in NULL */
	else if (optind < argc)
		return bad_usage("%s takes no argument \"%s\"", a->command, argv[optind]);
	if (strcmp(a->bus, "system") && strcmp(a->bus, "session"))
		return bad_usage("--bus is system or session, not \"%s\"", a->bus);
	if (a->json && strcmp(a->command, "status"))
		return bad_usage("--json is for status");
	if (a->summary && (!shows || a->json))
		return bad_usage("--summary is for status and monitor, without --json");
	if ((a->lease || a->clear) && !limit)
		return bad_usage("--lease and --clear are for limit");
	return limit ? parse_limit(a) : EXIT_OK;
}

/* The command line into @a.  Return: -1 to go on, else the exit code (--help, --version, an error). */
static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "summary", no_argument, NULL, 's' },
		{ "bus", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "lease", required_argument, NULL, 'l' },
		{ "clear", no_argument, NULL, 'c' },
		{ 0 },
	};
	int c, x;

	*a = (struct args){ .command = "status", .bus = "system" };
	while ((c = getopt_long(argc, argv, "jshV", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': a->json = true; break;
		case 's': a->summary = true; break;
		case 'b': a->bus = optarg; break;
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': printf("powerallocctl %s\n", PACKAGE_VERSION); return EXIT_OK;
		case 'l': a->lease = optarg; break;
		case 'c': a->clear = true; break;
		default:	/* getopt said what */
			fputs("Try 'powerallocctl --help'.\n", stderr);
			return EXIT_USAGE;
		}
	}
	x = parse_operands(argc, argv, a);
	return x == EXIT_OK ? -1 : x;
}

int main(int argc, char **argv)
{
	struct args a;
	sd_bus *bus = NULL;
	int r, x;

	ctl_errors = stderr;
	if ((x = parse_args(argc, argv, &a)) >= 0)
		return x;
	r = strcmp(a.bus, "session") == 0 ? sd_bus_open_user(&bus) : sd_bus_open_system(&bus);
	if (r < 0) {
		fprintf(stderr, "cannot connect to the %s bus: %s\n", a.bus, strerror(-r));
		return EXIT_NOT_RUNNING;
	}
	ctl_bus = bus;
	if (strcmp(a.command, "reload") == 0)
		x = reload(bus);
	else if (strcmp(a.command, "limit") == 0)
		x = limit(bus, &a);
	else if (strcmp(a.command, "monitor") == 0)
		x = monitor(bus, &a);
	else
		x = status(bus, &a);
	sd_bus_flush_close_unref(bus);
	return x;
}
