/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A zone's thermal response, learnt online (thermal_model.h, doc/thermal-model.md). */
#include "thermal_model.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "bounded_lsq.h"

enum { P_A, P_FAST, P_SLOW, P_OFFSET };
#define N THERMAL_MODEL_N

/* Forgetting per block: the fit remembers about 1 / (1 - LAMBDA) blocks. */
#define LAMBDA 0.98
/* The noise estimate remembers about 1 / (1 - NOISE_LAMBDA) blocks. */
#define NOISE_LAMBDA 0.95
/* Noise assumed before any block (K) and never less than this (K). */
#define NOISE_START_K 0.5
#define NOISE_FLOOR_K 0.05
/* An error beyond this many standard deviations is an outlier: clipped. */
#define OUTLIER_SD 3.0
/* The change detector: slack and alarm level (standard deviations), the
 * share of the information kept at an alarm, the recent errors' memory. */
#define CUSUM_CLIP 4.0
#define CUSUM_SLACK 1.0
#define CUSUM_ALARM 10.0
#define CHANGE_KEEP 0.02
#define RECENT_LAMBDA 0.7
/* Physical bounds: time constant up to TAU_MAX_S, gains in K/W. */
#define TAU_MAX_S 1200.0
#define GAIN_MIN_K_PER_W 0.02
#define GAIN_MAX_K_PER_W 500.0
/*
 * The gain stays within this factor of the prior's, either way: without
 * it, a zone held at one temperature and one power after a change could
 * explain its old and new operating points by no gain at all.  A prior
 * sustainable power off by up to this factor still lets the true gain in.
 */
#define GAIN_PRIOR_RANGE 10.0
/* Where the zone settles with its actors drawing nothing: from OFFSET_MIN_C
 * (a cold ambient) to OFFSET_ABOVE_MAX_K over the control temperature (the
 * power it cannot see is more than it can shed). */
#define OFFSET_MIN_C (-40.0)
#define OFFSET_ABOVE_MAX_K 30.0
/* The prior's guesses: time constant, ambient (°C), the fast share of the gain. */
#define PRIOR_TAU_PERIODS 300.0
#define PRIOR_AMBIENT_C 25.0
#define PRIOR_FAST_SHARE 0.2
/* The prior's standard deviations: of the pole a, and of the offset (K). */
#define PRIOR_A_SD 0.1
#define PRIOR_OFFSET_SD_K 20.0
/* Confidence 0.5 when the sustainable power's standard deviation is this share of it. */
#define CONFIDENCE_HALF 0.1

static double clampd(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* v' info^-1 v (the variance of v'theta), or a huge value when singular. */
static double quad_inverse(const double info[N][N], const double v[N])
{
	return blsq_quad_inverse(N, &info[0][0], v);
}

/* The bounds of a (time constant 0 to TAU_MAX_S). */
static double a_max(const struct thermal_model *m)
{
	return exp(-m->state.block_s / TAU_MAX_S);
}

/* The offset's lowest, less Tref (K): at OFFSET_MIN_C, never above Tref. */
static double offset_low_k(const struct thermal_model *m)
{
	return fmin(OFFSET_MIN_C - m->state.ref_c, 0);
}

#define N_BOUNDS (2 * N)

/* The physical bounds of the parameters as C theta >= d (see fit()). */
static void bounds(const struct thermal_model *m, double c[N_BOUNDS][N], double d[N_BOUNDS])
{
	double lo = offset_low_k(m), hi = OFFSET_ABOVE_MAX_K;
	const double cb[N_BOUNDS][N] = {
		{ 1, 0, 0, 0 },				/* a >= 0 */
		{ -1, 0, 0, 0 },			/* a <= a_max */
		{ 0, 1, 0, 0 },				/* g >= 0 */
		{ 0, -1, 0, 0 },			/* g <= max */
		{ m->state.gain_min_k_per_w, 0, 1, 0 },	/* B >= (1 - a) min */
		{ -m->state.gain_max_k_per_w, 0, -1, 0 },	/* B <= (1 - a) max */
		{ lo, 0, 0, 1 },			/* c >= (1 - a) lo */
		{ -hi, 0, 0, -1 },			/* c <= (1 - a) hi */
	};
	const double db[N_BOUNDS] = { 0, -a_max(m), 0, -GAIN_MAX_K_PER_W, m->state.gain_min_k_per_w,
				      -m->state.gain_max_k_per_w, lo, -hi };

	memcpy(c, cb, sizeof(cb));
	memcpy(d, db, sizeof(db));
}

