/* SPDX-License-Identifier: GPL-2.0-or-later */
/* powerallocctl: the status table and its JSON. */
#include "ctl_print.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "control/cpumask.h"

/* How many CPUs a list such as "0-3,6" names (0 for "", a device, or a list it cannot read). */
static unsigned int count_cpus(const char *list)
{
	struct cpumask mask;

	return *list && cpumask_parse_list(list, &mask, NULL) == 0 ? cpumask_weight(&mask) : 0;
}

/* How many columns @s takes on a terminal: its UTF-8 characters (°C is two, not three). */
static size_t columns(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/*
 * @s into @out (@size bytes), cut to @cols columns at most: a longer name
 * keeps its first @cols - 1 characters and ends in "…", so that a row keeps
 * its columns and the table its 80.  Return: @out.
 */
static const char *fit(char *out, size_t size, const char *s, size_t cols)
{
	size_t n = 0, i = 0;

	if (cols == 0 || columns(s) <= cols) {
		snprintf(out, size, "%s", cols ? s : "");
		return out;
	}
	/* Whole characters only: stop before the one that would leave no room for "…". */
	for (; s[i] && i + 4 < size; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && ++n == cols)
			break;
	}
	snprintf(out, size, "%.*s…", (int)i, s);
	return out;
}

/* The field width printf needs to pad @s (bytes) to @cols columns. */
static int pad(const char *s, size_t cols)
{
	return (int)(cols + strlen(s) - columns(s));
}

/*
 * The load of @a in percent of one CPU, averaged over its CPUs (0 to 100, as
 * top(1) shows a core; rounded), from the bus's Load, which sums them; a
 * device's (a GPU's) own load.  The table's LOAD and the JSON's mean_load_pct.
 */
static unsigned int mean_load_pct(const struct actor_view *a)
{
	unsigned int cpus = count_cpus(a->cpus);

	return cpus ? (a->load + cpus / 2) / cpus : a->load;
}

/* One actor's row, 80 columns (long names cut); for a device without a power
 * model (a fan on the step_wise fallback) only its state. */
static void print_actor_row(const struct actor_view *a)
{
	char name[80], list[32];

	fit(name, sizeof(name), a->name, 20);
	fit(list, sizeof(list), *a->cpus ? a->cpus : "-", 7);
	if (strcmp(a->kind, "cooling_device") == 0) {
		printf("  %-*s %-11s %-7s %4s %5s %6s %6s %6s %2u/%-2u\n", pad(name, 20), name, "cdev",
		       "-", "-", "-", "-", "-", "-", a->state, a->max_state);
		return;
	}
	printf("  %-*s %-11s %-*s %3u%% %5u %6u %6u %6u %2u/%-2u\n", pad(name, 20), name, a->kind,
	       pad(list, 7), list, mean_load_pct(a), a->freq / 1000, a->requested, a->granted,
	       a->max, a->state, a->max_state);
}

/* The power actors held back, and why; those another program writes too. */
static void print_limited(const struct actor_view *actors, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		if (actors[k].reason && strcmp(actors[k].reason, "none") != 0)
			printf("  %-20s limited by %s\n", actors[k].name, actors[k].reason);
		if (actors[k].external_writes)
			printf("  %-20s written by another program %u %s%s\n", actors[k].name,
			       actors[k].external_writes, actors[k].external_writes == 1 ? "time"
			       : "times", actors[k].yielded ? "; left to it (yield)" : "");
	}
}

/*
 * What a metered actor's meter says, in 57 columns at most (after its
 * name): the power it measured beside its table's (uncalibrated) for the
 * same state and load, and its table's calibration (scale, or scale and
 * static offset, and confidence; "calibrating" until it knows something),
 * or why it was dropped.  The mW is said once for both powers and the
 * confidence is "conf" so that 5-digit powers and an offset fit.
 */
