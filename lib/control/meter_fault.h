/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Power meters that lie: what a reading of a meter (a rail monitor's
 * instantaneous power in µW, or a cumulative energy counter in µJ) means,
 * and the faults that make it worthless.  Pure computation (no I/O, no
 * clock): lib/platform/meter.c reads the files and feeds each value here
 * with the caller's monotonic time in µs (µs, not ms: a period's length
 * truncated to ms would be up to 1 % off a 100 ms period's).
 *
 * A meter stops when the machine says it should have moved and it did not:
 * a power that holds one exact value while the actor's modelled power (its
 * table's figure for its state and load, the caller's @model_mw) has moved
 * from where it was when the value last changed, or an energy counter that
 * does not count while the model says the actor draws.  A steady value
 * under a steady model (a cluster never throttled under a steady load, a
 * coarse meter within one step) is a steady power, not a stopped meter.
 * A power's model is judged by its mean over METER_MODEL_TAU_US (1 s), from
 * where that mean was when the value last changed, once it has been fed
 * for METER_MODEL_SETTLE_US (3 s: a burst in one period, the first period
 * after a start or a resume with no load sampled yet, is no load).  It has moved when it is
 * more than METER_MOVE_PCT (25 %) of the larger power, METER_MOVE_MIN_MW
 * (50 mW) and METER_MOVE_STEPS (2) of the meter's steps away (a step: the
 * smallest change it has shown, µW, at most its resolution; a power's
 * change of more than METER_STEP_MAX_PCT (50 %) is a load's move, not a
 * step; none before it has changed): a quarter is beyond a steady load's noise and about one
 * OPP's step, and two steps leave the meter's step even where the silicon
 * draws half its table.  What counts
 * towards a stop is the time the model was moved (an energy counter: was
 * drawing, and owed METER_MOVE_STEPS of its steps by the model's energy)
 * since the value last changed, each read counting at most its time
 * constant or the meter's sample period (a zone idle in between did not
 * read it): METER_STOP_US (3 s) or METER_STOP_SAMPLES
 * (3) of the meter's sample periods, whichever is longer, over
 * METER_STOP_MIN_READS reads at least: time, not reads, so that a short
 * period (10 ms) does not drop a healthy meter that refreshes once a
 * second, nor a long update_interval (an INA226's, over 3 s) one read
 * every 100 ms.  3 s is three times the slowest refresh of the meters read
 * without an update_interval (SCMI/SCPI sensors update about once a
 * second, RAPL every ms), so a dead meter is dropped within seconds of a
 * change the machine made.  A meter jumps when it says more than the most the
 * caller finds plausible (METER_JUMP_FACTOR times the actor's table maximum)
 * or a negative power.  An energy counter that goes backwards wrapped: that
 * is expected only where it has a range (max_energy_range_uj) and the wrap
 * is near it (the energy through the wrap is no more than the plausible
 * most in the time since the last read); any other step back is a fault.
 */
#include <stdbool.h>
#include <stdint.h>

/* A power's change of more than this share of the larger value is no step of its meter, percent. */
#define METER_STEP_MAX_PCT 50
/* The model moved: by more than this share of the larger power, percent... */
#define METER_MOVE_PCT 25
/* ...and by more than this, mW... */
#define METER_MOVE_MIN_MW 50
/* ...and by more than this many of the meter's steps (an energy counter: owed them). */
#define METER_MOVE_STEPS 2
/* The time constant of the model's mean the meter is judged against, µs. */
#define METER_MODEL_TAU_US 1000000
/* How long the mean is fed before it is judged from: 95 % of the way to a step, µs. */
#define METER_MODEL_SETTLE_US (3 * METER_MODEL_TAU_US)
/* A model_mw for a read whose model is not known yet (the load not sampled): not judged. */
#define METER_MODEL_UNKNOWN UINT32_MAX
/* How long a value held while the model moved (an energy counter: drew) is stopped, µs... */
#define METER_STOP_US 3000000
/* ...or this many of the meter's sample periods, where that is longer... */
#define METER_STOP_SAMPLES 3
/* ...and over at least this many of those reads (a long period: not one read). */
#define METER_STOP_MIN_READS 3
/* A meter above this many times the actor's table maximum has jumped. */
#define METER_JUMP_FACTOR 10

/**
 * enum meter_fault - why a meter is dropped.
 * @METER_OK: none.
 * @METER_VANISHED: its file is gone (the device was removed).
 * @METER_UNREADABLE: its file is there but its read failed.
 * @METER_STOPPED: it did not move where the model did (METER_STOP_US).
 * @METER_JUMP: a power beyond the plausible most, or negative.
 * @METER_BACKWARDS: an energy counter went back where no wrap was due.
 */
enum meter_fault {
	METER_OK,
	METER_VANISHED,
	METER_UNREADABLE,
	METER_STOPPED,
	METER_JUMP,
	METER_BACKWARDS,
};

/** meter_fault_name() - "vanished", "unreadable", "stopped", "jumped", "went backwards". */
const char *meter_fault_name(enum meter_fault fault);

/**
 * energy_delta() - the energy counted between readings @prev and @cur of a
 * counter that wraps after @range (µJ): @cur - @prev, or through the wrap.
 */
uint64_t energy_delta(uint64_t prev, uint64_t cur, uint64_t range);

/**
 * struct meter_track - what one meter's readings showed so far.
 * @energy: a cumulative counter in µJ (else an instantaneous power in µW).
 * @range_uj: where the counter wraps, µJ; 0 for a counter that never should.
 * @max_mw: the most a reading may say, mW; 0 for no bound.
 * @sample_us: how often its reading changes, µs (struct power_meter's
 *	sample_ms); 0 where none is given.
 * @have_last, @last_value: the last value that counted (µJ or µW).
 * @last_us: when an energy counter's last value that counted was read, µs.
 * @step: the smallest change between two values it showed (µW or µJ), at
 *	most its resolution; 0 before it has changed.
 * @read_us: when it was last read, moved or not, µs.
 * @model_mean_uw, @model_fed_us: a power meter's model's mean over about
 *	METER_MODEL_TAU_US (µW), fed at each read (@read_us), and for how long
 *	it has been fed without a gap (µs; 0: not fed).
 * @base_model_mw, @base_known: the model's mean when the value last
 *	changed, mW, once it had settled (fed for METER_MODEL_SETTLE_US).
 * @same: reads since the value last changed that count towards a stop
 *	(the model moved from @base_model_mw; an energy counter: it drew).
 * @still_us: the time those reads cover, µs.
 * @owed_uj: an energy counter's: the model's energy over @still_us, µJ.
 */
struct meter_track {
	bool energy;
	uint64_t range_uj;
	uint32_t max_mw;
	uint64_t sample_us;
	bool have_last;
	int64_t last_value;
	uint64_t last_us;
	uint64_t step;
	uint64_t read_us;
	uint64_t model_mean_uw;
	uint64_t model_fed_us;
	uint32_t base_model_mw;
	bool base_known;
	unsigned int same;
	uint64_t still_us;
	uint64_t owed_uj;
};

/**
 * meter_track_step() - one raw reading @value of the meter (µJ or µW, as
 * read: signed, so that a negative power shows) at @now_us; @model_mw: the
 * actor's modelled power now, mW (0: it draws nothing by its model, and a
 * caller without a model passes 0: the meter is then never stopped;
 * METER_MODEL_UNKNOWN: not known this read, which is not judged).  An
 * energy counter gives the mean power since the last value it moved from
 * (so a counter slower than the period averages over its own steps); a
 * power meter gives @value.
 * Return: 1 with the power in *@power_mw, 0 when there is none yet (the
 * first energy value, or one that has not moved), or minus an enum
 * meter_fault (METER_STOPPED, METER_JUMP, METER_BACKWARDS); after a jump or
 * a step back, the next energy reading counts from the value that faulted.
 */
int meter_track_step(struct meter_track *t, int64_t value, uint64_t now_us, uint32_t model_mw,
		     uint32_t *power_mw);
