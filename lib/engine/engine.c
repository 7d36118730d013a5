/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "engine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "control/dither.h"
#include "engine_limits.h"
#include "platform/log.h"
#include "zone_sensor.h"
#include "platform/thermal.h"

int engine_sample_load(struct engine *e)
{
	ssize_t n = sysfs_attr_read(&e->proc_stat, e->stat_buf, e->stat_buf_size);
	int r = n < 0 ? (int)n : cpu_stat_parse(e->stat_buf, (size_t)n, e->stat_next);

	if (r < 0) {
		if (!e->stat_failed)
			pa_log(PA_LOG_ERR, PROC_STAT_PATH ": %s; loads not updated", strerror(-r));
		e->stat_failed = true;
		return r;
	}
	e->stat_failed = false;
	/* Read within the same tick: keep the last pair, so the loads stay. */
	if (cpu_stat_elapsed(e->stat_cur, e->stat_next)) {
		struct cpu_stat *spare = e->stat_prev;

		e->stat_prev = e->stat_cur;
		e->stat_cur = e->stat_next;
		e->stat_next = spare;
		cpu_loads_update(e->loads, e->stat_prev, e->stat_cur);
		if (e->load_windows < ENGINE_LOAD_WINDOWS_KNOWN)
			e->load_windows++;
	}
	return 0;
}

int engine_restart_load(struct engine *e)
{
	int r = engine_sample_load(e);

	/* Both samples equal: the next period sees no load yet (none kept from
	 * before).  A read that fails (logged) leaves the pair as it was. */
	if (r == 0) {
		memcpy(e->stat_prev, e->stat_cur, sizeof(struct cpu_stat));
		memset(e->loads, 0, sizeof(struct cpu_loads));
		e->load_windows = 0;
	}
	return r;
}

size_t engine_resume(struct engine *e, uint64_t now_us)
{
	size_t n_read = 0;

	engine_restart_load(e);
	for (size_t i = 0; i < e->n_zones; i++) {
		struct zone *z = &e->zones[i];

		pid_forget_trend(&z->control.pid_state);
		/* The samples across the gap are not the plant's answer to its power. */
		thermal_model_break(&z->learning.model);
		z->learning.model_energy_mj = 0;
		z->learning.model_elapsed_us = 0;
		z->learning.observed_us = now_us;
		rise_restart(&z->sensing.rise);
		/* The reading before the sleep is no reference for a spike or a stuck value. */
		z->sensing.reading_sane = false;
		z->sensing.stuck = (struct stuck_sensor){ 0 };
		if (zone_read_temp(z, now_us) == 0) {
			z->sensing.prev_temp_mc = z->sensing.temp_mc;
			n_read++;
		}
	}
	/*
	 * A meter's reading across the sleep is no period's power, and firmware
	 * may have reset a counter in it: the configured meters start afresh.
	 */
	for (size_t i = 0; i < e->n_actors; i++) {
		if (e->actors[i]->meter && e->actors[i]->meter_owned)
			power_meter_restart(e->actors[i]->meter);
		actor_break_scale(e->actors[i]);
	}
	for (size_t z = 0; z < e->n_zones; z++)
		if (e->zones[z].setup.meter)
			power_meter_restart(e->zones[z].setup.meter);
	e->force_writes = true;
	return n_read;
}

/*
 * The deepest state the zones that drive @a by state ask of it: step_wise
 * zones, and the step_wise fallback of the zones @a is bound to (the kernel
 * also takes the deepest).  *@held: whether any zone drives it that way.
 */
static unsigned long step_floor(const struct engine *e, const struct actor *a, bool *held)
{
	unsigned long floor = 0;

	*held = false;
	for (size_t z = 0; z < e->n_zones; z++) {
		const struct zone *zone = &e->zones[z];

		for (size_t i = 0;
		     i < zone->setup.n_actors && zone->setup.pid.mode == PID_MODE_STEP_WISE; i++)
			if (zone->setup.actors[i] == a) {
				*held = true;
				if (zone->control.step_state[i] > floor)
					floor = zone->control.step_state[i];
			}
		for (size_t i = 0; i < zone->setup.n_fallback; i++)
			if (zone->setup.fallback[i].actor == a) {
				*held = true;
				if (zone->setup.fallback[i].state > floor)
					floor = zone->setup.fallback[i].state;
			}
	}
	return floor;
}

/*
 * The smallest grant the zones that hold @a give it this period.  *@dither:
 * whether some zone holds it and every one that does dithers grants (a zone
 * of the kernel's law holds the actor to power2state).
 */
static uint32_t restrictive_grant(const struct engine *e, const struct actor *a, bool *dither)
{
	uint32_t grant = UINT32_MAX;
	bool held = false, all_dither = true;

	for (size_t z = 0; z < e->n_zones; z++) {
		const struct zone *zone = &e->zones[z];

		for (size_t i = 0; i < zone->setup.n_actors; i++) {
			if (zone->setup.actors[i] != a)
				continue;
			held = true;
			if (zone->setup.pid.mode != PID_MODE_DEFAULT ||
			    !zone->setup.pid.fixes.dither_grants)
				all_dither = false;
			if (zone->control.grant_mw[i] < grant)
				grant = zone->control.grant_mw[i];
		}
	}
	*dither = held && all_dither;
	return grant == UINT32_MAX ? a->max_mw : grant;
}

/* Apply @grant_mw to @a through its carry (dither_grant()). */
static int apply_dithered_grant(struct actor *a, uint32_t grant_mw)
{
	int r = actor_set_power(a, dither_grant(&a->table, a->load_pct, grant_mw, &a->carry_mw));

	a->granted_mw = grant_mw;	/* what the zones granted; the carry is the actor's */
	return r;
}

