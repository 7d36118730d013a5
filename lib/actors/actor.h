/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The power-actor interface: what a zone asks of each device that heats it.
 * One file per kind implements it (actor_cpufreq.c, actor_devfreq.c,
 * actor_cpufreq_cap.c, actor_powercap.c).  Actors are created at discovery,
 * when they may allocate and open files; the control path then only reads
 * and writes the files they keep open.
 */
#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"
#include "control/cpu_load.h"
#include "control/external_write.h"
#include "control/limit.h"
#include "platform/meter.h"
#include "platform/opp_source.h"
#include "control/power_scale.h"
#include "control/power_table.h"
#include "control/write_retry.h"

/* Where the powercap actors' zones are (actor_powercap.c). */
#define POWERCAP_CLASS_DIR "/sys/class/powercap"
/* Where the devfreq actors' devices are (actor_devfreq.c). */
#define DEVFREQ_CLASS_DIR "/sys/class/devfreq"

/**
 * struct cycle_sample - what every actor of a cycle sees.
 * @prev, @cur: /proc/stat at the previous and at this cycle (read once per
 *	cycle for all zones).
 * @loads: each CPU's load between them, percent; a CPU whose counters did
 *	not move keeps its last load (cpu_load_pct()).
 * @now_us: monotonic time of this cycle, µs.
 */
struct cycle_sample {
	const struct cpu_stat *prev;
	const struct cpu_stat *cur;
	const struct cpu_loads *loads;
	uint64_t now_us;
};

struct actor;

/* @ours of a file handed over to the kernel's governor (saved_value_fn). */
#define ACTOR_HANDED_OVER "handed_over"

/**
 * saved_value_fn - receives one file an actor will restore, the value it
 * will write there (@value) and the value it last wrote there (@ours, as
 * read back; @value when it wrote none), for the state file a crashed
 * daemon is restored from: a file that holds another writer's lighter limit
 * is left to it; @ours ACTOR_HANDED_OVER: the file was put back when its
 * zone was given up and is the kernel's governor's since, left whatever it holds.
 * Return: 0 or negative errno (stops the walk).
 */
typedef int (*saved_value_fn)(void *userdata, const char *path, const char *value,
			      const char *ours);

/**
 * struct external_found - a file an actor writes that holds another value
 * than the one last known there: another writer's.
 * @path: the file.
 * @known: the value last known there (ours as read back, or theirs noted).
 * @there: the value there now.
 */
struct external_found {
	const char *path;
	uint64_t known;
	uint64_t there;
};

/**
 * struct actor_ops - the operations of one kind of actor.
 * @sample: measure the actor for this cycle: its load and requested power
 *	(actor->load_pct, actor->req_mw) and its maximum (actor->max_mw).
 * @set_power: limit the device to @granted_mw; the state is written only
 *	when it changes.
 * @state_for_power: the cooling state @set_power would choose for @granted_mw
 *	(nothing written).
 * @set_state: put the device in cooling state @state (0 = no limit, up to
 *	max_state), written only when it changes; @granted_mw is recorded.
 *	The step_wise controller drives actors this way.
 * @check: read back the files it writes; where one holds another value
 *	than the one last known there, fill @found (the first such file) and
 *	take that value as known, so that the next write of ours is written.
 *	Return: 1 for another value, 0 for none (or a failed read: nothing known).
 * @restore: put back what the actor found when it was created, in each
 *	file that holds what it last wrote or that; a file another writer set
 *	since is left to it (logged).
 * @save: report each file @restore writes and its value to @fn.
 * @adopt: take over what @old, an actor of the same kind for the same
 *	device in the engine being replaced, found and kept: the values to
 *	restore (found when the device was first opened: a new actor finds the
 *	limits the old one wrote), its failing writes, its last samples.
 * @destroy: close files and free the actor.
 * Each returns 0 or a negative errno, after logging once with the file;
 * @set_power and @set_state return -ENODEV for a device that is gone and
 * -EAGAIN for a write that failed on a device still there (lib/control/write_retry.h).
 */
