/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Device-tree cells and the sysfs helpers, on files in a temporary
 * directory: opened once and re-read with pread, writes that refuse links.
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

#include "platform/parse.h"
#include "platform/sysfs.h"

static char dir[] = "/tmp/powerallocd-sysfs-XXXXXX";

static void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const char *at(const char *name)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void test_dt_cells(void **unused)
{
	const unsigned char hz[] = { 0x00, 0x00, 0x00, 0x00, 0x54, 0x66, 0x72, 0x00 };
	const unsigned char big[] = { 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02 };

	(void)unused;
	assert_int_equal(parse_dt_u64(hz), 1416000000);
	assert_true(parse_dt_u64(big) == ((UINT64_C(1) << 32) | 2));
	assert_int_equal(parse_be32(hz + 4), 1416000000);
}

/* An attribute opened once sees new contents on every read. */
static void test_attr_reread(void **unused)
{
	struct sysfs_attr a = SYSFS_ATTR_INIT;
	uint64_t v;
	int64_t s;

	(void)unused;
	put("temp", "45000\n");
	assert_int_equal(sysfs_attr_open(&a, at("temp"), false), 0);
	assert_int_equal(sysfs_attr_read_u64(&a, &v), 0);
	assert_int_equal(v, 45000);
	put("temp", "86000\n");
	assert_int_equal(sysfs_attr_read_u64(&a, &v), 0);
	assert_int_equal(v, 86000);
	put("temp", "-5000\n");
	assert_int_equal(sysfs_attr_read_s64(&a, &s), 0);
	assert_int_equal(s, -5000);
	assert_int_equal(sysfs_attr_read_u64(&a, &v), -EINVAL);
	put("temp", "");
	assert_int_equal(sysfs_attr_read_s64(&a, &s), -EINVAL);
	sysfs_attr_close(&a);
	assert_int_equal(a.fd, -1);
	assert_int_equal(sysfs_attr_read_u64(&a, &v), -EBADF);
	assert_int_equal(sysfs_attr_open(&a, at("missing"), false), -ENOENT);
	assert_string_equal(a.path, at("missing"));
}

static void test_write(void **unused)
{
	struct sysfs_attr w = SYSFS_ATTR_INIT;
	char buf[32];
	char target[256];

	(void)unused;
	put("cur_state", "0\n");
	assert_int_equal(sysfs_attr_open(&w, at("cur_state"), true), 0);
	assert_int_equal(sysfs_attr_write_u64(&w, 3), 0);
	assert_int_equal(sysfs_read_str(at("cur_state"), buf, sizeof(buf)), 1);	/* "3\n" over "0\n" */
	assert_string_equal(buf, "3");
	sysfs_attr_close(&w);
	/* Writes never follow a link. */
	snprintf(target, sizeof(target), "%s", at("cur_state"));
	assert_int_equal(symlink(target, at("link")), 0);
	assert_int_equal(sysfs_attr_open(&w, at("link"), true), -ELOOP);
	assert_int_equal(sysfs_write_str(at("link"), "1"), -ELOOP);
	assert_int_equal(sysfs_write_str(at("policy"), "user_space"), -ENOENT);
	put("policy", "step_wise\n");
	assert_int_equal(sysfs_write_str(at("policy"), "user_space"), 0);
	assert_int_equal(sysfs_read_str(at("policy"), buf, sizeof(buf)), 10);
	assert_string_equal(buf, "user_space");
	assert_true(sysfs_lexists(at("link")));
	assert_int_equal(sysfs_link_name(at("link"), buf, sizeof(buf)), 9);
	assert_string_equal(buf, "cur_state");
	unlink(at("link"));
}

