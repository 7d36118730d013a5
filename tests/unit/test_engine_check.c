/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A zone's sustainable power against what its actors draw together
 * (lib/engine/engine_check.c): an estimated one (the actors' lowest powers
 * together) gets the range check a configured one gets (issue 42, 2).  No
 * power table that the config or the platform gives now has a lowest state
 * over its highest (power_table_falling()), so the zone is built here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "engine/engine_build.h"
#include "engine/zone.h"
#include "platform/log.h"

static char said[2048];
static int said_priority = -1;

static void keep(void *userdata, int priority, const char *const *fields, const char *message)
{
	(void)userdata;
	(void)fields;
	said_priority = priority;
	snprintf(said, sizeof(said), "%s", message);
}

/* The cluster: 27000 mW at 408 MHz, 179 mW at 1416 MHz per CPU, 4 CPUs. */
static void broken_cluster(struct actor *a)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->name, sizeof(a->name), "cpufreq-cpu0");
	a->table.n = 2;
	a->table.entry[0] = (struct power_entry){ .freq_khz = 408000, .power_mw = 27000 };
	a->table.entry[1] = (struct power_entry){ .freq_khz = 1416000, .power_mw = 179 };
	for (unsigned int c = 0; c < 4; c++)
		cpumask_set(&a->cpus, c);
	a->min_mw = 4 * 27000;
	a->max_mw = 4 * 179;
}

static void test_estimate_gets_the_range_check(void **unused)
{
	static struct zone z;
	struct actor a;

	(void)unused;
	broken_cluster(&a);
	memset(&z, 0, sizeof(z));
	snprintf(z.setup.name, sizeof(z.setup.name), "cpu");
	z.setup.actors[0] = &a;
	z.setup.n_actors = 1;
	z.setup.pid.mode = PID_MODE_DEFAULT;
	z.setup.sp_source = SP_ESTIMATED;
	z.setup.pid.sustainable_power_mw = zone_estimate_sustainable_power(&z);
	z.setup.pid.gains.k_po = 66354;	/* 64798.8 mW/°C in Q10 */
	assert_int_equal(z.setup.pid.sustainable_power_mw, 108000);
	pa_log_set_handler(keep, NULL);
	/* Automatic (no config) and configured without sustainable_power alike. */
	for (int configured = 0; configured <= 1; configured++) {
		struct zone_config zc = { .n_actors = 1 };

		said[0] = '\0';
		assert_int_equal(build_check_power(&z, configured ? &zc : NULL), -EINVAL);
		assert_int_equal(said_priority, PA_LOG_ERR);
		assert_string_equal(said, "zone cpu: the estimated sustainable power (its actors' "
				    "lowest power together) 108000 mW is more than ten times the most "
				    "its actors draw together (716 mW: cpufreq-cpu0 716 mW): at "
				    "control_temp the budget would limit none of them, and k_po would "
				    "be 64798.8 mW/°C; its range is 108000 to 716 mW (its actors' "
				    "lowest to highest power together, every CPU online): set "
				    "sustainable_power, or give power tables that rise with frequency; "
				    "zone skipped");
	}
	/* Never said below its range: the estimate is the lowest, but for offline CPUs. */
	a.min_mw = 27000;
	a.table.entry[1].power_mw = 30000;
	z.setup.pid.sustainable_power_mw = zone_estimate_sustainable_power(&z);
	said[0] = '\0';
	assert_int_equal(build_check_power(&z, NULL), 0);
	assert_string_equal(said, "");
	pa_log_set_handler(NULL, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_estimate_gets_the_range_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
