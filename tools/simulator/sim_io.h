/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The simulator's side of the fake tree: building it, the daemon's config,
 * the files written every step and the cooling states read back, and the
 * daemon process itself.
 */
#include <libconfig.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "board.h"
#include "plant.h"
#include "plant_vary.h"
#include "sensor_model.h"
#include "sim_kernel.h"
#include "sim_meters.h"

#define SIM_MAX_CPUS 64
#define SIM_MAX_SENSORS 8

/* Faults the simulator can inject halfway through a run (tools/sim --fault). */
enum sim_fault {
	FAULT_NONE,
	FAULT_SENSOR_EIO,	/* the sensor fails with EIO for 2 s */
	FAULT_SPIKE,		/* one 150 °C reading */
	FAULT_CDEV_VANISH,	/* a cooling device fails with ENODEV for 5 s, then is back */
	FAULT_CPU_OFFLINE,	/* CPU 5 offline for 5 s, then online */
	FAULT_RELOAD_GARBAGE,	/* a garbage config and SIGHUP */
	FAULT_SIGKILL,		/* SIGKILL, then powerallocd --restore; the run ends */
};

/* Where the daemon's sustainable power comes from (tools/sim --sustainable-power). */
enum sim_sp {
	SIM_SP_FACTOR,		/* configured: a factor times the plant's true value */
	SIM_SP_NONE,		/* nowhere: the daemon estimates it */
	SIM_SP_TREE,		/* the tree's zone, as the device tree sets it */
};

/*
 * The budget's bands for the limit-cycle detector, as fractions of the
 * actors' maximum: a swing is the budget going from one band to the other.
 */
#define SIM_BUDGET_LOW 0.15
#define SIM_BUDGET_HIGH 0.85

/* The daemon's control period in simulated time, ms (divided by the speed in its config). */
#define SIM_PERIOD_MS 100

struct sim {
	const struct board *board;
	struct thermal_params thermal;
	double switch_on_c;
	double control_c;
	char dir[256];			/* the tree (UMOCKDEV_DIR) and the daemon's files */
	char tree_name[64];
	char gpu_device[64];
	char sensor[64];
	int sensor_fd[SIM_MAX_SENSORS];
	size_t n_sensors;
	int stat_fd;
	double busy_ticks[SIM_MAX_CPUS];
	double idle_ticks[SIM_MAX_CPUS];
	unsigned int n_cpus;
	int freq_fd[PLANT_MAX_DOMAINS];	/* scaling_cur_freq, or the GPU's cur_freq */
	int load_fd[PLANT_MAX_DOMAINS];	/* the GPU's devfreq load, -1 for CPUs */
	int state_fd[PLANT_MAX_DOMAINS];	/* cooling_deviceN/cur_state */
	int fan_cdev;			/* the modelled fan's cooling device, -1: none */
	int fan_fd;			/* its cur_state */
	unsigned long fan_highest;	/* the deepest state it was put in */
	pid_t daemon;
	int daemon_status;
	bool daemon_done;
	int trace_fd;
	long budget_mw;
	double max_budget_mw;		/* every actor at its top OPP, the tables' mW */
	bool trace_settled;		/* count swings in the rows read from now on */
	int budget_band;		/* -1 low, 1 high, 0 neither yet */
	unsigned int budget_swings;	/* low to high or back, settled rows */
	struct sensor_model sensor_model;	/* what the sensor reports */
	double sustainable_w;		/* the plant's true one at the daemon's control */
	int daemon_control_mc;
	char trace_tail[1024];		/* a row not yet complete at the last read (sim_trace.c) */
	long trace_last_ms;		/* the daemon's clock, ms */
	struct timespec first_row_seen;	/* when the first row was read (CLOCK_MONOTONIC) */
	double plant_start_daemon_ms;	/* the daemon's clock at the plant's 0, -1: unknown */
	bool trace_last_active;
	long first_active_mc;		/* the sensor at the first active period, 0: none yet */
	long first_active_daemon_ms;	/* its time on the daemon's clock */
	int sp_col, confidence_col;	/* learned_sp_mw, model_confidence in the trace, -1: none */
	long first_model_sp_mw;		/* the model's at the first active period, -1: unknown */
	double first_model_confidence;	/* likewise, 0-1 */
	long trace_max_gap_ms;		/* longest gap between two active periods */
	double max_lag_s;		/* furthest the plant fell behind the clock, simulated s */
	const char *powerallocd;
	const char *state_dir;		/* its --state-directory, NULL: the tree */
	enum sim_fault fault;
	double fault_at_s;
	bool spike_now;		/* write 150 °C this step */
	bool cpu5_offline;
	bool killed;		/* the daemon was SIGKILLed and --restore run */
	bool reloaded;		/* the garbage reload was sent */
	bool rule_on;		/* the shim's fault rule is in place */
	int restore_status;
	/* The simulated kernel's trip events (sim_events.c). */
	struct sim_kernel_params kernel;	/* the description's kernel = { ... } */
	struct sim_tz tz[SIM_MAX_SENSORS];	/* the tree's zones, as the core keeps them */
	int daemon_tz;			/* the zone the daemon reads, -1: none */
	bool trip_events;		/* sent (--no-trip-events: not) */
	int event_fd;			/* our end of the daemon's netlink, -1: none */
	long sensor_mc;			/* the reading written last */
	long last_sensor_mc;		/* the one before */
	unsigned long events_sent;
	unsigned long events_lost;	/* the daemon's socket full */
	long switch_on_crossed_ms;	/* the sensor first crossed switch-on, -1: not */
	long switch_on_event_ms;	/* the daemon's zone's first event since, -1: none */
	struct sim_meters meters;	/* the plant's power meters (sim_meters.c) */
};

