/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/* powerallocd-sim's command line. */
#include <stdint.h>

#include "plant.h"
#include "plant_vary.h"
#include "sim_io.h"

struct sim_options {
	const char *description;
	enum workload workload;
	double duration_s;
	double speed;
	const char *controller;
	const char *division;
	const char *zone_keys;
	int trip_offset_mc;	/* the daemon's control minus the description's */
	const char *powerallocd;
	const char *state_dir;	/* the daemon's --state-directory, NULL: the run's tree */
	enum sim_fault fault;
	int quiet;
	int check_config;	/* --check-config: show the daemon's view, simulate nothing */
	struct plant_variation vary;
	enum sim_sp sp;
	double sp_factor;	/* with SIM_SP_FACTOR: x the plant's true value */
	double sensor_step_c;
	double sensor_noise_c;
	uint64_t seed;
	int settled;		/* start the case at its equilibrium */
	int no_trip_events;	/* the simulated kernel sends no trip events */
	struct sim_meter_options meters;	/* --meters, --meter-noise, ... */
};

/**
 * sim_parse_options() - @argc/@argv into @o (which holds the defaults);
 * --help prints the usage and exits 0.
 * Return: 0, or -1 with the reason on stderr.
 */
int sim_parse_options(int argc, char **argv, struct sim_options *o);
