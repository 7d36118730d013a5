/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Other thermal and power daemons that write the files powerallocd writes
 * (thermald, tuned, TLP, auto-cpufreq) or sit beside it (power-profiles-
 * daemon): found on the system bus by their bus name or systemd unit, and
 * named in the journal once, with the files two controllers would fight
 * over and what to do.
 */
#include <systemd/sd-bus.h>

/**
 * coexist_check() - ask the bus, without waiting, which known daemons run;
 * each one found is logged once per process (a warning when it writes what
 * powerallocd writes, a notice when it does not).
 * Return: 0 or negative errno when a question could not be sent.
 */
int coexist_check(sd_bus *bus);
