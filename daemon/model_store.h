/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The zones' learnt thermal models, kept between runs in the state
 * directory (/var/lib/powerallocd): one file per zone (lib/engine/model_record.h),
 * written at exit, when a rebuild ends a zone's model, and every save
 * interval from a timer of its own (never from the control path); read
 * when a zone is built, and reused only when the zone's hardware is the
 * same.  Every file is written under a temporary name and renamed
 * (daemon/new_file.h).
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "engine/engine.h"

/* The default directory: systemd's StateDirectory=powerallocd. */
#define MODEL_STORE_DEFAULT_DIR "/var/lib/powerallocd"
/* The models are saved this often while the daemon runs, s. */
#define MODEL_STORE_DEFAULT_INTERVAL_S 600

/**
 * struct model_store - where the models are kept.
 * @dir: the directory; "" when they are not kept.
 * @engine: the daemon's engine, whose zones the timer saves.
 * @timer: the periodic save, NULL without one.
 * @interval_us: its interval, µs.
 * @save_failed: the last save failed (said once until one succeeds).
 */
struct model_store {
	char dir[PATH_MAX];
	const struct engine *engine;
	sd_event_source *timer;
	uint64_t interval_us;
	bool save_failed;
};

/**
 * model_store_open() - keep the models of @engine's zones in @dir: checks
 * that @dir is a directory it can write, else says once why and keeps
 * nothing ("" keeps nothing, said at info); starts the save timer on
 * @event every @interval_s seconds (0: none).  Never fails the daemon.
 */
void model_store_open(struct model_store *s, const char *dir, sd_event *event,
		      const struct engine *engine, unsigned int interval_s);

/**
 * model_store_resume() - give each zone of @e whose model has not fitted a
 * block yet (a fresh zone, or one a rebuild did not carry a model into)
 * the model saved for it, when its fingerprint is the zone's; a saved
 * model for other hardware, or in another format, is removed with the
 * reason in the journal, a corrupt one too; a reused one is said with its
 * sustainable power, time constant and confidence.
 */
void model_store_resume(struct model_store *s, struct engine *e);

/**
 * model_store_save() - write the model of every zone of @e that has fitted
 * a block, except those @next, the engine built to replace @e, carries on
 * (they go on, and are saved later; NULL: none is carried on).  A failure
 * is said once until a save succeeds.
 */
void model_store_save(struct model_store *s, const struct engine *e, const struct engine *next);

/** model_store_close() - save the engine's models and stop the timer. */
void model_store_close(struct model_store *s);
