/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The logging API (lib/platform/log.h): pa_log_errno() says the error's
 * text for %m and returns the error, and the one table of level names
 * that the configuration, --log-level and the stderr prefix share.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "capture.h"
#include "platform/log.h"

/* The last message a handler was given, its priority and its first field. */
static char last[1024];
static int last_priority;
static const char *const *last_fields;

static void collect(void *userdata, int priority, const char *const *fields, const char *message)
{
	(void)userdata;
	snprintf(last, sizeof(last), "%s", message);
	last_priority = priority;
	last_fields = fields;
}

static void test_errno_returns_the_error_and_says_it(void **unused)
{
	(void)unused;
	pa_log_set_handler(collect, NULL);
	errno = EAGAIN;
	assert_int_equal(pa_log_errno(-ENOENT, "%s: cannot read: %m", "/sys/x"), -ENOENT);
	assert_string_equal(last, "/sys/x: cannot read: No such file or directory");
	assert_int_equal(last_priority, PA_LOG_ERR);
	assert_null(last_fields);
	/* The caller's errno is its own: %m borrowed it for the message only. */
	assert_int_equal(errno, EAGAIN);
	/* An error made up by the caller, its words without %m. */
	assert_int_equal(pa_log_errno(-EINVAL, "%s: not a number", "/sys/y"), -EINVAL);
	assert_string_equal(last, "/sys/y: not a number");
	assert_int_equal(pa_log_errno(-EIO, "write: %m; retrying"), -EIO);
	assert_string_equal(last, "write: Input/output error; retrying");
	pa_log_set_handler(NULL, NULL);
}

static void say_enodev(const void *arg)
{
	(void)arg;
	assert_int_equal(pa_log_errno(-ENODEV, "%s: %m", "cooling_device3"), -ENODEV);
}

/* Without a handler, on stderr as every other message (an error passes any threshold). */
static void test_errno_on_stderr(void **unused)
{
	char *text;

	(void)unused;
	pa_log_set_level(PA_LOG_ERR);
	text = capture(STDERR_FILENO, say_enodev, NULL);
	assert_string_equal(text, "cooling_device3: No such device\n");
	free(text);
	pa_log_set_level(PA_LOG_INFO);
}

static void test_level_names(void **unused)
{
	static const char *const written[] = { "err", "warning", "notice", "info", "debug" };
	const char *const *names = pa_log_level_names();

	(void)unused;
	/* As users write them in log_level and --log-level, in priority order. */
	for (int i = 0; i < 5; i++) {
		assert_string_equal(names[i], written[i]);
		assert_string_equal(pa_log_level_name(PA_LOG_ERR + i), written[i]);
	}
	assert_null(names[5]);
	assert_string_equal(pa_log_level_name(PA_LOG_WARNING), "warning");
	assert_string_equal(pa_log_level_name(PA_LOG_DEBUG), "debug");
	/* syslog's three above err, which only the stderr prefix could show. */
	assert_string_equal(pa_log_level_name(0), "emerg");
	assert_string_equal(pa_log_level_name(2), "crit");
	assert_string_equal(pa_log_level_name(8), "?");
	assert_string_equal(pa_log_level_name(-1), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errno_returns_the_error_and_says_it),
		cmocka_unit_test(test_errno_on_stderr),
		cmocka_unit_test(test_level_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
