/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Enum names from one table per enum (lib/control/enum_name.h): each lookup
 * gives its first and last names, and "?" one past the table, for a
 * negative value and where the table has no name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "config/config.h"
#include "control/enum_name.h"
#include "control/meter_fault.h"
#include "engine/zone.h"
#include "platform/opp_source.h"
#include "platform/thermal.h"
#include "platform/thermal_event.h"

static void test_enum_name_of(void **unused)
{
	static const char *const names[] = { "a", NULL, "c" };

	(void)unused;
	assert_int_equal(ELEMENTSOF(names), 3);
	assert_string_equal(ENUM_NAME(names, 0), "a");
	assert_string_equal(ENUM_NAME(names, 2), "c");
	assert_string_equal(ENUM_NAME(names, 1), "?");		/* no name there */
	assert_string_equal(ENUM_NAME(names, 3), "?");		/* one past */
	assert_string_equal(ENUM_NAME(names, -1), "?");
	assert_string_equal(enum_name_of(names, 2, 2), "?");	/* the bound given */
}

static void test_zone_names(void **unused)
{
	static struct zone z;

	(void)unused;
	assert_string_equal(zone_model_state_name(ZONE_MODEL_LEARNING), "learning");
	assert_string_equal(zone_model_state_name(ZONE_MODEL_IN_USE), "in-use");
	assert_string_equal(zone_model_state_name(_ZONE_MODEL_STATE_MAX), "?");
	assert_string_equal(zone_model_state_name((enum zone_model_state)-1), "?");
	z.setup.sp_source = SP_FROM_CONFIG;
	assert_string_equal(zone_sp_source_name(&z), "config");
	assert_string_equal(zone_sp_source_adjective(&z), "configured");
	z.setup.sp_source = SP_FROM_RAPL;
	assert_string_equal(zone_sp_source_name(&z), "rapl");
	assert_string_equal(zone_sp_source_adjective(&z), "RAPL long-term");
	z.setup.sp_source = _SP_SOURCE_MAX;
	assert_string_equal(zone_sp_source_name(&z), "?");
	assert_string_equal(zone_sp_source_adjective(&z), "?");
}

static void test_platform_names(void **unused)
{
	(void)unused;
	assert_string_equal(trip_type_name(TRIP_ACTIVE), "active");
	assert_string_equal(trip_type_name(TRIP_CRITICAL), "critical");
	assert_string_equal(trip_type_name(TRIP_CRITICAL + 1), "?");
	assert_string_equal(opp_source_name(OPP_SOURCE_NONE), "none");
	assert_string_equal(opp_source_name(OPP_SOURCE_DEVICE_TREE), "device-tree");
	assert_string_equal(opp_source_name(OPP_SOURCE_DEVICE_TREE + 1), "?");
	assert_string_equal(thermal_event_name(THERMAL_EVENT_TZ_CREATE), "tz_create");
	assert_string_equal(thermal_event_name(THERMAL_EVENT_CDEV_DELETE), "cdev_delete");
	assert_string_equal(thermal_event_name(THERMAL_EVENT_CDEV_DELETE + 1), "?");
}

static void test_control_and_config_names(void **unused)
{
	(void)unused;
	assert_string_equal(meter_fault_name(METER_OK), "ok");
	assert_string_equal(meter_fault_name(METER_BACKWARDS), "went backwards");
	assert_string_equal(meter_fault_name(METER_BACKWARDS + 1), "?");
	assert_string_equal(actor_kind_name(ACTOR_CPUFREQ), "cpufreq");
	assert_string_equal(actor_kind_name(ACTOR_POWERCAP), "powercap");
	assert_string_equal(actor_kind_name(ACTOR_COOLING_DEVICE), "cooling_device");
	assert_string_equal(actor_kind_name(ACTOR_COOLING_DEVICE + 1), "?");
	assert_string_equal(controller_name(PID_MODE_DEFAULT), "default");
	assert_string_equal(controller_name(PID_MODE_STEP_WISE), "step_wise");
	assert_string_equal(controller_name(PID_MODE_STEP_WISE + 1), "?");
	assert_string_equal(controller_name((enum pid_mode)-1), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enum_name_of),
		cmocka_unit_test(test_zone_names),
		cmocka_unit_test(test_platform_names),
		cmocka_unit_test(test_control_and_config_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
