/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "power_limit.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "platform/log.h"
#include "control/time_units.h"

static void notify(struct power_limit *l)
{
	if (l->changed)
		l->changed(l->userdata);
}

static int on_lease_end(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct power_limit *l = userdata;

	(void)s, (void)usec;
	pa_log(PA_LOG_WARNING, "power limit %u mW: the lease ended without a renewal; "
	       "the limit is lifted", l->limit_mw);
	l->limit_mw = 0;
	l->expires_us = 0;
	l->unmet[0] = '\0';
	notify(l);
	return 0;
}

int power_limit_init(struct power_limit *l, sd_event *event, void (*changed)(void *userdata),
		     void *userdata)
{
	int r;

	memset(l, 0, sizeof(*l));
	r = sd_event_add_time(event, &l->lease, CLOCK_MONOTONIC, UINT64_MAX, 0, on_lease_end, l);
	if (r < 0)
		return r;
	l->changed = changed;
	l->userdata = userdata;
	return sd_event_source_set_enabled(l->lease, SD_EVENT_OFF);
}

int power_limit_set(struct power_limit *l, uint32_t limit_mw, uint32_t lease_s, char *why,
		    size_t why_size)
{
	uint64_t now = 0;
	int r;

	if (!limit_mw) {
		snprintf(why, why_size, "a power limit of 0 mW caps nothing: ClearPowerLimit() "
			 "lifts a limit");
		return -EINVAL;
	}
	if (lease_s < POWER_LIMIT_LEASE_MIN_S || lease_s > POWER_LIMIT_LEASE_MAX_S) {
		snprintf(why, why_size, "a lease of %u s: it must be %d to %d s", lease_s,
			 POWER_LIMIT_LEASE_MIN_S, POWER_LIMIT_LEASE_MAX_S);
		return -EINVAL;
	}
	sd_event_now(sd_event_source_get_event(l->lease), CLOCK_MONOTONIC, &now);
	if ((r = sd_event_source_set_time(l->lease, now + lease_s * USEC_PER_SEC)) < 0 ||
	    (r = sd_event_source_set_enabled(l->lease, SD_EVENT_ONESHOT)) < 0) {
		snprintf(why, why_size, "cannot arm the lease: %s", strerror(-r));
		return r;
	}
	/* A renewal of the same cap is routine: the journal hears of changes. */
	pa_log(limit_mw == l->limit_mw ? PA_LOG_DEBUG : PA_LOG_NOTICE, "power limit %u mW for %u s",
	       limit_mw, lease_s);
	if (limit_mw != l->limit_mw)
		l->unmet[0] = '\0';	/* judged again after the next cycle */
	l->limit_mw = limit_mw;
	l->expires_us = now + lease_s * USEC_PER_SEC;
	notify(l);
	return 0;
}

void power_limit_clear(struct power_limit *l)
{
	if (!l->limit_mw)
		return;
	pa_log(PA_LOG_NOTICE, "power limit %u mW cleared", l->limit_mw);
	sd_event_source_set_enabled(l->lease, SD_EVENT_OFF);
	l->limit_mw = 0;
	l->expires_us = 0;
	l->unmet[0] = '\0';
	notify(l);
}

void power_limit_note_lowest(struct power_limit *l, const struct engine *e)
{
	char unmet[sizeof(l->unmet)] = "", held[600];

	if (l->limit_mw && e->lowest_mw > l->limit_mw)
		snprintf(unmet, sizeof(unmet), "the actors' lowest states draw %u mW, above the "
			 "limit of %u mW", e->lowest_mw, l->limit_mw);
	if (strcmp(unmet, l->unmet) == 0)
		return;
	/* What the states are after the cycle that applied the limit, not what they should be. */
	if (unmet[0] && !l->unmet[0])
		pa_log(PA_LOG_WARNING, "power limit %u mW cannot be met: %s; %s",
		       l->limit_mw, unmet, engine_lowest_text(e, held, sizeof(held)));
	snprintf(l->unmet, sizeof(l->unmet), "%s", unmet);
	notify(l);
}

void power_limit_free(struct power_limit *l)
{
	l->lease = sd_event_source_unref(l->lease);
}
