/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A configured zone's sustainable power and gains against what its actors
 * can draw, once they are built: what only the hardware's power tables can
 * tell, so not the config parser's to check.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "engine_build.h"
#include "platform/log.h"

/*
 * A sustainable power this many times above the most the actors draw
 * together, or below a tenth of the least, is refused: a zero too many or
 * too few.  Nearer, it is only said: tools/bench-robust gives the daemon
 * 0.25 and 4 times the true value, on boards where 4 times is above the
 * actors' maximum (the simulated RockPro64: 8800 mW against 5531 mW), and
 * the default controller copes with it (doc/control-tuning.md).
 */
#define SP_REFUSE_FACTOR 10
/* Actors named in a message before "and N more". */
#define CHECK_LIST_ACTORS 6

/*
 * What @a draws at its lowest and at its highest state, mW, with every CPU
 * it limits online (its power table per CPU times the policy's CPUs), or a
 * powercap zone's range.  Return: false when its maximum is not known.
 */
static bool actor_power_range(const struct actor *a, uint64_t *min_mw, uint64_t *max_mw)
{
	unsigned int n_cpus = cpumask_weight(&a->cpus);

	if (a->table.n) {
		n_cpus = n_cpus ? n_cpus : 1;
		*min_mw = (uint64_t)a->table.entry[0].power_mw * n_cpus;
		*max_mw = (uint64_t)a->table.entry[a->table.n - 1].power_mw * n_cpus;
	} else {
		*min_mw = a->min_mw;
		*max_mw = a->max_mw;
	}
	return *max_mw > 0;
}

/*
 * The zone's range, mW: the sums of its actors' lowest and highest powers.
 * Return: false when the highest is not known (an actor without a power
 * model, or an optional one missing now).
 */
static bool zone_power_range(const struct zone *z, bool complete, uint64_t *min_mw,
			     uint64_t *max_mw)
{
	bool known = complete;

	*min_mw = *max_mw = 0;
	for (size_t i = 0; i < z->setup.n_actors; i++) {
		uint64_t lo, hi;

		known = actor_power_range(z->setup.actors[i], &lo, &hi) && known;
		*min_mw += lo;
		*max_mw += hi;
	}
	return known;
}

/* "name 716 mW, name 2260 mW" for each actor's lowest (@highest false) or highest power. */
static void actor_list(char *buf, size_t size, const struct zone *z, bool highest)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < z->setup.n_actors && len < size; i++) {
		uint64_t lo, hi;

		if (i == CHECK_LIST_ACTORS) {
			snprintf(buf + len, size - len, " and %zu more", z->setup.n_actors - i);
			return;
		}
		actor_power_range(z->setup.actors[i], &lo, &hi);
		len += (size_t)snprintf(buf + len, size - len, "%s%s %" PRIu64 " mW", i ? ", " : "",
					z->setup.actors[i]->name, highest ? hi : lo);
	}
}

/* Whether an actor of @z limits CPUs (whose power counts each CPU). */
static bool limits_cpus(const struct zone *z)
{
	for (size_t i = 0; i < z->setup.n_actors; i++)
		if (cpumask_weight(&z->setup.actors[i]->cpus))
			return true;
	return false;
}

/*
 * " (did you mean N (mW)?)" into @buf when @sp_mw watts would be in
 * [@min_mw, @max_mw] (max not known: at least @min_mw): a power typed in W
 * where mW are meant (28 for 28000), as a temperature in °C gets; else "".
 */
static void watts_hint(char *buf, size_t size, uint32_t sp_mw, uint64_t min_mw, uint64_t max_mw,
		       bool max_known)
{
	uint64_t mw = (uint64_t)sp_mw * 1000;

	buf[0] = '\0';
	if (sp_mw && mw >= min_mw && (!max_known || mw <= max_mw))
		snprintf(buf, size, " (%" PRIu32 " mW is %.3f W: did you mean %" PRIu64 " (mW)?)",
			 sp_mw, sp_mw / 1000.0, mw);
}

/*
 * The sustainable power against the range: refused (-EINVAL) beyond
 * SP_REFUSE_FACTOR, said as a warning outside it, both with the range.
 * @estimated: the kernel's estimate (the actors' lowest powers together),
 * never below the range but where CPUs are offline, which the budget
 * follows: only over it is said, where a power table gives more at its
 * lowest state than at its highest.
 */
