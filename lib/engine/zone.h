/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * A controlled zone: its sensor, switch-on and control temperatures, its
 * controller and its actors.  zone_cycle() is one period of the control law
 * (doc/control-law.md, "Every period"), up to the grants; applying them is
 * the engine's job, because an actor may serve several zones and then takes
 * the most restrictive grant.
 */
#include <stdbool.h>
#include <stdint.h>

#include "actors/actor.h"
#include "control/fallback.h"
#include "control/limit.h"
#include "control/pid.h"
#include "control/rise.h"
#include "platform/sensor.h"
#include "control/sensor_combine.h"
#include "control/sensor_fault.h"
#include "platform/sysfs.h"
#include "platform/thermal.h"
#include "control/model_tuning.h"
#include "control/thermal_model.h"

/* Actors one zone divides its budget among. */
#define ZONE_MAX_ACTORS 64
/* Cooling devices without a power model one zone drives (fans, ...). */
#define ZONE_MAX_FALLBACK 8
/* Periods a zone holds its limits without a sane temperature before it
 * throttles to its sustainable power. */
#define ZONE_FAULT_PERIODS 3
/* Readings outside this range are sensor faults, not temperatures (m°C):
 * no die or skin this daemon controls works below -40 °C or above 150 °C. */
#define ZONE_TEMP_MIN_MC (-40000)
#define ZONE_TEMP_MAX_MC 150000
/*
 * A reading this far (m°C) from the zone's previous sane one is a spike, a
 * sensor fault for that period.  The fastest plant we know heats 15.5 °C/s
 * flat out (tools/simulator's HiKey960: 7.8 W into a 0.5 J/K die; the other
 * boards 7 to 12 °C/s), so 40 °C takes it 2.6 s: 26 periods at 100 ms, over
 * two idle polls at the default 1 s.  Only one reading in a row is
 * dismissed: the next one is taken, so a real jump costs one period.
 */
#define ZONE_SPIKE_MC 40000
/*
 * With a confident thermal model (ZONE_MODEL_CONFIDENT) the bound is the
 * zone's own instead: twice the most its model lets it move since the
 * previous reading (flat out or at no power, thermal_model_max_change_mc())
 * plus this margin for the sensor's noise and steps (m°C).
 */
#define ZONE_SPIKE_MARGIN_MC 5000
/* The learnt sustainable power is worth a word in the journal when it is
 * this sure of itself and departs from the configured one by this much. */
#define ZONE_MODEL_CONFIDENT 0.9
#define ZONE_MODEL_DEPARTS_PCT 25

/**
 * enum sustainable_power_source - where a zone's configured sustainable
 * power (its controller's prior) came from.
 * @SP_FROM_CONFIG: the configuration's sustainable_power.
 * @SP_FROM_SYSFS: the thermal zone's sustainable_power (the device tree).
 * @SP_ESTIMATED: the sum of the actors' lowest powers, as the kernel
 *	estimates it (zone_estimate_sustainable_power()).
 * @SP_FROM_RAPL: an x86 package's long-term power limit as the firmware set
 *	it, at most its TDP (automatic configuration, engine_x86.c).
 */
enum sustainable_power_source {
	SP_FROM_CONFIG,
	SP_FROM_SYSFS,
	SP_ESTIMATED,
	SP_FROM_RAPL,
	_SP_SOURCE_MAX,		/* how many there are, for tables */
};

/**
 * enum zone_model_state - what a zone's learnt thermal model is worth.
 * @ZONE_MODEL_LEARNING: nothing known yet: its confidence is under
 *	MODEL_TUNING_ENGAGE, at which the default controller would take it, and
 *	its values are still near the prior (the starting guess).
 * @ZONE_MODEL_LEARNT: known (confidence MODEL_TUNING_ENGAGE or more) but
 *	not in use: the zone's controller is not the default one, or has not
 *	run since (an idle zone takes it when it next becomes active).
 * @ZONE_MODEL_IN_USE: the default controller runs on its sustainable power
 *	and gains (zone->control.tuning.engaged: it keeps them down to
 *	MODEL_TUNING_RELEASE).
 */