static void test_one_shot_reads(void **unused)
{
	char small[4];
	unsigned char bin[4];
	uint64_t v;
	int64_t *ids;
	size_t n;

	(void)unused;
	put("big", "123456789\n");
	assert_int_equal(sysfs_read_str(at("big"), small, sizeof(small)), -EFBIG);
	assert_int_equal(sysfs_read_bin(at("big"), bin, sizeof(bin)), -EFBIG);
	assert_int_equal(sysfs_read_u64(at("big"), &v), 0);
	assert_int_equal(v, 123456789);
	put("opp:800000000", "");
	put("opp:200000000", "");
	put("opp:x", "");
	assert_int_equal(sysfs_list_ids(dir, "opp:", &ids, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(ids[0], 200000000);
	assert_int_equal(ids[1], 800000000);
	free(ids);
	assert_int_equal(sysfs_list_ids(at("nothing"), "opp:", &ids, &n), -ENOENT);
	assert_null(ids);
}

/*
 * A device is gone when its attribute's path, links followed
 * (/sys/class/thermal/cooling_deviceN is a link to the device), no longer
 * names the file held open: removed, or another device took its number.
 */
static void test_attr_still_there(void **unused)
{
	struct sysfs_attr w = SYSFS_ATTR_INIT;
	char real[256], link[256];

	(void)unused;
	snprintf(real, sizeof(real), "%s", at("device0"));
	snprintf(link, sizeof(link), "%s", at("class-device0"));
	assert_int_equal(mkdir(real, 0755), 0);
	assert_int_equal(symlink(real, link), 0);
	put("device0/cur_state", "0\n");
	snprintf(link + strlen(link), sizeof(link) - strlen(link), "/cur_state");
	assert_int_equal(sysfs_attr_open(&w, link, true), 0);
	assert_true(sysfs_attr_still_there(&w));
	assert_int_equal(rename(real, at("device0-away")), 0);
	assert_false(sysfs_attr_still_there(&w));
	/* The file still open takes writes; the caller asks only after one failed. */
	assert_int_equal(sysfs_attr_write_u64(&w, 1), 0);
	assert_int_equal(rename(at("device0-away"), real), 0);
	assert_true(sysfs_attr_still_there(&w));
	/* Another device under the same number: not the one held. */
	assert_int_equal(rename(real, at("device0-old")), 0);
	assert_int_equal(mkdir(real, 0755), 0);
	put("device0/cur_state", "0\n");
	assert_false(sysfs_attr_still_there(&w));
	sysfs_attr_close(&w);
}

/*
 * Anything but a regular file is refused at once: a FIFO, whose open would
 * wait for a writer (or a reader) forever, and a directory.
 */
static void test_refuses_non_regular(void **unused)
{
	struct sysfs_attr a = SYSFS_ATTR_INIT;
	char buf[32];
	int64_t v;

	(void)unused;
	assert_int_equal(mkfifo(at("fifo"), 0644), 0);
	assert_int_equal(sysfs_attr_open(&a, at("fifo"), false), -SYSFS_ENOTREG);
	assert_int_equal(a.fd, -1);
	assert_int_equal(sysfs_attr_open(&a, at("fifo"), true), -SYSFS_ENOTREG);
	assert_int_equal(sysfs_read_s64(at("fifo"), &v), -SYSFS_ENOTREG);
	assert_int_equal(sysfs_read_str(at("fifo"), buf, sizeof(buf)), -SYSFS_ENOTREG);
	assert_int_equal(sysfs_write_str(at("fifo"), "1"), -SYSFS_ENOTREG);
	assert_string_equal(sysfs_strerror(-SYSFS_ENOTREG), "not a regular file");
	/* ESPIPE is what pread() on a debugfs file gives: not said to be one. */
	assert_string_not_equal(sysfs_strerror(-ESPIPE), "not a regular file");
	assert_int_equal(mkdir(at("subdir"), 0755), 0);
	assert_int_equal(sysfs_attr_open(&a, at("subdir"), false), -SYSFS_ENOTREG);
	assert_int_equal(sysfs_read_str(at("subdir"), buf, sizeof(buf)), -SYSFS_ENOTREG);
	unlink(at("fifo"));
	rmdir(at("subdir"));
}

static int setup(void **unused)
{
	(void)unused;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **unused)
{
	char cmd[300];

	(void)unused;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dt_cells),
		cmocka_unit_test(test_attr_reread),
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_one_shot_reads),
		cmocka_unit_test(test_attr_still_there),
		cmocka_unit_test(test_refuses_non_regular),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
