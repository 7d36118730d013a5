/* SPDX-License-Identifier: GPL-2.0-or-later */
/* powerallocd: command line. */
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build-config.h"
#include "crash.h"
#include "daemon.h"
#include "model_store.h"
#include "platform/log.h"

#define DEFAULT_CONFIG SYSCONFDIR "/powerallocd.conf"
#define DEFAULT_RUNTIME_DIR "/run/powerallocd"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: powerallocd [OPTIONS]\n"
		"Keeps thermal zones at their control temperature by dividing a power budget\n"
		"among the devices that heat them (the kernel's power allocator, in user space).\n"
		"\n"
		"  -c, --config PATH       configuration file (default " DEFAULT_CONFIG ")\n"
		"      --check-config      parse the configuration, discover the zones and\n"
		"                          actors read-only, print them and exit\n"
		"      --check-controllable  the same, silent but for why a zone is not\n"
		"                          controlled; exit 0 when one is, 1 when none is,\n"
		"                          255 when the configuration is unusable (for\n"
		"                          systemd's ExecCondition=)\n"
		"  -l, --log-level LEVEL   err, warning, notice, info or debug (default: the\n"
		"                          configuration's log_level)\n"
		"      --log-target TARGET journal, stderr or auto (default auto)\n"
		"  -t, --trace FILE        write every control period to FILE as CSV\n"
		"      --bus BUS           system (default), session or none: where the D-Bus\n"
		"                          interface org.powerallocd1 is served\n"
		"      --state-file PATH   where the values to restore are kept (default\n"
		"                          $RUNTIME_DIRECTORY/state, else " DEFAULT_RUNTIME_DIR "/state)\n"
		"      --state-directory DIR  where the zones' learnt thermal models are kept\n"
		"                          (default $STATE_DIRECTORY, else " MODEL_STORE_DEFAULT_DIR ";\n"
		"                          \"\" keeps them nowhere)\n"
		"      --model-save-interval SECONDS  save them this often while running\n"
		"                          (default %d; 0: at stop and reload only)\n"
		"      --restore           restore what a stopped or killed powerallocd left\n"
		"                          limited, from the state file, and exit\n"
		"      --crashed SIGNAL    with --restore, then end by signal number SIGNAL\n"
		"                          (what powerallocd runs on a fault of its own)\n"
		"  -V, --version           print the version and exit\n"
		"  -h, --help              print this help and exit\n"
		"\n"
		"See powerallocd(8) and powerallocd.conf(5).\n", MODEL_STORE_DEFAULT_INTERVAL_S);
}

/*
 * The index of @value in the NULL-terminated @names, or -1 after telling
 * stderr which values @option takes.
 */
static int one_of(const char *option, const char *value, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (strcmp(value, names[i]) == 0)
			return i;
	fprintf(stderr, "powerallocd: %s: \"%s\" is not one of ", option, value);
	for (int i = 0; names[i]; i++)
		fprintf(stderr, "%s%s", names[i], names[i + 1] ? ", " : "\n");
	return -1;
}

/*
 * In @buf (@size bytes): the first of the directories systemd sets in
 * $@variable (it may list several, separated by ':'), followed by @file;
 * else @fallback followed by @file.
 */
static const char *systemd_path(const char *variable, const char *fallback, const char *file,
				char *buf, size_t size)
{
	const char *dir = getenv(variable);

	snprintf(buf, size, "%.*s%s", dir ? (int)strcspn(dir, ":") : (int)strlen(fallback),
		 dir ? dir : fallback, file);
	return buf;
}

/* --model-save-interval: whole seconds, at most a week.  Return: 0 or -1 (said). */
static int parse_interval(const char *text, unsigned int *interval_s)
{
	char *end;
	unsigned long v = strtoul(text, &end, 10);

	if (end == text || *end || *text == '-' || v > 7 * 24 * 3600) {
		fprintf(stderr, "powerallocd: --model-save-interval: \"%s\" is not a number of "
			"seconds from 0 to 604800\n", text);
		return -1;
	}
	*interval_s = (unsigned int)v;
	return 0;
}

enum command { RUN, CHECK_CONFIG, CHECK_CONTROLLABLE, RESTORE };
enum { OPT_CHECK_CONFIG = 256, OPT_CHECK_CONTROLLABLE, OPT_RESTORE, OPT_STATE_FILE, OPT_LOG_TARGET, OPT_BUS,
       OPT_STATE_DIRECTORY, OPT_MODEL_SAVE_INTERVAL, OPT_CRASHED };

/* The long options, and the short option or OPT_ value each stands for. */
static const struct option longopts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "check-config", no_argument, NULL, OPT_CHECK_CONFIG },
	{ "check-controllable", no_argument, NULL, OPT_CHECK_CONTROLLABLE },
	{ "log-level", required_argument, NULL, 'l' },
	{ "log-target", required_argument, NULL, OPT_LOG_TARGET },
	{ "trace", required_argument, NULL, 't' },
	{ "state-file", required_argument, NULL, OPT_STATE_FILE },
	{ "state-directory", required_argument, NULL, OPT_STATE_DIRECTORY },
	{ "model-save-interval", required_argument, NULL, OPT_MODEL_SAVE_INTERVAL },
	{ "bus", required_argument, NULL, OPT_BUS },
	{ "restore", no_argument, NULL, OPT_RESTORE },
	{ "crashed", required_argument, NULL, OPT_CRASHED },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/* Keep parsing: parse_args() returns an exit status only when it is done. */