static void meter_words(const struct actor_view *a, char *out, size_t size)
{
	char line[160];

	if (strcmp(a->meter_state, "dropped") == 0)
		snprintf(line, sizeof(line), "meter dropped: %s; from its power table",
			 a->meter_fault);
	else if (strcmp(a->meter_state, "reading") != 0)
		snprintf(line, sizeof(line), "meter: no reading yet");
	else if (!a->calibrating)	/* a powercap zone's own: its request, no table to check */
		snprintf(line, sizeof(line), "measured %u mW", a->measured);
	else if (a->power_scale_confidence < 0.005)
		snprintf(line, sizeof(line), "measured %u, table %u mW (calibrating)", a->measured,
			 a->table);
	else if (fabs(a->power_scale_offset) >= 0.5)
		snprintf(line, sizeof(line), "measured %u, table %u mW (%.2f x %+.0f mW, conf %.2f)",
			 a->measured, a->table, a->power_scale, a->power_scale_offset,
			 a->power_scale_confidence);
	else
		snprintf(line, sizeof(line), "measured %u, table %u mW (scale %.2f, conf %.2f)",
			 a->measured, a->table, a->power_scale, a->power_scale_confidence);
	fit(out, size, line, 57);
}

/* A line under the rows for each power actor with a meter (meter_words()). */
static void print_meters(const struct actor_view *actors, size_t n)
{
	char name[80], words[160];

	for (size_t k = 0; k < n; k++) {
		if (!actors[k].meter_state || strcmp(actors[k].meter_state, "none") == 0)
			continue;
		fit(name, sizeof(name), actors[k].name, 20);
		meter_words(&actors[k], words, sizeof(words));
		printf("  %-*s %s\n", pad(name, 20), name, words);
	}
}

/*
 * The devices on the step_wise fallback that are on: a fan is not held back,
 * it cools ("cooling at its top state" when it cannot cool harder); turned
 * up for the temperature, or to the top without one (sensor-fault).
 */
static void print_cooling(const struct actor_view *devices, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		const struct actor_view *d = &devices[k];
		bool blind = d->reason && strcmp(d->reason, "sensor-fault") == 0;

		if (!d->state)
			continue;
		if (d->state >= d->max_state)
			printf("  %-20s cooling at its top state (%u/%u)%s\n", d->name, d->state,
			       d->max_state, blind ? ": sensor-fault" : "");
		else
			printf("  %-20s cooling at state %u/%u%s\n", d->name, d->state,
			       d->max_state, blind ? ": sensor-fault" : "");
	}
}

/* Seconds until @usec on CLOCK_MONOTONIC (the lease's clock), 0 when past. */
static double seconds_until(uint64_t usec)
{
	struct timespec now;
	uint64_t now_us;

	clock_gettime(CLOCK_MONOTONIC, &now);
	now_us = (uint64_t)now.tv_sec * 1000000 + (uint64_t)now.tv_nsec / 1000;
	return usec > now_us ? (usec - now_us) / 1e6 : 0;
}

/*
 * A zone's heading in two lines of 80 columns at most: its name, sensor and
 * temperature, the names shortened (the sensor first) where they would not
 * fit; then its switch-on and control temperatures and the controller's aim.
 */
static void print_zone_heading(const struct zone_view *z)
{
	char temp[24], name[128], sensor[128];
	size_t room, nn = columns(z->name), ns = columns(z->sensor);

	snprintf(temp, sizeof(temp), "%.2f", z->temp / 1000.0);
	/* "ZONE ", " (", ") " and " °C" take 12 columns. */
	room = 80 - 12 - strlen(temp);
	if (nn + ns > room) {
		/* The zone's name is what status ZONE takes: the sensor is cut first, to a third. */
		size_t ns_min = ns < room / 3 ? ns : room / 3;

		ns = nn + ns_min <= room ? room - nn : ns_min;
		nn = room - ns;
	}
	printf("\nZONE %s (%s) %s °C\n", fit(name, sizeof(name), z->name, nn),
	       fit(sensor, sizeof(sensor), z->sensor, ns), temp);
	if (z->always_on)
		printf("  always on");
	else
		printf("  switch-on %.1f °C", z->switch_on / 1000.0);
	printf(", control %.1f °C (aims %.2f)\n", z->control / 1000.0,
	       (z->control - (int64_t)z->margin) / 1000.0);
}

