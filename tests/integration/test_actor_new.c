/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The actor constructors on the fixture trees (suite integration): each
 * gives 0 and the actor on a whole device, and on a device with one file
 * missing or wrong the error of the failing call, no actor and one message
 * naming the file.  Every test puts the tree back as it found it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "actors/actor.h"
#include "config/config.h"
#include "platform/cpufreq_policy.h"
#include "tree.h"

#define CPU0_CUR_FREQ "/sys/devices/system/cpu/cpufreq/policy0/scaling_cur_freq"
#define CPU0_MAX_FREQ "/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq"
#define GPU_CUR_FREQ "/sys/class/devfreq/ff9a0000.gpu/cur_freq"
#define FAN_STATE "/sys/class/thermal/cooling_device3/cur_state"
#define FAN_MAX_STATE "/sys/class/thermal/cooling_device3/max_state"
#define CPU0_MAX_STATE "/sys/class/thermal/cooling_device0/max_state"
#define RAPL_RANGE "/sys/class/powercap/intel-rapl:0/max_energy_range_uj"

/* What @ret holds before a call, to see that a failing one sets it to NULL. */
static char not_set;
#define NOT_SET ((struct actor *)&not_set)

/* Moves @sys_path aside (to its name with "-away"), or back with @back. */
static void move(const char *sys_path, bool back)
{
	char real[512], away[520];

	snprintf(real, sizeof(real), "%s", tree_real_path(sys_path));
	snprintf(away, sizeof(away), "%s-away", real);
	assert_int_equal(back ? rename(away, real) : rename(real, away), 0);
}

/* Policy 0's cpufreq cooling device, then without scaling_cur_freq: -ENOENT. */
static void test_cpufreq(void **unused)
{
	struct cpufreq_inventory inv;
	const struct cpufreq_policy_info *p;
	struct actor *a = NOT_SET;

	(void)unused;
	if (!tree_on("rk3399-dt"))
		skip();
	assert_int_equal(cpufreq_scan(&inv), 0);
	p = cpufreq_policy_of_cpu(&inv, 0);
	assert_non_null(p);
	assert_int_equal(actor_cpufreq_new(0, p, NULL, &a), 0);
	assert_non_null(a);
	assert_string_equal(a->name, "cpufreq-cpu0");
	actor_destroy(a);
	assert_int_equal(tree_log_count(CPU0_CUR_FREQ), 0);

	move(CPU0_CUR_FREQ, false);
	a = NOT_SET;
	assert_int_equal(actor_cpufreq_new(0, p, NULL, &a), -ENOENT);
	assert_null(a);
	assert_int_equal(tree_log_count(CPU0_CUR_FREQ), 1);
	move(CPU0_CUR_FREQ, true);
	cpufreq_inventory_free(&inv);
}

/* The GPU's devfreq cooling device, then without cur_freq: -ENOENT. */
static void test_devfreq(void **unused)
{
	struct actor *a = NULL;

	(void)unused;
	if (!tree_on("rk3399-dt"))
		skip();
	assert_int_equal(actor_devfreq_new(2, "ff9a0000.gpu", NULL, &a), 0);
	assert_non_null(a);
	assert_string_equal(a->name, "devfreq-ff9a0000.gpu");
	actor_destroy(a);

	move(GPU_CUR_FREQ, false);
	a = NOT_SET;
	assert_int_equal(actor_devfreq_new(2, "ff9a0000.gpu", NULL, &a), -ENOENT);
	assert_null(a);
	assert_int_equal(tree_log_count(GPU_CUR_FREQ), 1);
	move(GPU_CUR_FREQ, true);
}

/* The fan, then with a cur_state above its max_state: -ERANGE. */
static void test_cooling_device(void **unused)
{
	struct actor *a = NULL;
	long long state;

	(void)unused;
	if (!tree_on("rk3399-dt"))
		skip();
	state = tree_get(FAN_STATE);
	assert_int_equal(actor_cooling_device_new(3, "pwm-fan", &a), 0);
	assert_non_null(a);
	assert_string_equal(a->name, "pwm-fan");
	actor_destroy(a);

	tree_put(FAN_STATE, "1000\n");
	a = NOT_SET;
	assert_int_equal(actor_cooling_device_new(3, "pwm-fan", &a), -ERANGE);
	assert_null(a);
	assert_int_equal(tree_log_count(FAN_STATE ": state above max_state"), 1);
	tree_put_u64(FAN_STATE, (unsigned long long)state);
}

/*
 * A max_state of 2^32 + 1, which an unsigned long on a 32-bit machine cut
 * to 1, is refused on every machine: -ERANGE and one message naming the
 * file and the value (issue 41, 2); for the fan and for CPU 0's cpufreq
 * cooling device, whose states an actor drives alike.
 */
