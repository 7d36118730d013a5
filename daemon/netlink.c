/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "netlink.h"

#include <errno.h>
#include <linux/thermal.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <stdlib.h>
#include <string.h>

#include "platform/log.h"

struct netlink {
	struct nl_sock *sock;
	sd_event_source *source;
	thermal_event_fn fn;
	void *userdata;
};

static int on_message(struct nl_msg *msg, void *arg)
{
	struct netlink *nl = arg;
	struct thermal_event ev;
	int r = thermal_event_parse(msg, &ev);

	if (r == 0)
		nl->fn(nl->userdata, &ev);
	else if (r == -EINVAL)
		pa_log(PA_LOG_DEBUG, "thermal netlink: malformed event dropped");
	else if (r == -EPERM)
		pa_log(PA_LOG_DEBUG, "thermal netlink: event from port %u, not the kernel, dropped",
		       nlmsg_get_src(msg)->nl_pid);
	return NL_OK;
}

static int on_readable(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct netlink *nl = userdata;
	int r;

	(void)s;
	(void)fd;
	(void)revents;
	r = nl_recvmsgs_default(nl->sock);
	if (r < 0 && r != -NLE_AGAIN)
		pa_log(PA_LOG_DEBUG, "thermal netlink: %s", nl_geterror(r));
	return 0;
}

void netlink_close(struct netlink *nl)
{
	if (!nl)
		return;
	sd_event_source_disable_unref(nl->source);
	nl_socket_free(nl->sock);
	free(nl);
}

struct netlink *netlink_open(sd_event *event, thermal_event_fn fn, void *userdata)
{
	struct netlink *nl = calloc(1, sizeof(*nl));
	const char *why = NULL;
	int group, r;

	if (!nl)
		return NULL;
	nl->fn = fn;
	nl->userdata = userdata;
	nl->sock = nl_socket_alloc();
	if (!nl->sock || genl_connect(nl->sock) < 0) {
		why = "no generic netlink socket";
		goto fail;
	}
	group = genl_ctrl_resolve_grp(nl->sock, THERMAL_GENL_FAMILY_NAME,
				      THERMAL_GENL_EVENT_GROUP_NAME);
	if (group < 0) {
		why = "the kernel has no thermal netlink family or event group: "
		      "CONFIG_THERMAL_NETLINK";
		goto fail;
	}
	nl_socket_disable_seq_check(nl->sock);
	nl_socket_modify_cb(nl->sock, NL_CB_VALID, NL_CB_CUSTOM, on_message, nl);
	if (nl_socket_add_membership(nl->sock, group) < 0 ||
	    nl_socket_set_nonblocking(nl->sock) < 0) {
		why = "cannot join the thermal event group";
		goto fail;
	}
	r = sd_event_add_io(event, &nl->source, nl_socket_get_fd(nl->sock), EPOLLIN, on_readable, nl);
	if (r < 0) {
		why = strerror(-r);
		goto fail;
	}
	pa_log(PA_LOG_INFO, "listening to thermal netlink events");
	return nl;
fail:
	pa_log(PA_LOG_NOTICE, "thermal netlink events unavailable (%s); polling only: no "
	       "wakeup on trip crossings or on cooling devices added later", why);
	netlink_close(nl);
	return NULL;
}
