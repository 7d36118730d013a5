/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's state file (daemon/saved.c, daemon/new_file.c): which files
 * it takes (only the kinds powerallocd writes), how it reads lines (any
 * length, one entry each), and how it creates the file (never through a
 * link, never blocked by a temporary a crashed run left).
 */
#include <errno.h>
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

#include "platform/log.h"
#include "new_file.h"
#include "saved.h"

static void quiet(void *userdata, int priority, const char *const *fields, const char *message)
{
	(void)userdata;
	(void)priority;
	(void)fields;
	(void)message;
}

static int add(const char *path)
{
	struct saved s = { 0 };
	int r = saved_add(&s, path, "0");

	saved_clear(&s);
	return r;
}

static void test_only_files_powerallocd_writes(void **unused)
{
	static const char *const written[] = {
		"/sys/class/thermal/thermal_zone0/policy",
		"/sys/class/thermal/thermal_zone12/policy",
		"/sys/class/thermal/cooling_device3/cur_state",
		"/sys/devices/system/cpu/cpufreq/policy4/scaling_max_freq",
		"/sys/class/powercap/intel-rapl:0/constraint_0_power_limit_uw",
		"/sys/class/powercap/intel-rapl:0:1/constraint_1_power_limit_uw",
		"/sys/class/powercap/..x/constraint_0_power_limit_uw",
	};
	static const char *const refused[] = {
		"/sys/power/state",
		"/sys/class/thermal/thermal_zone/policy",
		"/sys/class/thermal/thermal_zone1x/policy",
		"/sys/class/thermal/thermal_zone1/policy/x",
		"/sys/class/thermal/thermal_zone1/mode",
		"/sys/class/thermal/cooling_device1/max_state",
		"/sys/class/thermal/cooling_device1/cur_state2",
		"/sys/devices/system/cpu/cpufreq/policy1/scaling_min_freq",
		"/sys/devices/system/cpu/cpufreq/policy1/scaling_governor",
		"/sys/class/powercap//constraint_0_power_limit_uw",
		"/sys/class/powercap/./constraint_0_power_limit_uw",
		"/sys/class/powercap/a/b/constraint_0_power_limit_uw",
		"/sys/class/powercap/a/constraint__power_limit_uw",
		"/sys/class/powercap/a/constraint_0_max_power_uw",
	};

	(void)unused;
	for (size_t i = 0; i < sizeof(written) / sizeof(written[0]); i++)
		assert_int_equal(add(written[i]), 1);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		assert_int_equal(add(refused[i]), -EPERM);
	/* Not a plain sysfs path at all. */
	assert_int_equal(add("/etc/shadow"), -EINVAL);
	assert_int_equal(add("/sys/class/powercap/../constraint_0_power_limit_uw"), -EINVAL);
	assert_int_equal(add("sys/class/thermal/thermal_zone0/policy"), -EINVAL);
}

/* A fresh directory for files of the test; removed by cleanup(). */
static char dir[64];

