/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The kernel's thermal events: generic netlink family "thermal", multicast
 * group "event", its socket watched by sd-event.  Without the family or the
 * group (older kernels, CONFIG_THERMAL_NETLINK off) the daemon polls.
 */
#include <systemd/sd-event.h>

#include "platform/thermal_event.h"

typedef void (*thermal_event_fn)(void *userdata, const struct thermal_event *ev);

struct netlink;

/**
 * netlink_open() - join the group and deliver events to @fn.
 * Return: the subscription, or NULL (logged once) when events are not available.
 */
struct netlink *netlink_open(sd_event *event, thermal_event_fn fn, void *userdata);

/** netlink_close() - leave and free (NULL is fine). */
void netlink_close(struct netlink *nl);
