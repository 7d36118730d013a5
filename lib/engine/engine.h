/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Everything powerallocd controls: the zones, the actors they share, and
 * the per-CPU load samples.  The daemon builds an engine from the config and
 * asks it to run periods; the engine does no allocation and opens no file
 * once built.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "actors/actor.h"
#include "config/config.h"
#include "control/cpu_load.h"
#include "platform/sysfs.h"
#include "zone.h"

#define PROC_STAT_PATH "/proc/stat"
/* A power cap's lease (Manager.SetPowerLimit) lasts this long at least and at
 * most, s: the daemon refuses others, powerallocctl before it asks. */
#define POWER_LIMIT_LEASE_MIN_S 1
#define POWER_LIMIT_LEASE_MAX_S 86400

/* Load windows since a restart after which the actors' loads are theirs (struct engine). */
#define ENGINE_LOAD_WINDOWS_KNOWN 2

/**
 * struct engine - zones, actors and load samples.
 * @zones, @n_zones: the controlled zones.
 * @actors, @n_actors: every actor once (a zone holds pointers into these).
 * @proc_stat: /proc/stat, open for the engine's life.
 * @stat_buf, @stat_buf_size: where it is read to (sized for the CPUs present).
 * @stat_prev, @stat_cur: the two samples loads are computed from.
 * @stat_next: where the next sample is parsed; it becomes @stat_cur only
 *	when time passed since it (a failed or too-early read leaves the pair).
 * @loads: each CPU's load over the pair, updated when the pair moves on; a
 *	CPU whose counters did not move keeps its last (cpu_load_pct()).
 * @stat_failed: the last read of /proc/stat failed (logged once).
 * @load_windows: the pairs the loads moved on over since the last restart
 *	(engine_restart_load()), counted up to ENGINE_LOAD_WINDOWS_KNOWN: the
 *	first may span a tick, and before it there is none.
 * @n_missing: optional configured actors that could not be used (their
 *	zones run without them), for the daemon to look for again.
 * @n_refused: configured zones the kernel cannot hand over (no user_space
 *	governor), whose sensor names several thermal zones, or whose
 *	sustainable power or gains their actors rule out (build_check_power()):
 *	not worth retrying.
 * @n_bad_meters: configured power meters that could not be opened (said
 *	with what exists; their actors and zones run from their power tables):
 *	--check-config fails on them.
 * @cap_mw: the external power cap on every actor together, mW (0: none);
 *	the daemon sets it (Manager.SetPowerLimit), engine_share_cap() divides it.
 * @lowest_mw: what every actor draws at its lowest state, mW (the least a
 *	cap can hold them to), as of the last cycle.
 * @force_writes: the next cycle writes every actor's state even where it
 *	is the one last written (after a resume: firmware may have reset the
 *	devices' limits behind our back); engine_cycle() clears it.
 */
struct engine {
	struct zone *zones;
	size_t n_zones;
	struct actor **actors;
	size_t n_actors;
	struct sysfs_attr proc_stat;
	char *stat_buf;
	size_t stat_buf_size;
	struct cpu_stat *stat_prev;
	struct cpu_stat *stat_cur;
	struct cpu_stat *stat_next;
	struct cpu_loads *loads;
	bool stat_failed;
	unsigned int load_windows;
	size_t n_missing;
	size_t n_refused;
	size_t n_bad_meters;
	uint32_t cap_mw;
	uint32_t lowest_mw;
	bool force_writes;
};

/*
 * An engine with nothing built: no zones, no actors, /proc/stat closed (fd
 * -1), so that engine_free() of it closes nothing.  Every engine starts so.
 */
#define ENGINE_INIT { .proc_stat = SYSFS_ATTR_INIT }

/** engine_init() - set @e to ENGINE_INIT. */
static inline void engine_init(struct engine *e)
{
	*e = (struct engine)ENGINE_INIT;
}