static void test_max_state_too_large(void **unused)
{
	const char *files[] = { FAN_MAX_STATE, CPU0_MAX_STATE };
	struct cpufreq_inventory inv;
	long long max_state[2];
	struct actor *a;

	(void)unused;
	if (!tree_on("rk3399-dt"))
		skip();
	assert_int_equal(cpufreq_scan(&inv), 0);
	for (size_t i = 0; i < 2; i++) {
		max_state[i] = tree_get(files[i]);
		tree_put(files[i], "4294967297\n");
	}
	a = NOT_SET;
	assert_int_equal(actor_cooling_device_new(3, "pwm-fan", &a), -ERANGE);
	assert_null(a);
	a = NOT_SET;
	assert_int_equal(actor_cpufreq_new(0, cpufreq_policy_of_cpu(&inv, 0), NULL, &a), -ERANGE);
	assert_null(a);
	for (size_t i = 0; i < 2; i++) {
		char words[160];

		snprintf(words, sizeof(words), "%s: 4294967297 is above 2147483647", files[i]);
		assert_int_equal(tree_log_count(words), 1);
		tree_put_u64(files[i], (unsigned long long)max_state[i]);
	}
	cpufreq_inventory_free(&inv);
}

static const char package_zone[] =
	"zones = ( { name = \"package\"; sensor = \"x86_pkg_temp\";\n"
	"  actors = ( { type = \"powercap\"; zone = \"intel-rapl:0\"; },\n"
	"             { type = \"cpufreq_cap\"; cpus = \"0\";\n"
	"               opps = ( { freq_khz = 800000; power_mw = 400; },\n"
	"                        { freq_khz = 4700000; power_mw = 5200; } ); } ); } );\n";

/* RAPL's package zone, then without max_energy_range_uj: -ENOENT. */
static void test_powercap(void **unused)
{
	struct pa_config *cfg;
	struct actor *a = NULL;

	(void)unused;
	if (!tree_on("x86-laptop"))
		skip();
	cfg = tree_config(package_zone);
	assert_int_equal(actor_powercap_new(&cfg->zones[0].actors[0], &a), 0);
	assert_non_null(a);
	assert_string_equal(a->name, "intel-rapl:0");
	actor_destroy(a);

	move(RAPL_RANGE, false);
	a = NOT_SET;
	assert_int_equal(actor_powercap_new(&cfg->zones[0].actors[0], &a), -ENOENT);
	assert_null(a);
	assert_int_equal(tree_log_count(RAPL_RANGE), 1);
	move(RAPL_RANGE, true);
	pa_config_free(cfg);
}

/* CPU 0's policy limited by scaling_max_freq, then with a max of 0: -ERANGE. */
static void test_cpufreq_cap(void **unused)
{
	const struct cpufreq_policy_info *policies[1];
	struct cpufreq_inventory inv;
	struct pa_config *cfg;
	struct actor *a = NULL;
	long long max_khz;

	(void)unused;
	if (!tree_on("x86-laptop"))
		skip();
	max_khz = tree_get(CPU0_MAX_FREQ);
	cfg = tree_config(package_zone);
	assert_int_equal(cpufreq_scan(&inv), 0);
	policies[0] = cpufreq_policy_of_cpu(&inv, 0);
	assert_non_null(policies[0]);
	assert_int_equal(actor_cpufreq_cap_new(policies, 1, &cfg->zones[0].actors[1], &a), 0);
	assert_non_null(a);
	assert_string_equal(a->name, "cpufreq-cap-0");
	actor_destroy(a);

	tree_put(CPU0_MAX_FREQ, "0\n");
	a = NOT_SET;
	assert_int_equal(actor_cpufreq_cap_new(policies, 1, &cfg->zones[0].actors[1], &a),
			 -ERANGE);
	assert_null(a);
	assert_int_equal(tree_log_count(CPU0_MAX_FREQ), 1);
	tree_put_u64(CPU0_MAX_FREQ, (unsigned long long)max_khz);
	cpufreq_inventory_free(&inv);
	pa_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_cpufreq, tree_log_reset),
		cmocka_unit_test_setup(test_devfreq, tree_log_reset),
		cmocka_unit_test_setup(test_cooling_device, tree_log_reset),
		cmocka_unit_test_setup(test_max_state_too_large, tree_log_reset),
		cmocka_unit_test_setup(test_powercap, tree_log_reset),
		cmocka_unit_test_setup(test_cpufreq_cap, tree_log_reset),
	};

	if (tree_main_guard())
		return 1;
	tree_log_capture();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