/*
 * The least-squares parameters within their physical bounds, each a linear
 * constraint C theta >= d: 0 <= a <= a_max, 0 <= g <= GAIN_MAX_K_PER_W,
 * the gain B / (1 - a) within its bounds, the offset Tref + c / (1 - a)
 * within its bounds.  The fit starts from the current parameters, which
 * are within them.
 */
static void fit(struct thermal_model *m)
{
	double c[N_BOUNDS][N], d[N_BOUNDS], x[N];

	bounds(m, c, d);
	memcpy(x, m->state.theta, sizeof(x));
	if (blsq_solve_bounded(N, &m->state.info[0][0], m->state.rhs, N_BOUNDS, &c[0][0], d, x))
		memcpy(m->state.theta, x, sizeof(x));
}

/* m->est from the parameters, the covariance and the noise. */
static void derive(struct thermal_model *m)
{
	const double *t = m->state.theta;
	double one_minus_a = 1 - t[P_A], p, grad[N], sd, rel;
	struct thermal_estimate *e = &m->est;

	e->time_constant_s = t[P_A] > 0 ? -m->state.block_s / log(t[P_A]) : 0;
	e->gain_k_per_w = t[P_SLOW] / one_minus_a;
	e->fast_gain_k_per_w = t[P_FAST];
	e->offset_c = m->state.ref_c + t[P_OFFSET] / one_minus_a;
	p = -t[P_OFFSET] / t[P_SLOW];
	e->sustainable_w = p > 0 ? p : 0;
	/* P = -c / B: its gradient, and the standard deviation it gives. */
	grad[P_A] = grad[P_FAST] = 0;
	grad[P_SLOW] = -p / t[P_SLOW];
	grad[P_OFFSET] = -1 / t[P_SLOW];
	sd = sqrt(quad_inverse(m->state.info, grad));
	e->sustainable_sd_w = sd;
	rel = sd / (fabs(p) > 1e-3 ? fabs(p) : 1e-3) / CONFIDENCE_HALF;
	e->confidence = 1 / (1 + rel * rel);
}

