/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "model_tuning.h"

#include <math.h>

#include "fixed_point.h"

/* A gain in mW per °C (per period for k_i) -> Q10 mW per m°C, saturated. */
static int32_t gain_q10(double mw_per_c)
{
	double q = mw_per_c * FRAC_ONE / 1000.0;

	return q >= INT32_MAX ? INT32_MAX : q < 1 ? 1 : (int32_t)lround(q);
}

void model_tuning_gains(uint32_t sustainable_mw, int32_t control_mc, struct pid_gains *gains)
{
	double gap_c = fmax((double)control_mc - MODEL_TUNING_AMBIENT_MC, MODEL_TUNING_MIN_GAP_MC) /
		       1000.0;
	double k_mw_per_c = MODEL_TUNING_LOOP_GAIN * sustainable_mw / gap_c;

	gains->k_po = gain_q10(k_mw_per_c);
	gains->k_pu = gains->k_po;
	gains->k_i = gain_q10(k_mw_per_c / MODEL_TUNING_INTEGRAL_PERIODS);
	gains->k_d = 0;
	gains->integral_cutoff_mc = 0;
}

uint32_t model_tuning_approach_mw(const struct pid_params *prior, uint32_t approach_mw)
{
	/* The prior is not trusted as feed-forward: the zone approaches on p (the file comment). */
	if (!prior->fixes.trust_sustainable_power && prior->sustainable_power_mw > approach_mw)
		return approach_mw;
	return prior->sustainable_power_mw;
}

bool model_tuning_apply(struct model_tuning *t, const struct pid_params *prior,
			const struct thermal_estimate *est, int32_t control_mc,
			uint32_t approach_mw, struct pid_params *run)
{
	bool was = t->engaged;
	double sp_mw = est->sustainable_w * 1000;

	/* A model that says no power at all can be dissipated has nothing to tune on. */
	if (!(sp_mw >= 1))
		t->engaged = false;
	else if (est->confidence >= MODEL_TUNING_ENGAGE)
		t->engaged = true;
	else if (est->confidence < MODEL_TUNING_RELEASE)
		t->engaged = false;
	*run = *prior;
	if (!t->engaged)
		run->sustainable_power_mw = model_tuning_approach_mw(prior, approach_mw);
	if (t->engaged) {
		run->sustainable_power_mw = sp_mw < UINT32_MAX ? (uint32_t)lround(sp_mw) : UINT32_MAX;
		if (!t->gains_fixed)
			model_tuning_gains(run->sustainable_power_mw, control_mc, &run->gains);
	}
	return t->engaged != was;
}
