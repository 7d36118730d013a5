/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sim_kernel.h"

void sim_tz_add_trip(struct sim_tz *tz, int trip_id, int32_t temp_mc, int32_t hyst_mc,
		     bool passive)
{
	if (temp_mc <= 0 || tz->n_trips >= SIM_KERNEL_MAX_TRIPS)
		return;
	tz->trip_ids[tz->n_trips] = trip_id;
	tz->trips[tz->n_trips++] = (struct sim_trip){ .temp_mc = temp_mc,
		.hyst_mc = hyst_mc > 0 ? hyst_mc : 0, .passive = passive,
		.threshold_mc = temp_mc };
}

/* monitor_thermal_zone(): the passive delay while a passive trip is crossed, else the poll's. */
static long next_poll(const struct sim_tz *tz, const struct sim_kernel_params *k, long now_ms)
{
	if (tz->passive > 0 && k->passive_delay_ms > 0)
		return now_ms + k->passive_delay_ms;
	return k->polling_delay_ms > 0 ? now_ms + k->polling_delay_ms : -1;
}

void sim_tz_start(struct sim_tz *tz, const struct sim_kernel_params *k, int32_t temp_mc,
		  long now_ms)
{
	tz->passive = 0;
	for (size_t i = 0; i < tz->n_trips; i++) {
		struct sim_trip *t = &tz->trips[i];
		bool crossed = temp_mc >= t->temp_mc;

		t->threshold_mc = crossed ? t->temp_mc - t->hyst_mc : t->temp_mc;
		tz->passive += crossed && t->passive;
	}
	tz->last_mc = temp_mc;
	tz->next_poll_ms = next_poll(tz, k, now_ms);
}

/*
 * Whether the sensor's alarm fires at @temp_mc: set_trips() programmed it
 * at the lowest threshold over the last reading (a trip not crossed) and,
 * with SIM_ALARM_BOTH, at the highest under it (a crossed trip's low end).
 */
static bool alarm_fires(const struct sim_tz *tz, const struct sim_kernel_params *k,
			int32_t temp_mc)
{
	for (size_t i = 0; i < tz->n_trips; i++) {
		const struct sim_trip *t = &tz->trips[i];
		bool crossed = tz->last_mc >= t->threshold_mc;

		if (k->alarm != SIM_ALARM_NONE && !crossed && temp_mc >= t->threshold_mc)
			return true;
		if (k->alarm == SIM_ALARM_BOTH && crossed && temp_mc < t->threshold_mc)
			return true;
	}
	return false;
}

/* Into @ev[0..n), ordered: downs before ups, downs highest first, ups lowest first. */
static size_t insert(struct sim_trip_event *ev, size_t n, struct sim_trip_event e)
{
	size_t at = n;

	while (at > 0 && (ev[at - 1].up > e.up || (ev[at - 1].up == e.up &&
	       (e.up ? ev[at - 1].temp_mc > e.temp_mc : ev[at - 1].temp_mc < e.temp_mc)))) {
		ev[at] = ev[at - 1];
		at--;
	}
	ev[at] = e;
	return n + 1;
}

/*
 * handle_thermal_trip() for every trip: a crossed trip (the last reading
 * at or over its threshold) goes down under its temperature minus its
 * hysteresis, one not crossed goes up at its temperature.  The event
 * carries the zone's temperature; @order holds the trip's notify
 * temperature (the trip's, or its low end going down) to sort by.
 */
static size_t update(struct sim_tz *tz, int32_t temp_mc, struct sim_trip_event *ev)
{
	struct sim_trip_event order[SIM_KERNEL_MAX_TRIPS];
	size_t n = 0;

	for (size_t i = 0; i < tz->n_trips; i++) {
		struct sim_trip *t = &tz->trips[i];
		int32_t old_threshold_mc = t->threshold_mc;

		t->threshold_mc = t->temp_mc;
		if (tz->last_mc >= old_threshold_mc) {
			if (temp_mc < t->temp_mc - t->hyst_mc) {
				n = insert(order, n, (struct sim_trip_event){ tz->id,
					   tz->trip_ids[i], false, t->temp_mc - t->hyst_mc });
				tz->passive -= t->passive;
			} else {
				t->threshold_mc -= t->hyst_mc;
			}
		} else if (temp_mc >= t->temp_mc) {
			n = insert(order, n, (struct sim_trip_event){ tz->id, tz->trip_ids[i], true,
				   t->temp_mc });
			t->threshold_mc -= t->hyst_mc;
			tz->passive += t->passive;
		}
	}
	for (size_t i = 0; i < n; i++) {
		ev[i] = order[i];
		ev[i].temp_mc = temp_mc;
	}
	tz->last_mc = temp_mc;
	return n;
}

size_t sim_tz_step(struct sim_tz *tz, const struct sim_kernel_params *k, int32_t temp_mc,
		   long now_ms, struct sim_trip_event *ev)
{
	bool polled = tz->next_poll_ms >= 0 && now_ms >= tz->next_poll_ms;
	size_t n;

	if (!polled && !alarm_fires(tz, k, temp_mc))
		return 0;
	n = update(tz, temp_mc, ev);
	/* Each update, polled or not, sets the poll's timer again. */
	tz->next_poll_ms = next_poll(tz, k, now_ms);
	return n;
}