struct actor_ops {
	int (*sample)(struct actor *a, const struct cycle_sample *s);
	int (*set_power)(struct actor *a, uint32_t granted_mw);
	unsigned long (*state_for_power)(const struct actor *a, uint32_t granted_mw);
	int (*set_state)(struct actor *a, unsigned long state, uint32_t granted_mw);
	int (*check)(struct actor *a, struct external_found *found);
	int (*restore)(struct actor *a);
	int (*save)(const struct actor *a, saved_value_fn fn, void *userdata);
	void (*adopt)(struct actor *a, const struct actor *old);
	void (*destroy)(struct actor *a);
};

/**
 * struct actor - the parts every kind shares.
 * @ops: its kind's operations.
 * @kind: see enum actor_kind.
 * @name: its cooling device or device name ("cpufreq-cpu0", "intel-rapl:0").
 * @cdev_id: the cooling_deviceN it drives, -1 for none.
 * @weight_q10: weight in the budget division, Q10 (1024 = 1.0).
 * @table: power of one CPU (or the device) per frequency, as the controller
 *	counts it: @model_table calibrated from the meter while @calibrating
 *	(actor_calibrate_table()), else the table as loaded.
 * @source: where @table came from.
 * @capacity: throughput of one of its CPUs at the top OPP (cpu_capacity,
 *	1024 for the biggest; 1024 for devices and where the kernel has none).
 * @cpus: the CPUs it limits (empty for devices).
 * @n_cpus: CPUs the power table's entries are multiplied by (1 for devices).
 * The rest is this cycle's view, for traces and D-Bus:
 * @load_pct: sum of per-CPU loads (percent each), or the device's load.
 * @saturated: how many of its CPUs (or 1 for the device) were busy at or
 *	above CPU_LOAD_SATURATED_PCT: their load may want more than it shows.
 * @freq_khz: current frequency, kHz.
 * @req_mw, @max_mw, @min_mw: requested, maximum and minimum power, mW.
 * @granted_mw: the grant applied, mW.
 * @state, @max_state: cooling state written (0 = no limit) and its maximum.
 * @carry_mw: what its grants left unspent between OPPs, carried into the
 *	next period when its zones dither grants (dither.h), mW.
 * @retry: its failed writes (counted; the engine retries with backoff).
 * @limit: why its zones hold it back (limit.h).
 * @yield_external: on_external_write = "yield": another writer takes it over.
 * @external: other writers on its files (lib/control/external_write.h).
 * @kernel_tz: a thermal zone the daemon does not control (not taken over,
 *	or given up) whose kernel governor drives its cooling device too: a
 *	write found there is the kernel's (engine_kernel.c); -1 for none.
 * @given_up: left to the kernel's governor: put back (and yielded) when a
 *	zone holding it was given up, or yielded at a write found from the
 *	kernel's governor of @kernel_tz: yielded until a restart, a rebuild (a
 *	reload, a rescan) included.
 * @meter: what measures its power: the config's power_meter (owned, freed
 *	with the actor, and dropped at its first fault until a rebuild), a
 *	powercap zone's own energy_uj (part of the actor), or NULL for none.
 * @meter_owned: @meter was allocated for it (a configured one).
 * @measured_mw: what @meter said this period (mean power since its last
 *	reading), mW; meaningful only while @measured_valid.
 * @measured_valid: @meter gave a reading this period.
 * @meter_read_us: when @meter was last read (once a period), µs.
 * @meter_dropped: the fault (enum meter_fault) that dropped its configured
 *	meter, METER_OK while none did: shown until a rebuild gives it a meter.
 * @calibrating: @power_scale is fed from @meter (a configured meter; a
 *	powercap zone's energy_uj is its request, not a check of a table).
 * @power_scale: the table's calibration from @meter: measured / modelled
 *	power, its offset and confidence (control/power_scale.h).
 * @model_table: the power table as loaded, which @meter's readings are
 *	compared with and the thermal model's fingerprint hashes; meaningful
 *	while @calibrating (actor_model_table()).
 * @model_mw: this period's request by @model_table, mW (@req_mw uncalibrated).
 * @scale_fed_us: when @power_scale was last fed or broken, µs (0: a gap).
 * @meter_unmoved: @meter is an energy counter that did not move this period
 *	(one updated slower than the period): its next move measures the wait.
 * @pending_us, @pending_model_mws: the periods since its last move and the
 *	modelled energy over them (mW x µs), fed to @power_scale at the move.
 * @table_due: @table is to be calibrated anew, or restored to @model_table,
 *	at the next sample (actor_apply_table()): a period's division and the
 *	state it buys count in one table's watts.
 * @pending_open: its last move was read since the last break, so that the
 *	next move measures only periods counted in @pending_us.
 * @scale_period_us: the period @power_scale was started with, µs: a longer
 *	gap between readings (4 periods) breaks it.
 */