enum zone_model_state {
	ZONE_MODEL_LEARNING,
	ZONE_MODEL_LEARNT,
	ZONE_MODEL_IN_USE,
	_ZONE_MODEL_STATE_MAX,	/* how many there are, for tables */
};

/**
 * struct zone_control - the controller's memory, carried by a rebuild (a
 * reload, a rescan: engine_adopt_state()) while the zone keeps its law and
 * its temperatures (the error it integrated is the same error); a new
 * field here is carried with the rest.
 * @pid_state: the PID controller's memory.
 * @pid_run: what the last period ran on: the zone's pid, or for the default
 *	controller with a confident model, the model's feed-forward and gains
 *	(lib/control/model_tuning.h); @tuning: which (its gains_fixed is the
 *	configuration's: a rebuild takes it from its own).
 * @pid_out: the last period's pid_step() terms.
 * @active: the last period was at or above switch-on (or always on).
 * @budget_mw: the last period's budget, mW.
 * @request_mw: the last period's request per actor, mW, as the division
 *	took it (the actor's, or with saturated_request what its saturated CPUs
 *	ask); indexed as the zone's actors (a rebuild remaps it).
 * @grant_mw: the last period's grant per actor, mW (max power while
 *	inactive); indexed as the actors.
 * @step_state: step_wise: the state the zone asks of each actor; indexed
 *	as the actors.
 */
struct zone_control {
	struct pid_state pid_state;
	struct pid_params pid_run;
	struct model_tuning tuning;
	struct pid_output pid_out;
	bool active;
	uint32_t budget_mw;
	uint32_t request_mw[ZONE_MAX_ACTORS];
	uint32_t grant_mw[ZONE_MAX_ACTORS];
	unsigned long step_state[ZONE_MAX_ACTORS];
};

/**
 * struct zone_sensing - what the zone's readings have been, the sensor's
 * judgement on them and why the zone holds its actors back: carried by
 * every rebuild (the inputs' own state by zone_sensor_adopt()).
 * @temp_mc: the last period's temperature, m°C.
 * @prev_temp_mc: the one before, m°C (the trend step_wise and the fallback
 *	follow).
 * @sensor_failed: the last read failed, of every input (logged once until
 *	it reads again).
 * @failed_reads: consecutive periods without a sane temperature.
 * @reading_sane: the last read gave a sane temperature (@temp_mc), the
 *	reference the next reading's spike is judged against.
 * @spike_quiet: when a spike was last said, and those since not said
 *	(lib/control/sensor_fault.h: at most one said in SPIKE_QUIET_MS).
 * @fault_said: this fault episode was said (a spike in a run of them is
 *	not), and so its end is.
 * @sensor_fault: why the last read gave no temperature (none when it did).
 * @fault_shown: the fault D-Bus and powerallocctl show: @sensor_fault, or
 *	after it ended the last one, for LIMIT_HOLD_MS (as a limiting reason
 *	is held: a spike lasts one period); @fault_seen_us: when it last was,
 *	monotonic µs (engine_track_limits()).
 * @stuck: the stuck-sensor detector (lib/control/sensor_fault.h).
 * @rise: how fast the zone has lately heated, from its readings (the
 *	daemon polls an idle zone at its period when it could pass switch-on
 *	before the next idle poll).
 * @limit: why it holds its actors back, and for how long it has (limit.h).
 */
struct zone_sensing {
	int32_t temp_mc;
	int32_t prev_temp_mc;
	bool sensor_failed;
	unsigned int failed_reads;
	bool reading_sane;
	struct spike_quiet spike_quiet;
	bool fault_said;
	enum sensor_fault sensor_fault;
	enum sensor_fault fault_shown;
	uint64_t fault_seen_us;
	struct stuck_sensor stuck;
	struct rise_tracker rise;
	struct limit_tracker limit;
};

