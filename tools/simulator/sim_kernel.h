/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The simulated kernel's thermal core at the trips: when it updates a zone
 * (the sensor's alarm interrupt at a trip, or its poll) and which trip
 * events it then sends, with the hysteresis of drivers/thermal/
 * thermal_core.c's handle_thermal_trip() (Linux 6.9 on).  Pure: no I/O.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_KERNEL_MAX_TRIPS 8

/*
 * How the sensor's driver wakes the thermal core between polls: not at all
 * (mtk_thermal: the core sees a crossing at its next poll), on a rising
 * crossing of the next trip (rockchip_thermal's set_trips() programs only
 * the high alarm), or both ways (exynos_tmu).
 */
enum sim_alarm {
	SIM_ALARM_NONE,
	SIM_ALARM_RISING,
	SIM_ALARM_BOTH,
};

/**
 * struct sim_kernel_params - how the kernel updates the simulated zones.
 * @alarm: the sensor's alarm interrupt (enum sim_alarm).
 * @polling_delay_ms: the device tree's polling-delay, 0: no poll.
 * @passive_delay_ms: its polling-delay-passive, used while a passive trip
 *	is crossed; 0: @polling_delay_ms then too.
 */
struct sim_kernel_params {
	enum sim_alarm alarm;
	int polling_delay_ms;
	int passive_delay_ms;
};

/* One trip: the tree's temperature and hysteresis, and the core's threshold. */
struct sim_trip {
	int32_t temp_mc;
	int32_t hyst_mc;
	bool passive;
	int32_t threshold_mc;	/* temp_mc, or temp_mc - hyst_mc while crossed */
};

/**
 * struct sim_tz - one thermal zone as the core keeps it.
 * @id: N of thermal_zoneN.
 * @trips: its valid trips (a trip at 0 m°C or under is unset and left out).
 * @passive: passive trips crossed now.
 * @last_mc: the reading at the last update.
 * @next_poll_ms: the next poll on the plant's clock, -1: none.
 */
struct sim_tz {
	int id;
	size_t n_trips;
	struct sim_trip trips[SIM_KERNEL_MAX_TRIPS];
	int trip_ids[SIM_KERNEL_MAX_TRIPS];	/* trip_point_K of each */
	int passive;
	int32_t last_mc;
	long next_poll_ms;
};

/* A trip event as thermal_notify_tz_trip_up() / _down() sends it. */
struct sim_trip_event {
	int tz_id;
	int trip_id;
	bool up;
	int32_t temp_mc;	/* the zone's temperature at the update */
};

/**
 * sim_tz_add_trip() - trip_point_@trip_id of the zone: @temp_mc, @hyst_mc,
 * passive or not.  Trips at 0 m°C or under (unset) and those past
 * SIM_KERNEL_MAX_TRIPS are left out.
 */
void sim_tz_add_trip(struct sim_tz *tz, int trip_id, int32_t temp_mc, int32_t hyst_mc,
		     bool passive);

/**
 * sim_tz_start() - the zone as the kernel has kept it up to now, @temp_mc
 * at @now_ms: the trips under it crossed long ago (their events went before
 * anyone listened), the next poll one delay on.
 */
void sim_tz_start(struct sim_tz *tz, const struct sim_kernel_params *k, int32_t temp_mc,
		  long now_ms);

/**
 * sim_tz_step() - the sensor reads @temp_mc at @now_ms: where the alarm or
 * the poll makes the core update the zone, the trip events of that update
 * into @ev (room for SIM_KERNEL_MAX_TRIPS), the trips crossed down first,
 * highest first, then those crossed up, lowest first, as the core sends
 * them.
 * Return: how many events.
 */
size_t sim_tz_step(struct sim_tz *tz, const struct sim_kernel_params *k, int32_t temp_mc,
		   long now_ms, struct sim_trip_event *ev);
