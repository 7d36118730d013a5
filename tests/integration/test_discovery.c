/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Discovery on the fixture trees (suite integration, run under
 * umockdev-wrapper by run-in-tree): thermal zones, cooling devices,
 * cpufreq policies and power tables from each OPP source.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "board.h"
#include "platform/cpufreq_policy.h"
#include "platform/log.h"
#include "platform/opp_source.h"
#include "platform/sysfs.h"
#include "platform/thermal.h"
#include "tree.h"

static const char *fixture(void)
{
	const char *f = getenv("FIXTURE");

	return f ? f : "";
}

static void test_thermal_rk3399(void **unused)
{
	struct thermal_inventory inv;
	struct thermal_zone_info *z;
	int32_t on, control;

	(void)unused;
	assert_int_equal(thermal_scan(&inv), 0);
	assert_int_equal(inv.n_zones, 2);
	assert_int_equal(inv.n_cdevs, 4);
	assert_string_equal(inv.cdevs[0].type, "cpufreq-cpu0");
	assert_int_equal(inv.cdevs[0].max_state, 5);
	assert_string_equal(inv.cdevs[1].type, "cpufreq-cpu4");
	assert_int_equal(inv.cdevs[1].max_state, 7);
	assert_string_equal(inv.cdevs[2].type, "devfreq-ff9a0000.gpu");
	assert_string_equal(inv.cdevs[3].type, "pwm-fan");

	z = thermal_find_zone(&inv, "cpu-thermal");
	assert_non_null(z);
	assert_ptr_equal(thermal_find_zone(&inv, "thermal_zone0"), z);
	assert_null(thermal_find_zone(&inv, "thermal_zone9"));
	assert_int_equal(thermal_count_zones(&inv, "cpu-thermal"), 1);
	assert_int_equal(thermal_count_zones(&inv, "thermal_zone1"), 1);
	assert_int_equal(thermal_count_zones(&inv, "thermal_zone9"), 0);
	/* Only the type until the zone is loaded. */
	assert_false(z->loaded);
	assert_int_equal(z->n_trips, 0);
	assert_string_equal(z->policy, "");
	thermal_zone_load(z);
	assert_true(z->loaded);
	assert_string_equal(z->policy, "step_wise");
	assert_string_equal(z->mode, "enabled");
	assert_non_null(strstr(z->available_policies, "user_space"));
	/* Whole words of "power_allocator user_space step_wise fair_share bang_bang". */
	assert_true(thermal_zone_offers_policy(z, "user_space"));
	assert_true(thermal_zone_offers_policy(z, "power_allocator"));
	assert_true(thermal_zone_offers_policy(z, "bang_bang"));
	assert_false(thermal_zone_offers_policy(z, "user"));
	assert_false(thermal_zone_offers_policy(z, "space step_wise"));
	assert_false(thermal_zone_offers_policy(z, ""));
	assert_int_equal(thermal_zone_sustainable_power(z), 0);
	assert_int_equal(z->n_trips, 5);
	assert_int_equal(z->trips[2].type, TRIP_CRITICAL);
	assert_int_equal(z->trips[2].temp_mc, 95000);
	assert_int_equal(z->trips[1].hyst_mc, 2000);
	assert_int_equal(thermal_passive_range(z, &on, &control), 2);
	assert_int_equal(on, 70000);
	assert_int_equal(control, 75000);
	/* map0: big cluster on trip 0; map1: both clusters on trip 1; the fan on 3 and 4. */
	assert_int_equal(z->n_bindings, 5);
	assert_int_equal(z->bindings[0].cdev_id, 1);
	assert_int_equal(z->bindings[0].trip, 0);
	assert_int_equal(z->bindings[1].cdev_id, 0);
	assert_int_equal(z->bindings[1].trip, 1);
	assert_int_equal(z->bindings[2].cdev_id, 1);
	assert_int_equal(z->bindings[2].trip, 1);
	assert_int_equal(z->bindings[4].cdev_id, 3);

	z = thermal_find_zone(&inv, "gpu-thermal");
	assert_non_null(z);
	thermal_zone_load(z);
	/* One passive trip: control, and switch-on left alone (the kernel has none). */
	on = -1;
	assert_int_equal(thermal_passive_range(z, &on, &control), 1);
	assert_int_equal(on, -1);
	assert_int_equal(control, z->trips[0].temp_mc);
	assert_int_equal(z->n_bindings, 1);
	assert_int_equal(z->bindings[0].cdev_id, 2);

	assert_int_equal(thermal_zone_set_policy(0, "user_space"), 0);
	thermal_inventory_free(&inv);
	assert_int_equal(thermal_scan(&inv), 0);
	thermal_zone_load(&inv.zones[0]);
	assert_string_equal(inv.zones[0].policy, "user_space");
	thermal_inventory_free(&inv);
}

