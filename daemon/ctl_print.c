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

/* One actor's row, 80 columns; for a device without a power model (a fan on
 * the step_wise fallback) only its state. */
static void print_actor_row(const struct actor_view *a)
{
	if (strcmp(a->kind, "cooling_device") == 0) {
		printf("  %-20s %-11s %-7s %4s %5s %6s %6s %6s %2u/%-2u\n", a->name, "cdev", "-", "-",
		       "-", "-", "-", "-", a->state, a->max_state);
		return;
	}
	printf("  %-20s %-11s %-7s %3u%% %5u %6u %6u %6u %2u/%-2u\n", a->name, a->kind,
	       *a->cpus ? a->cpus : "-", mean_load_pct(a), a->freq / 1000, a->requested,
	       a->granted, a->max, a->state, a->max_state);
}

/* The power actors held back, and why. */
static void print_limited(const struct actor_view *actors, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (actors[k].reason && strcmp(actors[k].reason, "none") != 0)
			printf("  %-20s limited by %s\n", actors[k].name, actors[k].reason);
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

/* Where a sustainable power came from (the bus's source names), for the table. */
static const char *source_words(const char *source)
{
	static const char *const words[][2] = {
		{ "config", "configured" }, { "sysfs", "device tree" },
		{ "estimated", "estimated" }, { "learnt", "learnt" },
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
 * The zone's lines above its actors: the sustainable power the controller
 * runs on and where it came from; the thermal model and the headroom it
 * predicts only once the model knows something ("learning" before).
 */
static void print_zone_head(const struct zone_view *z)
{
	char on[48] = "always on";

	if (!z->always_on)
		snprintf(on, sizeof(on), "switch-on %.1f", z->switch_on / 1000.0);
	printf("\nZONE %s (%s) %.2f °C: %s, control %.1f °C (aims %.2f)\n",
	       z->name, z->sensor, z->temp / 1000.0, on,
	       z->control / 1000.0, (z->control - (int64_t)z->margin) / 1000.0);
	printf("  %s, budget %u mW of %u mW sustainable (%s); power in mW\n",
	       z->active ? "active" : "idle", z->budget, z->in_use,
	       source_words(z->in_use_source));
	printf("  limiting reason %s, throttled %.1f s in all\n", z->reason,
	       z->throttled_us / 1e6);
	printf("  controller terms: P %lld, I %lld, D %lld mW\n", (long long)z->p,
	       (long long)z->i, (long long)z->d);
	if (learning(z)) {
		printf("  thermal model: learning (confidence %.2f)\n", z->confidence);
		printf("  headroom %.2f now (0 %s, 1 control); in %d s: learning\n", z->headroom,
		       z->always_on ? "at 0 °C" : "switch-on", HEADROOM_AHEAD_S);
		return;
	}
	printf("  thermal model: %u mW sustainable, time constant %.0f s, confidence %.2f\n",
	       z->learned, z->time_constant, z->confidence);
	printf("  headroom %.2f now, %.2f in %d s (0 %s, 1 control)\n", z->headroom,
	       z->headroom_ahead, HEADROOM_AHEAD_S, z->always_on ? "at 0 °C" : "switch-on");
}

void ctl_print_table(const struct snapshot *s)
{
	printf("powerallocd %s: %s\n", s->version, s->state);
	if (s->limit_mw)
		printf("power limit %.3f W, lease ends in %.0f s%s%s\n", s->limit_mw / 1000.0,
		       seconds_until(s->limit_expires_us), *s->limit_unmet ? ": unmet, " : "",
		       s->limit_unmet);
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

static void json_actor(const struct actor_view *a)
{
	printf("{\"name\":");
	json_string(a->name);
	printf(",\"kind\":");
	json_string(a->kind);
	printf(",\"cpus\":");
	json_string(a->cpus);
	printf(",\"limiting_reason\":");
	json_string(a->reason);
	printf(",\"mean_load_pct\":%u,\"frequency_khz\":%u,\"requested_mw\":%u,\"granted_mw\":%u,"
	       "\"max_mw\":%u,\"cooling_state\":%u,\"max_cooling_state\":%u,\"weight\":%.3f,"
	       "\"write_errors\":%u}",
	       mean_load_pct(a), a->freq, a->requested, a->granted, a->max, a->state,
	       a->max_state, a->weight, a->write_errors);
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
	printf(",\"state\":");
	json_string(s->state);
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
		printf(",\"sensor\":");
		json_string(z->sensor);
		printf(",\"limiting_reason\":");
		json_string(z->reason);
		printf(",\"throttled_us\":%llu,\"p_mw\":%lld,\"i_mw\":%lld,\"d_mw\":%lld",
		       (unsigned long long)z->throttled_us, (long long)z->p, (long long)z->i,
		       (long long)z->d);
		printf(",\"temperature_mc\":%d,\"switch_on_mc\":%d,\"control_mc\":%d,"
		       "\"control_margin_mc\":%u,\"budget_mw\":%u,\"active\":%s,\"always_on\":%s",
		       z->temp, z->switch_on, z->control, z->margin, z->budget,
		       z->active ? "true" : "false", z->always_on ? "true" : "false");
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
