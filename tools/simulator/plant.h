/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The simulated SoC: a two-node thermal model (die and case, each with a heat
 * capacity, die to case to ambient through thermal resistances), power
 * domains with the board's power tables, a schedutil-like frequency choice
 * capped by each domain's cooling state, and workloads.  Pure computation:
 * the simulator moves the numbers in and out of the fake /sys tree.
 */
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "control/power_table.h"

#define PLANT_MAX_DOMAINS BOARD_MAX_DOMAINS

enum workload {
	WORKLOAD_STEADY,	/* everything busy */
	WORKLOAD_BURST,		/* 5 s busy, 5 s light, repeated */
	WORKLOAD_SHIFT,		/* big cluster busy, then the little one */
	WORKLOAD_AMBIENT_STEP,	/* steady, ambient +15 °C during the middle third */
};

/* The ambient step of WORKLOAD_AMBIENT_STEP when none is given, °C. */
#define PLANT_DEFAULT_AMBIENT_STEP_C 15.0

#define PLANT_MAX_FAN_STATES 8

/*
 * The thermal model.  A fan, when modelled, replaces the case-to-ambient
 * resistance by one per fan state (the fan's cooling state, read back from
 * the tree like the others).
 */
struct thermal_params {
	double ambient_c;
	double initial_c;		/* die and case at the start (a device already warm) */
	double die_capacity_j_per_k;
	double die_to_case_k_per_w;
	double case_capacity_j_per_k;
	double case_to_ambient_k_per_w;
	double static_power_w;		/* the rest of the board, always on */
	double power_scale;		/* the silicon's power / the power table's */
	/* Per domain, the same ratio where it differs (0: power_scale's). */
	double domain_scale[PLANT_MAX_DOMAINS];
	double ambient_step_c;		/* added to ambient during the middle third */
	size_t n_fan_states;		/* 0: no fan */
	double fan_case_to_ambient_k_per_w[PLANT_MAX_FAN_STATES];
};

/**
 * struct domain_state - one power domain (CPU cluster or GPU) this step.
 * @demand: work wanted, as a fraction of the domain at its top frequency.
 * @state: cooling state read back from the tree.
 * @freq_khz: frequency chosen.
 * @busy: fraction of time busy at that frequency (0..1).
 * @power_w: power drawn.
 */
struct domain_state {
	double demand;
	unsigned long state;
	uint32_t freq_khz;
	double busy;
	double power_w;
};

struct plant {
	const struct board *board;
	struct power_table table[PLANT_MAX_DOMAINS];	/* the board's, for the limit */
	struct thermal_params p;
	enum workload workload;
	double duration_s;
	double t_s;
	double die_c;
	double case_c;
	double power_w;
	struct domain_state dom[PLANT_MAX_DOMAINS];
	unsigned long fan_state;
	/* Work, in DMIPS-seconds (capacity-weighted MHz x CPUs x s). */
	double work_done;
	double work_demanded;
};

/**
 * plant_best_work_rate() - the physical limit: the most work per second
 * (DMIPS) any mix of OPPs (time-shared) could deliver for the demand of
 * this step within @power_w of dynamic power (the silicon's: the power
 * table's figure times the domain's scale, plant_domain_scale()).  Each domain's (power, work)
 * points, idle included, are reduced to their upper concave hull and the
 * power goes to the steepest segments first (lib/control/efficiency.c, the same
 * computation efficiency-aware division starts from).
 */
double plant_best_work_rate(const struct plant *pl, double power_w);

/**
 * plant_domain_scale() - domain @k's silicon power over its power table's:
 * its own scale where it has one, else the plant's power_scale.
 */
double plant_domain_scale(const struct thermal_params *p, size_t k);

/** plant_init() - at ambient, every domain at state 0. */
void plant_init(struct plant *pl, const struct board *b, const struct thermal_params *p,
		enum workload w, double duration_s);

/** plant_step() - advance @dt_s seconds with the current cooling states. */
void plant_step(struct plant *pl, double dt_s);

/**
 * plant_heat() - advance the thermal model alone @dt_s seconds with @power_w
 * (everything the die dissipates, static power included).
 */
void plant_heat(struct plant *pl, double power_w, double dt_s);

/**
 * plant_sustainable_w() - the plant's true sustainable power: the dynamic
 * power (the silicon's, W) at which the die settles at @control_c with the
 * ambient at @ambient_c: (control - ambient) / (die + case resistance) -
 * static power.  The case resistance is the fan-less one.
 */
double plant_sustainable_w(const struct thermal_params *p, double control_c, double ambient_c);

/**
 * plant_start_settled() - the case at the temperature it settles at while
 * the die holds @control_c (at the base ambient), and the die at the case's
 * temperature: a device that has long run at its limit, its load just back.
 */
void plant_start_settled(struct plant *pl, double control_c);

/** plant_ambient_c() - the ambient temperature now (the workload may change it). */
double plant_ambient_c(const struct plant *pl);

/** name_index() - the index of @name in @names (@n of them), or -1. */
int name_index(const char *const *names, int n, const char *name);

/** workload_parse() - "steady", "burst", "shift", "ambient-step". Return: 0 or -1. */
int workload_parse(const char *name, enum workload *w);

/** workload_name() - the name of @w. */
const char *workload_name(enum workload w);
