/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The plant's power meters, as the kernel exposes them: one hwmon device,
 * "sim_rails" (sys/devices/platform/sim-rails/hwmon/hwmonN, linked from
 * sys/class/hwmon; update_interval: the sample period in ms of the
 * daemon's clock), with a channel per metered domain: powerK_input (µW,
 * the mean over the sample period, updated at its end, as an INA226
 * averages), powerK_label, inK_label (the rail), inK_input (mV, the
 * domain's OPP voltage) and energyK_input (µJ, cumulative, updated every
 * step, as SCMI's); and, RAPL-like, a powercap zone sim-rapl:J per meter
 * (sys/devices/virtual/powercap/sim-rapl/sim-rapl:J, linked from
 * sys/class/powercap) with name, energy_uj and max_energy_range_uj.
 * Each measures the domain's true power (the silicon's: the table's
 * figure times --power-scale), with seeded gaussian noise.
 */
#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "plant.h"
#include "sensor_model.h"

#define SIM_METERS_HWMON_NAME "sim_rails"
/* The RAPL-like zones' counter range, µJ (Intel RAPL's package range). */
#define SIM_METERS_ENERGY_RANGE_UJ 262143328850.0
#define SIM_METERS_DEFAULT_PERIOD_MS 1000

/* What the daemon's configuration names for each meter (tools/sim --meter-config). */
enum sim_meter_config {
	SIM_METER_CONFIG_NONE,		/* nothing: the daemon's configuration is unchanged */
	SIM_METER_CONFIG_HWMON,		/* power_meter = { hwmon = "sim_rails"; label = ...; } */
	SIM_METER_CONFIG_POWER,		/* power_meter = ".../powerK_input" */
	SIM_METER_CONFIG_ENERGY,	/* power_meter = ".../energyK_input" */
	SIM_METER_CONFIG_ENERGY_UJ,	/* power_meter = ".../sim-rapl:J/energy_uj" */
};

/**
 * struct sim_meter - one domain's meter.
 * @domain: the plant's domain it measures.
 * @label: the rail's name (powerK_label, inK_label, the zone's name).
 * @power_fd, @in_fd, @energy_fd, @rapl_fd: powerK_input, inK_input,
 *	energyK_input and the zone's energy_uj.
 * @energy_uj: the energy measured so far, µJ.
 * @sample_j: the energy of the sample period so far, J.
 */
struct sim_meter {
	size_t domain;
	char label[32];
	int power_fd;
	int in_fd;
	int energy_fd;
	int rapl_fd;
	double energy_uj;
	double sample_j;
};

/**
 * struct sim_meters - the plant's meters.
 * @n: meters (0: none).
 * @period_ms: the hwmon power's sample period, simulated ms.
 * @noise_pct: the noise's standard deviation, % of the power.
 * @step_mw: the hwmon power's resolution, mW: each reading rounded to a
 *	multiple (a coarse rail monitor); 0 for none (to the µW).
 * @config: what the daemon is told.
 * @hwmon: the hwmon device's number.
 * @sample_s: the sample period so far, simulated s.
 * @primed: the first sample is written.
 * @rng: the noise's generator.
 */
struct sim_meters {
	size_t n;
	struct sim_meter m[PLANT_MAX_DOMAINS];
	int period_ms;
	double noise_pct;
	double step_mw;
	enum sim_meter_config config;
	int hwmon;
	double sample_s;
	bool primed;
	struct sensor_model rng;
};

/**
 * struct sim_meter_options - the command line's: @all gives every domain a
 * meter (labelled "vdd_" and its name) where the description gives none;
 * @period_ms and @noise_pct, when >= 0, replace the description's (-1:
 * keep); @step_mw (0: none); @config.
 */
struct sim_meter_options {
	bool all;
	int period_ms;
	double noise_pct;
	double step_mw;
	enum sim_meter_config config;
};

/** sim_meter_config_parse() - "none", "hwmon", "power", "energy", "energy_uj". Return: 0 or -1. */
int sim_meter_config_parse(const char *name, enum sim_meter_config *c);

/**
 * sim_meters_read_description() - the description's optional
 * meters = { period_ms = N; noise_pct = F; rails = ( { domain = "NAME";
 * label = "LABEL"; }, ... ); } into @mt, for @b's domains.
 * Return: 0, or -1 (said on stderr) for an unknown domain or a bad value.
 */
int sim_meters_read_description(config_t *cfg, const struct board *b, struct sim_meters *mt);

/** sim_meters_apply() - the command line's @o over the description's, @seed for the noise. */
void sim_meters_apply(struct sim_meters *mt, const struct board *b,
		      const struct sim_meter_options *o, uint64_t seed);

/**
 * sim_meters_setup() - the meters' files in the tree @dir, for a daemon
 * whose clock runs @speed times the plant's.  Return: 0 or -1 (said).
 */
int sim_meters_setup(struct sim_meters *mt, const char *dir, double speed);

/**
 * sim_meters_config() - the power_meter key for domain @k in the daemon's
 * configuration ("power_meter = ...; "), or "" where @k has no meter or
 * the daemon is told nothing.
 */
void sim_meters_config(const struct sim_meters *mt, size_t k, char *buf, size_t size);

/** sim_meters_step() - @dt_s of @pl's true power into the meters, their files written. */
void sim_meters_step(struct sim_meters *mt, const struct plant *pl, double dt_s);

/** sim_meters_describe() - the meters for the summary: the device, period, noise; or "none". */
void sim_meters_describe(const struct sim_meters *mt, char *buf, size_t size);

/** sim_meters_rails() - the metered domains and what the daemon is told: "gpu (daemon told: hwmon)". */
void sim_meters_rails(const struct sim_meters *mt, const struct board *b, char *buf, size_t size);

/** sim_meters_close() - close the meters' files. */
void sim_meters_close(struct sim_meters *mt);
