/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * powerallocctl limit: the power cap on every actor together
 * (Manager.SetPowerLimit with its lease, ClearPowerLimit), its POWER and
 * --lease checked before the daemon is asked.
 */
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

/**
 * struct limit_request - limit's command line: @power and @lease as typed
 * (NULL: not given), or @clear; @limit_mw and @lease_s as understood.
 */
struct limit_request {
	const char *power, *lease;
	bool clear;
	uint64_t limit_mw;
	uint32_t lease_s;
};

/**
 * ctl_usage_error() - a usage error (printf-style) on stderr, after
 * "powerallocctl: ", then where the usage is (powerallocctl.c).
 * Return: EXIT_USAGE.
 */
int ctl_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/**
 * ctl_limit_parse() - @l's POWER (a number with its unit, W or mW) and
 * --lease (whole seconds, POWER_LIMIT_LEASE_MIN_S to _MAX_S), or --clear
 * alone.  Return: EXIT_OK, or EXIT_USAGE with the reason said.
 */
int ctl_limit_parse(struct limit_request *l);

/**
 * ctl_limit_run() - set the cap @l asks for (refused, EXIT_USAGE, above
 * what the power actors can draw together; taken with a warning below what
 * their lowest states draw now), or clear it.  Return: an exit code.
 */
int ctl_limit_run(sd_bus *bus, const struct limit_request *l);
