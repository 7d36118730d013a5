/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Where an actor's power model comes from: the first of these that exists.
 *   config         opps = (...) in powerallocd.conf
 *   energy-model   /sys/kernel/debug/energy_model/<pd>/ps:<kHz>/{frequency,power} (uW)
 *   opp-debugfs    /sys/kernel/debug/opp/<dev>/opp:<Hz>/{rate_hz,supply-0/u_volt_target}
 *                  with the device tree's (or the config's) dynamic-power-coefficient
 *   device-tree    the device node's operating-points-v2 table (opp-hz, opp-microvolt)
 *                  or legacy operating-points, and its dynamic-power-coefficient
 * Only frequencies the driver also lists are kept.
 */
#include <stddef.h>
#include <stdint.h>

#include "control/power_table.h"

#define DEBUGFS_EM_DIR "/sys/kernel/debug/energy_model"
#define DEBUGFS_OPP_DIR "/sys/kernel/debug/opp"
#define DT_BASE_DIR "/sys/firmware/devicetree/base"

enum opp_source {
	OPP_SOURCE_NONE,
	OPP_SOURCE_CONFIG,
	OPP_SOURCE_ENERGY_MODEL,
	OPP_SOURCE_OPP_DEBUGFS,
	OPP_SOURCE_DEVICE_TREE,
};

/**
 * struct opp_device - what identifies a device to the OPP sources.
 * @name: its name in debugfs: "cpuN" (N = the policy's first CPU) or the
 *	device name ("ff9a0000.gpu").
 * @of_node: path of its sysfs of_node link ("/sys/devices/system/cpu/cpu4/of_node").
 * @freq_khz, @n_freqs: the frequencies the driver lists (none: keep all).
 * @dpc: dynamic power coefficient from the config, 0 for none.
 * @config_opps, @n_config_opps: a table from the config, if any.
 */
struct opp_device {
	const char *name;
	const char *of_node;
	const uint32_t *freq_khz;
	size_t n_freqs;
	uint32_t dpc;
	const struct opp *config_opps;
	size_t n_config_opps;
};

/**
 * opp_load() - the power table of @dev from the first source that has one.
 * Entries that cannot be read are logged (naming the file) and skipped; a
 * table whose power falls as the frequency rises is refused (said with the
 * two OPPs: power_table_falling()), and the next source tried.
 * Return: the source used, OPP_SOURCE_NONE (logged) when none has a table.
 */
enum opp_source opp_load(const struct opp_device *dev, struct power_table *table);

/** opp_source_name() - "config", "energy-model", "opp-debugfs", "device-tree", "none". */
const char *opp_source_name(enum opp_source source);
