/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/* powerallocctl's output: the status table (80 columns) and its JSON. */
#include "ctl_read.h"

/** ctl_print_table() - @s as powerallocctl(1) shows it, on stdout. */
void ctl_print_table(const struct snapshot *s);

/**
 * ctl_print_summary() - @s in one line per zone (temperature, control,
 * headroom, budget, limiting reason), 80 columns, on stdout (--summary).
 */
void ctl_print_summary(const struct snapshot *s);

/** ctl_print_json() - @s as one JSON object, on stdout (powerallocctl(1), --json). */
void ctl_print_json(const struct snapshot *s);