void thermal_model_init(struct thermal_model *m, uint32_t period_ms, int32_t control_mc,
			uint32_t prior_sustainable_mw)
{
	uint64_t block_ms = (uint64_t)period_ms * THERMAL_MODEL_BLOCK_PERIODS;
	double prior_w = prior_sustainable_mw ? prior_sustainable_mw / 1000.0 : 1.0;
	double rise, gain, a, offset, sd[N];

	memset(m, 0, sizeof(*m));
	if (block_ms < THERMAL_MODEL_BLOCK_MIN_MS)
		block_ms = THERMAL_MODEL_BLOCK_MIN_MS;
	if (block_ms > THERMAL_MODEL_BLOCK_MAX_MS)
		block_ms = THERMAL_MODEL_BLOCK_MAX_MS;
	m->state.block_s = block_ms / 1000.0;
	m->state.ref_c = control_mc / 1000.0;
	rise = m->state.ref_c - PRIOR_AMBIENT_C > 10 ? m->state.ref_c - PRIOR_AMBIENT_C : 10;
	gain = clampd(rise / prior_w, GAIN_MIN_K_PER_W, GAIN_MAX_K_PER_W);
	a = fmin(exp(-m->state.block_s / (PRIOR_TAU_PERIODS * (period_ms ? period_ms : 100) / 1000.0)),
		 a_max(m));
	/* Within the bounds fit() keeps, which start from here. */
	offset = clampd(-gain * prior_w, offset_low_k(m), OFFSET_ABOVE_MAX_K);
	m->state.gain_min_k_per_w = fmax(GAIN_MIN_K_PER_W, gain / GAIN_PRIOR_RANGE);
	m->state.gain_max_k_per_w = fmin(GAIN_MAX_K_PER_W, gain * GAIN_PRIOR_RANGE);
	m->state.theta[P_A] = a;
	m->state.theta[P_FAST] = PRIOR_FAST_SHARE * gain;
	m->state.theta[P_SLOW] = (1 - a) * gain;
	m->state.theta[P_OFFSET] = (1 - a) * offset;
	/*
	 * The prior's standard deviations: the pole, the fast gain, the slow
	 * gain (as much as the gain itself) and the offset (PRIOR_OFFSET_SD_K
	 * on where the zone settles without power).  As information, it is
	 * also the floor that forgetting keeps.
	 */
	sd[P_A] = PRIOR_A_SD;
	sd[P_FAST] = PRIOR_FAST_SHARE * gain;
	sd[P_SLOW] = (1 - a) * gain;
	sd[P_OFFSET] = (1 - a) * PRIOR_OFFSET_SD_K;
	for (int i = 0; i < N; i++) {
		m->state.floor[i] = 1 / (sd[i] * sd[i]);
		m->state.prior[i] = m->state.theta[i];
		m->state.info[i][i] = m->state.floor[i];
		m->state.rhs[i] = m->state.floor[i] * m->state.theta[i];
	}
	m->state.noise_var = NOISE_START_K * NOISE_START_K;
	derive(m);
	m->est.confidence = 0;
}

/* Scales the information by @keep: what was learnt weighs that much less. */
static void discount(struct thermal_model *m, double keep)
{
	for (int i = 0; i < N; i++) {
		for (int j = 0; j < N; j++)
			m->state.info[i][j] *= keep;
		m->state.rhs[i] *= keep;
	}
}

/*
 * A two-sided CUSUM of the standardised errors: predictions that keep
 * missing on one side, more than chance allows, mean that the plant changed
 * (a heatsink, a fan, the ambient).  Most of what was learnt is then
 * dropped (the prior gets its weight back), and the noise is taken to be
 * as large as the recent errors, so the confidence falls and the new plant
 * is learnt quickly.
 */
static void detect_change(struct thermal_model *m, double z, double e2)
{
	double noise_var;

	m->state.cusum_high = fmax(0, m->state.cusum_high + z - CUSUM_SLACK);
	m->state.cusum_low = fmax(0, m->state.cusum_low - z - CUSUM_SLACK);
	m->state.recent_var = RECENT_LAMBDA * m->state.recent_var + (1 - RECENT_LAMBDA) * e2;
	if (m->state.cusum_high < CUSUM_ALARM && m->state.cusum_low < CUSUM_ALARM)
		return;
	/* What is kept was weighed for the old noise: weigh it for the new. */
	noise_var = fmax(m->state.noise_var, m->state.recent_var);
	discount(m, CHANGE_KEEP * m->state.noise_var / noise_var);
	for (int i = 0; i < N; i++) {
		m->state.info[i][i] += m->state.floor[i];
		m->state.rhs[i] += m->state.floor[i] * m->state.prior[i];
	}
	m->state.noise_var = noise_var;
	m->state.cusum_high = m->state.cusum_low = 0;
	m->state.changes++;
}

