/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * What the simulator and its netlink shim (sim_netlink_shim.c) agree on:
 * the daemon's generic netlink socket reads, in place of the kernel's,
 * the datagrams the simulator sends on the socket pair whose end the
 * daemon inherits as $SIM_NETLINK_FD_ENV, from port 0 as the kernel's.
 */

/* The inherited descriptor's number, in the daemon's environment. */
#define SIM_NETLINK_FD_ENV "POWERALLOCD_SIM_NETLINK_FD"

/* The simulated kernel's "thermal" family id and its "event" group, any the kernel might give. */
#define SIM_THERMAL_FAMILY_ID 0x1c
#define SIM_THERMAL_EVENT_GROUP 5

/* The largest event the simulator sends, bytes (a trip event takes 44). */
#define SIM_NETLINK_MAX_MSG 256
