/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Helpers for tests that run in a fixture tree under umockdev-wrapper
 * (tests/helpers/run-in-tree): paths like "/sys/..." and "/proc/stat" reach the tree.
 * Every helper fails the current cmocka test on error.
 */
#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"

#define TREE_LOG_MAX 64

/** tree_put() - replace the contents of @path with @text (in place). */
void tree_put(const char *path, const char *text);

/** tree_put_u64() - write @value and a newline to @path. */
void tree_put_u64(const char *path, unsigned long long value);

/** tree_get() - the number at the start of @path. */
long long tree_get(const char *path);

/** tree_get_str() - the first line of @path, without its newline. */
void tree_get_str(const char *path, char *buf, size_t size);

/**
 * tree_busy_cpus() - write /proc/stat for CPUs 0..@n_cpus-1, each with
 * @busy more busy ticks than the fixture's own sample (idle unchanged).
 */
void tree_busy_cpus(unsigned int n_cpus, unsigned int busy);

/**
 * tree_stat_cpus() - write /proc/stat for CPUs 0..@n_cpus-1, each with
 * @busy more busy ticks and @idle more idle ticks than the fixture's own
 * sample (an idle CPU: @idle grows, @busy does not).
 */
void tree_stat_cpus(unsigned int n_cpus, unsigned int busy, unsigned int idle);

/**
 * tree_busy_each() - write /proc/stat for CPUs 0..@n_cpus-1, CPU c with
 * @busy[c] more busy ticks than the fixture's own sample (idle unchanged).
 */
void tree_busy_each(unsigned int n_cpus, const unsigned int *busy);

/** tree_real_path() - where @sys_path is on disk (for links and removals). */
const char *tree_real_path(const char *sys_path);

/** tree_config() - parse @text as a config; fails the test with the error. */
struct pa_config *tree_config(const char *text);

/**
 * tree_log_capture() - collect the library's messages from now on (those
 * at notice or above are printed too), up to TREE_LOG_MAX.
 */
void tree_log_capture(void);

/** tree_log_clear() - forget the messages collected so far. */
void tree_log_clear(void);

/** tree_log_count() - how many collected messages hold @words. */
size_t tree_log_count(const char *words);

/** tree_log_n() - how many messages were collected. */
size_t tree_log_n(void);

/** tree_log_reset() - a cmocka setup that forgets the messages collected so far. */
int tree_log_reset(void **unused);

/** tree_on() - whether the fixture tree is @tree (FIXTURE, "rk3399-dt"). */
bool tree_on(const char *tree);

/** tree_main_guard() - 0 when run by run-in-tree, else 1 with a message. */
int tree_main_guard(void);

struct zone;
struct engine;

/** tree_actor_named() - @e's actor named @name; the test fails where there is none. */
struct actor *tree_actor_named(const struct engine *e, const char *name);

/**
 * tree_fail_reads() - every read of @path (a /sys path as the daemon names
 * it) fails with @error (a negative errno) from now on; NULL: reads work again.
 */
void tree_fail_reads(const char *path, int error);

/*
 * tree_assert_always_on() - @z is a zone taken automatically with one passive
 * trip: named @name, always on at @control_mc, on a sustainable power of
 * @sustainable_mw, with the one actor @actor.
 */
void tree_assert_always_on(const struct zone *z, const char *name, int control_mc,
			   unsigned int sustainable_mw, const char *actor);