#define PARSED (-1)

/*
 * Fill @opts and @command from the command line.  Return: PARSED, or the
 * exit status for --help, --version and usage errors (said on stderr).
 */
static int parse_args(int argc, char **argv, struct options *opts, enum command *command)
{
	static const char *const targets[] = { "auto", "journal", "stderr", NULL };
	static const char *const buses[] = { "system", "session", "none", NULL };
	int c, i;

	while ((c = getopt_long(argc, argv, "c:l:t:Vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': opts->config_path = optarg; opts->config_given = true; break;
		case 'l':
			if ((i = one_of("--log-level", optarg, pa_log_level_names())) < 0)
				return EXIT_USAGE;
			opts->log_level = PA_LOG_ERR + i;
			break;
		case OPT_LOG_TARGET:
			/* In enum log_target's order. */
			if ((i = one_of("--log-target", optarg, targets)) < 0)
				return EXIT_USAGE;
			opts->log_target = (enum log_target)i;
			break;
		case 't': opts->trace_path = optarg; break;
		case OPT_STATE_FILE: opts->state_path = optarg; break;
		case OPT_STATE_DIRECTORY: opts->state_dir = optarg; break;
		case OPT_MODEL_SAVE_INTERVAL:
			if (parse_interval(optarg, &opts->model_save_interval_s) < 0)
				return EXIT_USAGE;
			break;
		case OPT_BUS:
			if ((i = one_of("--bus", optarg, buses)) < 0)
				return EXIT_USAGE;
			opts->bus = buses[i];
			break;
		case OPT_CHECK_CONFIG: *command = CHECK_CONFIG; break;
		case OPT_CHECK_CONTROLLABLE: *command = CHECK_CONTROLLABLE; break;
		case OPT_RESTORE: *command = RESTORE; break;
		case OPT_CRASHED:
			opts->crashed_signal = atoi(optarg);
			if (opts->crashed_signal <= 0 || opts->crashed_signal >= NSIG) {
				fprintf(stderr, "powerallocd: --crashed: \"%s\" is no signal\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'V': printf("powerallocd %s\n", PACKAGE_VERSION); return EXIT_OK;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "powerallocd: unexpected argument \"%s\"\n", argv[optind]);
		return EXIT_USAGE;
	}
	return PARSED;
}

/*
 * The signals whose default action would end powerallocd with every limit
 * in place and that it has no use for: ignored, for every command.
 * SIGPIPE: the reader of a pipe it logs to went away (| tee, | less, |
 * head); the write fails with EPIPE instead and the log goes on without
 * stderr (journal.h).  SIGTTOU, SIGTTIN: a daemon in a shell's background
 * is not stopped by its terminal.  SIGXFSZ: a write over the file size
 * limit fails with EFBIG instead.  The others (the real-time signals too)
 * only someone's kill(1) sends.  The daemon stops, restoring each limit,
 * on SIGTERM, SIGINT, SIGQUIT and SIGXCPU, and reloads on SIGHUP
 * (daemon.c).
 */
static void ignore_signals(void)
{
	static const int ignored[] = { SIGPIPE, SIGTTOU, SIGTTIN, SIGXFSZ, SIGUSR1, SIGUSR2,
				       SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGPWR,
#ifdef SIGSTKFLT
				       SIGSTKFLT,
#endif
	};

	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		signal(ignored[i], SIG_IGN);
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		signal(s, SIG_IGN);
}

/*
 * Descriptors 0-2 on /dev/null where they are closed (started with 2>&-):
 * else the next file opened, a sysfs attribute or the state file, would get
 * descriptor 2 and receive the log lines.
 */
static void open_standard_fds(void)
{
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		int null;

		if (fcntl(fd, F_GETFD) >= 0)
			continue;
		null = open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
		if (null >= 0 && null != fd) {
			dup2(null, fd);
			close(null);
		}
	}
}

int main(int argc, char **argv)
{
	static char state_path[PATH_MAX], state_dir[PATH_MAX];
	struct options opts = { .config_path = DEFAULT_CONFIG, .log_level = -1,
				.log_target = LOG_TARGET_AUTO, .bus = "system",
				.model_save_interval_s = MODEL_STORE_DEFAULT_INTERVAL_S };
	enum command command = RUN;
	int r;

	open_standard_fds();
	ignore_signals();
	r = parse_args(argc, argv, &opts, &command);
	if (r != PARSED)
		return r;
	if (!opts.state_path)
		opts.state_path = systemd_path("RUNTIME_DIRECTORY", DEFAULT_RUNTIME_DIR, "/state",
					       state_path, sizeof(state_path));
	if (!opts.state_dir)
		opts.state_dir = systemd_path("STATE_DIRECTORY", MODEL_STORE_DEFAULT_DIR, "",
					      state_dir, sizeof(state_dir));
	if (command == CHECK_CONFIG)
		return daemon_check_config(&opts);
	if (command == CHECK_CONTROLLABLE)
		return daemon_check_controllable(&opts);
	if (command == RESTORE) {
		r = daemon_restore(&opts);
		if (opts.crashed_signal)
			crash_end(opts.crashed_signal);
		return r;
	}
	return daemon_run(&opts);
}
