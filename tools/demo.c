/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * powerallocd-demo: what the control library computes for a real board.
 *
 * Prints the power tables of the RK3399 (RockPro64) built from its
 * device-tree OPPs, then closes the loop around a one-node thermal model of
 * the SoC under full load while the ambient temperature steps from 25 °C to
 * 40 °C and back, once with the default controller and once with the
 * kernel's, and prints the response.  The live daemon
 * against the simulated SoC comes with the daemon (tools/sim).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "divvy.h"
#include "pid.h"
#include "power_table.h"

#define PERIOD_MS 100
#define SECONDS 90
/* Die-to-ambient: 32 K/W holds 75 °C at 1.56 W; 1.5 J/K gives a 48 s time constant. */
#define R_TH_K_PER_W 32.0
#define C_TH_J_PER_K 1.5
/* The RockPro64 tree has no sustainable-power; this is what the rock960 tree
 * sets for the same SoC. */
#define SUSTAINABLE_POWER_MW 1550

struct actor {
	const struct board_domain *domain;
	struct power_table table;
	unsigned int n_cpus;		/* 1 for the GPU */
	uint32_t freq_khz;
};

static void print_tables(const struct board *b, struct actor *actors)
{
	printf("Power tables of %s (kernel formula: uW = dpc * mV^2 * MHz / 1e6, per CPU)\n\n",
	       b->name);
	for (size_t k = 0; k < b->n_domains; k++) {
		struct actor *a = &actors[k];

		if (a->domain->n_cpus)
			printf("%s: dynamic-power-coefficient %u, %u CPUs\n", a->domain->name,
			       a->domain->dynamic_power_coefficient, a->domain->n_cpus);
		else
			printf("%s: dynamic-power-coefficient %u\n", a->domain->name,
			       a->domain->dynamic_power_coefficient);
		printf("  state    kHz      mV   mW/CPU   mW all\n");
		for (unsigned int s = 0; s <= power_table_max_state(&a->table); s++) {
			const struct power_entry *e = &a->table.entry[a->table.n - 1 - s];

			printf("  %5u %8u %6u %8u %8u\n", s, e->freq_khz, e->voltage_uv / 1000,
			       e->power_mw, e->power_mw * a->n_cpus);
		}
		printf("\n");
	}
}

struct run_result {
	double max_temp_c;
	double seconds_above_control;
	double mean_power_mw;
	double work;		/* sum of MHz * busy CPUs over the run, relative to the default */
};

/* Ambient temperature at @step: 40 °C from 30 s to 60 s, else 25 °C. */
static double ambient_c(int step)
{
	int t_s = step * PERIOD_MS / 1000;

	return t_s >= 30 && t_s < 60 ? 40.0 : 25.0;
}

/* One control period: budget -> grants -> frequencies; returns dissipated mW. */
static uint32_t control_period(const struct pid_params *pp, struct pid_state *st,
			       struct actor *actors, size_t n, int32_t temp_mc,
			       int32_t switch_on_mc, int32_t control_mc, uint32_t *budget,
			       double *work)
{
	struct divvy_actor d[BOARD_MAX_DOMAINS];
	uint32_t max_total = 0, min_total = 0, power = 0;

	for (size_t k = 0; k < n; k++) {
		struct actor *a = &actors[k];
		uint32_t load = 100 * a->n_cpus;

		d[k].req_mw = power_table_requested_power(&a->table, a->freq_khz, load);
		d[k].max_mw = a->table.entry[a->table.n - 1].power_mw * a->n_cpus;
		d[k].weight_q10 = DIVVY_WEIGHT_ONE;
		max_total += d[k].max_mw;
		min_total += a->table.entry[0].power_mw * a->n_cpus;
	}
	if (temp_mc < switch_on_mc) {
		pid_reset(st);
		*budget = max_total;
	} else {
		*budget = pid_step(pp, st, control_mc, temp_mc, min_total, max_total, NULL);
	}
	divvy(d, n, *budget);
	for (size_t k = 0; k < n; k++) {
		struct actor *a = &actors[k];

		uint32_t load = 100 * a->n_cpus;

		a->freq_khz = power_table_power_to_freq(&a->table, d[k].granted_mw, load);
		power += power_table_requested_power(&a->table, a->freq_khz, load);
		*work += a->freq_khz / 1000.0 * load / 100.0;
	}
	return power;
}

