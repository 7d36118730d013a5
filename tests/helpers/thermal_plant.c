/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Synthetic plants, sensors and controlled zones for the thermal model's tests. */
#include "thermal_plant.h"

#include <math.h>
#include <string.h>

/* Plant steps per control period (Euler, 10 ms: under 1 % off a 0.5 s node). */
#define SUBSTEPS 10
#define N_OPPS 10
/* The zone's maximum power, in sustainable powers: it has to throttle. */
#define MAX_OVER_SUSTAINABLE 3.0

static double uniform(uint64_t *rng)
{
	/* xorshift64*: enough for noise and load times, the same on every machine. */
	*rng ^= *rng >> 12;
	*rng ^= *rng << 25;
	*rng ^= *rng >> 27;
	return ((*rng * UINT64_C(2685821657736338717)) >> 11) * (1.0 / 9007199254740992.0);
}

double synth_gauss(uint64_t *rng)
{
	double u1 = uniform(rng), u2 = uniform(rng);

	return sqrt(-2 * log(u1 > 1e-300 ? u1 : 1e-300)) * cos(2 * M_PI * u2);
}

/* The resistance to ambient that makes @spec's sustainable power true, K/W. */
static double resistance(const struct synth_spec *spec)
{
	return (SYNTH_CONTROL_C - SYNTH_AMBIENT_C) / (spec->sustainable_w * spec->draw +
						     SYNTH_STATIC_W);
}

static double max_w(const struct synth *s)
{
	return MAX_OVER_SUSTAINABLE * s->spec.sustainable_w;
}

/* A PI controller tuned on the true fast node: what a well-set zone does. */
static void tune(struct synth *s)
{
	double r_fast = s->r_die * s->spec.draw;

	s->kp_w_per_k = 0.5 / r_fast;
	s->ki_w_per_ks = s->kp_w_per_k / s->spec.tau_die_s;
}

void synth_init(struct synth *s, const struct synth_spec *spec, double prior_w)
{
	double r = resistance(spec);

	memset(s, 0, sizeof(*s));
	s->spec = *spec;
	s->prior_w = prior_w;
	s->rng = spec->seed ? spec->seed : 1;
	if (spec->tau_case_s > 0) {
		s->r_die = spec->die_share * r;
		s->r_case = r - s->r_die;
		s->c_case = spec->tau_case_s / s->r_case;
	} else {
		s->r_die = r;
	}
	s->c_die = spec->tau_die_s / s->r_die;
	s->die_c = s->case_c = 60;
	s->demand = 1;
	s->table_w = max_w(s);	/* a load starts */
	tune(s);
	thermal_model_init(&s->model, SYNTH_PERIOD_MS, (int32_t)(SYNTH_CONTROL_C * 1000),
			   (uint32_t)(prior_w * 1000));
	/* The first reading primes the model. */
	thermal_model_sample(&s->model, 0, (int32_t)lround(s->die_c * 1000), 0);
}

double synth_scale_resistance(struct synth *s, double factor)
{
	s->r_die *= factor;
	s->r_case *= factor;
	s->c_die /= factor;	/* the time constants stay */
	s->c_case = s->r_case > 0 ? s->c_case / factor : 0;
	tune(s);
	return synth_sustainable_w(s);
}

double synth_sustainable_w(const struct synth *s)
{
	double r = s->r_die + s->r_case;

	return ((SYNTH_CONTROL_C - SYNTH_AMBIENT_C) / r - SYNTH_STATIC_W) / s->spec.draw;
}

static void plant_step(struct synth *s, double power_w, double dt)
{
	double heat = power_w * s->spec.draw + SYNTH_STATIC_W;

	if (s->c_case > 0) {
		double die_to_case = (s->die_c - s->case_c) / s->r_die;
		double case_to_ambient = (s->case_c - SYNTH_AMBIENT_C) / s->r_case;

		s->die_c += (heat - die_to_case) * dt / s->c_die;
		s->case_c += (die_to_case - case_to_ambient) * dt / s->c_case;
	} else {
		s->die_c += (heat - (s->die_c - SYNTH_AMBIENT_C) / s->r_die) * dt / s->c_die;
	}
}

static double read_sensor(struct synth *s)
{
	double t = s->die_c;

	if (s->spec.noise_c > 0)
		t += s->spec.noise_c * synth_gauss(&s->rng);
	if (s->spec.step_c > 0)
		t = round(t / s->spec.step_c) * s->spec.step_c;
	return t;
}

/* The load: now and then, for 10 to 60 s, a share of the maximum between load_low and 1. */
static void update_load(struct synth *s)
{
	if (s->t_s < s->demand_until_s)
		return;
	s->demand = 1;
	s->demand_until_s = s->t_s + 1;
	if (s->spec.load_every_s > 0 && uniform(&s->rng) < 1 / s->spec.load_every_s) {
		s->demand = s->spec.load_low + (1 - s->spec.load_low) * uniform(&s->rng);
		s->demand_until_s = s->t_s + 10 + 50 * uniform(&s->rng);
	}
}

/* The budget, as the highest OPP within it (the lowest when none is). */
static double choose_opp(struct synth *s, double measured_c)
{
	double err = SYNTH_CONTROL_C - measured_c, period_s = SYNTH_PERIOD_MS / 1000.0;
	double budget, opp = max_w(s) / N_OPPS;

	/* No integrating up while the load, not the budget, holds the power. */
	if (err < 0 || s->table_w <= s->demand * max_w(s))
		s->integral_w += s->ki_w_per_ks * err * period_s;
	s->integral_w = fmax(-max_w(s), fmin(max_w(s), s->integral_w));
	budget = s->prior_w + s->kp_w_per_k * err + s->integral_w;
	for (int i = 1; i <= N_OPPS; i++)
		if (max_w(s) * i / N_OPPS <= budget)
			opp = max_w(s) * i / N_OPPS;
	return opp;
}

/* One period at @power_w (table watts): the plant, then the sensor into the model. */
static double period_at(struct synth *s, double power_w)
{
	double period_s = SYNTH_PERIOD_MS / 1000.0, dt = period_s / SUBSTEPS, measured;

	for (int i = 0; i < SUBSTEPS; i++)
		plant_step(s, power_w, dt);
	s->t_s += period_s;
	measured = read_sensor(s);
	thermal_model_sample(&s->model, SYNTH_PERIOD_MS * 1000, (int32_t)lround(measured * 1000),
			     (uint32_t)lround(power_w * 1000));
	return measured;
}

void synth_hold(struct synth *s, double power_w, double until_s)
{
	while (s->t_s < until_s - 1e-9)
		period_at(s, power_w);
}

void synth_run(struct synth *s, double until_s)
{
	while (s->t_s < until_s - 1e-9) {
		double power_w = fmin(s->table_w, s->demand * max_w(s)), measured;

		measured = period_at(s, power_w);
		s->abs_error_sum += fabs(s->die_c - SYNTH_CONTROL_C);
		s->periods++;
		update_load(s);
		s->table_w = choose_opp(s, measured);
	}
}
