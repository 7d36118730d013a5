/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The zone and actor objects of the D-Bus interface: BUS_ZONE_PREFIX/N and
 * BUS_ACTOR_PREFIX/N, N the zone's or actor's index in the engine, their
 * properties read from the engine when asked (powerallocd(8), D-BUS
 * INTERFACE), and their enumeration for introspection and the object
 * manager.
 */
#include <systemd/sd-bus.h>

#include "bus.h"

#define BUS_ZONE_PREFIX BUS_PATH "/zone"
#define BUS_ACTOR_PREFIX BUS_PATH "/actor"

/**
 * bus_objects_add() - serve the zones and actors of @engine on @bus (one
 * engine per process: the daemon's, rebuilt in place).
 * Return: 0 or negative errno.
 */
int bus_objects_add(sd_bus *bus, const struct engine *engine);
