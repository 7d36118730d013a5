/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Variations of a board's thermal model (powerallocd-sim's plant options):
 * the die's and the case's time constants, the die's share of the thermal
 * resistance, the total resistance, the silicon's power against the power
 * table's, an ambient step.  Each changes what it names and keeps the rest.
 */
#include "plant.h"

/**
 * struct plant_variation - what to change; 0 leaves the description's.
 * @die_tau_s: the die's time constant, C_die x R_die (the case held), s.
 * @case_tau_s: the case's, C_case x R_case, s.
 * @die_share: R_die / (R_die + R_case), 0..1 exclusive.
 * @resistance_k_per_w: R_die + R_case, K/W (the share kept unless given).
 * @power_scale: the silicon's power over the power table's figure.
 * @domain_scales: the same per domain, "NAME=X[,NAME=X...]" (NULL: none),
 *	the board's domain names (plant_vary_domains()).
 * @ambient_step_c: added to the ambient during the middle third, °C.
 */
struct plant_variation {
	double die_tau_s;
	double case_tau_s;
	double die_share;
	double resistance_k_per_w;
	double power_scale;
	const char *domain_scales;
	double ambient_step_c;
};

/**
 * plant_vary() - apply @v to @p.  The time constants not given stay the
 * description's: a new resistance comes with the capacity that keeps them.
 */
void plant_vary(struct thermal_params *p, const struct plant_variation *v);

/**
 * plant_vary_domains() - @text, "NAME=X[,NAME=X...]" (a domain of @b, X
 * from 0.1 to 10: its silicon draws X x its table), into
 * @p->domain_scale, the domains not named kept; NULL or "" changes nothing.
 * @what: where @text comes from, for the messages ("--power-scale-domain").
 * Return: 0, or -1 said on stderr with the board's domain names.
 */
int plant_vary_domains(struct thermal_params *p, const struct board *b, const char *text,
		       const char *what);

/** plant_die_tau_s() - C_die x R_die, s. */
double plant_die_tau_s(const struct thermal_params *p);

/** plant_case_tau_s() - C_case x R_case (the fan-less resistance), s. */
double plant_case_tau_s(const struct thermal_params *p);