static int setup(void **unused)
{
	(void)unused;
	snprintf(dir, sizeof(dir), "/tmp/powerallocd-saved.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int cleanup(void **unused)
{
	char cmd[128];

	(void)unused;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void in_dir(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void assert_contents(const char *path, const char *text)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_string_equal(buf, text);
}

static void test_long_line_is_one_entry(void **unused)
{
	const char *entry = "/sys/class/thermal/cooling_device1/cur_state\t3\n";
	size_t pad = 20000;
	char path[128], *text = malloc(pad + 200);
	struct saved s = { 0 };
	FILE *f;

	(void)unused;
	assert_non_null(text);
	in_dir(path, sizeof(path), "state");
	memset(text, '/', pad);
	strcpy(text + pad, entry);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fputs("/sys/class/thermal/thermal_zone0/policy\tstep_wise\n", f);
	fclose(f);
	assert_int_equal(saved_read(&s, path), 0);
	/* The long line is refused whole: its tail is no entry of its own. */
	assert_int_equal(s.n, 1);
	assert_string_equal(s.entries[0].path, "/sys/class/thermal/thermal_zone0/policy");
	saved_clear(&s);
	free(text);
}

static void test_a_nul_in_a_line_refuses_it(void **unused)
{
	static const char text[] = "/sys/class/thermal/cooling_device2/cur_state\t1\0garbage\n";
	char path[128];
	struct saved s = { 0 };
	FILE *f;

	(void)unused;
	in_dir(path, sizeof(path), "nul");
	f = fopen(path, "w");
	assert_non_null(f);
	fwrite(text, 1, sizeof(text) - 1, f);
	fclose(f);
	assert_int_equal(saved_read(&s, path), 0);
	assert_int_equal(s.n, 0);
	saved_clear(&s);
}

/* Links at the final name and at the first temporary names go nowhere. */
static void test_new_file_never_follows_a_link(void **unused)
{
	char path[128], victim[128], link[192];
	struct new_file nf;

	(void)unused;
	in_dir(path, sizeof(path), "file");
	in_dir(victim, sizeof(victim), "victim");
	put(victim, "precious\n");
	assert_int_equal(symlink(victim, path), 0);
	for (int n = 0; n < 3; n++) {
		snprintf(link, sizeof(link), "%s.tmp.%ld.%d", path, (long)getpid(), n);
		assert_int_equal(symlink(victim, link), 0);
	}
	assert_int_equal(new_file_open(&nf, path, 0600), 0);
	fputs("new\n", nf.file);
	assert_int_equal(new_file_commit(&nf, path), 0);
	fclose(nf.file);
	assert_contents(victim, "precious\n");
	assert_contents(path, "new\n");
	/* The link at the final name was replaced by the file itself. */
	{
		struct stat st;

		assert_int_equal(lstat(path, &st), 0);
		assert_true(S_ISREG(st.st_mode));
		assert_int_equal(st.st_mode & 0777, 0600);
		snprintf(link, sizeof(link), "%s.tmp.%ld.3", path, (long)getpid());
		assert_int_equal(lstat(link, &st), -1);
	}
}

/* A temporary name that stays taken only costs the next one; all taken: -EEXIST. */
static void test_new_file_past_stale_temporaries(void **unused)
{
	char path[128], stale[192];
	struct new_file nf;
	struct saved s = { 0 };

	(void)unused;
	in_dir(path, sizeof(path), "state");
	for (int n = 0; n < 32; n++) {
		snprintf(stale, sizeof(stale), "%s.tmp.%ld.%d", path, (long)getpid(), n);
		put(stale, "stale\n");
	}
	assert_int_equal(new_file_open(&nf, path, 0600), -EEXIST);
	unlink(stale);
	assert_int_equal(saved_add(&s, "/sys/class/thermal/thermal_zone0/policy", "step_wise"), 1);
	assert_int_equal(saved_write(&s, path), 0);
	snprintf(stale, sizeof(stale), "%s.tmp.%ld.0", path, (long)getpid());
	assert_contents(stale, "stale\n");
	saved_clear(&s);
	assert_int_equal(saved_read(&s, path), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.entries[0].value, "step_wise");
	saved_clear(&s);
}

/*
 * What powerallocd last left in a file is its line's third field, padded to
 * SAVED_OURS_WIDTH so that it can be rewritten in place; a line of an older
 * powerallocd has none: not known ("").
 */
static void test_ours_is_a_fixed_width_field(void **unused)
{
	char path[128];
	struct saved s = { 0 };
	FILE *f;

	(void)unused;
	in_dir(path, sizeof(path), "state");
	assert_int_equal(saved_add_ours(&s, "/sys/class/thermal/thermal_zone0/policy", "step_wise",
					"user_space"), 1);
	assert_int_equal(saved_add(&s, "/sys/class/thermal/cooling_device1/cur_state", "0"), 1);
	assert_int_equal(saved_write(&s, path), 0);
	assert_true(s.state_open);
	assert_int_equal(s.entries[0].ours_at, (long)strlen("# powerallocd state: sysfs files, "
		"the values to restore and the values powerallocd last left there\n"
		"/sys/class/thermal/thermal_zone0/policy\tstep_wise\t"));
	saved_clear(&s);
	assert_false(s.state_open);
	assert_int_equal(saved_read(&s, path), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.entries[0].ours, "user_space");
	assert_string_equal(s.entries[1].ours, "");
	saved_clear(&s);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("/sys/class/thermal/cooling_device1/cur_state\t0\n", f);
	fclose(f);
	assert_int_equal(saved_read(&s, path), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.entries[0].value, "0");
	assert_string_equal(s.entries[0].ours, "");
	saved_clear(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_only_files_powerallocd_writes),
		cmocka_unit_test(test_long_line_is_one_entry),
		cmocka_unit_test(test_a_nul_in_a_line_refuses_it),
		cmocka_unit_test(test_new_file_never_follows_a_link),
		cmocka_unit_test(test_new_file_past_stale_temporaries),
		cmocka_unit_test(test_ours_is_a_fixed_width_field),
	};

	pa_log_set_handler(quiet, NULL);
	return cmocka_run_group_tests(tests, setup, cleanup);
}