/* One block fitted: regressors @phi, observation @y. */
static void update(struct thermal_model *m, const double phi[N], double y)
{
	double e = y, q = quad_inverse(m->state.info, phi), var = m->state.noise_var + q, sd = sqrt(var), w;

	for (int i = 0; i < N; i++)
		e -= phi[i] * m->state.theta[i];
	detect_change(m, clampd(e / sd, -CUSUM_CLIP, CUSUM_CLIP), e * e);
	/* One wild block (a sensor spike) moves the fit by a bounded amount. */
	e = clampd(e, -OUTLIER_SD * sd, OUTLIER_SD * sd);
	/* The error's variance is the noise's plus the parameters' (q). */
	m->state.noise_var = NOISE_LAMBDA * m->state.noise_var +
		       (1 - NOISE_LAMBDA) * e * e * m->state.noise_var / var;
	m->state.noise_var = fmax(m->state.noise_var, NOISE_FLOOR_K * NOISE_FLOOR_K);
	/* Forget towards the prior: what the blocks stop saying, it says again. */
	discount(m, LAMBDA);
	for (int i = 0; i < N; i++) {
		m->state.info[i][i] += (1 - LAMBDA) * m->state.floor[i];
		m->state.rhs[i] += (1 - LAMBDA) * m->state.floor[i] * m->state.prior[i];
	}
	/* The (clipped) observation, weighed by the noise it comes with. */
	y = e;
	for (int i = 0; i < N; i++)
		y += phi[i] * m->state.theta[i];
	w = 1 / m->state.noise_var;
	for (int i = 0; i < N; i++) {
		for (int j = 0; j < N; j++)
			m->state.info[i][j] += w * phi[i] * phi[j];
		m->state.rhs[i] += w * phi[i] * y;
	}
	fit(m);
	m->state.updates++;
	derive(m);
}

/* A block of mean temperature @temp_c and power @power_w is complete. */
static void block_done(struct thermal_model *m, double temp_c, double power_w)
{
	if (m->have_prev) {
		double phi[N] = { m->prev_temp_c - m->state.ref_c, power_w - m->prev_power_w,
				  m->prev_power_w, 1 };

		update(m, phi, temp_c - m->state.ref_c);
	}
	m->have_prev = true;
	m->prev_temp_c = temp_c;
	m->prev_power_w = power_w;
}

void thermal_model_break(struct thermal_model *m)
{
	m->primed = false;
	m->have_prev = false;
	m->block_elapsed_s = m->block_temp_cs = m->block_energy_j = 0;
}

void thermal_model_sample(struct thermal_model *m, uint64_t elapsed_us, int32_t temp_mc,
			  uint32_t power_mw)
{
	double temp_c = temp_mc / 1000.0, power_w = power_mw / 1000.0;
	double dt = elapsed_us / 1e6, done = 0;

	if (!m->primed || dt > m->state.block_s) {
		thermal_model_break(m);
		m->primed = true;
		m->last_temp_c = temp_c;
		return;
	}
	/* The interval, a straight line in temperature, cut at the block ends. */
	while (dt - done > 1e-9) {
		double take = fmin(m->state.block_s - m->block_elapsed_s, dt - done);
		double from = m->last_temp_c + (temp_c - m->last_temp_c) * done / dt;
		double to = m->last_temp_c + (temp_c - m->last_temp_c) * (done + take) / dt;

		m->block_temp_cs += (from + to) / 2 * take;
		m->block_energy_j += power_w * take;
		m->block_elapsed_s += take;
		done += take;
		if (m->block_elapsed_s >= m->state.block_s - 1e-9) {
			block_done(m, m->block_temp_cs / m->block_elapsed_s,
				   m->block_energy_j / m->block_elapsed_s);
			m->block_elapsed_s = m->block_temp_cs = m->block_energy_j = 0;
		}
	}
	m->last_temp_c = temp_c;
}

uint32_t thermal_model_sustainable_mw(const struct thermal_model *m)
{
	double mw = m->est.sustainable_w * 1000;

	return mw >= UINT32_MAX ? UINT32_MAX : (uint32_t)(mw + 0.5);
}

/*
 * How many doubles a state has from prior to recent_var, which follow one
 * another and must be finite (block_s and ref_c must be the model's own).
 */
#define STATE_FINITE_N ((offsetof(struct thermal_model_state, recent_var) -	\
			 offsetof(struct thermal_model_state, prior)) / sizeof(double) + 1)
_Static_assert(STATE_FINITE_N == 2 * N + 2 + N * N + 2 * N + 4, "the state's doubles are contiguous");

