/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "metrics.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "platform/log.h"
#include "meter_view.h"
#include "new_file.h"
#include "control/time_units.h"

/* A zone's gauge or counter with the zone as its only label. */
struct zone_family {
	const char *name;
	const char *type;
	const char *help;
	double (*value)(const struct zone *z);
};

/* An actor's gauge, for the actors that have a power model or any (@all). */
struct actor_family {
	const char *name;
	const char *help;
	bool all;
	double (*value)(const struct actor *a);
};

static double zone_temp(const struct zone *z) { return z->sensing.temp_mc / 1e3; }
static double zone_switch_on(const struct zone *z) { return z->setup.switch_on_mc / 1e3; }
static double zone_control(const struct zone *z) { return z->setup.control_mc / 1e3; }
static double zone_active(const struct zone *z) { return z->control.active; }
static double zone_budget(const struct zone *z) { return z->control.budget_mw / 1e3; }
static double zone_sustainable(const struct zone *z)
{
	return z->setup.pid.sustainable_power_mw / 1e3;
}
static double zone_learned(const struct zone *z)
{
	return thermal_model_sustainable_mw(&z->learning.model) / 1e3;
}

static double zone_confidence(const struct zone *z) { return z->learning.model.est.confidence; }
static double zone_throttled(const struct zone *z) { return z->sensing.limit.limited_us / 1e6; }

static const struct zone_family zone_families[] = {
	{ "powerallocd_zone_temperature_celsius", "gauge", "The temperature the zone's controller "
	  "last read (node_thermal_zone_temp has every thermal zone's own).", zone_temp },
	{ "powerallocd_zone_switch_on_temperature_celsius", "gauge", "The temperature from which "
	  "the zone is controlled.", zone_switch_on },
	{ "powerallocd_zone_control_temperature_celsius", "gauge", "The temperature the zone is "
	  "held at.", zone_control },
	{ "powerallocd_zone_active", "gauge", "1 while the zone is controlled, 0 while it is "
	  "idle.", zone_active },
	{ "powerallocd_zone_budget_watts", "gauge", "The power the zone grants its actors.",
	  zone_budget },
	{ "powerallocd_zone_sustainable_power_watts", "gauge", "The sustainable power the zone "
	  "was given (configured, device tree or estimated).", zone_sustainable },
	{ "powerallocd_zone_learned_sustainable_power_watts", "gauge", "The sustainable power "
	  "the zone's thermal model learnt.", zone_learned },
	{ "powerallocd_zone_model_confidence_ratio", "gauge", "How sure the zone's thermal "
	  "model is of what it learnt, 0 to 1.", zone_confidence },
	{ "powerallocd_zone_throttled_seconds_total", "counter", "Time the zone held its actors "
	  "back (a limiting reason other than none).", zone_throttled },
};

static double actor_requested(const struct actor *a) { return a->req_mw / 1e3; }
static double actor_granted(const struct actor *a) { return a->granted_mw / 1e3; }
static double actor_max(const struct actor *a) { return a->max_mw / 1e3; }
static double actor_state(const struct actor *a) { return (double)a->state; }
static double actor_max_state(const struct actor *a) { return (double)a->max_state; }

static const struct actor_family actor_families[] = {
	{ "powerallocd_actor_requested_power_watts", "The power the actor uses now (its power "
	  "table at its frequency and load).", false, actor_requested },
	{ "powerallocd_actor_granted_power_watts", "The power its zones grant it (the smallest "
	  "grant).", false, actor_granted },
	{ "powerallocd_actor_max_power_watts", "The power it draws at its top frequency.", false,
	  actor_max },
	{ "powerallocd_actor_cooling_state", "The cooling state it was put in (0: no limit).",
	  true, actor_state },
	{ "powerallocd_actor_max_cooling_state", "Its deepest cooling state.", true,
	  actor_max_state },
};

static void print_family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name="value" with backslash, double quote and newline escaped; after a comma unless @first. */
static void print_label(FILE *f, bool first, const char *name, const char *value)
{
	fprintf(f, "%s%s=\"", first ? "" : ",", name);
	for (; *value; value++) {
		if (*value == '\\' || *value == '"')
			fprintf(f, "\\%c", *value);
		else if (*value == '\n')
			fputs("\\n", f);
		else
			fputc(*value, f);
	}
	fputc('"', f);
}

/* The enum's way: one series per reason, 1 for the one shown, 0 for the others. */
static void print_reasons(FILE *f, const char *name, const char *label, const char *value,
			  enum limit_reason shown)
{
	for (int r = 0; r < LIMIT_REASONS; r++) {
		fprintf(f, "%s{", name);
		print_label(f, true, label, value);
		print_label(f, false, "reason", limit_reason_name((enum limit_reason)r));
		fprintf(f, "} %d\n", r == (int)shown);
	}
}