/* Where a sustainable power came from (the bus's source names), for the table. */
static const char *source_words(const char *source)
{
	static const char *const words[][2] = {
		{ "config", "configured" }, { "sysfs", "device tree" },
		{ "estimated", "estimated" }, { "learnt", "learnt" },
		{ "rapl", "RAPL limit" },
	};

	for (size_t k = 0; source && k < sizeof(words) / sizeof(words[0]); k++)
		if (strcmp(source, words[k][0]) == 0)
			return words[k][1];
	return source ? source : "?";
}

/* Whether the zone's thermal model knows nothing yet (its values are the prior's). */
static bool learning(const struct zone_view *z)
{
	return !z->model_state || strcmp(z->model_state, "learning") == 0;
}

/*
 * The budget and the sustainable power the controller runs on; in the
 * first approach (source "lowest") the actors' lowest power, with the
 * given one beside it.
 */
static void print_zone_budget(const struct zone_view *z)
{
	const char *state = z->active ? "active" : "idle";

	if (!z->in_use_source || strcmp(z->in_use_source, "lowest") != 0) {
		printf("  %s, budget %u mW of %u mW sustainable (%s); power in mW\n", state,
		       z->budget, z->in_use, source_words(z->in_use_source));
		return;
	}
	printf("  %s, budget %u mW, first approach from the lowest power, %u mW,\n", state,
	       z->budget, z->in_use);
	printf("  until the model is learnt (%s %u mW); power in mW\n",
	       source_words(z->sp_source), z->sustainable);
}

/*
 * A headroom as it reads, into @buf: "cool" under 0 (below switch-on: -5.00
 * at 45 °C under a switch-on of 70 °C read as over a limit), "-" without one.
 */
static char *headroom_text(double headroom, char *buf, size_t size)
{
	if (isnan(headroom) || headroom < 0)
		snprintf(buf, size, "%s", isnan(headroom) ? "-" : "cool");
	else
		snprintf(buf, size, "%.2f", headroom);
	return buf;
}

/* Its headroom now and, once the model knows something, ahead, with the scale. */
static void print_headroom(const struct zone_view *z)
{
	bool learnt = !learning(z);
	char now[16], ahead[16], scale[48];

	snprintf(scale, sizeof(scale), "0 %s, 1 control%s", z->always_on ? "at 0 °C" : "switch-on",
		 z->headroom < 0 || (learnt && z->headroom_ahead < 0) ? "; cool: below 0" : "");
	headroom_text(z->headroom, now, sizeof(now));
	if (learnt)
		printf("  headroom %s now, %s in %d s (%s)\n", now, headroom_text(z->headroom_ahead,
		       ahead, sizeof(ahead)), HEADROOM_AHEAD_S, scale);
	else
		printf("  headroom %s now (%s); in %d s: learning\n", now, scale, HEADROOM_AHEAD_S);
}

/*
 * The zone's lines above its actors: the sustainable power the controller
 * runs on and where it came from; the thermal model and the headroom it
 * predicts only once the model knows something ("learning" before).
 */
static void print_zone_head(const struct zone_view *z)
{
	print_zone_heading(z);
	if (z->given_up_to && z->given_up_to[0])
		printf("  given up: another program set its policy to %s; not controlled\n",
		       z->given_up_to);
	print_zone_budget(z);
	printf("  limiting reason %s, throttled %.1f s in all\n", z->reason,
	       z->throttled_us / 1e6);
	if (z->fault && strcmp(z->fault, "none") != 0)
		printf("  sensor fault: %s (its readings not taken; the journal says why)\n",
		       z->fault);
	printf("  controller terms: P %lld, I %lld, D %lld mW\n", (long long)z->p,
	       (long long)z->i, (long long)z->d);
	if (learning(z))
		printf("  thermal model: learning (confidence %.2f)\n", z->confidence);
	else
		printf("  thermal model: %u mW sustainable, time constant %.0f s, confidence %.2f\n",
		       z->learned, z->time_constant, z->confidence);
	print_headroom(z);
}