struct actor {
	const struct actor_ops *ops;
	enum actor_kind kind;
	char name[64];
	int cdev_id;
	uint32_t weight_q10;
	struct power_table table;
	enum opp_source source;
	uint32_t capacity;
	struct cpumask cpus;
	unsigned int n_cpus;
	unsigned int load_pct;
	unsigned int saturated;
	uint32_t freq_khz;
	uint32_t req_mw;
	uint32_t max_mw;
	uint32_t min_mw;
	uint32_t granted_mw;
	unsigned long state;
	unsigned long max_state;
	uint32_t carry_mw;
	struct write_retry retry;
	struct limit_tracker limit;
	bool yield_external;
	struct external_write external;
	int kernel_tz;
	bool given_up;
	struct power_meter *meter;
	bool meter_owned;
	uint32_t measured_mw;
	bool measured_valid;
	uint64_t meter_read_us;
	enum meter_fault meter_dropped;
	bool calibrating;
	struct power_scale power_scale;
	struct power_table model_table;
	uint32_t model_mw;
	uint64_t scale_fed_us;
	uint64_t scale_period_us;
	bool meter_unmoved;
	uint64_t pending_us;
	double pending_model_mws;
	bool pending_open;
	bool table_due;
};

/**
 * actor_apply_table() - the table change actor_feed_scale() or
 * actor_stop_calibration() left due, made before @a's sample (actor_sample()).
 */
void actor_apply_table(struct actor *a);

static inline int actor_sample(struct actor *a, const struct cycle_sample *s)
{
	actor_apply_table(a);
	return a->ops->sample(a, s);
}

static inline int actor_set_power(struct actor *a, uint32_t granted_mw)
{
	return a->ops->set_power(a, granted_mw);
}

static inline unsigned long actor_state_for_power(const struct actor *a, uint32_t granted_mw)
{
	return a->ops->state_for_power(a, granted_mw);
}

static inline int actor_set_state(struct actor *a, unsigned long state, uint32_t granted_mw)
{
	return a->ops->set_state(a, state, granted_mw);
}

static inline int actor_check(struct actor *a, struct external_found *found)
{
	return a->ops->check(a, found);
}

static inline int actor_restore(struct actor *a)
{
	return a->ops->restore(a);
}

static inline int actor_save(const struct actor *a, saved_value_fn fn, void *userdata)
{
	return a->ops->save(a, fn, userdata);
}

/**
 * actor_lowest_mw() - what @a draws at its lowest state with its load now,
 * mW: its lowest OPP's power for its load, as the kernel counts a request
 * (min_mw at full load, 0 idle); without a power table (powercap), the
 * lowest limit it takes, min_mw.  A grant under it saves nothing: the
 * actor draws this at its lowest state all the same.
 */
uint32_t actor_lowest_mw(const struct actor *a);