/* Applies to @a the grant and the state its zones ask for this period. */
static int apply_actor(const struct engine *e, struct actor *a)
{
	bool stepped, dither;
	uint32_t grant = restrictive_grant(e, a, &dither);
	unsigned long floor = step_floor(e, a, &stepped);

	/* A carry is owed only across periods that all dither. */
	if (stepped || !dither)
		a->carry_mw = 0;
	if (stepped) {
		/* The deeper of the power zones' state and the step_wise ones'. */
		unsigned long state = actor_state_for_power(a, grant);

		return actor_set_state(a, state > floor ? state : floor, grant);
	}
	if (dither)
		return apply_dithered_grant(a, grant);
	return actor_set_power(a, grant);
}

int engine_cycle(struct engine *e, uint64_t now_us, const bool *due)
{
	struct cycle_sample s;
	int first_error = 0, r;

	/* After a resume, what firmware reset in the sleep is no other writer:
	 * this period writes every state again anyway. */
	if (!e->force_writes)
		engine_check_writes(e, now_us);
	engine_sample_load(e);
	s.prev = e->stat_prev;
	s.cur = e->stat_cur;
	s.loads = e->loads;
	s.now_us = now_us;
	for (size_t i = 0; i < e->n_actors; i++)
		actor_sample(e->actors[i], &s);
	engine_leave_yielded(e);
	engine_share_cap(e);
	for (size_t z = 0; z < e->n_zones; z++) {
		struct zone *zone = &e->zones[z];
		bool have_temp;

		if (zone->setup.given_up_to[0])
			continue;	/* another governor has it */
		zone_observe_power(zone, now_us);
		if (due && !due[z])
			continue;	/* keeps its last grants */
		have_temp = zone_read_temp(zone, now_us) == 0;
		zone_observe(zone, have_temp);
		if (have_temp) {
			rise_track(&zone->sensing.rise, zone->sensing.temp_mc, now_us);
			zone_cycle(zone);
		}
		else if (zone->sensing.failed_reads >= ZONE_FAULT_PERIODS)
			zone_cycle_blind(zone);
		/* Else the zone holds its last grants for a few periods. */
	}
	engine_read_meters(e, now_us, due);
	actor_force_writes(e->force_writes);
	for (size_t i = 0; i < e->n_actors; i++) {
		struct actor *a = e->actors[i];

		/* A device that failed a write is left alone until its backoff ends, and
		 * one another writer holds, for its back-off or for good (yield). */
		if (!write_retry_due(&a->retry, now_us) || external_write_holds(&a->external))
			continue;
		r = write_retry_note(&a->retry, apply_actor(e, a), now_us);
		if (r < 0 && !first_error)
			first_error = r;
	}
	actor_force_writes(false);
	e->force_writes = false;
	engine_track_limits(e, now_us, due);
	return first_error;
}

int engine_restore(struct engine *e)
{
	int first_error = 0, r;

	for (size_t i = 0; i < e->n_actors; i++) {
		r = actor_restore(e->actors[i]);
		if (r < 0 && !first_error)
			first_error = r;
	}
	for (size_t z = 0; z < e->n_zones; z++) {
		struct zone *zone = &e->zones[z];

		if (!zone->setup.original_policy[0])
			continue;
		r = thermal_zone_set_policy(zone->setup.tz_id, zone->setup.original_policy);
		if (r < 0) {
			pa_log(PA_LOG_ERR,
			       THERMAL_CLASS_DIR "/thermal_zone%d/policy: cannot restore "
						 "\"%s\": %s",
			       zone->setup.tz_id, zone->setup.original_policy, strerror(-r));
			if (!first_error)
				first_error = r;
		}
	}
	return first_error;
}

/* A given-up actor's files, reported as handed over (the kernel's governor writes them now). */
struct handed_over {
	saved_value_fn fn;
	void *userdata;
};

static int report_handed_over(void *userdata, const char *path, const char *value,
			      const char *ours)
{
	const struct handed_over *h = userdata;

	(void)ours;
	return h->fn(h->userdata, path, value, ACTOR_HANDED_OVER);
}

int engine_save(const struct engine *e, saved_value_fn fn, void *userdata)
{
	struct handed_over h = { fn, userdata };
	char path[SYSFS_PATH_MAX];
	int r;

	/* In the order engine_restore() writes: states first, then the policies. */
	for (size_t i = 0; i < e->n_actors; i++) {
		r = e->actors[i]->given_up ? actor_save(e->actors[i], report_handed_over, &h)
					   : actor_save(e->actors[i], fn, userdata);
		if (r < 0)
			return r;
	}
	for (size_t z = 0; z < e->n_zones; z++) {
		if (!e->zones[z].setup.original_policy[0])
			continue;
		sysfs_pathf(path, THERMAL_CLASS_DIR "/thermal_zone%d/policy",
			    e->zones[z].setup.tz_id);
		r = fn(userdata, path, e->zones[z].setup.original_policy, "user_space");
		if (r < 0)
			return r;
	}
	return 0;
}

void engine_free(struct engine *e)
{
	for (size_t i = 0; i < e->n_actors; i++)
		actor_destroy(e->actors[i]);
	for (size_t z = 0; z < e->n_zones; z++)
		engine_zone_close(&e->zones[z]);
	free(e->actors);
	free(e->zones);
	sysfs_attr_close(&e->proc_stat);
	free(e->stat_buf);
	free(e->stat_prev);
	free(e->stat_cur);
	free(e->stat_next);
	free(e->loads);
	engine_init(e);
}
