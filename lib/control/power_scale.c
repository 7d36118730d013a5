/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An actor's power model calibrated from its meter (power_scale.h, doc/power-meters.md). */
#include "power_scale.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* The offset fit needs this many effective windows. */
#define OFFSET_MIN_WINDOWS 8.0
/* The offset is taken when it cuts the scale-only fit's residual to this share or less. */
#define OFFSET_RESIDUAL_SHARE 0.5
/* ... and is at most this share of the mean measured power. */
#define OFFSET_MAX_SHARE 0.5
/* The confidence's terms (power_scale_feed()). */
#define CONF_WINDOWS 4.0
#define CONF_RESIDUAL 0.25
#define CONF_SPREAD_CV 0.1
#define CONF_ONE_STATE 0.85
/* Rounding slack for the sums' consistency on import, relative. */
#define IMPORT_SLACK 1e-9

void power_scale_init(struct power_scale *ps, uint32_t period_ms, uint32_t sample_ms)
{
	uint64_t by_periods = (uint64_t)(period_ms ? period_ms : 1) * POWER_SCALE_WINDOW_PERIODS;
	uint64_t by_samples = (uint64_t)sample_ms * POWER_SCALE_WINDOW_SAMPLES;

	memset(ps, 0, sizeof(*ps));
	ps->window_us = 1000 * (by_periods > by_samples ? by_periods : by_samples);
	ps->delay_us = 1000 * (uint64_t)sample_ms;
	ps->scale = 1;
}

void power_scale_break(struct power_scale *ps)
{
	ps->delay_head = ps->delay_n = 0;
	ps->delay_total_us = 0;
	ps->win_us = ps->win_model_us = 0;
	ps->win_model_mws = ps->win_meas_mws = 0;
}

/* The fit of the sums @s into scale, offset and confidence. */
static void fit(const struct power_scale_state *s, double *scale, double *offset_mw,
		double *confidence)
{
	double w = s->weight, mean_p, mean_m, var_p, var_m, cov, cv, rss0, rss, s0;

	*scale = 1;
	*offset_mw = 0;
	*confidence = 0;
	if (!(w > 0) || !(s->sum_p > 0))
		return;
	mean_p = s->sum_p / w;
	mean_m = s->sum_m / w;
	var_p = fmax(0, s->sum_pp / w - mean_p * mean_p);
	var_m = fmax(0, s->sum_mm / w - mean_m * mean_m);
	cov = s->sum_pm / w - mean_p * mean_m;
	cv = sqrt(var_p) / mean_p;
	/* Scale only: the ratio of the energies, and its residual per window, mW². */
	s0 = s->sum_m / s->sum_p;
	rss0 = fmax(0, s->sum_mm - 2 * s0 * s->sum_pm + s0 * s0 * s->sum_pp) / w;
	*scale = s0;
	rss = rss0;
	if (cv >= POWER_SCALE_OFFSET_MIN_CV && w >= OFFSET_MIN_WINDOWS && var_p > 0) {
		double s1 = cov / var_p, o1 = mean_m - s1 * mean_p;
		double rss1 = fmax(0, var_m - cov * cov / var_p);

		if (rss1 < OFFSET_RESIDUAL_SHARE * rss0 && s1 >= POWER_SCALE_MIN &&
		    s1 <= POWER_SCALE_MAX && fabs(o1) <= OFFSET_MAX_SHARE * mean_m) {
			*scale = s1;
			*offset_mw = o1;
			rss = rss1;
		}
	}
	if (!(mean_m > 0))
		return;
	double r = sqrt(rss) / mean_m / CONF_RESIDUAL;

	*confidence = (1 - exp(-w / CONF_WINDOWS)) / (1 + r * r) *
		      (CONF_ONE_STATE + (1 - CONF_ONE_STATE) * fmin(1, cv / CONF_SPREAD_CV));
}

static void refit(struct power_scale *ps)
{
	fit(&ps->sums, &ps->scale, &ps->offset_mw, &ps->confidence);
}

/* A closed window's means, @p_mw modelled and @m_mw measured, into the fit. */
static enum power_scale_event close_window(struct power_scale *ps, double p_mw, double m_mw)
{
	struct power_scale_state *s = &ps->sums;
	double ratio;

	if (p_mw < POWER_SCALE_MIN_MODEL_MW)
		return POWER_SCALE_NONE;
	ratio = m_mw / p_mw;
	ps->window_ratio = ratio;
	if (ratio < POWER_SCALE_MIN || ratio > POWER_SCALE_MAX) {
		/* Kept out of the fit: a glitch must not move it, a sustained one drops the meter. */
		if (++ps->bad_windows < POWER_SCALE_IMPLAUSIBLE_WINDOWS || ps->implausible)
			return POWER_SCALE_NONE;
		ps->implausible = true;
		return POWER_SCALE_DROPPED;
	}
	ps->bad_windows = 0;
	s->weight = s->weight * POWER_SCALE_FORGET + 1;
	s->sum_p = s->sum_p * POWER_SCALE_FORGET + p_mw;
	s->sum_m = s->sum_m * POWER_SCALE_FORGET + m_mw;
	s->sum_pp = s->sum_pp * POWER_SCALE_FORGET + p_mw * p_mw;
	s->sum_pm = s->sum_pm * POWER_SCALE_FORGET + p_mw * m_mw;
	s->sum_mm = s->sum_mm * POWER_SCALE_FORGET + m_mw * m_mw;
	refit(ps);
	return POWER_SCALE_WINDOW;
}

