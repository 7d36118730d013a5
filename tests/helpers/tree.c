/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "tree.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/engine.h"
#include "engine/zone.h"

#include "platform/log.h"
#include "platform/sysfs.h"

static char messages[TREE_LOG_MAX][1024];
static size_t n_messages;

static void collect(void *userdata, int priority, const char *const *fields,
		    const char *message)
{
	(void)userdata;
	(void)fields;
	if (priority <= PA_LOG_NOTICE)
		print_message("log: %s\n", message);
	if (n_messages < TREE_LOG_MAX)
		snprintf(messages[n_messages++], sizeof(messages[0]), "%s", message);
}

void tree_log_capture(void)
{
	n_messages = 0;
	pa_log_set_handler(collect, NULL);
}

void tree_log_clear(void)
{
	n_messages = 0;
}

int tree_log_reset(void **unused)
{
	(void)unused;
	tree_log_clear();
	return 0;
}

bool tree_on(const char *tree)
{
	const char *fixture = getenv("FIXTURE");

	return fixture && strcmp(fixture, tree) == 0;
}

static char failing_path[SYSFS_PATH_MAX];
static int failing_error;

static int fail_reads_hook(const char *path, bool write)
{
	return !write && strcmp(path, failing_path) == 0 ? failing_error : 0;
}

void tree_fail_reads(const char *path, int error)
{
	snprintf(failing_path, sizeof(failing_path), "%s", path ? path : "");
	failing_error = error;
	sysfs_set_fault_hook(path ? fail_reads_hook : NULL);
}

struct actor *tree_actor_named(const struct engine *e, const char *name)
{
	for (size_t i = 0; i < e->n_actors; i++)
		if (strcmp(e->actors[i]->name, name) == 0)
			return e->actors[i];
	fail_msg("no actor %s", name);
	return NULL;
}

size_t tree_log_count(const char *words)
{
	size_t n = 0;

	for (size_t i = 0; i < n_messages; i++)
		n += strstr(messages[i], words) != NULL;
	return n;
}

size_t tree_log_n(void)
{
	return n_messages;
}

void tree_put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

void tree_put_u64(const char *path, unsigned long long value)
{
	char text[32];

	snprintf(text, sizeof(text), "%llu\n", value);
	tree_put(path, text);
}

void tree_get_str(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_non_null(fgets(buf, (int)size, f));
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

long long tree_get(const char *path)
{
	char buf[64];

	tree_get_str(path, buf, sizeof(buf));
	return strtoll(buf, NULL, 10);
}

/* /proc/stat for CPUs 0..@n_cpus-1, CPU c with @busy_each[c] (else @busy) and @idle more ticks. */
static void write_stat(unsigned int n_cpus, const unsigned int *busy_each, unsigned int busy,
		       unsigned int idle)
{
	FILE *f = fopen("/proc/stat", "w");

	assert_non_null(f);
	fprintf(f, "cpu  0 0 0 0 0 0 0 0 0 0\n");
	for (unsigned int c = 0; c < n_cpus; c++)
		fprintf(f, "cpu%u %u 0 50 %u 0 0 0 0 0 0\n", c,
			100 + (busy_each ? busy_each[c] : busy), 1000 + idle);
	fprintf(f, "intr 0\nctxt 0\n");
	fclose(f);
}

void tree_stat_cpus(unsigned int n_cpus, unsigned int busy, unsigned int idle)
{
	write_stat(n_cpus, NULL, busy, idle);
}

void tree_busy_each(unsigned int n_cpus, const unsigned int *busy)
{
	write_stat(n_cpus, busy, 0, 0);
}

void tree_busy_cpus(unsigned int n_cpus, unsigned int busy)
{
	tree_stat_cpus(n_cpus, busy, 0);
}

const char *tree_real_path(const char *sys_path)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s%s", getenv("FIXTURE_DIR"), sys_path);
	return path;
}

struct pa_config *tree_config(const char *text)
{
	struct pa_config *c;
	struct pa_config_error err;

	if (pa_config_load_string(text, "test.conf", &c, &err) < 0)
		fail_msg("%s", err.text);
	return c;
}

int tree_main_guard(void)
{
	if (getenv("UMOCKDEV_DIR") && getenv("FIXTURE_DIR"))
		return 0;
	fprintf(stderr, "run under tests/helpers/run-in-tree\n");
	return 1;
}

void tree_assert_always_on(const struct zone *z, const char *name, int control_mc,
			   unsigned int sustainable_mw, const char *actor)
{
	assert_string_equal(z->setup.name, name);
	assert_true(z->setup.always_on);
	assert_int_equal(z->setup.control_mc, control_mc);
	assert_int_equal(z->setup.pid.sustainable_power_mw, sustainable_mw);
	assert_int_equal(z->setup.n_actors, 1);
	assert_string_equal(z->setup.actors[0]->name, actor);
}