/**
 * engine_build() - discover the platform and build the zones of @cfg, or,
 * when it has none, every zone the kernel's power_allocator would run (a
 * passive trip, every cpufreq or devfreq device bound to the last one with
 * a power model; with one passive trip the zone is always on).
 * Takes each zone over (policy user_space).  What cannot be used is logged
 * with the reason and left out, with the kernel's governor: a configured
 * zone whose sensor matches no thermal zone (the message lists those there
 * are) or several (a type they share: the message lists them; counted in
 * e->n_refused), one with an actor that matches no device or cannot be opened (the
 * message lists the cpufreq policies, devfreq devices or powercap zones
 * there are), unless that actor is optional (then the zone runs without it,
 * counted in e->n_missing), one whose kernel offers no user_space governor
 * or whose sustainable_power is more than ten times off what its actors
 * draw together (counted in e->n_refused; nearer, outside that range, it
 * is said as a warning), and, without zones configured, every thermal
 * zone without a passive trip or a power actor on the last (one notice
 * each, which for devices without a power model says how to configure the
 * zone).  A thermal zone's attributes beyond its type are read only for
 * the zones configured or, without any, considered.
 * Return: the number of zones (>= 0), or negative errno when nothing could
 * be read at all.
 */
int engine_build(struct engine *e, const struct pa_config *cfg);

/**
 * engine_sample_load() - read /proc/stat once for all zones.  A sample in
 * which no CPU counted time since the current one is dropped: the loads
 * keep coming from the last two samples that are a tick or more apart.
 * Return: 0 or negative errno (logged once until it reads again).
 */
int engine_sample_load(struct engine *e);

/**
 * engine_restart_load() - read /proc/stat into both samples, so that the
 * next load is measured from now (at build, and after a sleep, whose
 * counters are no load).  Return: engine_sample_load()'s.
 */
int engine_restart_load(struct engine *e);

/**
 * engine_read_meters() - read, once, the power meter of each zone due
 * (@due; NULL: all) that is active, and of each of its actors (an actor
 * shared by zones is read once): zone->period.measured_mw and actor->measured_mw,
 * valid for this period only (actor_read_meter()), and feed each actor's
 * calibration with its reading (actor_feed_scale()).  A powercap actor reads
 * its own in its sample.  A configured meter that faults is dropped with
 * one warning and its actor or zone goes on from its power table until
 * the engine is rebuilt.  engine_cycle() calls it each period.
 * @now_us: monotonic time, µs.
 */
void engine_read_meters(struct engine *e, uint64_t now_us, const bool *due);

/** engine_zone_free_meter() - close and free @z's power meter; it has none after. */
void engine_zone_free_meter(struct zone *z);

/**
 * engine_resume() - after the machine slept: read every zone's sensor
 * afresh (the trend step_wise and the fallback follow starts there) and
 * forget what the gap corrupts, keeping what was learnt: each controller's
 * previous error and derivative (pid_forget_trend(); the integrals stay),
 * each thermal model's block being filled and its power count
 * (thermal_model_break(); the fit stays), each zone's last reading for its
 * rise (rise_restart()), the CPU load baseline (engine_restart_load()) and
 * each metered actor's calibration window (actor_break_scale(); its fit stays).
 * Sets e->force_writes, so the next engine_cycle() writes every state.
 * Runs no period.  @now_us: monotonic time, µs.
 * Return: the number of zones whose sensor read.
 */
size_t engine_resume(struct engine *e, uint64_t now_us);

/**
 * engine_cycle() - one period of the zones that are due: load (read once),
 * temperatures, budgets, grants; each actor then applies the smallest grant
 * of the zones it serves (zones not due count with their last grants).
 * Every zone counts its actors' power for its thermal model; the zones
 * due feed it their reading (zone_observe()).  Last, the zones due and
 * every actor track why they are limited (engine_track_limits()).
 * @now_us: monotonic time, µs.
 * @due: per zone, whether it runs now; NULL runs them all.
 * An actor whose write failed while its device is still there is counted
 * (actor->retry) and left alone until its backoff ends (lib/control/write_retry.h).
 * With e->force_writes, every state is written, changed or not, once.
 * Return: 0, or -ENODEV when a device the engine writes is gone (logged):
 * the caller should build the engine again.
 */
int engine_cycle(struct engine *e, uint64_t now_us, const bool *due);

/**
 * engine_check_writes() - read back every actor's files (no open, no
 * allocation) and act on another writer (lib/control/external_write.h):
 * a new episode is logged with the file, the value last known there and
 * the one found, and ours is written at once; a fight (rewritten within
 * EXTERNAL_WRITE_FIGHT_MS of our reassert) is said once an episode at
 * warning level and backs off; an actor whose policy is to yield is left
 * to the other writer for good (logged).  Each counted in
 * actor->external.count.  engine_cycle() calls it first.
 */
void engine_check_writes(struct engine *e, uint64_t now_us);

