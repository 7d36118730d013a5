/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * The zones' one sd-event timer, armed at the due times that
 * lib/engine/zone_schedule.h decides, so /proc/stat is read once for all
 * the zones due together.
 */
#include <systemd/sd-event.h>

#include "engine/engine.h"
#include "engine/zone_schedule.h"

/** schedule_arm() - set @tick to the earliest due time, or disable it when none is. */
void schedule_arm(const struct schedule *s, const struct engine *e, sd_event_source *tick);
