/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * A zone's learnt thermal model as the daemon keeps it between runs: the
 * model's state (thermal_model_export()) with the fingerprint of the
 * hardware and settings it was learnt on, as a small versioned text of
 * "key = value" lines.  Pure: the text is built in and parsed from memory;
 * the daemon reads and writes the files (daemon/model_store.c).
 */
#include <stddef.h>
#include <stdint.h>

#include "control/thermal_model.h"
#include "zone.h"

/* The text's format: a model saved in another format is not reused. */
#define MODEL_RECORD_FORMAT 1
/* Room for the text of one record, bytes: the model and a calibration per actor. */
#define MODEL_RECORD_TEXT_MAX 16384

/**
 * struct model_fingerprint - what a zone's model was learnt on; a model is
 * reused only on the same.
 * @sensor_type: the zone's thermal zone type.
 * @actors: hash of its actors' kinds, device names and CPU sets (in any
 *	order).
 * @power_tables: hash of their power tables (each actor's frequencies and
 *	powers).
 * @control_mc: the control temperature (the model's reference), m°C.
 * @period_ms: the control period (sets the model's block length), ms.
 */
struct model_fingerprint {
	char sensor_type[64];
	uint64_t actors;
	uint64_t power_tables;
	int32_t control_mc;
	uint32_t period_ms;
};

/**
 * struct model_scale - a metered actor's calibration (power_scale_export()),
 * saved with its zone's model: a "power_scale = KEY WEIGHT SUM_P SUM_M
 * SUM_PP SUM_PM SUM_MM" line, optional (a file without one loads).
 * @key: hash of the actor's kind, device name and CPUs and of its meter's
 *	name (the path, or the hwmon name and label: not hwmonN).
 * @state: what the estimator learnt.
 */
struct model_scale {
	uint64_t key;
	struct power_scale_state state;
};

/**
 * struct model_record - one zone's saved model.
 * @fp: what it was learnt on.
 * @state: the model.
 * @est: its estimate, written as a comment for whoever reads the file (not
 *	parsed: zero after model_record_parse()).
 * @n_scales, @scales: its metered actors' calibrations.
 */
struct model_record {
	struct model_fingerprint fp;
	struct thermal_model_state state;
	struct thermal_estimate est;
	size_t n_scales;
	struct model_scale scales[ZONE_MAX_ACTORS];
};

/** model_fingerprint_of() - the fingerprint of @z as it is now. */
void model_fingerprint_of(const struct zone *z, struct model_fingerprint *fp);

/**
 * model_fingerprint_differs() - why a model learnt on @saved does not fit
 * a zone that is @now ("sensor changed", "actors changed", "power table
 * changed", "control temperature changed", "period changed"), or NULL
 * when it does.
 */
const char *model_fingerprint_differs(const struct model_fingerprint *saved,
				      const struct model_fingerprint *now);

/**
 * model_record_of() - @z's model, estimate and fingerprint, and the
 * calibration of each of its actors that calibrates from a meter and has
 * learnt something.
 */
void model_record_of(const struct zone *z, struct model_record *r);

/**
 * model_record_format() - @r as text, into @buf (@size bytes), for the zone
 * called @zone (named in the text's first comment).
 * Return: the text's length, or -ENOSPC when it does not fit.
 */
int model_record_format(const struct model_record *r, const char *zone, char *buf, size_t size);

/**
 * model_record_parse() - @r from @text (NUL-terminated): lines "key =
 * value", blank lines and "#" comments; the first key is "format", every
 * key of the format once and no other.
 * @why, @why_size: on error, what is wrong (with the line number).
 * Return: 0; -EPROTONOSUPPORT for a text in another format; -EINVAL for
 * one that is not a record.
 */
int model_record_parse(const char *text, struct model_record *r, char *why, size_t why_size);

/**
 * model_record_resume() - @m, the model of a zone just built, takes the
 * state of @r when it is worth resuming: its values are in range
 * (thermal_model_import()) and its confidence reaches MODEL_TUNING_ENGAGE,
 * at which the zone's controller would take it (model_tuning.h).  Under
 * that the zone would run on its configuration anyway, and what the model
 * says (a sustainable power of 0 mW at confidence 0.01) is no knowledge.
 * @confidence: out, the confidence of @r's model when its values are in
 *	range.
 * Return: 0; -EINVAL when the values are out of range, -ENODATA when the
 * confidence is under MODEL_TUNING_ENGAGE; @m unchanged on error.
 */
int model_record_resume(struct thermal_model *m, const struct model_record *r,
			double *confidence);

/**
 * model_record_resume_scales() - each actor of @z that calibrates from a
 * meter and has learnt nothing yet resumes the calibration @r saved for the
 * same actor and meter (power_scale_import(): its weight cut, so that a
 * changed machine shows).  The caller has checked the fingerprint.
 * Return: how many resumed.
 */
size_t model_record_resume_scales(struct zone *z, const struct model_record *r);

/**
 * model_record_file_name() - the file name of the zone called @zone's
 * record: the name with every byte other than letters, digits, '-', '_'
 * and '.' (and a '.' that leads) written %XX, then ".model"; two names
 * never share a file.  Return: its length, or -ENAMETOOLONG when over @size - 1.
 */
int model_record_file_name(const char *zone, char *buf, size_t size);
