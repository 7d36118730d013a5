/* SPDX-License-Identifier: GPL-2.0-or-later */
/* powerallocctl limit: the power cap, checked here before the daemon is asked. */
#include "ctl_limit.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_read.h"
#include "engine/engine.h"

/*
 * limit's POWER into *@mw: a number with its unit, W (4.5W, to the mW) or
 * mW (4500mW).  A bare number is refused: every other power powerallocctl
 * shows is in mW, while "4.5" reads as watts; either reading of "5" would
 * throttle someone's machine by a factor of 1000.  Return: whether it is
 * one (else the reason is said).
 */
static bool parse_power_mw(const char *text, uint64_t *mw)
{
	const char *p = text, *frac = "";
	uint64_t whole = 0, milli = 0;
	size_t digits = 0;
	bool negative = *p == '-', dotted;

	p += negative;
	/* Past 12 digits, a number too large for any machine: the range check refuses it. */
	for (; isdigit((unsigned char)*p); p++, digits++)
		whole = digits < 12 ? whole * 10 + (uint64_t)(*p - '0') : UINT32_MAX * 10ULL;
	dotted = *p == '.';
	if (dotted)
		for (frac = ++p; isdigit((unsigned char)*p); p++)
			digits++;
	if (!digits) {
		fprintf(stderr, "powerallocctl: limit: \"%s\" is not a power: write it in W (4.5W) "
			"or mW (4500mW)\n", text);
		return false;
	}
	if (strcmp(p, "W") == 0) {
		/* Three decimals are mW; more must be zeros. */
		for (int k = 0; k < 3; k++)
			milli = milli * 10 + (isdigit((unsigned char)*frac) ? (uint64_t)(*frac++ - '0') : 0);
		*mw = whole * 1000 + milli;
	} else if (*p == '\0') {
		fprintf(stderr, "powerallocctl: limit: \"%s\" has no unit: write %sW for watts%s%s%s "
			"(a power without its unit is refused: W and mW are a thousand times "
			"apart)\n", text, text, dotted ? "" : " or ", dotted ? "" : text,
			dotted ? "" : "mW for milliwatts");
		return false;
	} else if (strcmp(p, "mW") == 0) {
		*mw = whole;
	} else {
		fprintf(stderr, "powerallocctl: limit: \"%s\": the unit must be W or mW "
			"(4.5W, 4500mW)\n", text);
		return false;
	}
	for (; isdigit((unsigned char)*frac); frac++)
		if (*frac != '0') {
			fprintf(stderr, "powerallocctl: limit: \"%s\" is finer than 1 mW: give whole "
				"mW (4500mW) or W to three decimals (4.5W)\n", text);
			return false;
		}
	if (negative || !*mw) {
		fprintf(stderr, "powerallocctl: limit: \"%s\": a power cap is 1 mW or more; "
			"'powerallocctl limit --clear' lifts a cap\n", text);
		return false;
	}
	return true;
}

int ctl_limit_parse(struct limit_request *l)
{
	char *end = NULL;
	unsigned long long s;

	if (l->clear)
		return l->power || l->lease ? ctl_usage_error("limit --clear takes no POWER or "
							      "--lease") : EXIT_OK;
	if (!l->power)
		return ctl_usage_error("limit needs a POWER (4.5W, 4500mW) and --lease SECONDS");
	if (!parse_power_mw(l->power, &l->limit_mw))
		return EXIT_USAGE;
	if (!l->lease)
		return ctl_usage_error("limit needs --lease SECONDS (the cap lifts when the lease "
				       "ends unless renewed)");
	errno = 0;
	s = strtoull(l->lease, &end, 10);
	/* The daemon's range, refused here as every other bad argument is. */
	if (end == l->lease || *end || *l->lease == '-' || errno ||
	    s < POWER_LIMIT_LEASE_MIN_S || s > POWER_LIMIT_LEASE_MAX_S)
		return ctl_usage_error("limit needs --lease SECONDS, a whole number of seconds (%d "
				       "to %d), not \"%s\"", POWER_LIMIT_LEASE_MIN_S,
				       POWER_LIMIT_LEASE_MAX_S, l->lease);
	l->lease_s = (uint32_t)s;
	return EXIT_OK;
}

/* ClearPowerLimit(), saying whether there was a cap to lift. */
static int clear_limit(sd_bus *bus)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	uint32_t was_mw = 0;
	int r, x;

	r = sd_bus_get_property_trivial(bus, BUS_NAME, BUS_PATH, "org.powerallocd1.Manager",
					"PowerLimit", &e, 'u', &was_mw);
	if (r >= 0)
		r = sd_bus_call_method(bus, BUS_NAME, BUS_PATH, "org.powerallocd1.Manager",
				       "ClearPowerLimit", &e, NULL, "");
	x = r < 0 ? ctl_failure_exit(&e, r) : EXIT_OK;
	if (r >= 0 && was_mw)
		printf("power limit %u mW cleared\n", was_mw);
	else if (r >= 0)
		printf("no power limit was set: nothing to clear\n");
	sd_bus_error_free(&e);
	return x;
}

/*
 * A cap under what the actors' lowest states draw at full load
 * (Manager.LowestPower; a daemon without it says nothing) holds every actor
 * there under a full load and still is not met: said, as the status then
 * says it is unmet.
 */
static void warn_below_lowest(sd_bus *bus, const struct limit_request *l)
{
	uint32_t lowest_mw = 0;

	if (sd_bus_get_property_trivial(bus, BUS_NAME, BUS_PATH, "org.powerallocd1.Manager",
					"LowestPower", NULL, 'u', &lowest_mw) < 0 ||
	    l->limit_mw >= lowest_mw)
		return;
	fprintf(stderr, "powerallocctl: limit: warning: %s is under the %u mW the power actors "
		"draw at their lowest states at full load: under a full load the cap holds every "
		"one of them there and is still not met (status says \"unmet\")\n", l->power,
		lowest_mw);
}

/*
 * SetPowerLimit(limit_mw, lease_s) of @l, once the cap is one the machine's
 * power actors can draw (a cap above it caps nothing: a unit mistaken).
 */
int ctl_limit_run(sd_bus *bus, const struct limit_request *l)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	uint64_t max_mw;
	int r, x;

	if (l->clear)
		return clear_limit(bus);
	if ((x = ctl_read_max_power(bus, &max_mw)) != EXIT_OK)
		return x;
	if (!max_mw) {
		fprintf(stderr, "powerallocctl: limit: powerallocd drives no power actor: there is "
			"nothing to cap\n");
		return EXIT_ERROR;
	}
	if (l->limit_mw > max_mw) {
		fprintf(stderr, "powerallocctl: limit: %s is %llu mW, more than this machine's power "
			"actors can draw together: give 1mW to %llumW (%.3fW)\n", l->power,
			(unsigned long long)l->limit_mw, (unsigned long long)max_mw, max_mw / 1000.0);
		return EXIT_USAGE;
	}
	r = sd_bus_call_method(bus, BUS_NAME, BUS_PATH, "org.powerallocd1.Manager",
			       "SetPowerLimit", &e, NULL, "uu", (uint32_t)l->limit_mw, l->lease_s);
	x = r < 0 ? ctl_failure_exit(&e, r) : EXIT_OK;
	if (r >= 0) {
		printf("power limit %llu mW for %u s\n", (unsigned long long)l->limit_mw, l->lease_s);
		warn_below_lowest(bus, l);
	}
	sd_bus_error_free(&e);
	return x;
}
