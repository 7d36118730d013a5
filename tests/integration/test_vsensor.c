/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Combined sensors on the RK3399 fixture tree (suite integration, under
 * umockdev-wrapper): a max and a weighted sum of cpu-thermal
 * (thermal_zone0) and gpu-thermal (thermal_zone1) follow the right inputs;
 * an input that fails (EIO through the sysfs fault hook, garbage, an absurd
 * value) leaves the others to make the temperature, in one message until
 * it reads again; every input failed is the zone's sensor failed; a slow
 * input is read on a thread of its own; an unknown input skips the zone;
 * no thermal zone is taken over.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "config/config.h"
#include "engine/engine.h"
#include "platform/log.h"
#include "platform/sensor.h"
#include "platform/sysfs.h"
#include "tree.h"
#include "engine/zone_sensor.h"

#define TZ0 "/sys/class/thermal/thermal_zone0/temp"
#define TZ1 "/sys/class/thermal/thermal_zone1/temp"
#define ZONE(sensor) \
	"zones = ( { name = \"skin\"; sensor = " sensor ";\n" \
	"  switch_on_temp = 60000; control_temp = 70000; sustainable_power = 1000;\n" \
	"  actors = ( { type = \"cpufreq_cap\"; cpus = \"0-3\"; } ); } );\n"
#define MAX_SENSOR "{ max = [ \"cpu-thermal\", \"gpu-thermal\" ]; }"
#define SUM_SENSOR "{ sum = ( { zone = \"cpu-thermal\"; weight = 0.6; }, " \
		   "{ zone = \"gpu-thermal\"; weight = 0.4; } ); offset = -2000; }"

/* What a read of thermal_zone1/temp does: fail with this errno, or take this long. */
static atomic_int tz1_error;
static atomic_int tz1_delay_ms;
static atomic_int tz0_error;