static void print_zones(FILE *f, const struct engine *e)
{
	static const char *const terms[] = { "proportional", "integral", "derivative" };
	char sensor[32];

	print_family(f, "powerallocd_zone_info", "gauge", "The zone's sensor and controller.");
	for (size_t i = 0; i < e->n_zones; i++) {
		snprintf(sensor, sizeof(sensor), "thermal_zone%d", e->zones[i].setup.tz_id);
		fputs("powerallocd_zone_info{", f);
		print_label(f, true, "zone", e->zones[i].setup.name);
		print_label(f, false, "sensor", sensor);
		print_label(f, false, "controller", controller_name(e->zones[i].setup.pid.mode));
		fputs("} 1\n", f);
	}
	for (size_t k = 0; k < sizeof(zone_families) / sizeof(zone_families[0]); k++) {
		const struct zone_family *fam = &zone_families[k];

		print_family(f, fam->name, fam->type, fam->help);
		for (size_t i = 0; i < e->n_zones; i++) {
			fprintf(f, "%s{", fam->name);
			print_label(f, true, "zone", e->zones[i].setup.name);
			fprintf(f, "} %.12g\n", fam->value(&e->zones[i]));
		}
	}
	print_family(f, "powerallocd_zone_pid_term_watts", "gauge", "The controller's terms "
		     "(the budget is the sustainable power plus their sum, within the actors' "
		     "range); 0 while idle.");
	for (size_t i = 0; i < e->n_zones; i++) {
		const struct pid_output *o = &e->zones[i].control.pid_out;
		const int64_t mw[] = { o->p_mw, o->i_mw, o->d_mw };

		for (size_t t = 0; t < 3; t++) {
			fputs("powerallocd_zone_pid_term_watts{", f);
			print_label(f, true, "zone", e->zones[i].setup.name);
			print_label(f, false, "term", terms[t]);
			fprintf(f, "} %.3f\n", mw[t] / 1e3);
		}
	}
	print_family(f, "powerallocd_zone_limiting_reason", "gauge", "Why the zone holds its "
		     "actors back: 1 for the reason shown, 0 for the others.");
	for (size_t i = 0; i < e->n_zones; i++)
		print_reasons(f, "powerallocd_zone_limiting_reason", "zone", e->zones[i].setup.name,
			      e->zones[i].sensing.limit.shown);
}

/* One powerallocd_actor_info series per zone @a serves (as a power actor or a fallback device). */
static void print_actor_info(FILE *f, const struct engine *e, const struct actor *a)
{
	for (size_t i = 0; i < e->n_zones; i++) {
		const struct zone *z = &e->zones[i];
		bool serves = false;

		for (size_t k = 0; k < z->setup.n_actors; k++)
			serves |= z->setup.actors[k] == a;
		for (size_t k = 0; k < z->setup.n_fallback; k++)
			serves |= z->setup.fallback[k].actor == a;
		if (!serves)
			continue;
		fputs("powerallocd_actor_info{", f);
		print_label(f, true, "actor", a->name);
		print_label(f, false, "kind", actor_kind_name(a->kind));
		print_label(f, false, "zone", z->setup.name);
		fputs("} 1\n", f);
	}
}

/* A metered actor's gauge: its meter's reading (@reading: only while it reads) or its scale. */
struct meter_family {
	const char *name;
	const char *help;
	bool reading;
	double (*value)(const struct actor *a);
};

static double actor_measured(const struct actor *a) { return a->measured_mw / 1e3; }
static double actor_table(const struct actor *a) { return meter_view_table_mw(a) / 1e3; }
static double actor_scale(const struct actor *a) { return meter_view_scale(a).scale; }
static double actor_scale_offset(const struct actor *a)
{
	return meter_view_scale(a).offset_mw / 1e3;
}

static double actor_scale_confidence(const struct actor *a)
{
	return meter_view_scale(a).confidence;
}

static const struct meter_family meter_families[] = {
	{ "powerallocd_actor_measured_power_watts", "The power its meter measured over the last "
	  "period (only while it reads).", true, actor_measured },
	{ "powerallocd_actor_table_power_watts", "The power its table as loaded (uncalibrated) "
	  "gives for the state and load in effect, beside the measured.", false, actor_table },
	{ "powerallocd_actor_power_scale_ratio", "Measured over table power, as learnt from its "
	  "meter (1: its table as it is).", false, actor_scale },
	{ "powerallocd_actor_power_scale_offset_watts", "The static power its meter shows beyond "
	  "the scaled table (0: scale only).", false, actor_scale_offset },
	{ "powerallocd_actor_power_scale_confidence_ratio", "How sure the scale learnt from its "
	  "meter is, 0 to 1.", false, actor_scale_confidence },
};

/* Whether @fam has a series for @a. */
static bool meter_series(const struct meter_family *fam, const struct actor *a)
{
	enum meter_view_state state = meter_view_state(a);

	return fam->reading ? state == METER_VIEW_READING : state != METER_VIEW_NONE;
}

/* The meters and calibrations of the actors with a meter; no family without a series. */
static void print_meters(FILE *f, const struct engine *e)
{
	for (size_t k = 0; k < sizeof(meter_families) / sizeof(meter_families[0]); k++) {
		const struct meter_family *fam = &meter_families[k];
		bool any = false;

		for (size_t i = 0; i < e->n_actors; i++) {
			const struct actor *a = e->actors[i];

			if (!meter_series(fam, a))
				continue;
			if (!any)
				print_family(f, fam->name, "gauge", fam->help);
			any = true;
			fprintf(f, "%s{", fam->name);
			print_label(f, true, "actor", a->name);
			fprintf(f, "} %.12g\n", fam->value(a));
		}
	}
}

