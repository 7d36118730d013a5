/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ACPI's power meter on qemu-x86 (suite integration), as Debian's kernel
 * shows the ACPI000D of tests/system/ssdt.asl: acpi_power_meter registers
 * its hwmon device the old way, so hwmon1 has no name and no power files,
 * and its attributes (name "power_meter", power1_average in µW, averaged
 * over power1_average_interval ms, no label) are in hwmon1/device.  The
 * meter is found there as libsensors finds it, named by its channel's name
 * for a label or by its path, read each period, listed in messages, and a
 * cpufreq_cap actor's power table is calibrated from it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config/config.h"
#include "engine/engine.h"
#include "platform/log.h"
#include "tree.h"

#define METER_DIR "/sys/class/hwmon/hwmon1/device"
#define AVERAGE METER_DIR "/power1_average"
#define ZONE_TEMP "/sys/class/thermal/thermal_zone0/temp"
#define PERIOD_US 100000ULL
/* What the fixture's meter reads, mW. */
#define FIXTURE_MW 4321
/* Its table at the fixture's 2.4 GHz, per CPU, mW. */
#define TOP_MW 2600

/* Zone 0 active (over switch-on, under control) with both CPUs in one cpufreq_cap actor. */
static const char zone_text[] =
	"zones = ( { name = \"cpu\"; sensor = \"thermal_zone0\";\n"
	"  switch_on_temp = 50000; control_temp = 70000;\n"
	"  actors = ( { type = \"cpufreq_cap\"; cpus = \"0-1\"; power_meter = %s;\n"
	"               opps = ( { freq_khz = 800000; power_mw = 500; },\n"
	"                        { freq_khz = 1600000; power_mw = 1300; },\n"
	"                        { freq_khz = 2400000; power_mw = 2600; } ); } ); } );\n";

static struct pa_config *metered(const char *meter)
{
	char text[sizeof(zone_text) + 256];

	snprintf(text, sizeof(text), zone_text, meter);
	return tree_config(text);
}

static unsigned int busy_ticks;

/* Period @k of both CPUs busy at a live temperature over switch-on, at @k x 100 ms. */
static void busy_period(struct engine *e, unsigned int k)
{
	busy_ticks += 100;
	tree_busy_cpus(2, busy_ticks);
	tree_put_u64(ZONE_TEMP, 60000 + 100 * (k % 7));
	assert_int_equal(engine_cycle(e, (k + 1) * PERIOD_US, NULL), 0);
}

/* @e restored (the caps found, for the next test's engine) and freed, with @cfg. */
static void finish(struct engine *e, struct pa_config *cfg)
{
	assert_int_equal(engine_restore(e), 0);
	engine_free(e);
	pa_config_free(cfg);
}

static int setup(void **unused)
{
	(void)unused;
	tree_log_clear();
	tree_put_u64(AVERAGE, FIXTURE_MW * 1000ULL);
	return 0;
}

/* Its one power meter and the reading it gives in its first period. */
static struct actor *built(struct engine *e, const struct pa_config *cfg)
{
	struct actor *a;

	assert_int_equal(engine_build(e, cfg), 1);
	assert_int_equal(e->n_bad_meters, 0);
	a = e->zones[0].setup.actors[0];
	assert_non_null(a->meter);
	assert_string_equal(a->meter->input.path, AVERAGE);
	assert_int_equal(a->meter->unit, METER_POWER_UW);
	/* power1_average_interval, the time its mean is over: the estimator's sample period. */
	assert_int_equal(a->meter->sample_ms, 1000);
	assert_true(a->calibrating);
	busy_period(e, 0);
	assert_true(a->measured_valid);
	assert_int_equal(a->measured_mw, FIXTURE_MW);
	return a;
}

/* Named by its device's name and its unlabelled channel's name, as sensors(1) shows it. */
static void test_by_channel_name(void **unused)
{
	struct pa_config *cfg = metered("{ hwmon = \"power_meter\"; label = \"power1\"; }");
	struct engine e;
	struct actor *a;

	(void)unused;
	a = built(&e, cfg);
	assert_string_equal(a->meter->name, "hwmon \"power_meter\" label \"power1\" (" AVERAGE ")");
	assert_int_equal(a->meter->id_len, strlen("hwmon \"power_meter\" label \"power1\""));
	finish(&e, cfg);
}

static void test_by_path(void **unused)
{
	struct pa_config *cfg = metered("\"" AVERAGE "\"");
	struct engine e;

	(void)unused;
	built(&e, cfg);
	finish(&e, cfg);
}

/* A channel it does not have: the nearest named, and both hwmon devices listed, each found. */
static void test_listed(void **unused)
{
	struct pa_config *cfg = metered("{ hwmon = \"power_meter\"; label = \"power2\"; }");
	struct engine e;

	(void)unused;
	assert_int_equal(engine_build(&e, cfg), 1);
	assert_int_equal(e.n_bad_meters, 1);
	assert_null(e.zones[0].setup.actors[0]->meter);
	assert_int_equal(tree_log_count("hwmon \"power_meter\" has no channel labelled \"power2\" "
					"(did you mean \"power1\"?); hwmon devices: acpitz (hwmon0): "
					"no power channels; power_meter (hwmon1): power1; going on"),
			 1);
	finish(&e, cfg);
}

/*
 * Both CPUs busy at 2.4 GHz, which their table gives 2 x 2600 mW, and the
 * meter reading 1.5 x that (a mW either way each second, as a live meter
 * moves): the scale learnt is 1.5 and the table the actor divides in, its
 * maximum with it, grows towards it by the confidence.
 */
static void test_calibrates_cap_actor(void **unused)
{
	struct pa_config *cfg = metered("{ hwmon = \"power_meter\"; label = \"power1\"; }");
	const unsigned int real_mw = 3 * TOP_MW;
	struct engine e;
	struct actor *a;

	(void)unused;
	a = built(&e, cfg);
	for (unsigned int k = 1; k < 400; k++) {
		tree_put_u64(AVERAGE, (real_mw + (k / 10) % 2) * 1000ULL);
		busy_period(&e, k);
	}
	assert_true(a->calibrating);
	assert_int_equal(tree_log_count("dropped"), 0);
	assert_true(a->power_scale.scale > 1.47 && a->power_scale.scale < 1.53);
	assert_true(a->power_scale.confidence > 0.5);
	/* The maximum in calibrated watts: more than the table's 5200 mW by the blended scale. */
	assert_true(a->max_mw > 2 * TOP_MW * (1 + 0.5 * a->power_scale.confidence * 0.9));
	finish(&e, cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_by_channel_name, setup),
		cmocka_unit_test_setup(test_by_path, setup),
		cmocka_unit_test_setup(test_listed, setup),
		cmocka_unit_test_setup(test_calibrates_cap_actor, setup),
	};

	if (tree_main_guard())
		return 1;
	tree_log_capture();
	pa_log_set_level(PA_LOG_NOTICE);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
