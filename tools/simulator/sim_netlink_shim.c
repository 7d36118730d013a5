/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LD_PRELOAD shim for the daemon under the simulator (never installed): the
 * simulated kernel's thermal netlink.  With $POWERALLOCD_SIM_NETLINK_FD set
 * (sim_netlink.h), genl_connect() makes its socket read that descriptor,
 * one end of the simulator's socket pair, through libnl's own receive
 * path (nl_cb_overwrite_recv()), each datagram from port 0 as the
 * kernel's; the "thermal" family's "event" group resolves and is joined
 * on it as the kernel would have it.  The daemon's netlink layer
 * (daemon/netlink.c, thermal_event_parse()) runs unchanged: the only
 * thing replaced is the wire.  Without the variable, libnl's own.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/thermal.h>
#include <netlink/errno.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/handlers.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sim_netlink.h"

/* The socket given the simulator's events (the last genl_connect()ed), NULL: none yet. */
static struct nl_sock *sim_sock;

/* The simulator's end, -1 when the daemon is not run by it. */
static int sim_fd(void)
{
	const char *text = getenv(SIM_NETLINK_FD_ENV);
	char *end;
	long fd;

	if (!text)
		return -1;
	fd = strtol(text, &end, 10);
	return end != text && !*end && fd >= 0 && fd < 65536 ? (int)fd : -1;
}

/* libnl's recv, on the socket pair: one datagram, from the kernel (port 0). */
static int sim_recv(struct nl_sock *sk, struct sockaddr_nl *nla, unsigned char **buf,
		    struct ucred **creds)
{
	unsigned char *b = malloc(SIM_NETLINK_MAX_MSG);
	ssize_t n;

	if (!b)
		return -NLE_NOMEM;
	do
		n = recv(nl_socket_get_fd(sk), b, SIM_NETLINK_MAX_MSG, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int r = -nl_syserr2nlerr(errno);

		free(b);
		return r;
	}
	memset(nla, 0, sizeof(*nla));
	nla->nl_family = AF_NETLINK;
	nla->nl_groups = 1U << (SIM_THERMAL_EVENT_GROUP - 1);
	*buf = b;
	if (creds)
		*creds = NULL;
	return (int)n;
}

int genl_connect(struct nl_sock *sk)
{
	static int (*next)(struct nl_sock *);
	int fd = sim_fd(), r;
	struct nl_cb *cb;

	if (!next)
		next = (int (*)(struct nl_sock *))dlsym(RTLD_NEXT, "genl_connect");
	r = next(sk);
	if (r < 0 || fd < 0)
		return r;
	/* The netlink socket's number now names the simulator's end. */
	if (dup2(fd, nl_socket_get_fd(sk)) < 0 ||
	    fcntl(nl_socket_get_fd(sk), F_SETFD, FD_CLOEXEC) < 0)
		return -nl_syserr2nlerr(errno);
	cb = nl_socket_get_cb(sk);
	if (!cb)
		return -NLE_NOMEM;
	nl_cb_overwrite_recv(cb, sim_recv);
	nl_cb_put(cb);
	sim_sock = sk;
	return 0;
}

int genl_ctrl_resolve_grp(struct nl_sock *sk, const char *family, const char *grp)
{
	static int (*next)(struct nl_sock *, const char *, const char *);

	if (!next)
		next = (int (*)(struct nl_sock *, const char *, const char *))
			dlsym(RTLD_NEXT, "genl_ctrl_resolve_grp");
	if (!sk || sk != sim_sock)
		return next(sk, family, grp);
	/* The simulated kernel has the thermal family and nothing else. */
	if (strcmp(family, THERMAL_GENL_FAMILY_NAME) == 0 &&
	    strcmp(grp, THERMAL_GENL_EVENT_GROUP_NAME) == 0)
		return SIM_THERMAL_EVENT_GROUP;
	return -NLE_OBJ_NOTFOUND;
}

int nl_socket_add_membership(struct nl_sock *sk, int group)
{
	static int (*next)(struct nl_sock *, int);

	if (!next)
		next = (int (*)(struct nl_sock *, int))dlsym(RTLD_NEXT, "nl_socket_add_membership");
	if (!sk || sk != sim_sock)
		return next(sk, group);
	return group == SIM_THERMAL_EVENT_GROUP ? 0 : -NLE_INVAL;
}
