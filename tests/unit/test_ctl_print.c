/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * powerallocctl's status table and JSON (ctl/ctl_print.c) from snapshots
 * built by hand: the sustainable power in use and where it came from, a
 * model still learning shown as such (issue 32, 3); the load one definition
 * in the table and the JSON, the lease's seconds left (issue 32, 4); a fan
 * cooling, not limited (issue 32, 5); each metered actor's measured power
 * and its table's calibration, or why its meter was dropped (issue 35, 3).
 * Exact lines.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "capture.h"
#include "ctl_print.h"

struct print_call {
	void (*print)(const struct snapshot *);
	const struct snapshot *s;
};

static void print_it(const void *arg)
{
	const struct print_call *c = arg;

	c->print(c->s);
}

/* What @print wrote to stdout for @s (malloc'd). */
static char *printed(void (*print)(const struct snapshot *), const struct snapshot *s)
{
	struct print_call c = { print, s };

	return capture(STDOUT_FILENO, print_it, &c);
}

/* Whether @text has @line as a whole line. */
static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return true;
	return false;
}

#define assert_line(text, line)							\
	do {									\
		if (!has_line(text, line))					\
			fail_msg("no line \"%s\" in:\n%s", line, text);	\
	} while (0)

static struct actor_view actor(const char *name, const char *kind, const char *cpus,
			       uint32_t load, uint32_t state, uint32_t max_state,
			       const char *reason)
{
	return (struct actor_view){ .name = (char *)name, .kind = (char *)kind,
				    .cpus = (char *)cpus, .reason = (char *)reason,
				    .requested = 944, .granted = 944, .max = 2260, .load = load,
				    .freq = 1200000, .state = state, .max_state = max_state,
				    .weight = 1, .meter = "", .meter_state = "none",
				    .meter_fault = "", .power_scale = 1 };
}

/* The simulated RockPro64's zone, configured at 2200 mW, its model learning. */
static struct snapshot *snapshot_new(void)
{
	struct snapshot *s = calloc(1, sizeof(*s));
	struct zone_view *z = calloc(1, sizeof(*z));

	*s = (struct snapshot){ .version = "0.1.0", .state = "controlling", .limit_unmet = "",
				.n_zones = 1, .zones = z };
	z->name = "soc";
	z->sensor = "thermal_zone0";
	z->reason = "none";
	z->fault = "none";
	z->sp_source = "config";
	z->in_use_source = "config";
	z->model_state = "learning";
	z->temp = 72260;
	z->switch_on = 70000;
	z->control = 75000;
	z->margin = 50;
	z->sustainable = 2200;
	z->in_use = 2200;
	z->budget = 3856;
	z->learned = 1550;
	z->time_constant = 15;
	z->confidence = 0.001;
	z->headroom = 0.45;
	z->headroom_ahead = 4.83;
	z->active = 1;
	z->n_actors = 2;
	z->actors[0] = actor("cpufreq-cpu4", "cpufreq", "4-5", 150, 3, 7, "temperature");
	z->actors[1] = actor("devfreq-ff9a0000.gpu", "devfreq", "", 80, 0, 5, "none");
	z->n_fallback = 1;
	z->fallback[0] = actor("pwm-fan", "cooling_device", "", 0, 3, 3, "temperature");
	return s;
}

static void snapshot_free(struct snapshot *s)
{
	free(s->zones);
	free(s);
}

/* Learning: the configured power in use, no learnt value or forecast as a fact. */
static void test_learning(void **unused)
{
	struct snapshot *s = snapshot_new();
	char *t = printed(ctl_print_table, s), *j;

	(void)unused;
	assert_line(t, "  active, budget 3856 mW of 2200 mW sustainable (configured); power in mW");
	assert_line(t, "  thermal model: learning (confidence 0.00)");
	assert_line(t, "  headroom 0.45 now (0 switch-on, 1 control); in 10 s: learning");
	assert_null(strstr(t, "1550"));
	assert_null(strstr(t, "4.83"));
	j = printed(ctl_print_json, s);
	assert_non_null(strstr(j, "\"sustainable_power_mw\":2200,\"sustainable_power_source\":"
				  "\"config\",\"sustainable_power_in_use_mw\":2200,"
				  "\"sustainable_power_in_use_source\":\"config\",\"model_state\":"
				  "\"learning\",\"learned_sustainable_power_mw\":null,"
				  "\"thermal_time_constant_s\":null,\"model_confidence\":0.001,"
				  "\"headroom\":0.4500,\"headroom_10s\":null"));
	free(j);
	free(t);
	snapshot_free(s);
}