void thermal_model_export(const struct thermal_model *m, struct thermal_model_state *s)
{
	*s = m->state;
}

/* Whether the @n doubles at @v are all finite. */
static bool finite_all(const void *v, size_t n)
{
	const double *d = v;

	for (size_t i = 0; i < n; i++)
		if (!isfinite(d[i]))
			return false;
	return true;
}

/* Numbers equal but for the last bits of a decimal round trip. */
static bool same(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1, fabs(a));
}

/*
 * Whether @t, a model with an imported state, is one a model can be in:
 * the bounds ordered and positive, the weights and variances positive, the
 * information symmetric and positive definite, the parameters within their
 * bounds (the fit starts from them).
 */
static bool resumable(const struct thermal_model *t)
{
	double c[N_BOUNDS][N], d[N_BOUNDS], x[N];

	if (!(t->state.gain_min_k_per_w > 0 && t->state.gain_min_k_per_w <= t->state.gain_max_k_per_w) ||
	    !(t->state.noise_var > 0) || t->state.recent_var < 0 || t->state.cusum_high < 0 ||
	    t->state.cusum_low < 0)
		return false;
	for (int i = 0; i < N; i++) {
		if (!(t->state.floor[i] > 0))
			return false;
		for (int j = 0; j < i; j++)
			if (!same(t->state.info[i][j], t->state.info[j][i]))
				return false;
	}
	if (!blsq_solve(N, &t->state.info[0][0], t->state.rhs, x))
		return false;
	bounds(t, c, d);
	for (int k = 0; k < N_BOUNDS; k++) {
		double v = 0;

		for (int i = 0; i < N; i++)
			v += c[k][i] * t->state.theta[i];
		if (v < d[k] - 1e-9 * fmax(1, fabs(d[k])))
			return false;
	}
	return true;
}

int thermal_model_import(struct thermal_model *m, const struct thermal_model_state *s)
{
	struct thermal_model t = *m;

	/* From the state's own address: the doubles span several members. */
	if (!finite_all((const char *)s + offsetof(struct thermal_model_state, prior),
			STATE_FINITE_N))
		return -EINVAL;
	if (!same(s->block_s, m->state.block_s) || !same(s->ref_c, m->state.ref_c))
		return -EINVAL;
	t.state = *s;
	t.state.block_s = m->state.block_s;	/* the model's own, not a decimal round trip */
	t.state.ref_c = m->state.ref_c;
	if (!resumable(&t))
		return -EINVAL;
	thermal_model_break(&t);
	derive(&t);
	if (!t.state.updates)
		t.est.confidence = 0;	/* the prior alone, as thermal_model_init() has it */
	*m = t;
	return 0;
}

int32_t thermal_model_predict_mc(const struct thermal_estimate *est, int32_t temp_mc,
				 uint32_t power_mw, double forecast_s)
{
	double settled_mc = (est->offset_c + est->gain_k_per_w * power_mw / 1000.0) * 1000;
	double left = est->time_constant_s > 0 ? exp(-forecast_s / est->time_constant_s) : 0;
	double mc = settled_mc + (temp_mc - settled_mc) * (forecast_s > 0 ? left : 1);

	return (int32_t)lround(fmax(fmin(mc, INT32_MAX), INT32_MIN));
}

int32_t thermal_model_max_change_mc(const struct thermal_estimate *est, int32_t temp_mc,
				    uint32_t max_power_mw, double elapsed_s)
{
	/* K/W times mW is m°C. */
	double fast_mc = fmax(est->fast_gain_k_per_w, 0) * max_power_mw;
	double hot_mc = thermal_model_predict_mc(est, temp_mc, max_power_mw, elapsed_s);
	double cold_mc = thermal_model_predict_mc(est, temp_mc, 0, elapsed_s);
	double slow_mc = fmax(fmax(hot_mc - temp_mc, temp_mc - cold_mc), 0);

	return (int32_t)lround(fmin(fast_mc + slow_mc, INT32_MAX));
}