static void test_cpufreq_rk3399(void **unused)
{
	struct cpufreq_inventory inv;
	const struct cpufreq_policy_info *p;
	char cpus[32];

	(void)unused;
	assert_int_equal(cpufreq_scan(&inv), 0);
	assert_int_equal(inv.n, 2);
	p = &inv.policies[0];
	assert_int_equal(p->cpu, 0);
	cpumask_format_list(&p->related, cpus, sizeof(cpus));
	assert_string_equal(cpus, "0-3");
	assert_int_equal(cpumask_weight(&p->online), 4);
	assert_int_equal(p->n_freqs, 6);
	assert_int_equal(p->freq_khz[0], 408000);
	assert_int_equal(p->freq_khz[5], 1416000);
	assert_int_equal(p->max_khz, 1416000);
	assert_int_equal(p->cluster_id, 0);
	/* 485 DMIPS/MHz at 1416 MHz against 1024 at 1800 MHz: 381 of 1024. */
	assert_int_equal(p->capacity, 381);
	p = &inv.policies[1];
	assert_int_equal(p->cpu, 4);
	assert_int_equal(p->n_freqs, 8);
	assert_int_equal(p->cluster_id, 1);
	assert_int_equal(p->capacity, 1024);
	assert_ptr_equal(cpufreq_policy_of_cpu(&inv, 5), p);
	assert_ptr_equal(cpufreq_policy_of_cdev(&inv, "cpufreq-cpu4"), p);
	assert_ptr_equal(cpufreq_policy_of_cdev(&inv, "thermal-cpufreq-1"), p);
	assert_null(cpufreq_policy_of_cdev(&inv, "cpufreq-cpu5"));
	assert_null(cpufreq_policy_of_cdev(&inv, "thermal-cpufreq-2"));
	assert_null(cpufreq_policy_of_cdev(&inv, "pwm-fan"));
	cpufreq_inventory_free(&inv);
}

static enum opp_source expected_source(void)
{
	if (strcmp(fixture(), "rk3399-em") == 0)
		return OPP_SOURCE_ENERGY_MODEL;
	if (strcmp(fixture(), "rk3399-opp-debugfs") == 0)
		return OPP_SOURCE_OPP_DEBUGFS;
	return OPP_SOURCE_DEVICE_TREE;
}

static void check_table(const struct power_table *t, const struct board_domain *d)
{
	assert_int_equal(t->n, d->n_opps);
	for (size_t i = 0; i < d->n_opps; i++) {
		assert_int_equal(t->entry[i].freq_khz, d->opps[i].freq_khz);
		assert_int_equal(t->entry[i].power_mw, d->opps[i].power_mw);
		assert_int_equal(t->entry[i].power_uw, d->opps[i].power_uw);
	}
}