/* The longest of @text's lines, in characters (UTF-8: "°" is one). */
static size_t widest_line(const char *text)
{
	size_t widest = 0, n = 0;

	for (const char *p = text; *p; p++) {
		if (*p == '\n') {
			widest = n > widest ? n : widest;
			n = 0;
		} else if (((unsigned char)*p & 0xc0) != 0x80) {
			n++;
		}
	}
	return n > widest ? n : widest;
}

/*
 * The first approach (issue 34, 1): the default controller feeds forward
 * the actors' lowest power until its model is learnt; status says so, with
 * the configured power beside it, in 80 columns; the JSON's in-use power
 * is the lowest, its source "lowest", the given one unchanged.
 */
static void test_first_approach(void **unused)
{
	struct snapshot *s = snapshot_new();
	struct zone_view *z = &s->zones[0];
	char *t, *j;

	(void)unused;
	z->in_use_source = "lowest";
	z->in_use = 350;
	t = printed(ctl_print_table, s);
	assert_line(t, "  active, budget 3856 mW, first approach from the lowest power, 350 mW,");
	assert_line(t, "  until the model is learnt (configured 2200 mW); power in mW");
	assert_null(strstr(t, "mW sustainable ("));
	free(t);
	/* A desktop's figures, from the device tree's: still in 80 columns. */
	z->sp_source = "sysfs";
	z->budget = 4294967295u;
	z->in_use = 125000;
	z->sustainable = 4294967295u;
	t = printed(ctl_print_table, s);
	assert_line(t, "  until the model is learnt (device tree 4294967295 mW); power in mW");
	assert_in_range(widest_line(t), 60, 80);
	free(t);
	z->sp_source = "config";
	z->budget = 3856;
	z->in_use = 350;
	z->sustainable = 2200;
	j = printed(ctl_print_json, s);
	assert_non_null(strstr(j, "\"sustainable_power_mw\":2200,\"sustainable_power_source\":"
				  "\"config\",\"sustainable_power_in_use_mw\":350,"
				  "\"sustainable_power_in_use_source\":\"lowest\",\"model_state\":"
				  "\"learning\""));
	free(j);
	snapshot_free(s);
}

/* The controller on its model: the learnt power in use, said so; the model's values. */
static void test_in_use(void **unused)
{
	struct snapshot *s = snapshot_new();
	struct zone_view *z = &s->zones[0];
	char *t, *j;

	(void)unused;
	z->model_state = "in-use";
	z->in_use_source = "learnt";
	z->in_use = 2764;
	z->learned = 2764;
	z->confidence = 0.84;
	z->time_constant = 18.2;
	t = printed(ctl_print_table, s);
	assert_line(t, "  active, budget 3856 mW of 2764 mW sustainable (learnt); power in mW");
	assert_line(t, "  thermal model: 2764 mW sustainable, time constant 18 s, confidence 0.84");
	assert_line(t, "  headroom 0.45 now, 4.83 in 10 s (0 switch-on, 1 control)");
	j = printed(ctl_print_json, s);
	assert_non_null(strstr(j, "\"sustainable_power_mw\":2200,\"sustainable_power_source\":"
				  "\"config\",\"sustainable_power_in_use_mw\":2764,"
				  "\"sustainable_power_in_use_source\":\"learnt\",\"model_state\":"
				  "\"in-use\",\"learned_sustainable_power_mw\":2764,"
				  "\"thermal_time_constant_s\":18.2,\"model_confidence\":0.840,"
				  "\"headroom\":0.4500,\"headroom_10s\":4.8300"));
	free(j);
	free(t);
	/* Learnt, not taken yet (an idle zone): the device tree's still in use. */
	z->model_state = "learnt";
	z->sp_source = z->in_use_source = "sysfs";
	z->in_use = 2200;
	t = printed(ctl_print_table, s);
	assert_line(t, "  active, budget 3856 mW of 2200 mW sustainable (device tree); power in mW");
	assert_line(t, "  thermal model: 2764 mW sustainable, time constant 18 s, confidence 0.84");
	free(t);
	/* An x86 package configured automatically: its RAPL long-term limit, in 80 columns. */
	z->sp_source = z->in_use_source = "rapl";
	z->budget = z->in_use = 28000;
	t = printed(ctl_print_table, s);
	assert_line(t, "  active, budget 28000 mW of 28000 mW sustainable (RAPL limit); power in mW");
	free(t);
	snapshot_free(s);
}

