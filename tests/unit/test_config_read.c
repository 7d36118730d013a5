/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The config file read by powerallocd itself and parsed from memory
 * (lib/config/config_source.c), so that no read error reaches libconfig's
 * scanner, which exits the process on one (flex's YY_FATAL_ERROR, "input in
 * flex scanner failed"): a directory, a FIFO, a device, a file over the
 * size bound, each refused with its path, as the same from an @include,
 * which is read relative to the including file's directory, nested at most
 * PA_CONFIG_INCLUDE_DEPTH_MAX deep; an error in an included file names that
 * file and its line.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "config/config.h"
#include "platform/log.h"

#define ZONE "zones = ( { name = \"soc\"; sensor = \"soc-thermal\";\n" \
	"  actors = ( { type = \"cpufreq\"; cpus = \"0-3\"; } ); } );\n"

/* A directory of the test's, removed by the test's end (rm -r). */
static char dir[64];

static int setup(void **unused)
{
	(void)unused;
	snprintf(dir, sizeof(dir), "/tmp/powerallocd-read-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **unused)
{
	char cmd[128];

	(void)unused;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* @dir/@name, in a static buffer of 4 (so that a call may name a few). */
static const char *at(const char *name)
{
	static char paths[4][256];
	static unsigned int next;
	char *p = paths[next++ % 4];

	snprintf(p, 256, "%s/%s", dir, name);
	return p;
}

static void put(const char *name, const char *text)
{
	FILE *f = fopen(at(name), "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Loads @path and expects it refused: err.text is @text exactly. */
static void expect_refused(const char *path, const char *text)
{
	struct pa_config *c = (struct pa_config *)0x1;
	struct pa_config_error err;
	int r = pa_config_load_file(path, &c, &err);

	print_message("%s\n", err.text);
	assert_true(r < 0);
	assert_null(c);
	assert_string_equal(err.text, text);
}

/* As expect_refused(), for an err.text that starts with @start. */
static void expect_refused_start(const char *path, const char *start)
{
	struct pa_config *c = (struct pa_config *)0x1;
	struct pa_config_error err;
	int r = pa_config_load_file(path, &c, &err);

	print_message("%s\n", err.text);
	assert_int_equal(r, -EINVAL);
	assert_null(c);
	assert_memory_equal(err.text, start, strlen(start));
}

static void test_a_directory_is_refused_not_exited(void **unused)
{
	char text[512];

	(void)unused;
	assert_int_equal(mkdir(at("conf.d"), 0755), 0);
	snprintf(text, sizeof(text), "%s: cannot read: not a regular file", at("conf.d"));
	expect_refused(at("conf.d"), text);
}

static void test_a_fifo_and_a_device_are_refused_without_waiting(void **unused)
{
	char text[512];

	(void)unused;
	assert_int_equal(mkfifo(at("fifo"), 0600), 0);
	snprintf(text, sizeof(text), "%s: cannot read: not a regular file", at("fifo"));
	expect_refused(at("fifo"), text);
	expect_refused("/dev/zero", "/dev/zero: cannot read: not a regular file");
}

static void test_a_file_over_the_bound_is_refused(void **unused)
{
	char *big = malloc(PA_CONFIG_MAX_BYTES + 2), text[512];

	(void)unused;
	assert_non_null(big);
	memset(big, '#', PA_CONFIG_MAX_BYTES + 1);
	for (size_t i = 79; i < PA_CONFIG_MAX_BYTES; i += 80)
		big[i] = '\n';
	big[PA_CONFIG_MAX_BYTES + 1] = '\0';
	put("big.conf", big);
	snprintf(text, sizeof(text), "%s: cannot read: larger than %d bytes", at("big.conf"),
		 PA_CONFIG_MAX_BYTES);
	expect_refused(at("big.conf"), text);
	/* At the bound, it is read (and is all comment). */
	big[PA_CONFIG_MAX_BYTES - 1] = '\n';
	big[PA_CONFIG_MAX_BYTES] = '\0';
	put("big.conf", big);
	struct pa_config *c;
	struct pa_config_error err;
	int r = pa_config_load_file(at("big.conf"), &c, &err);
	if (r < 0)
		print_message("%s\n", err.text);
	assert_int_equal(r, 0);
	pa_config_free(c);
	free(big);
}

static void test_a_nul_byte_is_refused_with_its_line(void **unused)
{
	static const char text[] = "log_level = \"info\";\n\nidle\0_poll_ms = 100;\n";
	char want[512];
	int fd = open(at("nul.conf"), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	(void)unused;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	snprintf(want, sizeof(want), "%s:3: a NUL byte: not a text file", at("nul.conf"));
	expect_refused(at("nul.conf"), want);
}

/*
 * @include is read relative to the including file's directory, not the
 * process's: powerallocd runs in / under systemd and anywhere from a shell.
 */
static void test_include_relative_to_the_including_file(void **unused)
{
	struct pa_config *c;
	struct pa_config_error err;
	char main_text[512], cwd[512];

	(void)unused;
	assert_int_equal(mkdir(at("sub"), 0755), 0);
	put("sub/zones.conf", "# the zones\n\n" ZONE);
	put("sub/level.conf", "log_level = \"debug\";\n");
	/* Nested: main.conf -> sub/zones.conf here; sub/inner.conf -> level.conf in sub/. */
	put("sub/inner.conf", "@include \"level.conf\"\n");
	snprintf(main_text, sizeof(main_text), "idle_poll_ms = 0;\n@include \"sub/zones.conf\"\n"
		 "  @include \"%s\"\nmetrics_interval_ms = 20000;\n", at("sub/inner.conf"));
	put("main.conf", main_text);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir("/"), 0);
	int r = pa_config_load_file(at("main.conf"), &c, &err);
	assert_int_equal(chdir(cwd), 0);
	if (r < 0)
		print_message("%s\n", err.text);
	assert_int_equal(r, 0);
	assert_int_equal(c->idle_poll_ms, 0);
	assert_int_equal(c->n_zones, 1);
	assert_string_equal(c->zones[0].name, "soc");
	/* The line in its own file. */
	assert_int_equal(c->zones[0].line, 3);
	assert_int_equal(c->zones[0].actors[0].line, 4);
	assert_int_equal(c->log_level, PA_LOG_DEBUG);
	assert_int_equal(c->metrics_interval_ms, 20000);
	pa_config_free(c);
}

/* Each error names the file it is in, and the line there. */
static void test_errors_name_the_file_and_line_they_are_in(void **unused)
{
	char want[512];

	(void)unused;
	put("bad-key.conf", "\n\nzones = ( { name = \"soc\"; sensor = \"s\"; periodms = 5;\n"
	    "actors = ( { type = \"cpufreq\"; cpus = \"0-3\"; } ); } );\n");
	put("main.conf", "log_level = \"info\";\n@include \"bad-key.conf\"\n");
	snprintf(want, sizeof(want), "%s:3: zones[0].periodms: unknown key: did you mean "
		 "\"period_ms\"? (valid here: name, ", at("bad-key.conf"));
	expect_refused_start(at("main.conf"), want);
	/* A syntax error in the included file, with the hint of config_syntax.c. */
	put("bad-syntax.conf", "# list\nzones = [\n  { name = \"soc\"; } ];\n");
	put("main.conf", "@include \"bad-syntax.conf\"\n");
	snprintf(want, sizeof(want), "%s:3: syntax error: a list of groups takes parentheses, "
		 "zones = ( { ... }, { ... } ); square brackets [ ] hold only numbers, strings or "
		 "booleans", at("bad-syntax.conf"));
	expect_refused(at("main.conf"), want);
	/* After an include, the main file's own lines. */
	put("ok.conf", "# one\n# two\n# three\nlog_level = \"info\";\n");
	put("main.conf", "\n@include \"ok.conf\"\n\nidle_poll_ms = -1;\n");
	snprintf(want, sizeof(want), "%s:4: idle_poll_ms: ", at("main.conf"));
	expect_refused_start(at("main.conf"), want);
}

/* An include that cannot be read is refused at its line, naming what it reads. */
static void test_an_include_that_cannot_be_read(void **unused)
{
	char want[1024];

	(void)unused;
	assert_int_equal(mkdir(at("d"), 0755), 0);
	put("main.conf", "log_level = \"info\";\n\n@include \"d\"\n");
	snprintf(want, sizeof(want), "%s:3: @include \"d\": %s: cannot read: not a regular file",
		 at("main.conf"), at("d"));
	expect_refused(at("main.conf"), want);
	put("main.conf", "@include \"/dev/zero\"\n");
	snprintf(want, sizeof(want), "%s:1: @include \"/dev/zero\": /dev/zero: cannot read: not a "
		 "regular file", at("main.conf"));
	expect_refused(at("main.conf"), want);
	put("main.conf", "# none\n@include \"absent.conf\"\n");
	snprintf(want, sizeof(want), "%s:2: @include \"absent.conf\": %s: cannot read: No such "
		 "file or directory", at("main.conf"), at("absent.conf"));
	expect_refused(at("main.conf"), want);
	put("main.conf", "@include \"unterminated.conf\n");
	snprintf(want, sizeof(want), "%s:1: @include without its closing quote", at("main.conf"));
	expect_refused(at("main.conf"), want);
}

static void test_an_include_loop_is_refused(void **unused)
{
	char want[512];

	(void)unused;
	put("loop.conf", "# me again\n@include \"loop.conf\"\n");
	snprintf(want, sizeof(want), "%s:2: @include \"loop.conf\": nested more than %d deep "
		 "(does a file include itself?)", at("loop.conf"), PA_CONFIG_INCLUDE_DEPTH_MAX);
	expect_refused(at("loop.conf"), want);
}

/* Two includes a level, 9 levels: 512 copies of 2 KiB, over the bound of the whole. */
static void test_includes_bounded_in_total(void **unused)
{
	char want[512], name[32], text[128], comment[2100];

	(void)unused;
	memset(comment, '.', sizeof(comment) - 2);
	comment[0] = '#';
	comment[sizeof(comment) - 2] = '\n';
	comment[sizeof(comment) - 1] = '\0';
	put("l0.conf", comment);
	for (int i = 1; i <= 9; i++) {
		snprintf(name, sizeof(name), "l%d.conf", i);
		snprintf(text, sizeof(text), "@include \"l%d.conf\"\n@include \"l%d.conf\"\n",
			 i - 1, i - 1);
		put(name, text);
	}
	put("main.conf", "@include \"l9.conf\"\n");
	snprintf(want, sizeof(want), "%s: with its @includes, larger than %d bytes",
		 at("main.conf"), PA_CONFIG_MAX_BYTES);
	expect_refused(at("main.conf"), want);
}

/* What libconfig does not take as an include is not one: in comments and strings. */
static void test_include_in_a_comment_or_string_is_text(void **unused)
{
	struct pa_config *c;
	struct pa_config_error err;

	(void)unused;
	put("main.conf", "# @include \"absent\"\n/*\n@include \"absent\"\n*/\n"
	    "trace_file = \"/a\n@include \\\"absent\\\"\n\";\n// @include \"absent\"\n");
	int r = pa_config_load_file(at("main.conf"), &c, &err);
	if (r < 0)
		print_message("%s\n", err.text);
	assert_int_equal(r, 0);
	assert_string_equal(c->trace_file, "/a\n@include \"absent\"\n");
	pa_config_free(c);
	/* From a string, relative to its name's directory. */
	put("zones.conf", ZONE);
	assert_int_equal(pa_config_load_string("@include \"zones.conf\"\n", at("string.conf"), &c,
					       &err), 0);
	assert_int_equal(c->n_zones, 1);
	pa_config_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_a_directory_is_refused_not_exited, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_fifo_and_a_device_are_refused_without_waiting,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_file_over_the_bound_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_nul_byte_is_refused_with_its_line, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_include_relative_to_the_including_file, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_errors_name_the_file_and_line_they_are_in, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_an_include_that_cannot_be_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_an_include_loop_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_includes_bounded_in_total, setup, teardown),
		cmocka_unit_test_setup_teardown(test_include_in_a_comment_or_string_is_text, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