/* The power tables of both clusters and the GPU equal the JSON's, from the tree's source. */
static void check_power_tables(void)
{
	const struct board *b = board_find("rk3399-rockpro64");
	struct cpufreq_inventory inv;
	struct power_table t;

	assert_int_equal(cpufreq_scan(&inv), 0);
	for (size_t k = 0; k < 2; k++) {
		const struct cpufreq_policy_info *p = &inv.policies[k];
		char name[16], of_node[64];
		struct opp_device dev = { .name = name, .of_node = of_node,
					  .freq_khz = p->freq_khz, .n_freqs = p->n_freqs };

		snprintf(name, sizeof(name), "cpu%u", p->cpu);
		snprintf(of_node, sizeof(of_node), CPU_DIR "/cpu%u/of_node", p->cpu);
		assert_int_equal(opp_load(&dev, &t), expected_source());
		check_table(&t, &b->domains[k]);
	}
	{
		uint32_t gpu_khz[] = { 200000, 297000, 400000, 500000, 600000, 800000 };
		struct opp_device dev = { .name = "ff9a0000.gpu",
					  .of_node = "/sys/class/devfreq/ff9a0000.gpu/device/of_node",
					  .freq_khz = gpu_khz, .n_freqs = 6 };

		assert_int_equal(opp_load(&dev, &t), expected_source());
		check_table(&t, &b->domains[2]);
		/* Only frequencies the driver lists are kept. */
		dev.n_freqs = 4;
		assert_int_equal(opp_load(&dev, &t), expected_source());
		assert_int_equal(t.n, 4);
	}
	cpufreq_inventory_free(&inv);
}

static void test_power_tables_rk3399(void **unused)
{
	(void)unused;
	check_power_tables();
}

/* A file of this tree's debugfs power source, in @path (SYSFS_PATH_MAX). */
static void debugfs_file(char *path)
{
	int64_t *ids;
	size_t n;

	if (expected_source() == OPP_SOURCE_ENERGY_MODEL) {
		snprintf(path, SYSFS_PATH_MAX, DEBUGFS_EM_DIR "/cpu0/flags");
		return;
	}
	assert_int_equal(sysfs_list_ids(DEBUGFS_OPP_DIR "/cpu0", "opp:", &ids, &n), 0);
	assert_true(n > 0);
	snprintf(path, SYSFS_PATH_MAX, DEBUGFS_OPP_DIR "/cpu0/opp:%lld/rate_hz", (long long)ids[0]);
	free(ids);
}

/*
 * The kernel's debugfs files (the Energy Model's, the OPPs') refuse pread()
 * with ESPIPE, as the fault shim's espipe-pread rule makes every file under
 * /kernel/debug/ do: the same tables from the same source, read with read(),
 * and nothing logged (issue 41, 3: each performance state was "not a regular
 * file" and ignored).  A descriptor kept open on such a file fails its
 * reads with -ESPIPE, which is not called "not a regular file".
 */
static void test_power_tables_debugfs_refuses_pread(void **unused)
{
	char faults[] = "/tmp/powerallocd-faults.XXXXXX", rule[64], path[SYSFS_PATH_MAX], buf[32];
	struct sysfs_attr kept = SYSFS_ATTR_INIT;
	const char *preload = getenv("LD_PRELOAD");
	FILE *f;

	(void)unused;
	if (!preload || !strstr(preload, "fault-shim") || expected_source() == OPP_SOURCE_DEVICE_TREE)
		skip();
	assert_non_null(mkdtemp(faults));
	snprintf(rule, sizeof(rule), "%s/espipe-pread", faults);
	assert_non_null(f = fopen(rule, "w"));
	fputs("/kernel/debug/\n", f);
	assert_int_equal(fclose(f), 0);
	setenv("POWERALLOCD_FAULT_DIR", faults, 1);

	debugfs_file(path);
	assert_int_equal(sysfs_attr_open(&kept, path, false), 0);
	assert_int_equal(sysfs_attr_read(&kept, buf, sizeof(buf)), -ESPIPE);
	assert_string_not_equal(sysfs_strerror(-ESPIPE), sysfs_strerror(-SYSFS_ENOTREG));
	sysfs_attr_close(&kept);
	tree_log_clear();
	check_power_tables();
	assert_int_equal(tree_log_n(), 0);

	unsetenv("POWERALLOCD_FAULT_DIR");
	assert_int_equal(unlink(rule), 0);
	assert_int_equal(rmdir(faults), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thermal_rk3399),
		cmocka_unit_test(test_cpufreq_rk3399),
		cmocka_unit_test(test_power_tables_rk3399),
		cmocka_unit_test(test_power_tables_debugfs_refuses_pread),
	};

	if (tree_main_guard())
		return 1;
	tree_log_capture();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