/* The load averaged over the actor's CPUs, in the table and the JSON alike. */
static void test_load_one_definition(void **unused)
{
	struct snapshot *s = snapshot_new();
	char *t = printed(ctl_print_table, s), *j = printed(ctl_print_json, s);

	(void)unused;
	/* 150 % over two CPUs: 75 % of one; the GPU's own 80 %. */
	assert_line(t, "  cpufreq-cpu4         cpufreq     4-5      75%  1200    944    944   2260"
		       "  3/7 ");
	assert_line(t, "  devfreq-ff9a0000.gpu devfreq     -        80%  1200    944    944   2260"
		       "  0/5 ");
	assert_non_null(strstr(j, "\"name\":\"cpufreq-cpu4\",\"kind\":\"cpufreq\",\"cpus\":\"4-5\","
				  "\"limiting_reason\":\"temperature\",\"mean_load_pct\":75,"));
	assert_non_null(strstr(j, "\"limiting_reason\":\"none\",\"mean_load_pct\":80,"));
	assert_null(strstr(j, "\"load_pct\""));
	free(j);
	free(t);
	snapshot_free(s);
}

/* The lease's seconds left beside its CLOCK_MONOTONIC end; null without a cap. */
static void test_lease_left(void **unused)
{
	struct snapshot *s = snapshot_new();
	struct timespec now;
	char *j = printed(ctl_print_json, s), *p;
	double left;

	(void)unused;
	assert_non_null(strstr(j, "\"power_limit_mw\":0,\"power_limit_expires_usec\":0,"
				  "\"power_limit_lease_left_s\":null,\"power_limit_unmet\":\"\""));
	free(j);
	clock_gettime(CLOCK_MONOTONIC, &now);
	s->limit_mw = 1500;
	s->limit_expires_us = (uint64_t)now.tv_sec * 1000000 + (uint64_t)now.tv_nsec / 1000 +
			      60 * 1000000ULL;
	j = printed(ctl_print_json, s);
	p = strstr(j, "\"power_limit_lease_left_s\":");
	assert_non_null(p);
	left = strtod(p + strlen("\"power_limit_lease_left_s\":"), NULL);
	assert_true(left > 50 && left <= 60);
	free(j);
	snapshot_free(s);
}

/* A fan on is cooling, at its top state or under it; never "limited". */
static void test_fan_cools(void **unused)
{
	struct snapshot *s = snapshot_new();
	struct zone_view *z = &s->zones[0];
	char *t = printed(ctl_print_table, s);

	(void)unused;
	assert_line(t, "  pwm-fan              cooling at its top state (3/3)");
	assert_line(t, "  cpufreq-cpu4         limited by temperature");
	assert_null(strstr(t, "pwm-fan              limited"));
	assert_null(strstr(t, "devfreq-ff9a0000.gpu limited"));
	free(t);
	z->fallback[0].state = 1;
	t = printed(ctl_print_table, s);
	assert_line(t, "  pwm-fan              cooling at state 1/3");
	free(t);
	z->fallback[0].state = 3;
	z->fallback[0].reason = "sensor-fault";
	t = printed(ctl_print_table, s);
	assert_line(t, "  pwm-fan              cooling at its top state (3/3): sensor-fault");
	free(t);
	z->fallback[0].state = 0;
	z->fallback[0].reason = "none";
	t = printed(ctl_print_table, s);
	assert_null(strstr(t, "pwm-fan              cooling"));
	free(t);
	snapshot_free(s);
}

/* A sensor fault (SensorFault) gets a line of its own and a JSON field; none gets neither line. */
static void test_sensor_fault(void **unused)
{
	struct snapshot *s = snapshot_new();
	struct zone_view *z = &s->zones[0];
	char *t = printed(ctl_print_table, s), *j;

	(void)unused;
	assert_null(strstr(t, "sensor fault"));
	free(t);
	z->reason = "sensor-fault";
	z->fault = "stuck";
	t = printed(ctl_print_table, s);
	assert_line(t, "  limiting reason sensor-fault, throttled 0.0 s in all");
	assert_line(t, "  sensor fault: stuck (its readings not taken; the journal says why)");
	free(t);
	j = printed(ctl_print_json, s);
	assert_non_null(strstr(j, "\"limiting_reason\":\"sensor-fault\",\"sensor_fault\":\"stuck\","));
	free(j);
	snapshot_free(s);
}

