/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's netlink subscription on this machine's real kernel (suite
 * integration): where the kernel has the thermal family, powerallocd joins
 * its event group; where it has not, the subscription says so and the
 * daemon polls.
 */
#include <linux/thermal.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "platform/log.h"
#include "netlink.h"

static char last[512];

static void collect(void *userdata, int priority, const char *const *fields,
		    const char *message)
{
	(void)userdata;
	(void)fields;
	(void)priority;
	snprintf(last, sizeof(last), "%s", message);
}

static void ignore(void *userdata, const struct thermal_event *ev)
{
	(void)userdata;
	(void)ev;
}

/* Whether the running kernel has the family and group, asked independently. */
static int kernel_has_thermal_events(void)
{
	struct nl_sock *sock = nl_socket_alloc();
	int group = -1;

	if (sock && genl_connect(sock) == 0)
		group = genl_ctrl_resolve_grp(sock, THERMAL_GENL_FAMILY_NAME,
					      THERMAL_GENL_EVENT_GROUP_NAME);
	nl_socket_free(sock);
	return group >= 0;
}

static void test_join_event_group(void **unused)
{
	sd_event *event = NULL;
	struct netlink *nl;
	int has = kernel_has_thermal_events();

	(void)unused;
	assert_int_equal(sd_event_new(&event), 0);
	nl = netlink_open(event, ignore, NULL);
	print_message("kernel thermal netlink family: %s; %s\n", has ? "present" : "absent", last);
	if (has) {
		assert_non_null(nl);
		assert_non_null(strstr(last, "listening to thermal netlink events"));
	} else {
		assert_null(nl);
		assert_non_null(strstr(last, "polling only"));
	}
	netlink_close(nl);
	sd_event_unref(event);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_join_event_group),
	};

	pa_log_set_handler(collect, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
