/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a zone runs on as sustainable power, and where it came from: the
 * prior, the first approach's lowest power or the learnt one (for the bus,
 * status, traces and the journal), and what the blind fallback holds to.
 */
#include "zone.h"
#include "control/enum_name.h"

static const char *const sp_source_names[_SP_SOURCE_MAX] = {
	[SP_FROM_CONFIG] = "config",
	[SP_FROM_SYSFS] = "sysfs",
	[SP_ESTIMATED] = "estimated",
	[SP_FROM_RAPL] = "rapl",
};

static const char *const sp_source_adjectives[_SP_SOURCE_MAX] = {
	[SP_FROM_CONFIG] = "configured",
	[SP_FROM_SYSFS] = "device tree's",
	[SP_ESTIMATED] = "estimated",
	[SP_FROM_RAPL] = "RAPL long-term",
};

static const char *const model_state_names[_ZONE_MODEL_STATE_MAX] = {
	[ZONE_MODEL_LEARNING] = "learning",
	[ZONE_MODEL_LEARNT] = "learnt",
	[ZONE_MODEL_IN_USE] = "in-use",
};

const char *zone_sp_source_name(const struct zone *z)
{
	return ENUM_NAME(sp_source_names, z->setup.sp_source);
}

const char *zone_sp_source_adjective(const struct zone *z)
{
	return ENUM_NAME(sp_source_adjectives, z->setup.sp_source);
}

uint32_t zone_approach_mw(const struct zone *z, uint32_t min_mw)
{
	/*
	 * An always-on zone keeps its prior (model_tuning.h says why); so does
	 * a package on its firmware's long-term RAPL limit (PL1 is the power
	 * the platform's cooling is built to shed for good, and RAPL states no
	 * lowest power: the one the actor takes is a tenth of its maximum).
	 */
	return z->setup.always_on || z->setup.sp_source == SP_FROM_RAPL
		       ? z->setup.pid.sustainable_power_mw
		       : min_mw;
}

/*
 * What period_params() gives the default controller at the next active
 * period, on a copy of the tuning state (the actors' lowest power is the
 * kernel's estimate): @run; whether the model is engaged then (a model
 * already confident, resumed on the second boot with the zone idle since,
 * engages there).
 */
static bool zone_next_run(const struct zone *z, struct pid_params *run)
{
	struct model_tuning t = z->control.tuning;

	model_tuning_apply(&t, &z->setup.pid, &z->learning.model.est, z->setup.control_mc,
			   zone_approach_mw(z, zone_estimate_sustainable_power(z)), run);
	return t.engaged;
}

/* Whether the next active period engages the model. */
static bool zone_will_engage(const struct zone *z)
{
	struct pid_params run;

	return z->setup.pid.mode == PID_MODE_DEFAULT && zone_next_run(z, &run);
}

bool zone_first_approach(const struct zone *z)
{
	return z->setup.pid.mode == PID_MODE_DEFAULT && !z->control.tuning.engaged &&
	       !zone_will_engage(z) && zone_feed_forward_mw(z) < z->setup.pid.sustainable_power_mw;
}

const char *zone_sp_in_use_source_name(const struct zone *z)
{
	if (z->control.tuning.engaged || zone_will_engage(z))
		return "learnt";
	return zone_first_approach(z) ? "lowest" : zone_sp_source_name(z);
}

enum zone_model_state zone_model_state(const struct zone *z)
{
	if (z->control.tuning.engaged)
		return ZONE_MODEL_IN_USE;
	return z->learning.model.est.confidence >= MODEL_TUNING_ENGAGE ? ZONE_MODEL_LEARNT :
								 ZONE_MODEL_LEARNING;
}

const char *zone_model_state_name(enum zone_model_state s)
{
	return ENUM_NAME(model_state_names, s);
}

uint32_t zone_feed_forward_mw(const struct zone *z)
{
	struct pid_params run;

	if (z->control.tuning.engaged)
		return z->control.pid_run.sustainable_power_mw;
	if (z->setup.pid.mode != PID_MODE_DEFAULT)
		return z->setup.pid.sustainable_power_mw;
	zone_next_run(z, &run);
	return run.sustainable_power_mw;
}

uint32_t zone_blind_power_mw(const struct zone *z, const char **what)
{
	*what = z->control.tuning.engaged ? "learnt" : zone_sp_source_adjective(z);
	return z->control.tuning.engaged ? z->control.pid_run.sustainable_power_mw :
					   z->setup.pid.sustainable_power_mw;
}