/**
 * struct zone_learning - the zone's thermal model and what it is being
 * fed, carried by a rebuild while what it learnt holds (the same actors
 * with the same power tables, control temperature and period: the
 * fingerprint a saved model needs, model_record.h).
 * @model: its thermal response, learnt from every period, active or idle
 *	(the default controller tunes itself on it once it is confident).
 * @observed_us: the last engine cycle its actors' power was counted at,
 *	monotonic µs (0: none yet).
 * @model_energy_mj, @model_elapsed_us: the energy its actors drew since
 *	the model's last sample (mJ), and over how long (µs).
 * @model_departure_said: the journal said that the learnt sustainable power
 *	departs from the configured one (a rebuild keeps it while that
 *	configured power is the same).
 */
struct zone_learning {
	struct thermal_model model;
	uint64_t observed_us;
	double model_energy_mj;
	uint64_t model_elapsed_us;
	bool model_departure_said;
};

/**
 * struct zone_period - this engine cycle's power cap and meter, set by the
 * engine each cycle, never carried by a rebuild.
 * @capped, @cap_mw: the zone's share of the external power cap, mW, set by
 *	the engine each cycle (engine_share_cap()); its budget is at most that.
 * @cap_limited: this period's budget is the cap's share, lower than what
 *	its controller (or, idle, its actors' maximum) gave: the zone is
 *	limited by the power cap, not by its temperature.
 * @measured_mw: what the zone's meter said this period, mW, while
 *	@measured_valid.
 * @measured_valid: the meter gave a reading this period.
 */
struct zone_period {
	bool capped;
	uint32_t cap_mw;
	bool cap_limited;
	uint32_t measured_mw;
	bool measured_valid;
};

/**
 * struct zone_setup - what a zone is: what the configuration and the
 * inventory give, built anew by every engine build (engine_build.c); of
 * it a rebuild carries only the original policy, a governor it was given up
 * to and the fallback devices' states, field by field (engine_adopt.c).
 * @name: label (config name, or the sensor type when auto-configured).
 * @tz_id: N of the thermal_zoneN it takes over; -1 for a combined sensor,
 *	which takes none over (its inputs keep their governors).
 * @sensor_type: its thermal zone's type ("cpu-thermal"), or for a combined
 *	sensor its description (zone_sensor_name()), part of the hardware its
 *	thermal model was learnt on (lib/engine/model_record.h).
 * @sensor_kind: one thermal zone, or how @inputs combine (lib/engine/zone_sensor.h).
 * @inputs, @n_inputs: the thermal zones it reads, each open for the zone's
 *	life (lib/platform/sensor.c reads a slow one on a thread).
 * @sensor_offset_mc: added to a combined reading, m°C.
 * @switch_on_mc, @control_mc: switch-on and control temperatures, m°C.
 * @always_on: no switch-on: the sensor has one passive trip, which is
 *	control, and the zone is controlled at every temperature, as the
 *	kernel's power_allocator does (get_governor_trips()); @switch_on_mc
 *	is then 0, the switch-on its gains are computed from, as the kernel's.
 * @switch_on_trip: switch-on is one of its thermal zone's trips, so the
 *	kernel's trip event says when the zone crosses it; else a daemon that
 *	waits for events while idle must poll it (zone_schedule.h).
 * @pid: controller definition from the configuration (its sustainable
 *	power the model's prior).
 * @efficiency_division: divide by efficiency, not by request.
 * @sp_source: where pid.sustainable_power_mw came from.
 * @original_policy: the zone's governor before we took it over ("" when
 *	none was taken over, or the zone was given up: nothing to put back).
 * @policy, @policy_open: its thermal zone's policy file, open for reading
 *	while the zone is taken over (@policy_open), read each period without
 *	an open: another writer's governor there gives the zone up.
 * @given_up_to: the governor another writer set in its policy ("" while
 *	the zone is controlled): the zone was given up, its actors restored,
 *	and it is not controlled again until a restart or a reload.
 * @bound_cdev, @n_bound: the cooling devices bound to its thermal zone
 *	when it was taken over (its governor drives them once it is given up).
 * @actors, @n_actors: the actors (owned by the engine, possibly shared).
 * @fallback, @n_fallback: devices bound to the zone without a power model,
 *	driven by the step_wise fallback in every period, active or not (their
 *	states a rebuild carries device by device).
 * @meter: the board's total power meter (the config's power_meter), or
 *	NULL (none, or dropped at a fault until a rebuild); owned.
 */