/* A zone given up to another program's governor: said under its heading and in the JSON. */
static void test_given_up(void **unused)
{
	struct snapshot *s = snapshot_new();
	char *t, *j;

	(void)unused;
	t = printed(ctl_print_table, s);
	assert_null(strstr(t, "given up"));
	j = printed(ctl_print_json, s);
	assert_non_null(strstr(j, "\"given_up_to\":\"\""));
	free(j);
	free(t);
	s->zones[0].given_up_to = "step_wise";
	s->zones[0].active = 0;
	t = printed(ctl_print_table, s);
	assert_line(t, "  given up: another program set its policy to step_wise; not controlled");
	j = printed(ctl_print_json, s);
	assert_non_null(strstr(j, "\"given_up_to\":\"step_wise\""));
	free(j);
	free(t);
	snapshot_free(s);
}

/* Each column of @text's lines: 80 at most (a UTF-8 character is one). */
static void assert_80_columns(const char *text)
{
	size_t cols = 0;

	for (const char *p = text; *p; p++) {
		if (*p == '\n') {
			cols = 0;
			continue;
		}
		cols += ((unsigned char)*p & 0xc0) != 0x80;
		if (cols > 80)
			fail_msg("a line over 80 columns in:\n%s", text);
	}
}

/* The big cluster metered on its rail: what it measured, the scale learnt and how sure. */
static struct snapshot *metered_snapshot(void)
{
	struct snapshot *s = snapshot_new();
	struct actor_view *big = &s->zones[0].actors[0];

	big->meter = "hwmon \"ina3221\" label \"VDD_CPU_B\" (/sys/class/hwmon/hwmon0)";
	big->meter_state = "reading";
	big->measured = 1302;
	big->table = 943;
	big->calibrating = 1;
	big->power_scale = 1.38;
	big->power_scale_confidence = 0.72;
	return s;
}

/*
 * The table: a line under the rows per metered actor, none for the others:
 * the power measured beside the table's (uncalibrated) and the calibration.
 */
static void test_meter_table(void **unused)
{
	struct snapshot *s = metered_snapshot();
	struct actor_view *big = &s->zones[0].actors[0];
	char *t = printed(ctl_print_table, s), *t2;

	(void)unused;
	assert_line(t, "  cpufreq-cpu4         measured 1302, table 943 mW (scale 1.38, conf 0.72)");
	assert_null(strstr(t, "devfreq-ff9a0000.gpu measured"));
	assert_null(strstr(t, "devfreq-ff9a0000.gpu meter"));
	free(t);
	big->power_scale = 1.165;
	big->power_scale_offset = 68;
	big->power_scale_confidence = 0.81;
	t = printed(ctl_print_table, s);
	assert_line(t, "  cpufreq-cpu4         measured 1302, table 943 mW (1.17 x +68 mW, conf 0.81)");
	free(t);
	big->power_scale_confidence = 0;	/* nothing learnt yet */
	t = printed(ctl_print_table, s);
	assert_line(t, "  cpufreq-cpu4         measured 1302, table 943 mW (calibrating)");
	free(t);
	big->calibrating = 0;			/* a powercap zone's own energy_uj */
	t = printed(ctl_print_table, s);
	assert_line(t, "  cpufreq-cpu4         measured 1302 mW");
	/* 5-digit powers and an offset still fit 80 columns whole. */
	big->calibrating = 1;
	big->measured = 14200;
	big->table = 10150;
	big->power_scale = 1.399;
	big->power_scale_offset = -68;
	big->power_scale_confidence = 0.99;
	t2 = printed(ctl_print_table, s);
	assert_80_columns(t2);
	assert_line(t2, "  cpufreq-cpu4         measured 14200, table 10150 mW (1.40 x -68 mW, conf "
		    "0.99)");
	free(t2);
	big->power_scale_offset = 0;
	t2 = printed(ctl_print_table, s);
	assert_line(t2, "  cpufreq-cpu4         measured 14200, table 10150 mW (scale 1.40, conf 0.99)");
	free(t2);
	big->calibrating = 0;
	free(t);
	big->meter_state = "waiting";
	t = printed(ctl_print_table, s);
	assert_line(t, "  cpufreq-cpu4         meter: no reading yet");
	free(t);
	big->meter_state = "dropped";
	big->meter_fault = "went backwards";
	big->meter = "";
	t = printed(ctl_print_table, s);
	assert_line(t, "  cpufreq-cpu4         meter dropped: went backwards; from its power table");
	free(t);
	snapshot_free(s);
}

