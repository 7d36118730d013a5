/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Carrying what an engine's zones and actors remember into the engine built
 * to replace it (a rescan, a reload), so that a rebuild adds what appeared
 * and drops what vanished without resetting a running zone's controller.
 */
#include <string.h>

#include "engine.h"
#include "model_record.h"
#include "platform/log.h"
#include "platform/thermal.h"
#include "zone_sensor.h"

static struct actor *old_actor(const struct engine *old, const struct actor *a)
{
	for (size_t i = 0; i < old->n_actors; i++)
		if (actor_same_device(old->actors[i], a))
			return old->actors[i];
	return NULL;
}

long engine_zone_index(const struct engine *e, const struct zone *z)
{
	for (size_t i = 0; i < e->n_zones; i++)
		if (e->zones[i].setup.tz_id == z->setup.tz_id &&
		    strcmp(e->zones[i].setup.name, z->setup.name) == 0)
			return (long)i;
	return -1;
}

/* Index of @o's power actor for the device of @a, or -1. */
static long old_index(const struct zone *o, const struct actor *a)
{
	for (size_t i = 0; i < o->setup.n_actors; i++)
		if (actor_same_device(o->setup.actors[i], a))
			return (long)i;
	return -1;
}

/*
 * The controller's memory (struct zone_control), whole: the error it
 * integrated is the same error while its law and temperatures are: new
 * gains (a reload, or an estimated sustainable power that an actor
 * appearing changed) only weigh it differently, and an actor that appeared
 * only changes the division.  Its per-actor arrays follow the actors: one
 * that appeared (and every slot past the actors) keeps what the build gave
 * it, the next division gives it its share; whether the gains are fixed is
 * the configuration's.
 */
static void adopt_controller(struct zone *z, const struct zone *o)
{
	struct zone_control built = z->control;

	if (z->setup.pid.mode != o->setup.pid.mode ||
	    z->setup.switch_on_mc != o->setup.switch_on_mc ||
	    z->setup.always_on != o->setup.always_on || z->setup.control_mc != o->setup.control_mc)
		return;
	z->control = o->control;
	z->control.tuning.gains_fixed = built.tuning.gains_fixed;
	for (size_t i = 0; i < ZONE_MAX_ACTORS; i++) {
		long k = i < z->setup.n_actors ? old_index(o, z->setup.actors[i]) : -1;
		const struct zone_control *from = k < 0 ? &built : &o->control;
		size_t j = k < 0 ? i : (size_t)k;

		z->control.request_mw[i] = from->request_mw[j];
		z->control.grant_mw[i] = from->grant_mw[j];
		z->control.step_state[i] = from->step_state[j];
	}
}

/* The step_wise fallback's state per device, and the trips crossed while they are the same trips. */
static void adopt_fallback(struct zone *z, const struct zone *o)
{
	for (size_t i = 0; i < z->setup.n_fallback; i++) {
		struct fallback_device *f = &z->setup.fallback[i];

		for (size_t k = 0; k < o->setup.n_fallback; k++) {
			const struct fallback_device *of = &o->setup.fallback[k];

			if (!actor_same_device(of->actor, f->actor))
				continue;
			f->state = of->state;
			if (f->n_trips == of->n_trips &&
			    memcmp(f->trip_mc, of->trip_mc, f->n_trips * sizeof(f->trip_mc[0])) == 0)
				memcpy(f->crossed, of->crossed, sizeof(f->crossed));
		}
	}
}

/*
 * The thermal model, while what it learnt holds: the same actors (their
 * power is what it learnt from) with the same power tables, control
 * temperature (its reference) and period (its block length): the same
 * fingerprint a saved model needs (model_record.h).  The journal's word on
 * a departing sustainable power stays said while that power is the same.
 */
static void adopt_model(struct zone *z, const struct zone *o)
{
	struct model_fingerprint now, before;

	model_fingerprint_of(z, &now);
	model_fingerprint_of(o, &before);
	if (z->setup.n_actors != o->setup.n_actors || model_fingerprint_differs(&before, &now))
		return;
	for (size_t i = 0; i < z->setup.n_actors; i++)
		if (old_index(o, z->setup.actors[i]) < 0)
			return;
	z->learning = o->learning;
	z->learning.model_departure_said &=
		z->setup.pid.sustainable_power_mw == o->setup.pid.sustainable_power_mw;
}

static void adopt_zone(struct zone *z, const struct zone *o)
{
	/* The governor found before the first takeover, not the user_space we set. */
	if (z->setup.original_policy[0] && o->setup.original_policy[0])
		memcpy(z->setup.original_policy, o->setup.original_policy,
		       sizeof(z->setup.original_policy));
	z->sensing = o->sensing;
	zone_sensor_adopt(z, o);
	adopt_fallback(z, o);
	adopt_controller(z, o);
	adopt_model(z, o);
}

/* The policy another writer set on the thermal zone of @z where @old gave it up, or NULL. */
static const char *given_up_to(const struct engine *old, const struct zone *z)
{
	for (size_t i = 0; i < old->n_zones; i++)
		if (old->zones[i].setup.tz_id == z->setup.tz_id &&
		    old->zones[i].setup.given_up_to[0])
			return old->zones[i].setup.given_up_to;
	return NULL;
}

/* Building @z took over a zone given up to @policy: @policy is put back. */
static void put_back_policy(const struct zone *z, const char *policy)
{
	if (z->setup.original_policy[0] && thermal_zone_set_policy(z->setup.tz_id, policy) < 0)
		pa_log(PA_LOG_ERR, "zone %s: cannot put back \"%s\" in thermal_zone%d/policy, "
		       "which another program had set", z->setup.name, policy, z->setup.tz_id);
}

void engine_put_back_given_up(const struct engine *e, const struct engine *old)
{
	for (size_t z = 0; z < e->n_zones; z++) {
		const char *policy = given_up_to(old, &e->zones[z]);

		if (policy)
			put_back_policy(&e->zones[z], policy);
	}
}

void engine_adopt_state(struct engine *e, const struct engine *old)
{
	for (size_t i = 0; i < e->n_actors; i++) {
		const struct actor *o = old_actor(old, e->actors[i]);

		if (o)
			actor_adopt(e->actors[i], o);
	}
	for (size_t z = 0; z < e->n_zones; z++) {
		long o = engine_zone_index(old, &e->zones[z]);

		if (o >= 0)
			adopt_zone(&e->zones[z], &old->zones[o]);
	}
	/*
	 * A zone given up stays so across a rebuild: the build took it over
	 * again, so the policy the other writer had set is put back, and its
	 * devices stay the kernel's (yielded, not restored again).
	 */
	engine_put_back_given_up(e, old);
	for (size_t z = 0; z < e->n_zones; z++) {
		const char *policy = given_up_to(old, &e->zones[z]);

		if (policy)
			engine_give_up_zone(e, &e->zones[z], policy, false);
	}
}