struct zone_setup {
	char name[64];
	int tz_id;
	char sensor_type[64];
	enum sensor_kind sensor_kind;
	size_t n_inputs;
	struct sensor_input inputs[SENSOR_MAX_INPUTS];
	int32_t sensor_offset_mc;
	int32_t switch_on_mc;
	int32_t control_mc;
	bool always_on;
	bool switch_on_trip;
	struct pid_params pid;
	bool efficiency_division;
	enum sustainable_power_source sp_source;
	char original_policy[64];
	struct sysfs_attr policy;
	bool policy_open;
	char given_up_to[64];
	size_t n_bound;
	int bound_cdev[THERMAL_MAX_BINDINGS];
	size_t n_actors;
	struct actor *actors[ZONE_MAX_ACTORS];
	size_t n_fallback;
	struct fallback_device fallback[ZONE_MAX_FALLBACK];
	struct power_meter *meter;
};

/**
 * struct zone - one controlled thermal zone, its members by lifetime: its
 * setup, built anew by every engine build, and what it remembers, which a
 * rebuild carries whole (engine_adopt.c).
 * @setup: what it is (struct zone_setup).
 * @control: the controller's memory (struct zone_control).
 * @sensing: its readings and their judgement (struct zone_sensing).
 * @learning: its thermal model (struct zone_learning).
 * @period: this cycle's power cap and meter (struct zone_period).
 */
struct zone {
	struct zone_setup setup;
	struct zone_control control;
	struct zone_sensing sensing;
	struct zone_learning learning;
	struct zone_period period;
};

/**
 * zone_read_temp() - read the sensor into zone->sensing.temp_mc (zone_sensor_read():
 * each input, a slow one's latest reading from its thread, combined).  A
 * value outside [ZONE_TEMP_MIN_MC, ZONE_TEMP_MAX_MC] is a fault like a
 * failed read, and so is a slow sensor's reading that is too old, a
 * spike and a stuck sensor (zone_sensor_judge()); a combined sensor fails
 * when none of its inputs reads.  z->sensing.sensor_fault says which.
 * @now_us: the period's time, monotonic µs (a spike is said at most once
 *	in SPIKE_QUIET_MS).
 * Return: 0, or negative errno (-EDOM for a spike, -ESTALE for a stuck
 * sensor; logged once until the sensor reads again, a spike at most once
 * in SPIKE_QUIET_MS, the ones between counted).
 */
int zone_read_temp(struct zone *z, uint64_t now_us);

/**
 * zone_cycle() - one control period for @z, after its actors were sampled
 * and zone_read_temp() succeeded: below switch-on, reset the controller and
 * grant every actor its maximum; otherwise compute the budget and divide it
 * (step_wise: step the states).  Then one step_wise step of the fallback
 * devices.  The grants are left in z->control.grant_mw, the states the zone asks
 * for in z->control.step_state and z->setup.fallback[].state; applying them is the
 * engine's.
 */
void zone_cycle(struct zone *z);

/**
 * zone_cycle_blind() - a period without a temperature, after
 * ZONE_FAULT_PERIODS of them: the budget is zone_blind_power_mw(), divided
 * among the actors as usual, so the zone stays safe until the sensor is back.
 */
void zone_cycle_blind(struct zone *z);

/**
 * zone_holds_saturated() - whether @z's grant holds its actor @i (below
 * n_actors), saturated (busy all the time at the frequency it is given),
 * under its maximum power.
 * A throttled busy CPU asks for what it draws at the OPP it is held at,
 * which its grant covers: it would use more all the same.
 */
bool zone_holds_saturated(const struct zone *z, size_t i);

/**
 * zone_switch_on_text() - @z's switch-on for messages, into @buf: "switch-on
 * 65000 m°C", or "always on (one passive trip)".  Return: @buf.
 */
const char *zone_switch_on_text(const struct zone *z, char *buf, size_t size);

/** zone_sp_source_name() - "config", "sysfs", "estimated" or "rapl": where @z's sustainable power came from. */
const char *zone_sp_source_name(const struct zone *z);

