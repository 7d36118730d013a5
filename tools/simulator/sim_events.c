/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The simulated kernel's thermal netlink trip events: the tree's zones and
 * their trips, updated each step as the kernel's thermal core would
 * (sim_kernel.c), and each event sent to the daemon as a generic netlink
 * message built as thermal_genl_send_event() builds it.
 */
#include <errno.h>
#include <libconfig.h>
#include <linux/thermal.h>
#include <math.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "sim_io.h"
#include "sim_netlink.h"

static const char *const alarm_names[] = { "none", "rising", "both" };

int sim_events_read_description(config_t *cfg, struct sim_kernel_params *k)
{
	const char *alarm = "rising";
	int polling_ms = 1000, passive_ms = 100;

	config_lookup_string(cfg, "kernel.alarm", &alarm);
	config_lookup_int(cfg, "kernel.polling_delay_ms", &polling_ms);
	config_lookup_int(cfg, "kernel.passive_delay_ms", &passive_ms);
	for (size_t i = 0; i < sizeof(alarm_names) / sizeof(alarm_names[0]); i++)
		if (strcmp(alarm, alarm_names[i]) == 0)
			k->alarm = (enum sim_alarm)i;
	if (strcmp(alarm, alarm_names[k->alarm]) != 0 || polling_ms < 0 || passive_ms < 0) {
		fprintf(stderr, "simulation description: kernel.alarm is none, rising or both, "
			"kernel.polling_delay_ms and passive_delay_ms 0 or more\n");
		return -1;
	}
	k->polling_delay_ms = polling_ms;
	k->passive_delay_ms = passive_ms;
	return 0;
}

const char *sim_alarm_name(enum sim_alarm a)
{
	return alarm_names[a];
}

/* The first line of zone @z's file @name into @buf, without its newline; "" when unreadable. */
static void tree_line(const struct sim *sim, size_t z, const char *name, char *buf, size_t size)
{
	char path[600];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/sys/devices/virtual/thermal/thermal_zone%zu/%s", sim->dir,
		 z, name);
	f = fopen(path, "re");
	if (!f)
		return;
	if (!fgets(buf, (int)size, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

/* A number from zone @z's file @name, or @fallback. */
static long tree_number(const struct sim *sim, size_t z, const char *name, long fallback)
{
	char buf[64];

	tree_line(sim, z, name, buf, sizeof(buf));
	return buf[0] ? strtol(buf, NULL, 10) : fallback;
}

/* Whether zone @z's file @name says @text. */
static bool tree_says(const struct sim *sim, size_t z, const char *name, const char *text)
{
	char buf[64];

	tree_line(sim, z, name, buf, sizeof(buf));
	return strcmp(buf, text) == 0;
}

int sim_events_setup(struct sim *sim)
{
	sim->daemon_tz = -1;
	sim->switch_on_crossed_ms = sim->switch_on_event_ms = -1;
	for (size_t z = 0; z < sim->n_sensors; z++) {
		struct sim_tz *tz = &sim->tz[z];

		memset(tz, 0, sizeof(*tz));
		tz->id = (int)z;
		for (int k = 0;; k++) {
			char name[64];
			long temp_mc, hyst_mc;

			snprintf(name, sizeof(name), "trip_point_%d_temp", k);
			if ((temp_mc = tree_number(sim, z, name, -1)) < 0)
				break;
			snprintf(name, sizeof(name), "trip_point_%d_hyst", k);
			hyst_mc = tree_number(sim, z, name, 0);
			snprintf(name, sizeof(name), "trip_point_%d_type", k);
			sim_tz_add_trip(tz, k, (int32_t)temp_mc, (int32_t)hyst_mc,
					tree_says(sim, z, name, "passive"));
		}
		if (sim->daemon_tz < 0 && tree_says(sim, z, "type", sim->sensor))
			sim->daemon_tz = (int)z;
	}
	return 0;
}

void sim_events_start(struct sim *sim, long now_ms)
{
	for (size_t z = 0; z < sim->n_sensors; z++)
		sim_tz_start(&sim->tz[z], &sim->kernel, (int32_t)sim->sensor_mc, now_ms);
}

/* thermal_genl_event_tz_trip_up() / _down(): the zone, the trip, the temperature. */
static void send_event(struct sim *sim, const struct sim_trip_event *ev)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct nlmsghdr *hdr;

	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, SIM_THERMAL_FAMILY_ID, 0, 0,
				 ev->up ? THERMAL_GENL_EVENT_TZ_TRIP_UP :
				 THERMAL_GENL_EVENT_TZ_TRIP_DOWN, THERMAL_GENL_VERSION) ||
	    nla_put_u32(msg, THERMAL_GENL_ATTR_TZ_ID, (uint32_t)ev->tz_id) < 0 ||
	    nla_put_u32(msg, THERMAL_GENL_ATTR_TZ_TRIP_ID, (uint32_t)ev->trip_id) < 0 ||
	    nla_put_u32(msg, THERMAL_GENL_ATTR_TZ_TEMP, (uint32_t)ev->temp_mc) < 0) {
		sim->events_lost++;
		nlmsg_free(msg);
		return;
	}
	hdr = nlmsg_hdr(msg);
	/* A daemon that does not read loses events, as from a full netlink socket. */
	if (send(sim->event_fd, hdr, hdr->nlmsg_len, MSG_DONTWAIT | MSG_NOSIGNAL) ==
	    (ssize_t)hdr->nlmsg_len)
		sim->events_sent++;
	else
		sim->events_lost++;
	nlmsg_free(msg);
}

void sim_events_step(struct sim *sim, long now_ms)
{
	struct sim_trip_event ev[SIM_KERNEL_MAX_TRIPS];
	long switch_on_mc = lround(sim->switch_on_c * 1000);

	if (sim->switch_on_crossed_ms < 0 && sim->sensor_mc >= switch_on_mc &&
	    sim->last_sensor_mc < switch_on_mc)
		sim->switch_on_crossed_ms = now_ms;
	sim->last_sensor_mc = sim->sensor_mc;
	for (size_t z = 0; z < sim->n_sensors; z++) {
		size_t n = sim_tz_step(&sim->tz[z], &sim->kernel, (int32_t)sim->sensor_mc, now_ms,
				       ev);

		for (size_t i = 0; i < n; i++) {
			if (sim->event_fd >= 0 && sim->trip_events)
				send_event(sim, &ev[i]);
			else
				continue;
			if ((int)z == sim->daemon_tz && sim->switch_on_crossed_ms >= 0 &&
			    sim->switch_on_event_ms < 0 && sim->sensor_mc >= switch_on_mc)
				sim->switch_on_event_ms = now_ms;
		}
	}
}