static void print_actors(FILE *f, const struct engine *e)
{
	print_family(f, "powerallocd_actor_info", "gauge", "The actor's kind and the zones it "
		     "serves.");
	for (size_t i = 0; i < e->n_actors; i++)
		print_actor_info(f, e, e->actors[i]);
	for (size_t k = 0; k < sizeof(actor_families) / sizeof(actor_families[0]); k++) {
		const struct actor_family *fam = &actor_families[k];

		print_family(f, fam->name, "gauge", fam->help);
		for (size_t i = 0; i < e->n_actors; i++) {
			const struct actor *a = e->actors[i];

			if (!fam->all && a->kind == ACTOR_COOLING_DEVICE)
				continue;	/* no power model */
			fprintf(f, "%s{", fam->name);
			print_label(f, true, "actor", a->name);
			fprintf(f, "} %.12g\n", fam->value(a));
		}
	}
	print_family(f, "powerallocd_actor_external_writes_total", "counter", "Writes of another program "
		     "to a file the actor writes, as its read-back found them.");
	for (size_t i = 0; i < e->n_actors; i++) {
		fputs("powerallocd_actor_external_writes_total{", f);
		print_label(f, true, "actor", e->actors[i]->name);
		fprintf(f, "} %" PRIu32 "\n", e->actors[i]->external.count);
	}
	print_family(f, "powerallocd_actor_limiting_reason", "gauge", "Why the actor is held "
		     "back: 1 for the reason shown, 0 for the others.");
	for (size_t i = 0; i < e->n_actors; i++)
		print_reasons(f, "powerallocd_actor_limiting_reason", "actor", e->actors[i]->name,
			      e->actors[i]->limit.shown);
}

void metrics_print(FILE *f, const struct engine *e)
{
	print_zones(f, e);
	print_actors(f, e);
	print_meters(f, e);
}

/* Writes the file anew; readable by node_exporter, which runs as a user of its own. */
static int write_file(const struct metrics *m)
{
	struct new_file nf;
	int r = new_file_open(&nf, m->path, 0644);

	if (r < 0)
		return r;
	/* The unit's UMask=0077 would leave it to root alone. */
	if (fchmod(fileno(nf.file), 0644) < 0) {
		r = -errno;
		new_file_discard(&nf);
		return r;
	}
	metrics_print(nf.file, m->engine);
	if ((r = new_file_commit(&nf, m->path)) < 0)
		return r;
	return fclose(nf.file) != 0 ? -errno : 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct metrics *m = userdata;
	int r = write_file(m);

	if (r < 0 && !m->failed)
		pa_log(PA_LOG_ERR, "%s: cannot write the metrics: %s; trying again every %llu ms",
		       m->path, strerror(-r), (unsigned long long)(m->interval_us / USEC_PER_MSEC));
	else if (r == 0 && m->failed)
		pa_log(PA_LOG_NOTICE, "%s: metrics written again", m->path);
	m->failed = r < 0;
	sd_event_now(sd_event_source_get_event(s), CLOCK_MONOTONIC, &usec);
	sd_event_source_set_time(s, usec + m->interval_us);
	return 0;
}

int metrics_open(struct metrics *m, sd_event *event, const struct engine *engine)
{
	int r;

	memset(m, 0, sizeof(*m));
	m->engine = engine;
	r = sd_event_add_time(event, &m->timer, CLOCK_MONOTONIC, UINT64_MAX, 0, on_timer, m);
	if (r < 0)
		return r;
	/* Behind the control timer whenever both are due. */
	sd_event_source_set_priority(m->timer, SD_EVENT_PRIORITY_NORMAL + 10);
	return sd_event_source_set_enabled(m->timer, SD_EVENT_OFF);
}

void metrics_configure(struct metrics *m, const char *dir, uint32_t interval_ms)
{
	char path[sizeof(m->path)] = "";
	uint64_t now = 0;

	if (*dir)
		snprintf(path, sizeof(path), "%s/%s", dir, METRICS_FILE);
	if (*m->path && strcmp(path, m->path) != 0)
		unlink(m->path);
	snprintf(m->path, sizeof(m->path), "%s", path);
	m->interval_us = interval_ms * USEC_PER_MSEC;
	m->failed = false;
	if (!m->timer)
		return;
	if (!*m->path) {
		sd_event_source_set_enabled(m->timer, SD_EVENT_OFF);
		return;
	}
	sd_event_now(sd_event_source_get_event(m->timer), CLOCK_MONOTONIC, &now);
	sd_event_source_set_time(m->timer, now + m->interval_us);
	sd_event_source_set_enabled(m->timer, SD_EVENT_ON);
}

void metrics_close(struct metrics *m)
{
	if (*m->path)
		unlink(m->path);
	m->path[0] = '\0';
	m->timer = sd_event_source_unref(m->timer);
}