/**
 * actor_at_lowest() - whether @a, a power actor, is held at its lowest:
 * at its deepest state, or (powercap, whose state is not kept) granted at
 * most its lowest limit.  False for a device without power (a fan).
 */
bool actor_at_lowest(const struct actor *a);

/**
 * actor_force_writes() - while @force, every state an actor is asked for
 * is written even when it is the one last written (the engine's cycle
 * after a resume: firmware may have reset the limits).  A switch for all
 * actors, set and cleared around one cycle's writes.
 */
void actor_force_writes(bool force);

/**
 * actor_same_device() - whether @a and @b drive the same device: same kind,
 * cooling device and name (an engine built again makes new actors for the
 * devices the old one drove).
 */
bool actor_same_device(const struct actor *a, const struct actor *b);

/**
 * actor_adopt() - carry into @a, a new actor for the device @old drove, what
 * @old kept across periods: its carry, grant, failed writes (counted and
 * backing off) and limiting reasons, and what its kind keeps (@adopt).  The
 * state stays the one @a read from the device.
 */
void actor_adopt(struct actor *a, const struct actor *old);

/**
 * actor_set_meter() - @m (allocated, opened) becomes @a's meter, freed with
 * it; a meter @a had is freed.
 */
void actor_set_meter(struct actor *a, struct power_meter *m);

/** actor_free_meter() - close and free @a's configured meter; none is left. */
void actor_free_meter(struct actor *a);

/**
 * actor_read_meter() - read @a's meter once for the period at @now_us (a
 * second call at the same @now_us reads nothing): @a->measured_mw and
 * @a->measured_valid.  Readings above METER_JUMP_FACTOR times @a->max_mw
 * are jumps; the meter counts as stopped only where @a->model_mw (its
 * table's power for the state and load measured) moved and the meter did
 * not, or an energy counter did not count while it drew (meter_fault.h);
 * without @load_known (no load sampled since a start or a resume) the read
 * is not judged.  A
 * configured meter that faults is dropped (closed, freed, never read again
 * until the engine is rebuilt) with one warning that names the actor, the
 * meter and the fault: the actor goes on from its power table.
 * Return: 1 for a reading, 0 for none, minus an enum meter_fault.
 */
int actor_read_meter(struct actor *a, uint64_t now_us, bool load_known);

/**
 * actor_meter_fault() - say @a's meter's @fault (enum meter_fault), once
 * per fault, with @outcome: what the actor goes on from.
 */
void actor_meter_fault(struct actor *a, int fault, const char *outcome);

/**
 * actor_model_table() - @a's power table as loaded, before any calibration:
 * what its meter is compared with, and what a thermal model learnt on it
 * is fingerprinted by.
 */
static inline const struct power_table *actor_model_table(const struct actor *a)
{
	return a->model_table.n ? &a->model_table : &a->table;
}

/**
 * actor_start_calibration() - @a, whose configured meter was just set,
 * calibrates its power table from it: @power_scale started for @period_ms
 * (its zone's period) and the meter's sample period.  Nothing for an actor
 * without a configured meter or without a power table (powercap: its own
 * energy_uj is its request already).
 */
void actor_start_calibration(struct actor *a, uint32_t period_ms);

/**
 * actor_stop_calibration() - @a goes back to its power table as loaded
 * (a meter dropped: faulted, or implausible) from its next sample; the
 * estimate is kept to be shown.
 */
void actor_stop_calibration(struct actor *a);

/**
 * actor_calibrate_table() - @a's @table from @model_table and what
 * @power_scale learnt: each entry times the ratio power_scale_apply_mw(P) /
 * P at P, the mean modelled power of the windows fitted (the scale blended
 * by its confidence; with an offset, the ratio at the powers the actor
 * visits).  Every user of the table (requests, maximum and minimum power,
 * the state a grant buys, dithering, floors) then counts real power.
 */
void actor_calibrate_table(struct actor *a);