/* The oldest period of the delay line into the window's modelled energy. */
static void pop_delayed(struct power_scale *ps, uint64_t *model_us)
{
	unsigned int i = ps->delay_head;

	ps->win_model_mws += ps->delay_mw[i] * (double)ps->delay_dt_us[i];
	*model_us += ps->delay_dt_us[i];
	ps->delay_total_us -= ps->delay_dt_us[i];
	ps->delay_head = (i + 1) % POWER_SCALE_DELAY_PERIODS;
	ps->delay_n--;
}

enum power_scale_event power_scale_feed(struct power_scale *ps, uint64_t elapsed_us,
					double model_mw, double measured_mw)
{
	uint64_t model_us = 0;
	unsigned int tail;
	double p_mw, m_mw;

	if (!elapsed_us)
		return POWER_SCALE_NONE;
	if (!isfinite(model_mw) || !isfinite(measured_mw) || model_mw < 0 || measured_mw < 0) {
		power_scale_break(ps);
		return POWER_SCALE_NONE;
	}
	if (ps->delay_n == POWER_SCALE_DELAY_PERIODS)
		pop_delayed(ps, &model_us);
	tail = (ps->delay_head + ps->delay_n) % POWER_SCALE_DELAY_PERIODS;
	ps->delay_mw[tail] = model_mw;
	ps->delay_dt_us[tail] = elapsed_us;
	ps->delay_n++;
	ps->delay_total_us += elapsed_us;
	while (ps->delay_n && ps->delay_total_us - ps->delay_dt_us[ps->delay_head] >= ps->delay_us)
		pop_delayed(ps, &model_us);
	/* The meter's first delay after a break pairs with no model: not counted. */
	if (!model_us && !ps->win_us)
		return POWER_SCALE_NONE;
	/* The window's time is the meter's; the delayed model's runs alongside. */
	ps->win_meas_mws += measured_mw * (double)elapsed_us;
	ps->win_us += elapsed_us;
	ps->win_model_us += model_us;
	if (ps->win_us < ps->window_us || !ps->win_model_us)
		return POWER_SCALE_NONE;
	p_mw = ps->win_model_mws / (double)ps->win_model_us;
	m_mw = ps->win_meas_mws / (double)ps->win_us;
	ps->win_us = ps->win_model_us = 0;
	ps->win_model_mws = ps->win_meas_mws = 0;
	return close_window(ps, p_mw, m_mw);
}

/* The estimate blended towards the table by its confidence. */
static void blended(const struct power_scale *ps, double *scale, double *offset_mw)
{
	double c = ps->implausible ? 0 : ps->confidence;

	*scale = 1 + c * (ps->scale - 1);
	*offset_mw = c * ps->offset_mw;
}

double power_scale_apply_mw(const struct power_scale *ps, double table_mw)
{
	double scale, offset_mw;

	blended(ps, &scale, &offset_mw);
	return fmax(0, scale * table_mw + offset_mw);
}

double power_scale_table_mw(const struct power_scale *ps, double real_mw)
{
	double scale, offset_mw;

	blended(ps, &scale, &offset_mw);
	return scale > 0 ? fmax(0, (real_mw - offset_mw) / scale) : real_mw;
}

void power_scale_export(const struct power_scale *ps, struct power_scale_state *s)
{
	*s = ps->sums;
}

/* Whether @s is sums some windows give: finite, non-negative, Cauchy-Schwarz. */
static bool state_valid(const struct power_scale_state *s)
{
	const double *v = &s->weight;

	for (int i = 0; i < 6; i++)
		if (!isfinite(v[i]))
			return false;
	if (s->weight < 0 || s->weight > 1 / (1 - POWER_SCALE_FORGET) + 1 || s->sum_p < 0 ||
	    s->sum_m < 0 || s->sum_pp < 0 || s->sum_pm < 0 || s->sum_mm < 0)
		return false;
	return s->sum_p * s->sum_p <= s->weight * s->sum_pp * (1 + IMPORT_SLACK) &&
	       s->sum_m * s->sum_m <= s->weight * s->sum_mm * (1 + IMPORT_SLACK) &&
	       s->sum_pm * s->sum_pm <= s->sum_pp * s->sum_mm * (1 + IMPORT_SLACK);
}

int power_scale_import(struct power_scale *ps, const struct power_scale_state *s)
{
	struct power_scale_state cut = *s;
	double scale, offset_mw, confidence;

	if (!state_valid(s))
		return -EINVAL;
	if (cut.weight > POWER_SCALE_RESUME_WINDOWS) {
		double k = POWER_SCALE_RESUME_WINDOWS / cut.weight;

		cut.weight *= k;
		cut.sum_p *= k;
		cut.sum_m *= k;
		cut.sum_pp *= k;
		cut.sum_pm *= k;
		cut.sum_mm *= k;
	}
	fit(&cut, &scale, &offset_mw, &confidence);
	if (scale < POWER_SCALE_MIN || scale > POWER_SCALE_MAX)
		return -EINVAL;
	ps->sums = cut;
	ps->scale = scale;
	ps->offset_mw = offset_mw;
	ps->confidence = confidence;
	return 0;
}
