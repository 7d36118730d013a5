/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "thermal_event.h"

#include <errno.h>
#include <linux/thermal.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <stdbool.h>

#include "control/enum_name.h"

/* Attribute types and sizes; anything else is refused by genlmsg_parse(). */
static struct nla_policy event_policy[THERMAL_GENL_ATTR_MAX + 1] = {
	[THERMAL_GENL_ATTR_TZ_ID] = { .type = NLA_U32 },
	[THERMAL_GENL_ATTR_TZ_TEMP] = { .type = NLA_U32 },
	[THERMAL_GENL_ATTR_TZ_TRIP_ID] = { .type = NLA_U32 },
	[THERMAL_GENL_ATTR_TZ_TRIP_TYPE] = { .type = NLA_U32 },
	[THERMAL_GENL_ATTR_TZ_TRIP_TEMP] = { .type = NLA_U32 },
	[THERMAL_GENL_ATTR_TZ_TRIP_HYST] = { .type = NLA_U32 },
	[THERMAL_GENL_ATTR_TZ_NAME] = { .type = NLA_STRING },
	[THERMAL_GENL_ATTR_CDEV_ID] = { .type = NLA_U32 },
	[THERMAL_GENL_ATTR_CDEV_MAX_STATE] = { .type = NLA_U32 },
	[THERMAL_GENL_ATTR_CDEV_CUR_STATE] = { .type = NLA_U32 },
	[THERMAL_GENL_ATTR_CDEV_NAME] = { .type = NLA_STRING },
	[THERMAL_GENL_ATTR_GOV_NAME] = { .type = NLA_STRING },
};

static const char *const event_names[] = {
	"tz_create", "tz_delete", "tz_trip_up", "tz_trip_down", "tz_trip_change", "cdev_add",
	"cdev_delete",
};

const char *thermal_event_name(enum thermal_event_kind kind)
{
	return ENUM_NAME(event_names, kind);
}

/* A required u32 id attribute that must fit an int. */
static int get_id(struct nlattr **attrs, int type, int *id)
{
	uint32_t v;

	if (!attrs[type])
		return -EINVAL;
	v = nla_get_u32(attrs[type]);
	if (v > INT32_MAX)
		return -EINVAL;
	*id = (int)v;
	return 0;
}

static int kind_of_command(uint8_t cmd, enum thermal_event_kind *kind)
{
	switch (cmd) {
	case THERMAL_GENL_EVENT_TZ_CREATE: *kind = THERMAL_EVENT_TZ_CREATE; return 0;
	case THERMAL_GENL_EVENT_TZ_DELETE: *kind = THERMAL_EVENT_TZ_DELETE; return 0;
	case THERMAL_GENL_EVENT_TZ_TRIP_UP: *kind = THERMAL_EVENT_TRIP_UP; return 0;
	case THERMAL_GENL_EVENT_TZ_TRIP_DOWN: *kind = THERMAL_EVENT_TRIP_DOWN; return 0;
	case THERMAL_GENL_EVENT_TZ_TRIP_CHANGE: *kind = THERMAL_EVENT_TRIP_CHANGE; return 0;
	case THERMAL_GENL_EVENT_CDEV_ADD: *kind = THERMAL_EVENT_CDEV_ADD; return 0;
	case THERMAL_GENL_EVENT_CDEV_DELETE: *kind = THERMAL_EVENT_CDEV_DELETE; return 0;
	default: return -EOPNOTSUPP;
	}
}

int thermal_event_parse(struct nl_msg *msg, struct thermal_event *ev)
{
	struct nlattr *attrs[THERMAL_GENL_ATTR_MAX + 1];
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *gnlh;
	bool zone, trip, cdev;
	int r;

	/* Only the kernel (port 0) sends thermal events; a process's are forged. */
	if (nlmsg_get_src(msg)->nl_pid != 0)
		return -EPERM;
	if (!genlmsg_valid_hdr(nlh, 0))
		return -EINVAL;
	gnlh = nlmsg_data(nlh);
	r = kind_of_command(gnlh->cmd, &ev->kind);
	if (r < 0)
		return r;
	if (genlmsg_parse(nlh, 0, attrs, THERMAL_GENL_ATTR_MAX, event_policy) < 0)
		return -EINVAL;
	ev->tz_id = ev->trip_id = ev->cdev_id = -1;
	ev->temp_mc = 0;
	cdev = ev->kind == THERMAL_EVENT_CDEV_ADD || ev->kind == THERMAL_EVENT_CDEV_DELETE;
	trip = ev->kind == THERMAL_EVENT_TRIP_UP || ev->kind == THERMAL_EVENT_TRIP_DOWN ||
	       ev->kind == THERMAL_EVENT_TRIP_CHANGE;
	zone = !cdev;
	if (zone && get_id(attrs, THERMAL_GENL_ATTR_TZ_ID, &ev->tz_id) < 0)
		return -EINVAL;
	if (trip && get_id(attrs, THERMAL_GENL_ATTR_TZ_TRIP_ID, &ev->trip_id) < 0)
		return -EINVAL;
	if (cdev && get_id(attrs, THERMAL_GENL_ATTR_CDEV_ID, &ev->cdev_id) < 0)
		return -EINVAL;
	/* The kernel sends the temperature as an int in a u32. */
	if ((ev->kind == THERMAL_EVENT_TRIP_UP || ev->kind == THERMAL_EVENT_TRIP_DOWN) &&
	    attrs[THERMAL_GENL_ATTR_TZ_TEMP])
		ev->temp_mc = (int32_t)nla_get_u32(attrs[THERMAL_GENL_ATTR_TZ_TEMP]);
	return 0;
}