/** sim_fault_parse() - "sensor-eio", "spike", ... Return: 0 or -1. */
int sim_fault_parse(const char *name, enum sim_fault *f);

/** sim_fault_name() - the name of @f. */
const char *sim_fault_name(enum sim_fault f);

/** sim_fault_needs_shim() - whether @f is made by the fault shim (sim_preload.h). */
bool sim_fault_needs_shim(enum sim_fault f);

/** sim_apply_fault() - start, hold or end the run's fault at simulated time @t_s. */
void sim_apply_fault(struct sim *sim, double t_s);

/**
 * struct sim_settings - how the daemon is run.
 * @controller, @division: the zone's controller and division.
 * @zone_keys: more keys for the zone, config syntax ("k_po = 300;"), or NULL.
 * @trip_offset_mc: the daemon's control temperature minus the description's,
 *	m°C, negative under it (the plant and the measurements keep the
 *	description's).
 * @speed: simulated seconds per real second (the period is scaled by it).
 * @powerallocd: the daemon's path.
 * @state_dir: its --state-directory, NULL for the run's tree.
 * @vary: changes to the description's thermal model.
 * @sp, @sp_factor: the daemon's sustainable power.
 * @sensor_step_c, @sensor_noise_c, @seed: the sensor (sensor_model.h).
 * @trip_events: send the kernel's trip events (sim_events.c).
 * @meters: the plant's meters as the command line changes the description's.
 */
struct sim_settings {
	const char *controller;
	const char *division;
	const char *zone_keys;
	int trip_offset_mc;
	double speed;
	const char *powerallocd;
	const char *state_dir;
	const struct plant_variation *vary;
	enum sim_sp sp;
	double sp_factor;
	double sensor_step_c;
	double sensor_noise_c;
	uint64_t seed;
	bool trip_events;
	const struct sim_meter_options *meters;
};

/** sim_setup() - read the description, build the tree, write the daemon's config. */
int sim_setup(struct sim *sim, const char *description, const struct sim_settings *set);

/** sim_write_outputs() - temperature, /proc/stat (@dt_s of time), frequencies, GPU load. */
void sim_write_outputs(struct sim *sim, const struct plant *pl, double dt_s);

/** sim_read_state() - a cooling state from @fd, or @fallback when it cannot be read. */
unsigned long sim_read_state(int fd, unsigned long fallback);

/** sim_read_states() - the cooling states the daemon wrote, into the plant. */
void sim_read_states(struct sim *sim, struct plant *pl);