/**
 * actor_feed_scale() - after @a's meter was read for the period at @now_us
 * (actor_read_meter()), feed @power_scale the period's modelled and
 * measured power, or break it at a gap (no reading, a period 4 times its
 * zone's or longer: an idle zone, a sleep).  A window that moved the
 * estimate recalibrates @table from the next sample (logged at debug level); a meter found
 * implausible is said once at warning level and @a goes on from its table.
 * Return: the power_scale_feed() event, POWER_SCALE_NONE when nothing was fed.
 */
enum power_scale_event actor_feed_scale(struct actor *a, uint64_t now_us);

/**
 * actor_break_scale() - a gap in @a's readings (a resume from sleep): the
 * window being filled is dropped, the fit kept.
 */
void actor_break_scale(struct actor *a);

/**
 * actor_adopt_scale() - @a, calibrating from the same meter as @old (the
 * actor of the engine being replaced), takes what @old learnt.
 */
void actor_adopt_scale(struct actor *a, const struct actor *old);

static inline void actor_destroy(struct actor *a)
{
	if (a) {
		actor_free_meter(a);
		a->ops->destroy(a);
	}
}

struct cpufreq_policy_info;

/**
 * actor_cpufreq_new() - a cpufreq cooling device (cpufreq-cpuN) as an actor.
 * @cdev_id: its cooling_device number.
 * @policy: the policy it throttles.
 * @cfg: the config's actor (weight, coefficient, OPPs), or NULL.
 * @ret: set to the actor, or to NULL on error.
 * Return: 0, or negative errno (logged, but -ENOMEM) when its files or power
 * model are missing.
 */
int actor_cpufreq_new(int cdev_id, const struct cpufreq_policy_info *policy,
		      const struct actor_config *cfg, struct actor **ret);

/**
 * actor_devfreq_new() - a devfreq cooling device (devfreq-<device>) as an actor.
 * @cdev_id: its cooling_device number.
 * @device: the devfreq device name ("ff9a0000.gpu").
 * @cfg: the config's actor, or NULL.
 * @ret: set to the actor, or to NULL on error.
 * Return: 0, or negative errno (logged, but -ENOMEM).
 */
int actor_devfreq_new(int cdev_id, const char *device, const struct actor_config *cfg,
		      struct actor **ret);

/**
 * actor_cpufreq_cap_new() - the CPUs of @cfg->cpus (whole cpufreq policies)
 * limited by their policies' scaling_max_freq, for machines without cpufreq
 * cooling devices (intel_pstate, acpi-cpufreq).
 * @policies, @n_policies: the policies of those CPUs (at least one).
 * @ret: set to the actor, or to NULL on error.
 * Return: 0, or negative errno (logged, but -ENOMEM).
 */
int actor_cpufreq_cap_new(const struct cpufreq_policy_info *const *policies, size_t n_policies,
			  const struct actor_config *cfg, struct actor **ret);

/**
 * actor_powercap_new() - a powercap zone (RAPL package, "intel-rapl:0")
 * limited by its constraint_0_power_limit_uw.
 * @ret: set to the actor, or to NULL on error.
 * Return: 0, or negative errno (logged, but -ENOMEM).
 */
int actor_powercap_new(const struct actor_config *cfg, struct actor **ret);

/**
 * actor_cooling_device_new() - cooling_device@cdev_id of type @type (no
 * power model: a fan, ...) for the step_wise fallback, driven by state only.
 * @ret: set to the actor, or to NULL on error.
 * Return: 0, or negative errno (logged, but -ENOMEM) when its files cannot
 * be opened.
 */
int actor_cooling_device_new(int cdev_id, const char *type, struct actor **ret);

/**
 * actor_state_of_freq() - the cooling state that caps a device at @khz:
 * the index, counted from the top of @freq_khz (ascending), of the highest
 * entry <= @khz; the deepest state when every entry is above @khz.
 */
unsigned long actor_state_of_freq(const uint32_t *freq_khz, size_t n, uint32_t khz);