/* The daemon's version and state, and the power limit when one is set. */
static void print_top(const struct snapshot *s)
{
	printf("powerallocd %s: %s\n", s->version, s->state);
	if (s->limit_mw)
		printf("power limit %u mW, lease ends in %.0f s%s\n", s->limit_mw,
		       seconds_until(s->limit_expires_us), *s->limit_unmet ? ", unmet:" : "");
	if (s->limit_mw && *s->limit_unmet)
		printf("  %s\n", s->limit_unmet);
}

void ctl_print_summary(const struct snapshot *s)
{
	print_top(s);
	if (!s->n_zones) {
		printf("no controllable zone\n");
		return;
	}
	printf("%-16s %-14s %7s %7s %8s %9s %s\n", "ZONE", "SENSOR", "TEMP °C", "CONTROL",
	       "HEADROOM", "BUDGET mW", "LIMITED BY");
	for (size_t i = 0; i < s->n_zones; i++) {
		const struct zone_view *z = &s->zones[i];
		char name[64], sensor[64], headroom[16];

		fit(name, sizeof(name), z->name, 16);
		fit(sensor, sizeof(sensor), z->sensor, 14);
		printf("%-*s %-*s %7.2f %7.1f %8s %9u %s\n", pad(name, 16), name, pad(sensor, 14),
		       sensor, z->temp / 1000.0, z->control / 1000.0,
		       headroom_text(z->headroom, headroom, sizeof(headroom)), z->budget, z->reason);
	}
}

