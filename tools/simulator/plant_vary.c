/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "plant_vary.h"

double plant_die_tau_s(const struct thermal_params *p)
{
	return p->die_capacity_j_per_k * p->die_to_case_k_per_w;
}

double plant_case_tau_s(const struct thermal_params *p)
{
	return p->case_capacity_j_per_k * p->case_to_ambient_k_per_w;
}

void plant_vary(struct thermal_params *p, const struct plant_variation *v)
{
	double die_tau_s = v->die_tau_s > 0 ? v->die_tau_s : plant_die_tau_s(p);
	double case_tau_s = v->case_tau_s > 0 ? v->case_tau_s : plant_case_tau_s(p);
	double total = p->die_to_case_k_per_w + p->case_to_ambient_k_per_w;
	double share = p->die_to_case_k_per_w / total;

	if (v->resistance_k_per_w > 0)
		total = v->resistance_k_per_w;
	if (v->die_share > 0 && v->die_share < 1)
		share = v->die_share;
	p->die_to_case_k_per_w = share * total;
	p->case_to_ambient_k_per_w = (1 - share) * total;
	p->die_capacity_j_per_k = die_tau_s / p->die_to_case_k_per_w;
	p->case_capacity_j_per_k = case_tau_s / p->case_to_ambient_k_per_w;
	if (v->power_scale > 0)
		p->power_scale = v->power_scale;
	if (v->ambient_step_c != 0)
		p->ambient_step_c = v->ambient_step_c;
}
