/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * metrics_dir: the zones' and actors' state for node_exporter's textfile
 * collector, in the Prometheus text format (powerallocd(8), METRICS),
 * written whole under a temporary name and renamed over METRICS_FILE every
 * metrics_interval_ms, from a timer of its own: never from the control
 * period.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <systemd/sd-event.h>

#include "engine/engine.h"

/* The file in metrics_dir; the textfile collector reads only "*.prom". */
#define METRICS_FILE "powerallocd.prom"

/**
 * struct metrics - the metrics file and its timer.
 * @timer: fires every @interval_us while a directory is set.
 * @engine: what is written (the daemon's engine, rebuilt in place).
 * @path: the file, "" while there is none.
 * @interval_us: how often it is written, µs.
 * @failed: the last write failed (logged once until one succeeds).
 */
struct metrics {
	sd_event_source *timer;
	const struct engine *engine;
	char path[PATH_MAX];
	uint64_t interval_us;
	bool failed;
};

/** metrics_open() - the timer on @event, disarmed, for @engine.  Return: 0 or negative errno. */
int metrics_open(struct metrics *m, sd_event *event, const struct engine *engine);

/**
 * metrics_configure() - write METRICS_FILE in @dir ("" for none) every
 * @interval_ms from one interval on; a file written in another directory
 * before is removed.  At start and on every reload.
 */
void metrics_configure(struct metrics *m, const char *dir, uint32_t interval_ms);

/** metrics_close() - stop the timer and remove the file. */
void metrics_close(struct metrics *m);

/** metrics_print() - the exposition of @e to @f (the file's whole text). */
void metrics_print(FILE *f, const struct engine *e);