/** zone_sp_source_adjective() - the same for prose: "configured", "device tree's", "estimated", "RAPL long-term". */
const char *zone_sp_source_adjective(const struct zone *z);

/**
 * zone_sp_in_use_source_name() - where the sustainable power the zone's
 * controller runs on (zone_feed_forward_mw()) came from: "learnt" while it
 * runs on its model's, "lowest" in the first approach (zone_first_approach()),
 * else zone_sp_source_name().
 */
const char *zone_sp_in_use_source_name(const struct zone *z);

/**
 * zone_approach_mw() - the feed-forward model_tuning_apply() is given for
 * the first approach, mW: the actors' lowest power @min_mw, but an
 * always-on zone's prior (model_tuning.h).
 */
uint32_t zone_approach_mw(const struct zone *z, uint32_t min_mw);

/**
 * zone_first_approach() - whether @z's default controller feeds forward
 * the actors' lowest power, under its prior, until its model is confident
 * (the first approach, model_tuning.h).
 */
bool zone_first_approach(const struct zone *z);

/** zone_model_state() - what @z's thermal model is worth (enum zone_model_state). */
enum zone_model_state zone_model_state(const struct zone *z);

/** zone_model_state_name() - "learning", "learnt" or "in-use". */
const char *zone_model_state_name(enum zone_model_state s);

/**
 * zone_feed_forward_mw() - the sustainable power the zone's controller
 * runs on (or will at its first active period), mW: the learnt one while
 * the default controller is tuned by its model, the actors' lowest power in
 * the first approach (zone_first_approach()), else the configured
 * (device-tree, estimated) one.
 */
uint32_t zone_feed_forward_mw(const struct zone *z);

/**
 * zone_blind_power_mw() - the budget the blind fallback (zone_cycle_blind())
 * holds the zone to, mW: the learnt sustainable power while the model is
 * in use, else the prior, never the first approach's lowest power (a sensor
 * that fails in the first minute must not pin the zone at its floor).
 * @what: set to what it is, for the journal: "learnt" or
 *	zone_sp_source_adjective().
 */
uint32_t zone_blind_power_mw(const struct zone *z, const char **what);

/**
 * zone_observe_power() - count the power the zone's actors drew since the
 * previous engine cycle (each actor's request: what it uses now, from its
 * table and load) towards the model's next sample.  Every cycle, due or not.
 * @z: the zone.
 * @now_us: this engine cycle's time, monotonic µs.
 */
void zone_observe_power(struct zone *z, uint64_t now_us);

/**
 * zone_mean_power_mw() - the mean power the zone's actors drew since its
 * model's last sample (its previous reading), mW (zone_observe_power()).
 */
uint32_t zone_mean_power_mw(const struct zone *z);

/**
 * zone_observe() - the zone's period for its model: this reading with the
 * mean power since the previous one (@have_temp), or, without a reading, a
 * break in its samples.
 */
void zone_observe(struct zone *z, bool have_temp);

/**
 * zone_model_departs() - whether the model is confident (at least
 * ZONE_MODEL_CONFIDENT) that the sustainable power departs from the zone's
 * by more than ZONE_MODEL_DEPARTS_PCT; *@pct: by how much, percent.
 */
bool zone_model_departs(const struct zone *z, int *pct);

/** zone_fallback_engaged() - whether a fallback device is asked for a state above 0. */
bool zone_fallback_engaged(const struct zone *z);

/** zone_has_actor() - whether @a is one of @z's actors. */
bool zone_has_actor(const struct zone *z, const struct actor *a);

/** zone_estimate_sustainable_power() - sum of the actors' lowest powers, mW (the kernel's estimate). */
uint32_t zone_estimate_sustainable_power(const struct zone *z);

/**
 * zone_headroom() - how close @z comes to throttling @forecast_s seconds from
 * now at its actors' power now (the sum of their requests), by its thermal
 * model (thermal_model_predict_mc()): the predicted temperature as a
 * fraction, 0 at switch-on, 1 at control, negative below switch-on, above
 * 1 beyond control (Android's thermal headroom).
 */
double zone_headroom(const struct zone *z, double forecast_s);
