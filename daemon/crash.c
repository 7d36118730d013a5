/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fault of the daemon's own, and what it leaves: every limit in place,
 * and the state file.  Under systemd, ExecStopPost=powerallocd --restore
 * puts them back; from a shell nothing did.  Found by failing each call the
 * daemon makes in turn (tests/daemon/test_injection.py): an allocation that
 * fails in libconfig 1.5's parser, at a reload, is a SIGSEGV there.  The
 * handler, async-signal-safe, replaces the process (execve()) with
 * powerallocd --restore, its arguments made at start.
 */
#include "crash.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* The signals a fault raises (abort() too: an assert, a library's). */
static const int fault_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };

static const char *const target_names[] = {
	[LOG_TARGET_AUTO] = "auto", [LOG_TARGET_JOURNAL] = "journal",
	[LOG_TARGET_STDERR] = "stderr",
};

/* "--crashed"'s value, written in the handler: up to 2 digits. */
static char signo_text[4];
static char *restore_argv[] = {
	"powerallocd", "--restore", "--state-file", NULL, "--log-target", NULL,
	"--crashed", signo_text, NULL,
};
/*
 * The daemon's own file, read at start: what the handler runs.  The kernel's
 * /proc/self/exe is the fallback (the file removed since); under valgrind it
 * is valgrind's own tool, which refuses to run, while readlink() of it gives
 * the program valgrind runs.
 */
static char self_path[4096];
/* Room for the handler, whatever is left of the stack (an overflow is a fault too). */
static char alt_stack[64 * 1024];

/* @s on stderr, with write(): async-signal-safe. */
static void say(const char *s)
{
	ssize_t n = write(STDERR_FILENO, s, strlen(s));

	(void)n;	/* nowhere to say more */
}

/* The name of a fault signal; strsignal() is not async-signal-safe. */
static const char *signal_name(int signo)
{
	switch (signo) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGILL: return "SIGILL";
	case SIGFPE: return "SIGFPE";
	default: return "SIGABRT";
	}
}

static void on_fault(int signo, siginfo_t *si, void *context)
{
	(void)context;
	/* Sent by another process: as before (SA_RESETHAND: the default action, once unblocked). */
	if (si->si_code == SI_USER && si->si_pid != getpid()) {
		raise(signo);
		return;
	}
	if (signo >= 10) {
		signo_text[0] = (char)('0' + signo / 10);
		signo_text[1] = (char)('0' + signo % 10);
	} else {
		signo_text[0] = (char)('0' + signo);
	}
	say("powerallocd: fatal signal ");
	say(signo_text);
	say(" (");
	say(signal_name(signo));
	say("); every limit goes back: powerallocd --restore\n");
	if (self_path[0])
		execve(self_path, restore_argv, environ);
	execve("/proc/self/exe", restore_argv, environ);
	say("powerallocd: cannot run powerallocd --restore; the limits stay for it\n");
	raise(signo);
}

int crash_restore_setup(const char *state_path, enum log_target target)
{
	struct sigaction sa = { .sa_sigaction = on_fault,
				.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK };
	stack_t stack = { .ss_sp = alt_stack, .ss_size = sizeof(alt_stack) };
	ssize_t n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);

	self_path[n > 0 ? n : 0] = '\0';
	restore_argv[3] = (char *)state_path;
	restore_argv[5] = (char *)target_names[target];
	if (sigaltstack(&stack, NULL) < 0)
		return -errno;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fault_signals) / sizeof(fault_signals[0]); i++)
		if (sigaction(fault_signals[i], &sa, NULL) < 0)
			return -errno;
	return 0;
}

void crash_end(int signo)
{
	struct rlimit no_core = { 0, 0 };
	sigset_t mask;

	fflush(NULL);
	setrlimit(RLIMIT_CORE, &no_core);
	signal(signo, SIG_DFL);
	/* The handler's mask came through execve(): the signal is blocked. */
	sigemptyset(&mask);
	sigaddset(&mask, signo);
	sigprocmask(SIG_UNBLOCK, &mask, NULL);
	raise(signo);
}
