/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target: thermal netlink events, any bytes after a netlink header. */
#include <linux/netlink.h>
#include <netlink/msg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "platform/thermal_event.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nlmsghdr *hdr = calloc(1, NLMSG_HDRLEN + size);
	struct thermal_event ev;
	struct nl_msg *msg;

	if (!hdr || size > 65536) {
		free(hdr);
		return 0;
	}
	hdr->nlmsg_len = (uint32_t)(NLMSG_HDRLEN + size);
	hdr->nlmsg_type = 0x20;
	memcpy((char *)hdr + NLMSG_HDRLEN, data, size);
	msg = nlmsg_convert(hdr);
	if (msg) {
		thermal_event_parse(msg, &ev);
		nlmsg_free(msg);
	}
	free(hdr);
	return 0;
}
