/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "plant.h"

#include <math.h>
#include <string.h>

#include "control/efficiency.h"

static const char *const workload_names[] = { "steady", "burst", "shift", "ambient-step" };

int name_index(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

int workload_parse(const char *name, enum workload *w)
{
	int i = name_index(workload_names, 4, name);

	if (i >= 0)
		*w = (enum workload)i;
	return i < 0 ? -1 : 0;
}

const char *workload_name(enum workload w)
{
	return (unsigned int)w < 4 ? workload_names[w] : "?";
}

void plant_init(struct plant *pl, const struct board *b, const struct thermal_params *p,
		enum workload w, double duration_s)
{
	memset(pl, 0, sizeof(*pl));
	pl->board = b;
	pl->p = *p;
	pl->workload = w;
	pl->duration_s = duration_s;
	pl->die_c = pl->case_c = p->initial_c;
	if (w == WORKLOAD_AMBIENT_STEP && pl->p.ambient_step_c == 0)
		pl->p.ambient_step_c = PLANT_DEFAULT_AMBIENT_STEP_C;
	for (size_t k = 0; k < b->n_domains; k++) {
		struct opp opps[BOARD_MAX_OPPS] = { { 0 } };

		for (size_t i = 0; i < b->domains[k].n_opps; i++) {
			opps[i].freq_khz = b->domains[k].opps[i].freq_khz;
			opps[i].voltage_uv = b->domains[k].opps[i].voltage_uv;
		}
		power_table_build(opps, b->domains[k].n_opps, b->domains[k].dynamic_power_coefficient,
				  &pl->table[k]);
	}
}

double plant_ambient_c(const struct plant *pl)
{
	double third = pl->duration_s / 3;

	if (pl->t_s >= third && pl->t_s < 2 * third)
		return pl->p.ambient_c + pl->p.ambient_step_c;
	return pl->p.ambient_c;
}

/* The big cluster is the domain with the highest capacity per MHz. */
static int is_big(const struct board *b, size_t k)
{
	unsigned int best = 0;

	for (size_t i = 0; i < b->n_domains; i++)
		if (b->domains[i].capacity_dmips_mhz > best)
			best = b->domains[i].capacity_dmips_mhz;
	return b->domains[k].n_cpus && b->domains[k].capacity_dmips_mhz == best;
}

static double demand(const struct plant *pl, size_t k)
{
	const struct board_domain *d = &pl->board->domains[k];

	switch (pl->workload) {
	case WORKLOAD_BURST:
		return fmod(pl->t_s, 10.0) < 5.0 ? 1.0 : 0.1;
	case WORKLOAD_SHIFT:
		if (!d->n_cpus)
			return 0.3;
		return (pl->t_s < pl->duration_s / 2) == is_big(pl->board, k) ? 1.0 : 0.05;
	default:
		return d->n_cpus ? 1.0 : 0.6;
	}
}

/*
 * schedutil: 1.25 x the utilisation at the top frequency, rounded up to an
 * OPP, and never above what the cooling state allows.
 */
static size_t choose_opp(const struct board_domain *d, double want, unsigned long state)
{
	size_t cap = state >= d->n_opps ? 0 : d->n_opps - 1 - state;
	double target = 1.25 * want * d->opps[d->n_opps - 1].freq_khz;
	size_t k = 0;

	while (k < d->n_opps - 1 && d->opps[k].freq_khz < target)
		k++;
	return k < cap ? k : cap;
}

static void step_domain(struct plant *pl, size_t k, double dt_s)
{
	const struct board_domain *d = &pl->board->domains[k];
	struct domain_state *s = &pl->dom[k];
	double top = d->opps[d->n_opps - 1].freq_khz, n = d->n_cpus ? d->n_cpus : 1;
	double weight = d->capacity_dmips_mhz ? d->capacity_dmips_mhz : 1000;
	size_t opp;

	s->demand = demand(pl, k);
	opp = choose_opp(d, s->demand, s->state);
	s->freq_khz = d->opps[opp].freq_khz;
	/* Work that fits at this frequency; the rest waits (is lost here). */
	s->busy = fmin(1.0, s->demand * top / s->freq_khz);
	s->power_w = d->opps[opp].power_uw / 1e6 * n * s->busy * plant_domain_scale(&pl->p, k);
	pl->work_demanded += s->demand * top / 1000 * n * weight * dt_s;
	pl->work_done += s->busy * s->freq_khz / 1000 * n * weight * dt_s;
}

/* Case to ambient, K/W: the fan's for its state when there is one. */
static double case_resistance(const struct plant *pl)
{
	size_t n = pl->p.n_fan_states;

	if (!n)
		return pl->p.case_to_ambient_k_per_w;
	return pl->p.fan_case_to_ambient_k_per_w[pl->fan_state < n ? pl->fan_state : n - 1];
}

void plant_heat(struct plant *pl, double power_w, double dt_s)
{
	double die_to_case = (pl->die_c - pl->case_c) / pl->p.die_to_case_k_per_w;
	double case_to_ambient = (pl->case_c - plant_ambient_c(pl)) / case_resistance(pl);

	pl->die_c += (power_w - die_to_case) * dt_s / pl->p.die_capacity_j_per_k;
	pl->case_c += (die_to_case - case_to_ambient) * dt_s / pl->p.case_capacity_j_per_k;
	pl->t_s += dt_s;
}

void plant_step(struct plant *pl, double dt_s)
{
	pl->power_w = pl->p.static_power_w;
	for (size_t k = 0; k < pl->board->n_domains; k++) {
		step_domain(pl, k, dt_s);
		pl->power_w += pl->dom[k].power_w;
	}
	plant_heat(pl, pl->power_w, dt_s);
}

double plant_sustainable_w(const struct thermal_params *p, double control_c, double ambient_c)
{
	return (control_c - ambient_c) / (p->die_to_case_k_per_w + p->case_to_ambient_k_per_w) -
	       p->static_power_w;
}

void plant_start_settled(struct plant *pl, double control_c)
{
	const struct thermal_params *t = &pl->p;
	double total_w = (control_c - t->ambient_c) /
			 (t->die_to_case_k_per_w + t->case_to_ambient_k_per_w);

	pl->case_c = pl->die_c = t->ambient_c + total_w * t->case_to_ambient_k_per_w;
}

double plant_domain_scale(const struct thermal_params *p, size_t k)
{
	return k < PLANT_MAX_DOMAINS && p->domain_scale[k] > 0 ? p->domain_scale[k] : p->power_scale;
}

/*
 * Domain @k's table in units of power_scale x the table's: each OPP's power
 * times the domain's scale over power_scale; @t itself where they are the
 * same (every uniform plant, so its limit stays bit for bit what it was).
 */
static const struct power_table *relative_table(const struct plant *pl, size_t k,
						struct power_table *t)
{
	double ratio = plant_domain_scale(&pl->p, k) / pl->p.power_scale;

	if (ratio == 1)
		return &pl->table[k];
	*t = pl->table[k];
	for (size_t i = 0; i < t->n; i++) {
		t->entry[i].power_uw = (uint32_t)lround(t->entry[i].power_uw * ratio);
		t->entry[i].power_mw = t->entry[i].power_uw / 1000;
	}
	return t;
}

double plant_best_work_rate(const struct plant *pl, double power_w)
{
	struct eff_actor e[PLANT_MAX_DOMAINS];
	struct power_table scaled[PLANT_MAX_DOMAINS];

	/* Throughput in DMIPS: capacity at the top OPP = DMIPS/MHz x top MHz. */
	for (size_t k = 0; k < pl->board->n_domains; k++) {
		const struct board_domain *d = &pl->board->domains[k];
		const struct power_table *t = relative_table(pl, k, &scaled[k]);
		unsigned int n = d->n_cpus ? d->n_cpus : 1;

		e[k] = (struct eff_actor){ .table = t, .n_cpus = n, .demand = pl->dom[k].demand,
					   .capacity = (d->capacity_dmips_mhz ? d->capacity_dmips_mhz
							: 1000) * (t->entry[t->n - 1].freq_khz / 1000),
					   .weight_q10 = 1024,
					   .max_mw = t->entry[t->n - 1].power_mw * n };
	}
	/* The tables' milliwatts: the silicon draws power_scale times their figure
	 * (each domain's own scale is in its relative table). */
	return efficiency_best_throughput(e, pl->board->n_domains,
					  power_w * 1000 / pl->p.power_scale);
}