void ctl_print_table(const struct snapshot *s)
{
	print_top(s);
	if (!s->n_zones)
		printf("no controllable zone\n");
	for (size_t i = 0; i < s->n_zones; i++) {
		const struct zone_view *z = &s->zones[i];

		print_zone_head(z);
		printf("  %-20s %-11s %-7s %4s %5s %6s %6s %6s %5s\n", "ACTOR", "KIND", "CPUS", "LOAD",
		       "MHz", "REQ", "GRANT", "MAX", "STATE");
		/* The step_wise fallback's devices follow. */
		for (size_t k = 0; k < z->n_actors; k++)
			print_actor_row(&z->actors[k]);
		for (size_t k = 0; k < z->n_fallback; k++)
			print_actor_row(&z->fallback[k]);
		print_meters(z->actors, z->n_actors);
		print_limited(z->actors, z->n_actors);
		print_cooling(z->fallback, z->n_fallback);
	}
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void json_string(const char *s)
{
	putchar('"');
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

/* A number with @decimals, or null for NAN. */
static void json_double(const char *key, double v, int decimals)
{
	if (isnan(v))
		printf(",\"%s\":null", key);
	else
		printf(",\"%s\":%.*f", key, decimals, v);
}

/* A string field. */
static void json_field(const char *key, const char *v)
{
	printf(",\"%s\":", key);
	json_string(v);
}

/*
 * Its meter (path, or hwmon name and label; "" for none), its state and why
 * it was dropped, the power it measured (null without a reading), its
 * table's for the same state and load (uncalibrated; 0 without a table)
 * and its table's calibration (1 and 0: the table as it is).
 */
static void json_actor_meter(const struct actor_view *a)
{
	bool reading = a->meter_state && strcmp(a->meter_state, "reading") == 0;

	json_field("meter", a->meter);
	json_field("meter_state", a->meter_state);
	json_field("meter_fault", a->meter_fault);
	json_double("measured_mw", reading ? a->measured : NAN, 0);
	printf(",\"table_mw\":%u", a->table);
	printf(",\"calibrating\":%s", a->calibrating ? "true" : "false");
	json_double("power_scale", a->power_scale, 4);
	json_double("power_scale_offset_mw", a->power_scale_offset, 1);
	json_double("power_scale_confidence", a->power_scale_confidence, 3);
}

static void json_actor(const struct actor_view *a)
{
	printf("{\"name\":");
	json_string(a->name);
	json_field("kind", a->kind);
	json_field("cpus", a->cpus);
	json_field("limiting_reason", a->reason);
	printf(",\"mean_load_pct\":%u,\"frequency_khz\":%u,\"requested_mw\":%u,\"granted_mw\":%u,"
	       "\"max_mw\":%u,\"cooling_state\":%u,\"max_cooling_state\":%u,\"weight\":%.3f,"
	       "\"write_errors\":%u,\"external_writes\":%u,\"yielded\":%s",
	       mean_load_pct(a), a->freq, a->requested, a->granted, a->max, a->state,
	       a->max_state, a->weight, a->write_errors, a->external_writes,
	       a->yielded ? "true" : "false");
	json_actor_meter(a);
	putchar('}');
}

/*
 * The zone's sustainable power, given and in use, and its thermal model:
 * what the model learnt and predicts is null while it is learning (its
 * values are still the prior's: nothing is known yet).
 */
static void json_zone_model(const struct zone_view *z)
{
	bool known = !learning(z);

	printf(",\"sustainable_power_mw\":%u", z->sustainable);
	json_field("sustainable_power_source", z->sp_source);
	printf(",\"sustainable_power_in_use_mw\":%u", z->in_use);
	json_field("sustainable_power_in_use_source", z->in_use_source);
	json_field("model_state", z->model_state);
	json_double("learned_sustainable_power_mw", known ? z->learned : NAN, 0);
	json_double("thermal_time_constant_s", known ? z->time_constant : NAN, 1);
	json_double("model_confidence", z->confidence, 3);
	json_double("headroom", z->headroom, 4);
	json_double("headroom_10s", known ? z->headroom_ahead : NAN, 4);
}

void ctl_print_json(const struct snapshot *s)
{
	printf("{\"version\":");
	json_string(s->version);
	json_field("state", s->state);
	printf(",\"power_limit_mw\":%u,\"power_limit_expires_usec\":%llu", s->limit_mw,
	       (unsigned long long)s->limit_expires_us);
	json_double("power_limit_lease_left_s", s->limit_mw ? seconds_until(s->limit_expires_us) :
			NAN, 1);
	json_field("power_limit_unmet", s->limit_unmet);
	printf(",\"zones\":[");
	for (size_t i = 0; i < s->n_zones; i++) {
		const struct zone_view *z = &s->zones[i];

		printf("%s{\"name\":", i ? "," : "");
		json_string(z->name);
		json_field("sensor", z->sensor);
		json_field("limiting_reason", z->reason);
		json_field("sensor_fault", z->fault);
		printf(",\"throttled_us\":%llu,\"p_mw\":%lld,\"i_mw\":%lld,\"d_mw\":%lld",
		       (unsigned long long)z->throttled_us, (long long)z->p, (long long)z->i,
		       (long long)z->d);
		printf(",\"temperature_mc\":%d,\"switch_on_mc\":%d,\"control_mc\":%d,"
		       "\"control_margin_mc\":%u,\"budget_mw\":%u,\"active\":%s,\"always_on\":%s",
		       z->temp, z->switch_on, z->control, z->margin, z->budget,
		       z->active ? "true" : "false", z->always_on ? "true" : "false");
		json_field("given_up_to", z->given_up_to);	/* "": controlled */
		json_zone_model(z);
		printf(",\"actors\":[");
		for (size_t k = 0; k < z->n_actors; k++) {
			if (k)
				putchar(',');
			json_actor(&z->actors[k]);
		}
		printf("],\"fallback_devices\":[");
		for (size_t k = 0; k < z->n_fallback; k++) {
			if (k)
				putchar(',');
			json_actor(&z->fallback[k]);
		}
		printf("]}");
	}
	printf("]}\n");
}