/**
 * engine_give_up_zone() - another writer set @z's policy to @policy (not
 * user_space): stop controlling @z, put back as they were found its devices
 * that no zone still controlled holds (a file another writer set is left)
 * and leave them (yielded), and forget its original policy (theirs stays at
 * stop).  @say: one warning naming the policy (engine_check_writes(); a
 * rebuild that carries the zone given up says nothing).
 */
void engine_give_up_zone(struct engine *e, struct zone *z, const char *policy, bool say);

/**
 * engine_note_given_up_bound() - @z is given up: the actors of @e on the
 * cooling devices bound to its thermal zone get it in kernel_tz, its
 * governor driving them now (engine_kernel.c).
 */
void engine_note_given_up_bound(struct engine *e, const struct zone *z);

/**
 * engine_leave_to_kernel() - @f was found written on @a: where a thermal
 * zone the kernel governs is bound to its device (kernel_tz), the write is
 * the kernel's: @a is yielded for good (given_up), said once, not counted.
 * Return: whether it was.
 */
bool engine_leave_to_kernel(struct actor *a, const struct external_found *f);

/** engine_zone_close() - close @z's sensor and its policy file. */
void engine_zone_close(struct zone *z);

/**
 * engine_leave_yielded() - after the actors were sampled: the actors
 * yielded to another writer ask for nothing and take no share of a budget.
 */
void engine_leave_yielded(struct engine *e);

/**
 * engine_share_cap() - divide e->cap_mw among the zones (lib/engine/engine_cap.c):
 * by divvy(), each zone asking what its actors asked of its last division
 * (an actor shared by zones counted once among them) and holding at most
 * its actors' maximum, and none given less than its actors draw at their
 * lowest states (floors_divide()); sets each zone's capped and cap_mw (not
 * capped when e->cap_mw is 0, or at least what every actor draws flat out
 * together) and e->lowest_mw.  engine_cycle() calls it first.
 */
void engine_share_cap(struct engine *e);

/**
 * engine_lowest_text() - for the journal: which power actors are held at
 * their lowest states (actor_at_lowest()) and which are not, into @buf:
 * "every actor is held at its lowest state", or the two lists by name.
 * Return: @buf.
 */
const char *engine_lowest_text(const struct engine *e, char *buf, size_t size);

/**
 * engine_restore() - every actor back to what it found, every zone back to
 * its original policy.  Return: 0 or the first negative errno (logged).
 */
int engine_restore(struct engine *e);

/**
 * engine_save() - every file engine_restore() writes, with its value, to @fn
 * (zone policies first).  Return: 0 or @fn's negative errno.
 */
int engine_save(const struct engine *e, saved_value_fn fn, void *userdata);

/**
 * engine_zone_index() - the index in @e of the zone that is @z (the same
 * thermal zone and name, as engine_adopt_state() matches them), or -1.
 */
long engine_zone_index(const struct engine *e, const struct zone *z);

/**
 * engine_adopt_state() - carry what @old, the engine @e was built to replace
 * (a rescan or a reload), remembers into @e, for the zones and devices both
 * have, so that a rebuild adds what appeared and drops what vanished but
 * resets no running zone.  An actor is the same when it drives the same
 * device (actor_adopt(): carry, grant, failed writes, the values found when
 * the device was first opened).  A zone is the same when its thermal zone
 * and name are: it keeps its original policy, readings, rise and fallback
 * states, its limiting reasons and time limited, and, while its law and
 * its switch-on and control temperatures are unchanged, its controller's
 * memory (PID state, budget, grants, step_wise states, whether it is
 * active), even when its actors or gains changed, and, while its actors
 * and their power tables, control temperature and period are the same,
 * its thermal model.  A thermal zone @old gave up stays given up
 * (engine_put_back_given_up()), its devices left to the kernel's governor;
 * else it opens and writes nothing.
 */
void engine_adopt_state(struct engine *e, const struct engine *old);

/**
 * engine_put_back_given_up() - writes back, in the policy of each thermal
 * zone that building @e took over and @old had given up, the governor
 * another program had set there (a failure logged); for a rebuild that
 * goes on, and one that is dropped (a rejected reload), whose build still
 * took those zones over.
 */
void engine_put_back_given_up(const struct engine *e, const struct engine *old);

/** engine_free() - close and free everything (does not restore); @e is left ENGINE_INIT. */
void engine_free(struct engine *e);
