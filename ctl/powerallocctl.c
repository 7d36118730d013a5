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
#include <errno.h>
#include <getopt.h>
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
#include "ctl_limit.h"
#include "ctl_print.h"
#include "ctl_read.h"

/*
 * The command line: @command and its options; @zones: the zones status and
 * monitor show (NULL-terminated), NULL for every zone; @limit: limit's.
 */
struct args {
	const char *command, *bus;
	bool json, summary;
	char **zones;
	struct limit_request limit;
};

/* Where sd-bus looks for the system bus without DBUS_SYSTEM_BUS_ADDRESS. */
#define SYSTEM_BUS_DEFAULT "unix:path=/run/dbus/system_bus_socket"

static const char *const commands[] = { "status", "monitor", "reload", "limit", NULL };

int ctl_usage_error(const char *fmt, ...)
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
 * lines did not fit and how to see them.  @tty: stdout is a terminal, drawn
 * over from its top; a pipe or a file gets each refresh after the last,
 * whole, a blank line between them.
 */
static int monitor_frame(sd_bus *bus, const struct args *a, bool tty, bool first)
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
	printf("%s%s, every 1 s; Ctrl-C to stop\n", tty ? "\033[H\033[2J" : first ? "" : "\n",
	       stamp);
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
 * anything, printed where it stays.  Into a pipe or a file, no terminal
 * codes: the refreshes one after the other.
 */
static int monitor(sd_bus *bus, const struct args *a)
{
	char *text = NULL;
	size_t size = 0;
	bool cut_short, tty = isatty(STDOUT_FILENO), first = true;
	int x = EXIT_OK;

	/* Held until the end: a call the interrupt cut short says nothing. */
	ctl_errors = open_memstream(&text, &size);
	if (!ctl_errors)
		ctl_errors = stderr;
	signal(SIGINT, on_interrupt);
	signal(SIGTERM, on_interrupt);
	if (tty)
		printf("\033[?1049h");
	while (!interrupted && x == EXIT_OK) {
		x = monitor_frame(bus, a, tty, first);
		first = false;
		fflush(stdout);
		if (x == EXIT_OK)
			sleep(1);
	}
	/* A call the interrupt cut short (EINTR from the bus) is no failure: stopping was asked for. */
	cut_short = interrupted && x != EXIT_OK;
	if (tty)
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
			return ctl_usage_error("unknown command '%s': did you mean '%s'?", a->command, near);
		return ctl_usage_error("unknown command '%s' (commands: status, monitor, reload, limit)",
				 a->command);
	}
	limit = strcmp(a->command, "limit") == 0;
	shows = strcmp(a->command, "status") == 0 || strcmp(a->command, "monitor") == 0;
	if (limit && optind < argc)
		a->limit.power = argv[optind++];
	if (shows && optind < argc)
		a->zones = &argv[optind];	/* argv ends in NULL */
	else if (optind < argc)
		return ctl_usage_error("%s takes no argument \"%s\"", a->command, argv[optind]);
	if (strcmp(a->bus, "system") && strcmp(a->bus, "session"))
		return ctl_usage_error("--bus is system or session, not \"%s\"", a->bus);
	if (a->json && strcmp(a->command, "status"))
		return ctl_usage_error("--json is for status");
	if (a->summary && (!shows || a->json))
		return ctl_usage_error("--summary is for status and monitor, without --json");
	if ((a->limit.lease || a->limit.clear) && !limit)
		return ctl_usage_error("--lease and --clear are for limit");
	return limit ? ctl_limit_parse(&a->limit) : EXIT_OK;
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
		case 'l': a->limit.lease = optarg; break;
		case 'c': a->limit.clear = true; break;
		default:	/* getopt said what */
			fputs("Try 'powerallocctl --help'.\n", stderr);
			return EXIT_USAGE;
		}
	}
	x = parse_operands(argc, argv, a);
	return x == EXIT_OK ? -1 : x;
}

/*
 * Says that @bus cannot be reached (@r: negative errno), where it was
 * looked for and what to check.  Return: EXIT_NOT_RUNNING.
 */
static int no_bus(const char *bus, int r)
{
	const char *address = getenv("DBUS_SYSTEM_BUS_ADDRESS");

	if (strcmp(bus, "system") == 0)
		fprintf(stderr, "powerallocctl: cannot connect to the system bus (%s): %s; "
			"powerallocd serves its interface there: is D-Bus running (dbus or "
			"dbus-broker)? (DBUS_SYSTEM_BUS_ADDRESS names another bus; --bus session, a "
			"powerallocd on the session bus)\n", address ? address : SYSTEM_BUS_DEFAULT,
			strerror(-r));
	else
		fprintf(stderr, "powerallocctl: cannot connect to the session bus: %s; --bus "
			"session is for a powerallocd started with --bus session in this login "
			"session\n", strerror(-r));
	return EXIT_NOT_RUNNING;
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
	if (r < 0)
		return no_bus(a.bus, r);
	ctl_bus = bus;
	if (strcmp(a.command, "reload") == 0)
		x = reload(bus);
	else if (strcmp(a.command, "limit") == 0)
		x = ctl_limit_run(bus, &a.limit);
	else if (strcmp(a.command, "monitor") == 0)
		x = monitor(bus, &a);
	else
		x = status(bus, &a);
	sd_bus_flush_close_unref(bus);
	return x;
}