/**
 * sim_read_trace() - read the daemon's trace rows written since the last
 * call: keeps the zone's latest budget and the longest gap between two
 * consecutive active periods (trace_max_gap_ms, daemon ms), and, once
 * trace_settled is set, counts the budget's swings between the bands
 * SIM_BUDGET_LOW and SIM_BUDGET_HIGH of max_budget_mw in active periods.
 * budget_mw stays -1 until the trace has a row.
 */
void sim_read_trace(struct sim *sim);

/**
 * sim_trace_add_plant_clock() - give the trace in the tree a last column,
 * sim_time_ms: each row's time on the plant's clock, (time_ms -
 * plant_start_daemon_ms) x @speed, rounded to the ms (negative before the
 * plant started), so that tools/plot-trace draws a kept trace in simulated
 * seconds.  To within the 5 ms the simulator takes to see the first row,
 * times @speed, while the simulator keeps pace (its longest lag).  Run it
 * once the daemon has stopped.
 * Return: 0, or -1 (said on stderr) when plant_start_daemon_ms is unknown
 * or the trace cannot be rewritten.
 */
int sim_trace_add_plant_clock(const struct sim *sim, double speed);

/** sim_start_daemon() - run powerallocd under umockdev-wrapper on the tree. */
int sim_start_daemon(struct sim *sim);

/**
 * sim_check_config() - print the daemon's powerallocd.conf for this run, then
 * run powerallocd --check-config with it on the tree, its output on ours.
 * Return: the daemon's exit status, or -1 when it could not be run.
 */
int sim_check_config(const struct sim *sim);

/** sim_daemon_exited() - whether the daemon is gone (it should not be). */
bool sim_daemon_exited(struct sim *sim);

/**
 * sim_stop_daemon() - SIGTERM, wait, and check that every cooling state is
 * back to 0 and the zone's policy back to the tree's.
 * Return: whether it exited 0 and restored everything.
 */
int sim_stop_daemon(struct sim *sim);

/**
 * sim_wait_first_period() - wait, in real time and up to @timeout_s, until
 * the daemon has traced its first period: the plant's clock starts with a
 * daemon that runs, however long the machine took to start it.
 * Return: 0, or -1 when it exited or did not run in time.
 */
int sim_wait_first_period(struct sim *sim, double timeout_s);

/*
 * A limit cycle: in the second half, the budget went between the bottom and
 * the top of its range at least every SIM_LIMIT_CYCLE_SWING_S on average,
 * SIM_LIMIT_CYCLE_MIN_SWINGS times or more.  A 10 s burst load moves it at
 * most twice in 10 s; the cycles this catches are 1-2 s long.
 */
#define SIM_LIMIT_CYCLE_SWING_S 2.5
#define SIM_LIMIT_CYCLE_MIN_SWINGS 4

/** sim_limit_cycle() - whether the swings counted over @settled_s make a limit cycle. */
bool sim_limit_cycle(const struct sim *sim, double settled_s);

/**
 * sim_daemon_sustainable() - the sustainable power the daemon says it uses,
 * from its log ("N mW (source)"), into @buf; "?" when it says none.
 */
void sim_daemon_sustainable(const struct sim *sim, char *buf, size_t size);

/**
 * sim_events_read_description() - the description's kernel = { alarm =
 * "none"|"rising"|"both"; polling_delay_ms = N; passive_delay_ms = N; }
 * into @k, each defaulting to rising, 1000 and 100.  Return: 0 or -1.
 */
int sim_events_read_description(config_t *cfg, struct sim_kernel_params *k);

/** sim_alarm_name() - "none", "rising" or "both". */
const char *sim_alarm_name(enum sim_alarm a);

/** sim_events_setup() - the tree's zones and trips, the daemon's zone among them. */
int sim_events_setup(struct sim *sim);

/** sim_events_start() - the zones as the kernel kept them, at the reading written at @now_ms. */
void sim_events_start(struct sim *sim, long now_ms);

/**
 * sim_events_step() - after the reading of @now_ms (plant ms) is written:
 * the kernel's update of each zone where it makes one, its trip events
 * sent to the daemon; notes when the sensor first crossed switch-on and
 * when the daemon's zone's first event came after.
 */
void sim_events_step(struct sim *sim, long now_ms);

/** sim_cleanup() - close files and remove the tree. */
void sim_cleanup(struct sim *sim);