static int check_range(const struct zone *z, uint32_t sp_mw, uint64_t min_mw, uint64_t max_mw,
		       bool max_known, bool estimated)
{
	bool above = max_known && sp_mw > max_mw, below = !estimated && sp_mw < min_mw;
	bool refuse = (above && sp_mw > SP_REFUSE_FACTOR * max_mw) ||
		      (below && (uint64_t)sp_mw * SP_REFUSE_FACTOR < min_mw);
	char list[400], range[160], hint[96];

	if (!above && !below)
		return 0;
	actor_list(list, sizeof(list), z, above);
	if (max_known)
		snprintf(range, sizeof(range), "%" PRIu64 " to %" PRIu64 " mW (its actors' lowest to "
			 "highest power together%s)", min_mw, max_mw,
			 limits_cpus(z) ? ", every CPU online" : "");
	else
		snprintf(range, sizeof(range), "%" PRIu64 " mW or more (its actors' lowest power "
			 "together)", min_mw);
	watts_hint(hint, sizeof(hint), below && !estimated ? sp_mw : 0, min_mw, max_mw, max_known);
	pa_log(refuse ? PA_LOG_ERR : PA_LOG_WARNING, "zone %s: %s %" PRIu32 " mW is "
	       "%s %s%s its actors draw together (%" PRIu64 " mW: %s): at control_temp the budget "
	       "would %s, and k_po %s %.1f mW/°C%s; %s %s%s", z->setup.name,
	       estimated ? "the estimated sustainable power (its actors' lowest power together)" :
	       "sustainable_power", sp_mw, above ? "more than" : "less than",
	       refuse ? (above ? "ten times " : "a tenth of ") : "",
	       above ? "the most" : "the least", above ? max_mw : min_mw, list,
	       above ? "limit none of them" : "hold them all at their lowest state",
	       refuse ? "would be" : "is", z->setup.pid.gains.k_po * 1000.0 / 1024, hint,
	       !refuse ? "this zone's range is" : estimated ? "its range is" : "give", range,
	       !refuse ? "" : estimated ? ": set sustainable_power, or give power tables that "
	       "rise with frequency; zone skipped" : ", or leave it out for the default; zone "
	       "skipped");
	return refuse ? -EINVAL : 0;
}

int build_check_power(const struct zone *z, const struct zone_config *zc)
{
	uint64_t min_mw, max_mw;
	bool max_known =
		zone_power_range(z, !zc || z->setup.n_actors == zc->n_actors, &min_mw, &max_mw);
	const struct pid_params *pp = &z->setup.pid;
	bool k_po_zero, k_pu_zero;
	int64_t span_mc;
	uint64_t need_mw;

	if (pp->mode == PID_MODE_STEP_WISE)
		return 0;	/* no budget: neither is used */
	if ((z->setup.sp_source == SP_FROM_CONFIG || z->setup.sp_source == SP_ESTIMATED) &&
	    check_range(z, pp->sustainable_power_mw, min_mw, max_mw, max_known,
			z->setup.sp_source == SP_ESTIMATED) < 0)
		return -EINVAL;
	if (!zc)
		return 0;	/* the gains of an automatic zone are the kernel's rule */
	k_po_zero = !(zc->gains_set & GAIN_K_PO) && pp->gains.k_po == 0;
	k_pu_zero = !(zc->gains_set & GAIN_K_PU) && pp->gains.k_pu == 0;
	if (!k_po_zero && !k_pu_zero)
		return 0;
	/* k_po = sp * 1024 / span and k_pu twice that, in 1/1024 mW per m°C (pid_default_gains()). */
	span_mc = z->setup.control_mc - z->setup.switch_on_mc;
	need_mw = ((uint64_t)span_mc + (k_po_zero ? 1023 : 2047)) / (k_po_zero ? 1024 : 2048);
	pa_log(PA_LOG_ERR, "zone %s: the %s sustainable power %" PRIu32 " mW over the %" PRId64
	       " m°C from switch-on to control gives k_po %.1f and k_pu %.1f mW/°C (under %" PRIu64
	       " mW over this span they round to zero): the controller would not answer the "
	       "temperature; set sustainable_power (%" PRIu64 " mW or more), a control_temp nearer "
	       "switch_on_temp, or k_po and k_pu; zone skipped", z->setup.name,
	       zone_sp_source_adjective(z), pp->sustainable_power_mw, span_mc,
	       pp->gains.k_po * 1000.0 / 1024, pp->gains.k_pu * 1000.0 / 1024, need_mw,
	       need_mw > min_mw ? need_mw : min_mw);
	return -EINVAL;
}
