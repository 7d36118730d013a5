/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Thermal netlink events, built with libnl as the kernel sends them. */
#include <errno.h>
#include <linux/thermal.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "platform/thermal_event.h"

#define FAMILY 0x1c	/* any id: the parser does not check it */

static struct nl_msg *event(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	assert_non_null(msg);
	assert_non_null(genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, FAMILY, 0, 0, cmd,
				    THERMAL_GENL_VERSION));
	return msg;
}

static int parse(struct nl_msg *msg, struct thermal_event *ev)
{
	int r = thermal_event_parse(msg, ev);

	nlmsg_free(msg);
	return r;
}

static void test_trip_up(void **unused)
{
	struct nl_msg *msg = event(THERMAL_GENL_EVENT_TZ_TRIP_UP);
	struct thermal_event ev;

	(void)unused;
	nla_put_u32(msg, THERMAL_GENL_ATTR_TZ_ID, 3);
	nla_put_u32(msg, THERMAL_GENL_ATTR_TZ_TRIP_ID, 1);
	nla_put_u32(msg, THERMAL_GENL_ATTR_TZ_TEMP, 75250);
	assert_int_equal(parse(msg, &ev), 0);
	assert_int_equal(ev.kind, THERMAL_EVENT_TRIP_UP);
	assert_int_equal(ev.tz_id, 3);
	assert_int_equal(ev.trip_id, 1);
	assert_int_equal(ev.temp_mc, 75250);
	assert_int_equal(ev.cdev_id, -1);
	assert_string_equal(thermal_event_name(ev.kind), "tz_trip_up");
}

static void test_trip_down_negative_temperature(void **unused)
{
	struct nl_msg *msg = event(THERMAL_GENL_EVENT_TZ_TRIP_DOWN);
	struct thermal_event ev;

	(void)unused;
	nla_put_u32(msg, THERMAL_GENL_ATTR_TZ_ID, 0);
	nla_put_u32(msg, THERMAL_GENL_ATTR_TZ_TRIP_ID, 0);
	nla_put_u32(msg, THERMAL_GENL_ATTR_TZ_TEMP, (uint32_t)-5000);
	assert_int_equal(parse(msg, &ev), 0);
	assert_int_equal(ev.kind, THERMAL_EVENT_TRIP_DOWN);
	assert_int_equal(ev.temp_mc, -5000);
}

static void test_zone_and_cdev_events(void **unused)
{
	struct nl_msg *msg = event(THERMAL_GENL_EVENT_TZ_CREATE);
	struct thermal_event ev;

	(void)unused;
	nla_put_u32(msg, THERMAL_GENL_ATTR_TZ_ID, 7);
	nla_put_string(msg, THERMAL_GENL_ATTR_TZ_NAME, "gpu-thermal");
	assert_int_equal(parse(msg, &ev), 0);
	assert_int_equal(ev.kind, THERMAL_EVENT_TZ_CREATE);
	assert_int_equal(ev.tz_id, 7);

	msg = event(THERMAL_GENL_EVENT_CDEV_ADD);
	nla_put_u32(msg, THERMAL_GENL_ATTR_CDEV_ID, 4);
	nla_put_string(msg, THERMAL_GENL_ATTR_CDEV_NAME, "cpufreq-cpu4");
	nla_put_u32(msg, THERMAL_GENL_ATTR_CDEV_MAX_STATE, 7);
	assert_int_equal(parse(msg, &ev), 0);
	assert_int_equal(ev.kind, THERMAL_EVENT_CDEV_ADD);
	assert_int_equal(ev.cdev_id, 4);
	assert_int_equal(ev.tz_id, -1);

	msg = event(THERMAL_GENL_EVENT_TZ_TRIP_CHANGE);
	nla_put_u32(msg, THERMAL_GENL_ATTR_TZ_ID, 1);
	nla_put_u32(msg, THERMAL_GENL_ATTR_TZ_TRIP_ID, 2);
	nla_put_u32(msg, THERMAL_GENL_ATTR_TZ_TRIP_TYPE, 1);
	nla_put_u32(msg, THERMAL_GENL_ATTR_TZ_TRIP_TEMP, 80000);
	nla_put_u32(msg, THERMAL_GENL_ATTR_TZ_TRIP_HYST, 2000);
	assert_int_equal(parse(msg, &ev), 0);
	assert_int_equal(ev.kind, THERMAL_EVENT_TRIP_CHANGE);
}