/* How many messages hold @words. */
static size_t saying(const char *words)
{
	return tree_log_count(words);
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int fault(const char *path, bool write)
{
	if (write)
		return 0;
	if (strstr(path, "thermal_zone0/temp"))
		return -atomic_load(&tz0_error);
	if (!strstr(path, "thermal_zone1/temp"))
		return 0;
	if (atomic_load(&tz1_delay_ms))
		sleep_ms(atomic_load(&tz1_delay_ms));
	return -atomic_load(&tz1_error);
}

static void build(struct engine *e, const char *text)
{
	struct pa_config *cfg = tree_config(text);

	assert_int_equal(engine_build(e, cfg), 1);
	pa_config_free(cfg);
	tree_log_clear();	/* what the build said */
}

/* One period with the inputs at @t0 and @t1 m°C; the zone's temperature. */
static int32_t cycle(struct engine *e, int t0, int t1)
{
	static uint64_t now_us;

	tree_put_u64(TZ0, (unsigned long long)t0);
	tree_put_u64(TZ1, (unsigned long long)t1);
	now_us += 100000;
	engine_cycle(e, now_us, NULL);
	return e->zones[0].sensing.temp_mc;
}

static void finish(struct engine *e)
{
	atomic_store(&tz0_error, 0);
	atomic_store(&tz1_error, 0);
	atomic_store(&tz1_delay_ms, 0);
	assert_int_equal(engine_restore(e), 0);
	engine_free(e);
	tree_put(TZ0, "45000\n");
	tree_put(TZ1, "45000\n");
}

/* The hottest input, whichever it is; thermal_zone0 keeps the kernel's governor. */
static void test_max_follows_the_hottest(void **unused)
{
	char name[128], policy[32];
	struct engine e;

	(void)unused;
	build(&e, ZONE(MAX_SENSOR));
	assert_int_equal(e.zones[0].setup.tz_id, -1);
	assert_int_equal(e.zones[0].setup.n_fallback, 0);
	zone_sensor_name(&e.zones[0], name, sizeof(name));
	assert_string_equal(name, "max(thermal_zone0,thermal_zone1)");
	tree_get_str("/sys/class/thermal/thermal_zone0/policy", policy, sizeof(policy));
	assert_string_equal(policy, "step_wise");
	assert_int_equal(cycle(&e, 50000, 60000), 60000);
	assert_int_equal(cycle(&e, 65000, 60000), 65000);
	assert_true(e.zones[0].control.active);
	assert_int_equal(cycle(&e, 40000, 41000), 41000);
	assert_false(e.zones[0].control.active);
	assert_int_equal(saying("input"), 0);
	finish(&e);
}

/* 0.6 x cpu + 0.4 x gpu - 2 °C. */
static void test_sum_follows_the_weights(void **unused)
{
	char name[128];
	struct engine e;

	(void)unused;
	build(&e, ZONE(SUM_SENSOR));
	zone_sensor_name(&e.zones[0], name, sizeof(name));
	assert_string_equal(name, "sum(0.6*thermal_zone0,0.4*thermal_zone1)-2000");
	assert_int_equal(cycle(&e, 50000, 40000), 30000 + 16000 - 2000);
	assert_int_equal(cycle(&e, 40000, 50000), 24000 + 20000 - 2000);
	finish(&e);
}

/*
 * One input fails (EIO): the max is the other's, said once over many
 * periods; it reads again, said once; both fail: the zone's sensor fails.
 */
static void test_max_without_an_input(void **unused)
{
	struct engine e;

	(void)unused;
	build(&e, ZONE(MAX_SENSOR));
	assert_int_equal(cycle(&e, 50000, 60000), 60000);
	atomic_store(&tz1_error, EIO);
	for (int k = 0; k < 5; k++)
		assert_int_equal(cycle(&e, 50000 + k, 60000), 50000 + k);
	assert_false(e.zones[0].sensing.sensor_failed);
	assert_int_equal(tree_log_n(), 1);
	assert_int_equal(saying("zone skin: input gpu-thermal: " TZ1 ": Input/output error; "
				"the zone takes the hottest of the other inputs"), 1);
	atomic_store(&tz1_error, 0);
	assert_int_equal(cycle(&e, 50000, 60000), 60000);
	assert_int_equal(saying("zone skin: input gpu-thermal reads again (60000 m°C)"), 1);
	/* Garbage and an absurd value are failed reads too. */
	tree_log_clear();
	assert_int_equal(cycle(&e, 50000, 255000), 50000);
	assert_int_equal(saying("not a plausible temperature"), 1);
	tree_put(TZ0, "abc\n");
	atomic_store(&tz1_error, EIO);
	engine_cycle(&e, 1000000000, NULL);
	assert_true(e.zones[0].sensing.sensor_failed);
	assert_int_equal(saying("input cpu-thermal: " TZ0 ": not a number; no input reads"), 1);
	assert_int_equal(saying("zone skin: max(thermal_zone0,thermal_zone1): no input reads; "
				"holding the current limits"), 1);
	atomic_store(&tz1_error, 0);
	assert_int_equal(cycle(&e, 50000, 51000), 51000);
	assert_false(e.zones[0].sensing.sensor_failed);
	assert_int_equal(saying("max(thermal_zone0,thermal_zone1) reads again (51000 m°C)"), 1);
	finish(&e);
}

/* Without gpu-thermal the sum is cpu-thermal's alone, its weight 0.6 scaled to 1. */
static void test_sum_renormalises(void **unused)
{
	struct engine e;

	(void)unused;
	build(&e, ZONE(SUM_SENSOR));
	atomic_store(&tz1_error, EIO);
	assert_int_equal(cycle(&e, 50000, 40000), 50000 - 2000);
	assert_int_equal(cycle(&e, 51000, 40000), 51000 - 2000);
	assert_int_equal(tree_log_n(), 1);
	assert_int_equal(saying("zone skin: input gpu-thermal: " TZ1 ": Input/output error; the "
				"zone's sum uses the other inputs, their weights scaled by 1.67 to "
				"the configured total"), 1);
	/* And without cpu-thermal, gpu-thermal's 0.4 scaled by 2.5. */
	atomic_store(&tz1_error, 0);
	atomic_store(&tz0_error, EIO);
	assert_int_equal(cycle(&e, 50000, 40000), 40000 - 2000);
	assert_int_equal(saying("scaled by 2.50"), 1);
	/* Both: the zone's sensor fails, and holds its limits. */
	atomic_store(&tz1_error, EIO);
	cycle(&e, 50000, 40000);
	assert_true(e.zones[0].sensing.sensor_failed);
	assert_int_equal(e.zones[0].sensing.failed_reads, 1);
	assert_int_equal(saying("holding the current limits"), 1);
	finish(&e);
}

/* A slow input goes to a reader thread of its own; the other stays on the loop. */
static void test_slow_input_read_off_the_loop(void **unused)
{
	struct engine e;
	int32_t t = 0;

	(void)unused;
	build(&e, ZONE(MAX_SENSOR));
	atomic_store(&tz1_delay_ms, 3 * SENSOR_SLOW_MS / 2);
	cycle(&e, 50000, 60000);
	assert_non_null(e.zones[0].setup.inputs[1].reader);
	assert_null(e.zones[0].setup.inputs[0].reader);
	assert_int_equal(saying(TZ1 " took "), 1);
	atomic_store(&tz1_delay_ms, 0);
	for (int k = 0; k < 200 && (t = cycle(&e, 50000, 62000)) != 62000; k++)
		sleep_ms(10);
	assert_int_equal(t, 62000);
	assert_int_equal(saying("took "), 1);
	finish(&e);
}

/* An input that is not there: the zone is skipped, saying which. */
static void test_unknown_input(void **unused)
{
	struct pa_config *cfg = tree_config(ZONE("{ max = [ \"cpu-thermal\", \"battery\" ]; }"));
	struct engine e;

	(void)unused;
	assert_int_equal(engine_build(&e, cfg), 0);
	assert_int_equal(saying("zone skin: no thermal zone \"battery\" (an input of its sensor); "
				"thermal zones: thermal_zone0 (cpu-thermal)"), 1);
	assert_int_equal(saying("zone skipped"), 1);
	engine_free(&e);
	pa_config_free(cfg);
	/* The same zone twice, by type and by directory. */
	cfg = tree_config(ZONE("{ max = [ \"cpu-thermal\", \"thermal_zone0\" ]; }"));
	assert_int_equal(engine_build(&e, cfg), 0);
	assert_int_equal(saying("\"thermal_zone0\" is thermal_zone0, already an input"), 1);
	engine_free(&e);
	pa_config_free(cfg);
}

static int reset(void **unused)
{
	(void)unused;
	tree_log_clear();
	return 0;
}

static int setup(void **unused)
{
	(void)unused;
	tree_log_capture();
	sysfs_set_fault_hook(fault);
	return 0;
}

static int teardown(void **unused)
{
	(void)unused;
	sysfs_set_fault_hook(NULL);
	pa_log_set_handler(NULL, NULL);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_max_follows_the_hottest, reset),
		cmocka_unit_test_setup(test_sum_follows_the_weights, reset),
		cmocka_unit_test_setup(test_max_without_an_input, reset),
		cmocka_unit_test_setup(test_sum_renormalises, reset),
		cmocka_unit_test_setup(test_slow_input_read_off_the_loop, reset),
		cmocka_unit_test_setup(test_unknown_input, reset),
	};

	if (tree_main_guard())
		return 1;
	return cmocka_run_group_tests(tests, setup, teardown);
}