/* The longest there is still fits 80 columns: a long name cut, the figures whole or cut. */
static void test_meter_table_80_columns(void **unused)
{
	struct snapshot *s = metered_snapshot();
	struct actor_view *big = &s->zones[0].actors[0];
	char *t;

	(void)unused;
	big->name = "powercap-intel-rapl:0:0-core-of-a-long-name";
	big->measured = UINT32_MAX;
	big->table = UINT32_MAX;
	big->power_scale = 2.999;
	big->power_scale_offset = -123456789;
	t = printed(ctl_print_table, s);
	assert_80_columns(t);
	assert_non_null(strstr(t, "  powercap-intel-rapl… measured 4294967295, table 4294967295 mW"
			       " (3.00 x "));
	free(t);
	big->meter_state = "dropped";
	big->meter_fault = "implausible";
	t = printed(ctl_print_table, s);
	assert_80_columns(t);
	assert_line(t, "  powercap-intel-rapl… meter dropped: implausible; from its power table");
	free(t);
	snapshot_free(s);
}

/*
 * The JSON: each actor's meter, measured_mw (null without a reading), table_mw
 * (its table's, uncalibrated) and power_scale.
 */
static void test_meter_json(void **unused)
{
	struct snapshot *s = metered_snapshot();
	char *j = printed(ctl_print_json, s);

	(void)unused;
	assert_non_null(strstr(j, "\"meter\":\"hwmon \\\"ina3221\\\" label \\\"VDD_CPU_B\\\" "
				  "(/sys/class/hwmon/hwmon0)\",\"meter_state\":\"reading\","
				  "\"meter_fault\":\"\",\"measured_mw\":1302,\"table_mw\":943,"
				  "\"calibrating\":true,"
				  "\"power_scale\":1.3800,\"power_scale_offset_mw\":0.0,"
				  "\"power_scale_confidence\":0.720}"));
	/* The GPU has no meter: no reading, its table as it is. */
	assert_non_null(strstr(j, "\"meter\":\"\",\"meter_state\":\"none\",\"meter_fault\":\"\","
				  "\"measured_mw\":null,\"table_mw\":0,\"calibrating\":false,"
				  "\"power_scale\":1.0000,"
				  "\"power_scale_offset_mw\":0.0,\"power_scale_confidence\":0.000}"));
	free(j);
	snapshot_free(s);
}

/*
 * A zone under switch-on (45 °C, switch-on 70, control 75): its headroom
 * of -5.00 read as over a limit; "cool" in the table and the summary,
 * the scale says what it means, the JSON keeps the number.
 */
static void test_cool_headroom(void **unused)
{
	struct snapshot *s = snapshot_new();
	struct zone_view *z = &s->zones[0];
	char *t, *j;

	(void)unused;
	z->temp = 45000;
	z->headroom = -5.0;
	t = printed(ctl_print_table, s);
	assert_line(t, "  headroom cool now (0 switch-on, 1 control; cool: below 0); in 10 s: "
		    "learning");
	assert_null(strstr(t, "-5.00"));
	free(t);
	z->model_state = "in-use";
	z->confidence = 0.84;
	z->headroom_ahead = 0.25;
	t = printed(ctl_print_table, s);
	assert_line(t, "  headroom cool now, 0.25 in 10 s (0 switch-on, 1 control; cool: below 0)");
	assert_in_range(widest_line(t), 60, 80);
	free(t);
	t = printed(ctl_print_summary, s);
	assert_non_null(strstr(t, "   45.00    75.0     cool "));
	free(t);
	j = printed(ctl_print_json, s);
	assert_non_null(strstr(j, "\"headroom\":-5.0000,\"headroom_10s\":0.2500"));
	free(j);
	/* Over switch-on, a number as before. */
	z->headroom = 0.5;
	t = printed(ctl_print_table, s);
	assert_line(t, "  headroom 0.50 now, 0.25 in 10 s (0 switch-on, 1 control)");
	free(t);
	snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_learning),
		cmocka_unit_test(test_sensor_fault),
		cmocka_unit_test(test_first_approach),
		cmocka_unit_test(test_in_use),
		cmocka_unit_test(test_cool_headroom),
		cmocka_unit_test(test_load_one_definition),
		cmocka_unit_test(test_lease_left),
		cmocka_unit_test(test_fan_cools),
		cmocka_unit_test(test_given_up),
		cmocka_unit_test(test_meter_table),
		cmocka_unit_test(test_meter_table_80_columns),
		cmocka_unit_test(test_meter_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