static void test_malformed(void **unused)
{
	struct nl_msg *msg;
	struct thermal_event ev;

	(void)unused;
	/* Missing zone id. */
	msg = event(THERMAL_GENL_EVENT_TZ_TRIP_UP);
	nla_put_u32(msg, THERMAL_GENL_ATTR_TZ_TRIP_ID, 1);
	assert_int_equal(parse(msg, &ev), -EINVAL);
	/* Missing trip id. */
	msg = event(THERMAL_GENL_EVENT_TZ_TRIP_DOWN);
	nla_put_u32(msg, THERMAL_GENL_ATTR_TZ_ID, 1);
	assert_int_equal(parse(msg, &ev), -EINVAL);
	/* Zone id out of range. */
	msg = event(THERMAL_GENL_EVENT_TZ_DELETE);
	nla_put_u32(msg, THERMAL_GENL_ATTR_TZ_ID, 0x80000000u);
	assert_int_equal(parse(msg, &ev), -EINVAL);
	/* An attribute too short for its type. */
	msg = event(THERMAL_GENL_EVENT_CDEV_DELETE);
	nla_put_u8(msg, THERMAL_GENL_ATTR_CDEV_ID, 1);
	assert_int_equal(parse(msg, &ev), -EINVAL);
	/* No attributes at all. */
	msg = event(THERMAL_GENL_EVENT_CDEV_ADD);
	assert_int_equal(parse(msg, &ev), -EINVAL);
	/* A truncated generic netlink header. */
	msg = nlmsg_alloc();
	assert_non_null(nlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, FAMILY, 0, 0));
	assert_int_equal(parse(msg, &ev), -EINVAL);
}

/* The same well-formed trip event, from a process's port instead of the kernel's. */
static void test_forged_sender(void **unused)
{
	struct sockaddr_nl from = { .nl_family = AF_NETLINK, .nl_pid = 4242 };
	struct nl_msg *msg = event(THERMAL_GENL_EVENT_TZ_TRIP_UP);
	struct thermal_event ev;

	(void)unused;
	nla_put_u32(msg, THERMAL_GENL_ATTR_TZ_ID, 0);
	nla_put_u32(msg, THERMAL_GENL_ATTR_TZ_TRIP_ID, 0);
	nlmsg_set_src(msg, &from);
	assert_int_equal(parse(msg, &ev), -EPERM);

	msg = event(THERMAL_GENL_EVENT_TZ_TRIP_UP);
	nla_put_u32(msg, THERMAL_GENL_ATTR_TZ_ID, 0);
	nla_put_u32(msg, THERMAL_GENL_ATTR_TZ_TRIP_ID, 0);
	from.nl_pid = 0;
	nlmsg_set_src(msg, &from);
	assert_int_equal(parse(msg, &ev), 0);
}

static void test_ignored_events(void **unused)
{
	struct nl_msg *msg = event(THERMAL_GENL_EVENT_CDEV_STATE_UPDATE);
	struct thermal_event ev;

	(void)unused;
	nla_put_u32(msg, THERMAL_GENL_ATTR_CDEV_ID, 1);
	nla_put_u32(msg, THERMAL_GENL_ATTR_CDEV_CUR_STATE, 3);
	assert_int_equal(parse(msg, &ev), -EOPNOTSUPP);
	msg = event(200);
	assert_int_equal(parse(msg, &ev), -EOPNOTSUPP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trip_up),
		cmocka_unit_test(test_trip_down_negative_temperature),
		cmocka_unit_test(test_zone_and_cdev_events),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_ignored_events),
		cmocka_unit_test(test_forged_sender),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
