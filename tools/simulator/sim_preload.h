/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The shims the daemon runs under (LD_PRELOAD): the netlink shim on every
 * run (the daemon's thermal netlink is then the simulated kernel's, not
 * this machine's), the fault shim for the faults made by failing the
 * daemon's calls (sensor-eio, cdev-vanish).  ld.so only warns about a
 * preload it cannot load and runs the program without it, so each is
 * loaded here first and a run whose shim does not load stops before the
 * daemon starts, with the command that builds it.
 */
#include <stdbool.h>
#include <stddef.h>

/**
 * sim_preload_check() - whether every shim a run preloads loads on this
 * machine (@faults: the fault shim too, for --fault @fault_name): each is
 * dlopen()ed in a child, so that its constructors and symbols stay out of
 * the simulator.  Return: 0, or -1 with each one that does not load, why,
 * and the ninja command that builds them said on stderr.
 */
int sim_preload_check(bool faults, const char *fault_name);

/**
 * sim_preload_list() - LD_PRELOAD's value for the daemon: the netlink shim,
 * then (@faults) the fault shim, into @buf of @size bytes.
 */
void sim_preload_list(bool faults, char *buf, size_t size);
