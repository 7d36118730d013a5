/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * powerallocctl's view of the daemon: what it reads from the D-Bus
 * interface (ctl/ctl_read.c), and the exit codes a failed call gives.
 */
#include <stdint.h>
#include <stdio.h>
#include <systemd/sd-bus.h>

#define BUS_NAME "org.powerallocd1"
#define BUS_PATH "/org/powerallocd1"
#define MAX_OBJECTS 256
/* The headroom status shows ahead of now, s. */
#define HEADROOM_AHEAD_S 10

/* Exit codes, as powerallocctl(1) lists them. */
#define EXIT_OK 0
#define EXIT_ERROR 1
#define EXIT_USAGE 2
#define EXIT_NOT_RUNNING 3
#define EXIT_DENIED 4

/* One actor's properties (org.powerallocd1.Actor): powers in mW, load in
 * percent, frequency in kHz; its power meter (@meter_state: none, waiting,
 * reading or dropped, @meter_fault why) and its table's calibration. */
struct actor_view {
	char *name, *kind, *cpus, *reason;
	char *meter, *meter_state, *meter_fault;
	uint32_t requested, granted, max, load, freq, state, max_state, write_errors;
	uint32_t external_writes;
	uint32_t measured;			/* mW, while meter_state is "reading" */
	uint32_t table;				/* mW: its table's, uncalibrated (0: none) */
	int yielded;
	int calibrating;			/* its table is calibrated from its meter */
	double weight;
	double power_scale, power_scale_offset, power_scale_confidence;	/* -, mW, 0-1 */
};

/*
 * One zone's properties (org.powerallocd1.Zone): temperatures in m°C, powers
 * (margin excepted: m°C) in mW.  @sustainable is the given one (configured,
 * device tree's or estimated, as @sp_source says), @in_use what the
 * controller runs on (@in_use_source: "learnt" or the same); @model_state:
 * "learning", "learnt" or "in-use".
 */
struct zone_view {
	char *name, *sensor, *reason, *sp_source, *in_use_source, *model_state;
	char *fault;				/* SensorFault: none, spike, stuck, ... */
	char *given_up_to;			/* another writer's governor; "": controlled */
	int32_t temp, switch_on, control;
	uint32_t margin, sustainable, in_use, budget, learned;
	uint64_t throttled_us;
	int64_t p, i, d;			/* the controller's terms, mW */
	double time_constant, confidence;	/* the thermal model's, s and 0-1 */
	double headroom, headroom_ahead;	/* now and HEADROOM_AHEAD_S ahead; NAN: unknown */
	int active;
	int always_on;				/* no switch-on: one passive trip */
	size_t n_actors;
	struct actor_view actors[MAX_OBJECTS];
	size_t n_fallback;			/* devices on the step_wise fallback */
	struct actor_view fallback[MAX_OBJECTS];
};

/**
 * struct snapshot - everything the daemon shows, read at once.
 * @limit_mw: the power limit, 0: none; @limit_expires_us: CLOCK_MONOTONIC.
 */
struct snapshot {
	char *version, *state, *limit_unmet;
	uint32_t limit_mw;
	uint64_t limit_expires_us;
	size_t n_zones;
	struct zone_view *zones;
};

/* Where errors go: stderr, or a buffer while monitor holds the screen. */
extern FILE *ctl_errors;
/* The bus the calls go over, to ask whether the daemon is still on it. */
extern sd_bus *ctl_bus;

/**
 * ctl_failure_exit() - say why a call failed (to ctl_errors) and return the
 * exit code: EXIT_NOT_RUNNING, EXIT_DENIED or EXIT_ERROR.
 */
int ctl_failure_exit(const sd_bus_error *e, int r);

/**
 * ctl_read_snapshot() - read @s: every zone, or with @only (a NULL-terminated
 * list of zone names) only those, in the daemon's order.  Return: EXIT_OK or
 * an exit code (said): EXIT_USAGE when a name of @only is no zone's.
 */
int ctl_read_snapshot(sd_bus *bus, struct snapshot *s, char *const *only);

/**
 * ctl_read_max_power() - what every power actor together can draw at most,
 * mW, into *@max_mw (each actor counted once, however many zones hold it).
 * Return: EXIT_OK or an exit code (said).
 */
int ctl_read_max_power(sd_bus *bus, uint64_t *max_mw);

/** ctl_free_snapshot() - what ctl_read_snapshot() allocated. */
void ctl_free_snapshot(struct snapshot *s);