static struct run_result run(enum pid_mode mode, struct actor *actors, size_t n,
			     const struct board_zone *zone, int verbose)
{
	int32_t switch_on = zone->trips[0].temp_mc, control = zone->trips[1].temp_mc;
	struct run_result res = { 0 };
	struct pid_params pp = { .mode = mode, .sustainable_power_mw = SUSTAINABLE_POWER_MW,
				 .period_ms = PERIOD_MS };
	struct pid_state st;
	double temp_c = 68.0, power_sum = 0;
	int steps = SECONDS * 1000 / PERIOD_MS;

	pid_default_gains(pp.sustainable_power_mw, switch_on, control, &pp.gains);
	pid_default_fixes(&pp.fixes);
	pid_reset(&st);
	for (size_t k = 0; k < n; k++)
		actors[k].freq_khz = actors[k].table.entry[actors[k].table.n - 1].freq_khz;

	for (int step = 0; step < steps; step++) {
		int32_t temp_mc = (int32_t)lround(temp_c * 1000);
		uint32_t budget;
		uint32_t power = control_period(&pp, &st, actors, n, temp_mc, switch_on,
						control, &budget, &res.work);
		double heat_out_w = (temp_c - ambient_c(step)) / R_TH_K_PER_W;

		temp_c += (power / 1000.0 - heat_out_w) * (PERIOD_MS / 1000.0) / C_TH_J_PER_K;
		if (temp_c > res.max_temp_c)
			res.max_temp_c = temp_c;
		power_sum += power;
		if (temp_c * 1000 > control)
			res.seconds_above_control += PERIOD_MS / 1000.0;
		if (verbose && step % (3000 / PERIOD_MS) == 0)
			printf("  %4.1f  %6.2f  %7u  %7u  %9u %9u %9u\n", step * PERIOD_MS / 1000.0,
			       temp_c, budget, power, actors[0].freq_khz / 1000,
			       actors[1].freq_khz / 1000, n > 2 ? actors[2].freq_khz / 1000 : 0);
	}
	res.mean_power_mw = power_sum / steps;
	return res;
}

int main(void)
{
	const struct board *b = board_find("rk3399-rockpro64");
	struct actor actors[BOARD_MAX_DOMAINS];
	struct run_result def, ker;
	const struct board_zone *zone;

	if (!b)
		return 1;
	zone = &b->zones[0];
	memset(actors, 0, sizeof(actors));
	for (size_t k = 0; k < b->n_domains; k++) {
		struct opp opps[BOARD_MAX_OPPS] = { 0 };
		const struct board_domain *d = &b->domains[k];

		for (size_t i = 0; i < d->n_opps; i++) {
			opps[i].freq_khz = d->opps[i].freq_khz;
			opps[i].voltage_uv = d->opps[i].voltage_uv;
		}
		actors[k].domain = d;
		actors[k].n_cpus = d->n_cpus ? d->n_cpus : 1;
		if (power_table_build(opps, d->n_opps, d->dynamic_power_coefficient,
				      &actors[k].table) < 0) {
			fprintf(stderr, "%s: cannot build the power table\n", d->name);
			return 1;
		}
	}
	print_tables(b, actors);

	printf("Zone %s: switch-on %d m°C, control %d m°C, sustainable power %d mW, period %d ms.\n"
	       "Load: all CPUs and the GPU busy.  Die model: %.0f K/W to ambient, %.1f J/K;\n"
	       "ambient 25 °C, 40 °C from 30 s to 60 s.\n\n", zone->name, zone->trips[0].temp_mc,
	       zone->trips[1].temp_mc, SUSTAINABLE_POWER_MW, PERIOD_MS, R_TH_K_PER_W,
	       C_TH_J_PER_K);
	printf("default controller:\n     t    temp   budget    power   A53 MHz   A72 MHz   GPU MHz\n");
	def = run(PID_MODE_DEFAULT, actors, b->n_domains, zone, 1);
	ker = run(PID_MODE_KERNEL, actors, b->n_domains, zone, 0);

	printf("\n%-10s %12s %18s %14s %12s\n", "controller", "max temp °C",
	       "s above control", "mean power mW", "work");
	printf("%-10s %12.2f %18.1f %14.0f %11.1f%%\n", "default", def.max_temp_c,
	       def.seconds_above_control, def.mean_power_mw, 100.0);
	printf("%-10s %12.2f %18.1f %14.0f %11.1f%%\n", "kernel", ker.max_temp_c,
	       ker.seconds_above_control, ker.mean_power_mw, 100.0 * ker.work / def.work);
	printf("\nThis is the control library alone; the daemon on the simulated SoC comes with "
	       "tools/sim.\n");
	return 0;
}
