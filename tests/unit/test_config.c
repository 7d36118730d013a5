/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The config file: a valid file gives the values it says (and the
 * documented defaults), and each rule rejects with file, line and key.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "config/config.h"
#include "platform/log.h"
#include "config/config_keys.h"

static const char design_example[] =
	"log_level = \"debug\";\n"
	"idle_poll_ms = 0;\n"
	"trace_file = \"/run/powerallocd/trace.csv\"; metrics_dir = \"/var/lib/prometheus/node-exporter\";"
	" metrics_interval_ms = 15000;\n"
	"zones = (\n"
	"  { name = \"soc\";\n"				/* line 5 */
	"    sensor = \"soc-thermal\";\n"
	"    switch_on_temp = 70000;\n"
	"    control_temp = 85000;\n"
	"    sustainable_power = 1500;\n"
	"    period_ms = 50;\n"				/* line 10 */
	"    k_po = 100.0; k_i = 10; integral_cutoff = 2000;\n"
	"    integral_bleed = 0.5; dither_grants = true; control_margin = 100;\n"
	"    actors = (\n"
	"      { type = \"cpufreq\"; cpus = \"0-3\"; dynamic_power_coefficient = 100; },\n"
	"      { type = \"cpufreq\"; cpus = \"4-5\"; dynamic_power_coefficient = 436; weight = 2.0; },\n"
	"      { type = \"devfreq\"; device = \"ff9a0000.gpu\"; dynamic_power_coefficient = 2640; },\n"
	"      { type = \"powercap\"; zone = \"intel-rapl:0\"; optional = true; },\n"
	"      { type = \"cpufreq_cap\"; cpus = \"6\";\n"
	"        opps = ( { freq_khz = 800000; power_mw = 90; },\n"
	"                 { freq_khz = 1600000; power_mw = 300; static_power_mw = 20; } ); }\n"
	"    );\n"
	"  },\n"
	"  { name = \"gpu\"; sensor = \"thermal_zone1\"; controller = \"kernel\";\n"
	"    division = \"request\"; step_wise_fallback = false;\n"
	"    actors = ( { type = \"devfreq\"; device = \"gpu1\"; } ); }\n"
	");\n";

static void test_valid_config(void **unused)
{
	struct pa_config *c;
	struct pa_config_error err;
	const struct zone_config *z;
	char cpus[32];

	(void)unused;
	assert_int_equal(pa_config_load_string(design_example, "test.conf", &c, &err), 0);
	assert_int_equal(c->log_level, PA_LOG_DEBUG);
	assert_int_equal(c->idle_poll_ms, 0);
	assert_string_equal(c->trace_file, "/run/powerallocd/trace.csv");
	assert_string_equal(c->metrics_dir, "/var/lib/prometheus/node-exporter");
	assert_int_equal(c->metrics_interval_ms, 15000);
	assert_int_equal(c->n_zones, 2);

	z = &c->zones[0];
	assert_string_equal(z->name, "soc");
	assert_int_equal(z->sensor.kind, SENSOR_ONE);
	assert_int_equal(z->sensor.n_inputs, 1);
	assert_string_equal(z->sensor.input[0], "soc-thermal");
	assert_int_equal(z->line, 5);
	assert_true(z->has_switch_on_temp && z->has_control_temp);
	assert_int_equal(z->switch_on_temp_mc, 70000);
	assert_int_equal(z->control_temp_mc, 85000);
	assert_int_equal(z->sustainable_power_mw, 1500);
	assert_int_equal(z->period_ms, 50);
	assert_int_equal(z->controller, PID_MODE_DEFAULT);
	/* 100 mW/°C = 102.4 Q10 per m°C -> 102; k_i 10 -> 10.24 -> 10 */
	assert_int_equal(z->gains_set, GAIN_K_PO | GAIN_K_I | GAIN_INTEGRAL_CUTOFF);
	assert_int_equal(z->gains.k_po, 102);
	assert_int_equal(z->gains.k_i, 10);
	assert_int_equal(z->gains.integral_cutoff_mc, 2000);
	assert_int_equal(z->fixes.integral_bleed_q10, 512);
	assert_true(z->fixes.tuned_gains);	/* the default */
	assert_true(z->fixes.dither_grants);
	assert_int_equal(z->fixes.control_margin_mc, 100);
	assert_true(z->fixes.saturated_request);	/* the default */
	assert_false(z->fixes.trust_sustainable_power);	/* the default */
	assert_int_equal(z->fixes.integral_under_q10, 128);	/* the default */

	assert_int_equal(z->n_actors, 5);
	assert_int_equal(z->actors[0].kind, ACTOR_CPUFREQ);
	cpumask_format_list(&z->actors[0].cpus, cpus, sizeof(cpus));
	assert_string_equal(cpus, "0-3");
	assert_int_equal(z->actors[0].weight_q10, 1024);
	assert_int_equal(z->actors[1].weight_q10, 2048);
	assert_int_equal(z->actors[1].dynamic_power_coefficient, 436);
	assert_int_equal(z->actors[2].kind, ACTOR_DEVFREQ);
	assert_string_equal(z->actors[2].device, "ff9a0000.gpu");
	assert_int_equal(z->actors[3].kind, ACTOR_POWERCAP);
	assert_string_equal(z->actors[3].powercap_zone, "intel-rapl:0");
	assert_true(z->actors[3].optional);
	assert_false(z->actors[2].optional);	/* the default */
	assert_int_equal(z->actors[4].kind, ACTOR_CPUFREQ_CAP);
	assert_int_equal(z->actors[4].n_opps, 2);
	assert_int_equal(z->actors[4].opps[1].static_power_mw, 20);
	assert_null(z->actors[4].opps[0].voltage_uv ? "voltage" : NULL);

	assert_true(z->efficiency_division);	/* the default */
	assert_true(z->step_wise_fallback);
	z = &c->zones[1];
	assert_int_equal(z->controller, PID_MODE_KERNEL);
	assert_false(z->efficiency_division);
	assert_false(z->step_wise_fallback);
	assert_false(z->has_switch_on_temp);
	assert_int_equal(z->sustainable_power_mw, 0);
	assert_int_equal(z->period_ms, 100);
	assert_int_equal(z->actors[0].dynamic_power_coefficient, 0);
	pa_config_free(c);
}

static void test_empty_config_defaults(void **unused)
{
	struct pa_config *c;
	struct pa_config_error err;

	(void)unused;
	assert_int_equal(pa_config_load_string("", "empty.conf", &c, &err), 0);
	assert_int_equal(c->log_level, PA_LOG_INFO);
	assert_int_equal(c->idle_poll_ms, 1000);
	assert_string_equal(c->trace_file, "");
	assert_string_equal(c->metrics_dir, "");	/* no metrics */
	assert_int_equal(c->metrics_interval_ms, 10000);
	assert_int_equal(c->n_zones, 0);
	pa_config_free(c);
	assert_int_equal(pa_config_load_string("zones = ();", "x.conf", &c, &err), 0);
	assert_int_equal(c->n_zones, 0);
	pa_config_free(c);
}

/* Parses @text and expects it rejected at @line on @key, with @words in the message. */
static void expect_error(const char *text, unsigned int line, const char *key, const char *words)
{
	struct pa_config *c = (struct pa_config *)0x1;
	struct pa_config_error err;
	int r = pa_config_load_string(text, "bad.conf", &c, &err);

	print_message("%s\n", err.text);
	assert_int_equal(r, -EINVAL);
	assert_null(c);
	assert_string_equal(err.file, "bad.conf");
	assert_int_equal(err.line, line);
	assert_string_equal(err.key, key);
	assert_non_null(strstr(err.message, words));
	assert_non_null(strstr(err.text, "bad.conf:"));
}

/* The message @text is rejected with (expect_error() checked the rest). */
static const char *error_message(const char *text)
{
	static struct pa_config_error err;
	struct pa_config *c = NULL;

	assert_int_equal(pa_config_load_string(text, "bad.conf", &c, &err), -EINVAL);
	return err.message;
}

#define ZONE_HEAD "zones = ( { name = \"soc\"; sensor = \"soc-thermal\";\n"
#define ONE_ACTOR "actors = ( { type = \"cpufreq\"; cpus = \"0-3\"; } );\n"

static void test_syntax_error(void **unused)
{
	(void)unused;
	expect_error("log_level = \"info\";\nzones = ( { name = ; } );\n", 2, "", "syntax error");
	assert_string_equal(error_message("log_level = \"info\";\nzones = ( { name = ; } );\n"),
			    "syntax error");
}

/* A list of groups in square brackets: libconfig says only "syntax error"; the fix is named. */
static void test_groups_in_square_brackets(void **unused)
{
	struct pa_config *c;
	struct pa_config_error err;
	char path[] = "/tmp/powerallocd-test-XXXXXX";
	const char text[] = "log_level = \"info\";\nzones = [\n  { name = \"soc\"; } ];\n";
	int fd = mkstemp(path);

	(void)unused;
	expect_error(text, 3, "", "syntax error: a list of groups takes parentheses, zones = ( { ... }, "
		     "{ ... } ); square brackets [ ] hold only numbers, strings or booleans");
	expect_error(ZONE_HEAD "actors = [ { type = \"cpufreq\"; cpus = \"0-3\"; } ];\n} );", 2, "",
		     "syntax error: a list of groups takes parentheses, actors = ( {");
	/* Brackets in comments and strings are not taken for the list. */
	expect_error("# zones = [\nzones = ( { name = \"[\"; sensor = { sum = [ /* [ */\n"
		     "{ zone = \"a\"; } ]; }; } );\n", 3, "", "takes parentheses, sum = ( {");
	/* Another syntax error after an array of scalars is not one. */
	assert_string_equal(error_message("zones = ( { name = \"s\"; sensor = { max = [ \"a\" ]; };\n"
					  "control_temp = ;\n} );"), "syntax error");
	assert_string_equal(error_message("zones = [ ];\nx = [ 1, { } ];\n"), "syntax error");
	/* The same read from a file. */
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	assert_int_equal(pa_config_load_file(path, &c, &err), -EINVAL);
	assert_int_equal(err.line, 3);
	assert_non_null(strstr(err.text, ":3: syntax error: a list of groups takes parentheses, "
			       "zones = ( { ... }, { ... } );"));
	unlink(path);
}

static void test_unknown_key(void **unused)
{
	(void)unused;
	expect_error("log_level = \"info\";\nlog_levle = \"debug\";\n", 2, "log_levle", "unknown key");
	expect_error(ZONE_HEAD "  target = 80000;\n" ONE_ACTOR "} );", 2, "zones[0].target",
		     "valid here: name, sensor");
	expect_error(ZONE_HEAD "actors = ( { type = \"cpufreq\"; cpus = \"0\";\n"
		     "  speed = 3; } );\n} );", 3, "zones[0].actors[0].speed", "unknown key");
	/* A key of another actor kind. */
	expect_error(ZONE_HEAD "actors = ( { type = \"cpufreq\"; cpus = \"0\"; device = \"gpu\"; } );\n} );",
		     2, "zones[0].actors[0].device", "unknown key");
	expect_error(ZONE_HEAD "actors = ( { type = \"devfreq\"; device = \"gpu\"; dynamic_power_coefficient = 1;\n"
		     "  opps = ( { freq_khz = 1; voltage_uv = 1; hz = 2; } ); } );\n} );",
		     3, "zones[0].actors[0].opps[0].hz", "unknown key");
}

/* Values in the wrong unit, as users type them: the message offers the fix. */
static void test_wrong_unit(void **unused)
{
	struct pa_config *c;
	struct pa_config_error err;

	(void)unused;
	expect_error(ZONE_HEAD "control_temp = 75;\n" ONE_ACTOR "} );", 2, "zones[0].control_temp",
		     "75 m°C is 0.075 °C: did you mean 75000 (m°C)?");
	expect_error(ZONE_HEAD "switch_on_temp = 65;\n" ONE_ACTOR "} );", 2,
		     "zones[0].switch_on_temp", "did you mean 65000 (m°C)?");
	expect_error(ZONE_HEAD "switch_on_temp = -20;\n" ONE_ACTOR "} );", 2,
		     "zones[0].switch_on_temp", "did you mean -20000 (m°C)?");
	expect_error(ZONE_HEAD "control_temp = 75.5;\n" ONE_ACTOR "} );", 2, "zones[0].control_temp",
		     "expected m°C, an integer, got 75.5: did you mean 75500 (m°C)?");
	/* A whole number with a decimal point is printed with it: "got 75" looked like an integer. */
	expect_error(ZONE_HEAD "control_temp = 75.0;\n" ONE_ACTOR "} );", 2, "zones[0].control_temp",
		     "expected m°C, an integer, got 75.0, a number with a decimal point: did you "
		     "mean 75000 (m°C)?");
	expect_error(ZONE_HEAD "control_temp = 75000.0;\n" ONE_ACTOR "} );", 2, "zones[0].control_temp",
		     "got 75000.0, a number with a decimal point: did you mean 75000 (m°C)?");
	expect_error(ZONE_HEAD "period_ms = 100.0;\n" ONE_ACTOR "} );", 2, "zones[0].period_ms",
		     "got 100.0, a number with a decimal point: did you mean 100 (ms)?");
	expect_error(ZONE_HEAD "sustainable_power = 2.0;\n" ONE_ACTOR "} );", 2,
		     "zones[0].sustainable_power", "got 2.0, a number with a decimal point: did you "
		     "mean 2000 (mW)?");
	expect_error(ZONE_HEAD "sustainable_power = 1.5;\n" ONE_ACTOR "} );", 2,
		     "zones[0].sustainable_power",
		     "expected mW, an integer, got 1.5: did you mean 1500 (mW)?");
	expect_error("idle_poll_ms = 2.5;\n", 1, "idle_poll_ms",
		     "expected ms, an integer, got 2.5: did you mean 2500 (ms)?");
	/* No hint where the value times 1000 is out of range. */
	assert_int_equal(pa_config_load_string(ZONE_HEAD "period_ms = 100.5;\n" ONE_ACTOR "} );",
					       "bad.conf", &c, &err), -EINVAL);
	assert_string_equal(err.message, "expected ms, an integer, got 100.5");
	expect_error(ZONE_HEAD "actors = ( { type = \"devfreq\"; device = \"gpu\";\n"
		     "  opps = ( { freq_khz = 2.5; power_mw = 100; } ); } );\n} );", 3,
		     "zones[0].actors[0].opps[0].freq_khz", "expected kHz, an integer, got 2.5");
}

/* The warnings a load gave (test_room_temperature, test_retired_keys). */
static char warned[4][512];
static int n_warned;

static void collect_warnings(void *userdata, int priority, const char *const *fields,
			     const char *message)
{
	(void)userdata;
	(void)fields;
	if (priority == PA_LOG_WARNING && n_warned < 4)
		snprintf(warned[n_warned++], sizeof(warned[0]), "%s", message);
}

/* Loads @text, which must be valid, and returns how many warnings it gave (in warned[]). */
static int load_warnings(const char *text)
{
	struct pa_config *c = NULL;
	struct pa_config_error err;

	n_warned = 0;
	pa_log_set_handler(collect_warnings, NULL);
	if (pa_config_load_string(text, "warm.conf", &c, &err) < 0)
		fail_msg("%s", err.text);
	pa_log_set_handler(NULL, NULL);
	pa_config_free(c);
	return n_warned;
}

/*
 * Below room temperature (20 °C) a control_temp would hold the actors at
 * their lowest whenever the zone runs: refused, offering the value with the
 * zero or two left out where that is a likely temperature; a switch_on_temp
 * there only makes the zone always on: a warning (0 or below: none).
 */
static void test_room_temperature(void **unused)
{
	(void)unused;
	expect_error(ZONE_HEAD "switch_on_temp = 700; control_temp = 750;\n" ONE_ACTOR "} );", 2,
		     "zones[0].control_temp", "750 m°C is 0.750 °C, below room temperature (20 °C): "
		     "the zone would hold its actors at their lowest power whenever it runs; did you "
		     "mean 75000 (75 °C)? (control_temp is in m°C, 20000 to 200000)");
	expect_error(ZONE_HEAD "control_temp = 8500;\n" ONE_ACTOR "} );", 2, "zones[0].control_temp",
		     "did you mean 85000 (85 °C)?");
	/* No likely temperature ten or a hundred times over: the range alone. */
	assert_null(strstr(error_message(ZONE_HEAD "control_temp = 1550;\n" ONE_ACTOR "} );"),
			   "did you mean"));
	expect_error(ZONE_HEAD "control_temp = 19999;\n" ONE_ACTOR "} );", 2, "zones[0].control_temp",
		     "19999 m°C is 19.999 °C, below room temperature");
	/* Degrees typed, but a control temperature in °C this low would still be too low. */
	expect_error(ZONE_HEAD "control_temp = -20;\n" ONE_ACTOR "} );", 2, "zones[0].control_temp",
		     "-20 m°C is -0.020 °C, below room temperature (20 °C)");
	expect_error(ZONE_HEAD "control_temp = 0;\n" ONE_ACTOR "} );", 2, "zones[0].control_temp",
		     "below room temperature");
	assert_int_equal(load_warnings(ZONE_HEAD "control_temp = 20000;\n" ONE_ACTOR "} );"), 0);
	assert_int_equal(load_warnings(ZONE_HEAD "switch_on_temp = 700; control_temp = 75000;\n"
				       ONE_ACTOR "} );"), 1);
	assert_string_equal(warned[0], "warm.conf:2: zones[0].switch_on_temp: 700 m°C is 0.700 °C, "
			    "below room temperature (20 °C): the zone is on at any temperature; did "
			    "you mean 70000 (70 °C)? (0 or below says so on purpose)");
	assert_int_equal(load_warnings(ZONE_HEAD "switch_on_temp = 0; control_temp = 75000;\n"
				       ONE_ACTOR "} );"), 0);
	assert_int_equal(load_warnings(ZONE_HEAD "switch_on_temp = -10000; control_temp = 75000;\n"
				       ONE_ACTOR "} );"), 0);
}

/* A key one typo away from a valid one is named. */
static void test_nearest_key(void **unused)
{
	(void)unused;
	expect_error("log_levle = \"debug\";\n", 1, "log_levle",
		     "unknown key: did you mean \"log_level\"?");
	expect_error(ZONE_HEAD "contol_temp = 75000;\n" ONE_ACTOR "} );", 2, "zones[0].contol_temp",
		     "did you mean \"control_temp\"?");
	expect_error(ZONE_HEAD "sustainable_power_mw = 1500;\n" ONE_ACTOR "} );", 2,
		     "zones[0].sustainable_power_mw", "did you mean \"sustainable_power\"?");
	expect_error(ZONE_HEAD "  target = 80000;\n" ONE_ACTOR "} );", 2, "zones[0].target",
		     "unknown key (valid here:");
}

/* Retired keys still load (test_retired_keys) but are offered neither as valid nor as the fix. */
static void test_retired_keys_not_offered(void **unused)
{
	const char *m;

	(void)unused;
	m = error_message(ZONE_HEAD "  target = 80000;\n" ONE_ACTOR "} );");
	assert_non_null(strstr(m, "valid here: name, sensor, switch_on_temp"));
	assert_non_null(strstr(m, "k_d, integral_cutoff, integral_bleed, integral_under, "
			       "clamp_sustainable_power"));
	for (const char *k = "wide_integral_bound\0budget_step_limit\0derivative_filter_ms\0"; *k;
	     k += strlen(k) + 1)
		if (strstr(m, k))
			fail_msg("\"%s\" offers retired %s", m, k);
	m = error_message(ZONE_HEAD "  budget_step_limt = 300;\n" ONE_ACTOR "} );");
	assert_null(strstr(m, "budget_step_limit"));
	assert_non_null(strstr(m, "unknown key (valid here:"));
}

static void test_wrong_type(void **unused)
{
	(void)unused;
	expect_error("idle_poll_ms = \"1000\";\n", 1, "idle_poll_ms", "expected an integer, got a string");
	expect_error(ZONE_HEAD "period_ms = 100.5;\n" ONE_ACTOR "} );", 2, "zones[0].period_ms",
		     "expected ms, an integer, got 100.5");
	expect_error(ZONE_HEAD "k_po = \"fast\";\n" ONE_ACTOR "} );", 2, "zones[0].k_po", "expected a number");
	expect_error(ZONE_HEAD "step_wise_fallback = \"yes\";\n" ONE_ACTOR "} );", 2,
		     "zones[0].step_wise_fallback", "expected a boolean");
	expect_error(ZONE_HEAD "tuned_gains = 0;\n" ONE_ACTOR "} );", 2,
		     "zones[0].tuned_gains", "expected a boolean");
	expect_error(ZONE_HEAD "trust_sustainable_power = 1;\n" ONE_ACTOR "} );", 2,
		     "zones[0].trust_sustainable_power", "expected a boolean");
	expect_error(ZONE_HEAD "dither_grants = \"on\";\n" ONE_ACTOR "} );", 2,
		     "zones[0].dither_grants", "expected a boolean");
	expect_error(ZONE_HEAD "saturated_request = 1;\n" ONE_ACTOR "} );", 2,
		     "zones[0].saturated_request", "expected a boolean");
	expect_error("zones = { name = \"x\"; };\n", 1, "zones", "expected a list of groups");
	expect_error("zones = ( \"soc\" );\n", 1, "zones[0]", "expected a group");
	expect_error(ZONE_HEAD "actors = ( { type = 1; } );\n} );", 2, "zones[0].actors[0].type",
		     "expected a string");
	expect_error(ZONE_HEAD "actors = ( { type = \"devfreq\"; device = \"gpu\"; optional = 1; } );\n"
		     "} );", 2, "zones[0].actors[0].optional", "expected a boolean");
}

static void test_out_of_range(void **unused)
{
	(void)unused;
	expect_error("idle_poll_ms = -1;\n", 1, "idle_poll_ms", "out of range [0, 3600000]");
	expect_error(ZONE_HEAD "period_ms = 5;\n" ONE_ACTOR "} );", 2, "zones[0].period_ms", "out of range");
	expect_error(ZONE_HEAD "control_temp = 250000;\n" ONE_ACTOR "} );", 2, "zones[0].control_temp",
		     "out of range");
	expect_error(ZONE_HEAD "sustainable_power = 0;\n" ONE_ACTOR "} );", 2,
		     "zones[0].sustainable_power", "out of range");
	expect_error(ZONE_HEAD "integral_bleed = 1.5;\n" ONE_ACTOR "} );", 2, "zones[0].integral_bleed",
		     "out of range");
	expect_error(ZONE_HEAD "integral_under = -0.1;\n" ONE_ACTOR "} );", 2, "zones[0].integral_under",
		     "out of range");
	expect_error(ZONE_HEAD "k_i = -1;\n" ONE_ACTOR "} );", 2, "zones[0].k_i", "out of range");
	expect_error(ZONE_HEAD "actors = ( { type = \"cpufreq\"; cpus = \"0\";\n weight = 65.0; } );\n} );",
		     3, "zones[0].actors[0].weight", "out of range");
	expect_error("log_level = \"verbose\";\n", 1, "log_level", "not one of: err, warning, notice, info, debug");
	expect_error("trace_file = \"trace.csv\";\n", 1, "trace_file", "absolute path");
	expect_error("metrics_dir = \"metrics\";\n", 1, "metrics_dir", "absolute path");
	expect_error("metrics_interval_ms = 99;\n", 1, "metrics_interval_ms",
		     "out of range [100, 3600000]");
}

static void test_control_not_above_switch_on(void **unused)
{
	(void)unused;
	expect_error(ZONE_HEAD "switch_on_temp = 85000;\ncontrol_temp = 85000;\n" ONE_ACTOR "} );", 3,
		     "zones[0].control_temp", "must be above switch_on_temp");
	expect_error(ZONE_HEAD "switch_on_temp = 90000;\ncontrol_temp = 85000;\n" ONE_ACTOR "} );", 3,
		     "zones[0].control_temp", "must be above switch_on_temp");
}

/* The margin may take at most half of the passive range (where the file gives it). */
static void test_control_margin_range(void **unused)
{
	struct pa_config *c;
	struct pa_config_error err;

	(void)unused;
	expect_error(ZONE_HEAD "switch_on_temp = 84000;\ncontrol_temp = 85000;\ncontrol_margin = 501;\n"
		     ONE_ACTOR "} );", 4, "zones[0].control_margin",
		     "501 m°C is more than half of control_temp - switch_on_temp (1000 m°C)");
	expect_error(ZONE_HEAD "control_margin = 10001;\n" ONE_ACTOR "} );", 2,
		     "zones[0].control_margin", "out of range [0, 10000]");
	expect_error(ZONE_HEAD "control_margin = 0.5;\n" ONE_ACTOR "} );", 2,
		     "zones[0].control_margin", "expected m°C, an integer, got 0.5: did you mean 500 (m°C)?");
	assert_int_equal(pa_config_load_string(ZONE_HEAD "switch_on_temp = 84000;\ncontrol_temp = 85000;\n"
					       "control_margin = 500;\n" ONE_ACTOR "} );", "t.conf",
					       &c, &err), 0);
	assert_int_equal(c->zones[0].fixes.control_margin_mc, 500);
	pa_config_free(c);
	/* Without both temperatures the trips decide; engine_build() limits it then. */
	assert_int_equal(pa_config_load_string(ZONE_HEAD "control_margin = 10000;\n" ONE_ACTOR "} );",
					       "t.conf", &c, &err), 0);
	assert_int_equal(c->zones[0].fixes.control_margin_mc, 10000);
	pa_config_free(c);
	/* Another default-controller key, read in the same pass. */
	assert_int_equal(pa_config_load_string(ZONE_HEAD "saturated_request = false;\n" ONE_ACTOR
					       "} );", "t.conf", &c, &err), 0);
	assert_false(c->zones[0].fixes.saturated_request);
	pa_config_free(c);
	assert_int_equal(pa_config_load_string(ZONE_HEAD "integral_under = 0.25;\n" ONE_ACTOR
					       "} );", "t.conf", &c, &err), 0);
	assert_int_equal(c->zones[0].fixes.integral_under_q10, 256);
	pa_config_free(c);
}

static void test_cpu_list_syntax(void **unused)
{
	(void)unused;
	expect_error(ZONE_HEAD "actors = ( { type = \"cpufreq\"; cpus = \"3-0\"; } );\n} );", 2,
		     "zones[0].actors[0].cpus", "reversed range");
	expect_error(ZONE_HEAD "actors = ( { type = \"cpufreq\"; cpus = \"0-4096\"; } );\n} );", 2,
		     "zones[0].actors[0].cpus", "above 4095");
	expect_error(ZONE_HEAD "actors = ( { type = \"cpufreq_cap\"; cpus = \"0-3;6\"; } );\n} );", 2,
		     "zones[0].actors[0].cpus", "unexpected character");
	expect_error(ZONE_HEAD "actors = ( { type = \"cpufreq\"; cpus = \"\"; } );\n} );", 2,
		     "zones[0].actors[0].cpus", "expected a CPU number");
	/* Two actors of one zone on the same CPU. */
	expect_error(ZONE_HEAD "actors = ( { type = \"cpufreq\"; cpus = \"0-3,6\"; },\n"
		     "{ type = \"cpufreq_cap\"; cpus = \"6-7\"; } );\n} );", 3,
		     "zones[0].actors[1]", "same device or CPUs as actors[0]");
}

static void test_duplicate_zones(void **unused)
{
	(void)unused;
	expect_error("zones = (\n{ name = \"soc\"; sensor = \"a\"; " ONE_ACTOR "},\n"
		     "{ name = \"soc\"; sensor = \"b\"; " ONE_ACTOR "} );", 4, "zones[1].name",
		     "duplicate zone name \"soc\"");
	expect_error("zones = (\n{ name = \"a\"; sensor = \"soc\"; " ONE_ACTOR "},\n"
		     "{ name = \"b\"; sensor = \"soc\"; " ONE_ACTOR "} );", 4, "zones[1].sensor",
		     "already controlled by zone \"a\"");
}

static void test_zone_without_actors(void **unused)
{
	(void)unused;
	expect_error(ZONE_HEAD "} );", 1, "zones[0].actors", "at least one actor");
	expect_error(ZONE_HEAD "actors = ();\n} );", 2, "zones[0].actors", "at least one actor");
}

static void test_actor_kind(void **unused)
{
	(void)unused;
	expect_error(ZONE_HEAD "actors = ( { type = \"fan\"; } );\n} );", 2, "zones[0].actors[0].type",
		     "\"fan\" is not one of: cpufreq, cpufreq_cap, devfreq, powercap");
	assert_null(strstr(error_message(ZONE_HEAD "actors = ( { type = \"fan\"; } );\n} );"),
			   "did you mean"));
	/* A misspelt name is named, as a misspelt key is. */
	expect_error(ZONE_HEAD "actors = ( { type = \"cpufrq\"; cpus = \"0\"; } );\n} );", 2,
		     "zones[0].actors[0].type", "\"cpufrq\" is not one of: cpufreq, cpufreq_cap, "
		     "devfreq, powercap: did you mean \"cpufreq\"?");
	expect_error(ZONE_HEAD "actors = ( { type = \"power_cap\"; zone = \"x\"; } );\n} );", 2,
		     "zones[0].actors[0].type", "did you mean \"powercap\"?");
	expect_error(ZONE_HEAD "controller = \"kernal\";\n" ONE_ACTOR "} );", 2,
		     "zones[0].controller", "did you mean \"kernel\"?");
	expect_error("log_level = \"debgu\";\n", 1, "log_level", "did you mean \"debug\"?");
	expect_error(ZONE_HEAD "actors = ( { cpus = \"0\"; } );\n} );", 2, "zones[0].actors[0].type",
		     "missing");
}

static void test_required_keys(void **unused)
{
	(void)unused;
	expect_error("zones = ( { sensor = \"x\"; " ONE_ACTOR "} );", 1, "zones[0].name", "missing");
	expect_error("zones = ( { name = \"x\"; " ONE_ACTOR "} );", 1, "zones[0].sensor", "missing");
	expect_error(ZONE_HEAD "actors = ( { type = \"cpufreq\"; } );\n} );", 2, "zones[0].actors[0].cpus",
		     "a cpufreq actor needs it");
	expect_error(ZONE_HEAD "actors = ( { type = \"devfreq\"; } );\n} );", 2, "zones[0].actors[0].device",
		     "a devfreq actor needs it");
	expect_error(ZONE_HEAD "actors = ( { type = \"powercap\"; zone = \"../x\"; } );\n} );", 2,
		     "zones[0].actors[0].zone", "not a device name");
	expect_error("zones = ( { name = \"x\"; sensor = \"../../etc\"; " ONE_ACTOR "} );", 1,
		     "zones[0].sensor", "not a device name");
}

static void test_default_mode_keys_with_kernel(void **unused)
{
	(void)unused;
	expect_error(ZONE_HEAD "controller = \"kernel\";\nintegral_bleed = 0.1;\n" ONE_ACTOR "} );", 3,
		     "zones[0].integral_bleed", "only applies to controller \"default\"");
	expect_error(ZONE_HEAD "controller = \"kernel\";\ntuned_gains = false;\n" ONE_ACTOR "} );",
		     3, "zones[0].tuned_gains", "only applies to controller \"default\"");
	expect_error(ZONE_HEAD "controller = \"step_wise\";\ndither_grants = true;\n" ONE_ACTOR
		     "} );", 3, "zones[0].dither_grants", "only applies to controller \"default\"");
	expect_error(ZONE_HEAD "controller = \"kernel\";\ncontrol_margin = 50;\n" ONE_ACTOR "} );",
		     3, "zones[0].control_margin", "only applies to controller \"default\"");
	expect_error(ZONE_HEAD "controller = \"kernel\";\nsaturated_request = true;\n" ONE_ACTOR
		     "} );", 3, "zones[0].saturated_request", "only applies to controller \"default\"");
	expect_error(ZONE_HEAD "controller = \"step_wise\";\nintegral_under = 0.5;\n" ONE_ACTOR
		     "} );", 3, "zones[0].integral_under", "only applies to controller \"default\"");
	expect_error(ZONE_HEAD "controller = \"pi\";\n" ONE_ACTOR "} );", 2, "zones[0].controller",
		     "not one of: default, kernel, step_wise");
	expect_error(ZONE_HEAD "division = \"fair\";\n" ONE_ACTOR "} );", 2, "zones[0].division",
		     "not one of: request, efficiency");
}

static void test_opp_tables(void **unused)
{
	(void)unused;
	/* The power falls as the frequency rises (issue 42, 2): the OPP named, and the one below. */
	expect_error(ZONE_HEAD "actors = ( { type = \"cpufreq\"; cpus = \"0-3\";\n"
		     "opps = ( { freq_khz = 408000; power_mw = 27000; },\n"
		     "{ freq_khz = 1416000; power_mw = 179; } ); } );\n} );", 4,
		     "zones[0].actors[0].opps[1].power_mw", "the power falls as the frequency "
		     "rises: 179 mW at 1416000 kHz, under opps[0]'s 27000 mW at 408000 kHz; a "
		     "device draws more at a higher frequency");
	/* A voltage a digit short makes the power fall with it. */
	expect_error(ZONE_HEAD "actors = ( { type = \"cpufreq\"; cpus = \"0\"; "
		     "dynamic_power_coefficient = 100;\n"
		     "opps = ( { freq_khz = 1008000; voltage_uv = 92500; },\n"
		     "{ freq_khz = 816000; voltage_uv = 900000; } ); } );\n} );", 3,
		     "zones[0].actors[0].opps[0].voltage_uv", "the power falls as the frequency rises: 0 mW "
		     "at 1008000 kHz, under opps[1]'s 66 mW at 816000 kHz");
	/* A voltage that dips while the power still rises (Exynos5422's A15s) is said. */
	assert_int_equal(load_warnings(ZONE_HEAD "actors = ( { type = \"cpufreq\"; cpus = \"4\"; "
				       "dynamic_power_coefficient = 400;\nopps = (\n"
				       "{ freq_khz = 1700000; voltage_uv = 1250000; },\n"
				       "{ freq_khz = 1800000; voltage_uv = 1237500; } ); } );\n} );"),
			 1);
	assert_string_equal(warned[0], "warm.conf:5: zones[0].actors[0].opps[1].voltage_uv: the "
			    "voltage falls as the frequency rises: 1237500 uV at 1800000 kHz, under "
			    "opps[0]'s 1250000 uV at 1700000 kHz (the power still rises: taken)");
	expect_error(ZONE_HEAD "actors = ( { type = \"cpufreq\"; cpus = \"0\";\n"
		     "opps = ( { freq_khz = 1000; voltage_uv = 900000; } ); } );\n} );", 3,
		     "zones[0].actors[0].opps[0].voltage_uv", "needs the actor's dynamic_power_coefficient");
	expect_error(ZONE_HEAD "actors = ( { type = \"cpufreq\"; cpus = \"0\";\n"
		     "opps = ( { freq_khz = 1000; power_mw = 9; },\n{ freq_khz = 1000; power_mw = 10; } ); } );\n} );",
		     3, "zones[0].actors[0].opps", "same frequency");
	expect_error(ZONE_HEAD "actors = ( { type = \"cpufreq\"; cpus = \"0\"; dynamic_power_coefficient = 9;\n"
		     "opps = ( { freq_khz = 1000; power_mw = 9; voltage_uv = 5; } ); } );\n} );", 3,
		     "zones[0].actors[0].opps[0].power_mw", "not both");
	expect_error(ZONE_HEAD "actors = ( { type = \"cpufreq\"; cpus = \"0\";\n"
		     "opps = ( { power_mw = 9; } ); } );\n} );", 3,
		     "zones[0].actors[0].opps[0].freq_khz", "missing");
	expect_error(ZONE_HEAD "actors = ( { type = \"cpufreq\"; cpus = \"0\";\n"
		     "opps = (); } );\n} );", 3, "zones[0].actors[0].opps", "needs 1 to 64 entries");
}

static void test_file_errors(void **unused)
{
	struct pa_config *c;
	struct pa_config_error err;
	char path[] = "/tmp/powerallocd-test-XXXXXX";
	const char text[] = "\n\nidle_poll_ms = true;\n";
	int fd = mkstemp(path);

	(void)unused;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	assert_int_equal(pa_config_load_file(path, &c, &err), -EINVAL);
	assert_string_equal(err.file, path);
	assert_int_equal(err.line, 3);
	assert_string_equal(err.key, "idle_poll_ms");
	unlink(path);
	assert_int_equal(pa_config_load_file(path, &c, &err), -ENOENT);
	assert_null(c);
	assert_non_null(strstr(err.text, path));
	assert_non_null(strstr(err.text, "No such file"));
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "re");
	char *text = calloc(1, 65536);

	assert_non_null(f);
	assert_non_null(text);
	assert_true(fread(text, 1, 65535, f) > 0);
	fclose(f);
	return text;
}

/* power_meter in both forms, on an actor and on a zone, as parsed. */
static void test_power_meter_forms(void **unused)
{
	static const char text[] =
		"zones = ( { name = \"soc\"; sensor = \"soc-thermal\";\n"
		"  power_meter = \"/sys/class/hwmon/hwmon1/energy2_input\";\n"
		"  actors = ( { type = \"cpufreq\"; cpus = \"0-3\";\n"
		"    power_meter = { hwmon = \"ina3221\"; label = \"VDD_CPU_L\"; }; },\n"
		"    { type = \"powercap\"; zone = \"intel-rapl:0\"; } ); } );\n";
	struct pa_config *c;
	struct pa_config_error err;

	(void)unused;
	assert_int_equal(pa_config_load_string(text, "t", &c, &err), 0);
	assert_string_equal(c->zones[0].meter.path, "/sys/class/hwmon/hwmon1/energy2_input");
	assert_null(c->zones[0].meter.hwmon);
	assert_int_equal(c->zones[0].meter.line, 2);
	assert_null(c->zones[0].actors[0].meter.path);
	assert_string_equal(c->zones[0].actors[0].meter.hwmon, "ina3221");
	assert_string_equal(c->zones[0].actors[0].meter.label, "VDD_CPU_L");
	assert_false(meter_configured(&c->zones[0].actors[1].meter));
	pa_config_free(c);
	/* A number, an empty label, a group without its label: refused, saying what to give. */
	assert_int_equal(pa_config_load_string("zones = ( { name = \"a\"; sensor = \"s\"; "
					       "power_meter = 5; actors = ( { type = \"cpufreq\"; "
					       "cpus = \"0\"; } ); } );", "t", &c, &err), -EINVAL);
	assert_non_null(strstr(err.text, "zones[0].power_meter: give a path under /sys/"));
	assert_int_equal(pa_config_load_string("zones = ( { name = \"a\"; sensor = \"s\"; "
					       "power_meter = { hwmon = \"x\"; label = \"\"; }; "
					       "actors = ( { type = \"cpufreq\"; cpus = \"0\"; } ); } );",
					       "t", &c, &err), -EINVAL);
	assert_non_null(strstr(err.text, "zones[0].power_meter.label: empty"));
	assert_int_equal(pa_config_load_string("zones = ( { name = \"a\"; sensor = \"s\"; "
					       "power_meter = { hwmon = \"x\"; }; "
					       "actors = ( { type = \"cpufreq\"; cpus = \"0\"; } ); } );",
					       "t", &c, &err), -EINVAL);
	assert_non_null(strstr(err.text, "zones[0].power_meter.label: missing"));
}

/*
 * ACPI's power meter has only powerN_average (µW), in its hwmon device's
 * parent: taken by path; powerN_average_interval, a neighbour, is no meter.
 */
static void test_power_meter_average(void **unused)
{
	static const char text[] =
		"zones = ( { name = \"a\"; sensor = \"s\"; actors = ( { type = \"cpufreq\";\n"
		"  cpus = \"0\"; power_meter = \"/sys/class/hwmon/hwmon1/device/power1_%s\"; } ); } );";
	char conf[sizeof(text) + 32];
	struct pa_config *c;
	struct pa_config_error err;

	(void)unused;
	snprintf(conf, sizeof(conf), text, "average");
	assert_int_equal(pa_config_load_string(conf, "t", &c, &err), 0);
	assert_string_equal(c->zones[0].actors[0].meter.path,
			    "/sys/class/hwmon/hwmon1/device/power1_average");
	pa_config_free(c);
	snprintf(conf, sizeof(conf), text, "average_interval");
	assert_int_equal(pa_config_load_string(conf, "t", &c, &err), -EINVAL);
	assert_non_null(strstr(err.text, "power1_average_interval\" is no meter: give a hwmon "
			       "powerN_input or powerN_average (µW)"));
}

/*
 * The shipped example must stay valid, both as shipped (no zones) and with
 * its commented RK3399 zones uncommented, as a user would.
 */
static void test_shipped_example(void **unused)
{
	const char *path = PROJECT_SOURCE_DIR "/conf/powerallocd.conf";
	struct pa_config *c;
	struct pa_config_error err;
	char *text = read_text(path), *zones, *out, *p;
	int r;

	(void)unused;
	r = pa_config_load_file(path, &c, &err);
	if (r < 0)
		print_message("%s\n", err.text);
	assert_int_equal(r, 0);
	assert_int_equal(c->n_zones, 0);
	pa_config_free(c);

	/* Drop "# " from every line from "# zones = (" on. */
	zones = strstr(text, "\n# zones = (");
	assert_non_null(zones);
	for (p = out = zones + 1; *p; ) {
		if (p[0] == '#' && (p == zones + 1 || p[-1] == '\n'))
			p += p[1] == ' ' ? 2 : 1;
		*out++ = *p++;
	}
	*out = '\0';
	r = pa_config_load_string(text, "powerallocd.conf (uncommented)", &c, &err);
	if (r < 0)
		print_message("%s\n", err.text);
	assert_int_equal(r, 0);
	assert_int_equal(c->n_zones, 2);
	assert_int_equal(c->zones[0].n_actors, 2);
	assert_int_equal(c->zones[0].actors[1].weight_q10, 2048);
	assert_string_equal(c->zones[1].actors[0].device, "ff9a0000.gpu");
	pa_config_free(c);
	free(text);
}

/* powerallocd.conf(5) has an entry ("*key*") for every key the parser takes. */
#define TEMPS "switch_on_temp = 40000; control_temp = 45000;\n"

/* The combined sensors: max of names, a weighted sum with an offset, weights 1 when not given. */
static void test_combined_sensor(void **unused)
{
	static const char text[] =
		"zones = (\n"
		"  { name = \"hot\"; sensor = { max = [ \"cpu-thermal\", \"thermal_zone1\" ]; };\n"
		"    " TEMPS ONE_ACTOR "  },\n"
		"  { name = \"skin\"; sensor = { sum = ( { zone = \"cpu-thermal\"; weight = 0.6; },\n"
		"        { zone = \"battery\"; weight = 0.4; }, { zone = \"board\"; } ); offset = -2000; };\n"
		"    " TEMPS ONE_ACTOR "  },\n"
		"  { name = \"cpu\"; sensor = \"cpu-thermal\"; " ONE_ACTOR "} );\n";
	struct pa_config *c;
	struct pa_config_error err;
	const struct sensor_config *s;

	(void)unused;
	if (pa_config_load_string(text, "test.conf", &c, &err) < 0)
		fail_msg("%s", err.text);
	assert_int_equal(c->n_zones, 3);
	s = &c->zones[0].sensor;
	assert_int_equal(s->kind, SENSOR_MAX);
	assert_int_equal(s->n_inputs, 2);
	assert_string_equal(s->input[0], "cpu-thermal");
	assert_string_equal(s->input[1], "thermal_zone1");
	assert_int_equal(s->offset_mc, 0);
	s = &c->zones[1].sensor;
	assert_int_equal(s->kind, SENSOR_SUM);
	assert_int_equal(s->n_inputs, 3);
	assert_string_equal(s->input[1], "battery");
	assert_true(s->weight[0] == 0.6 && s->weight[1] == 0.4 && s->weight[2] == 1.0);
	assert_int_equal(s->offset_mc, -2000);
	/* A single sensor may also be an input of a combined one: nothing is taken over twice. */
	assert_int_equal(c->zones[2].sensor.kind, SENSOR_ONE);
	pa_config_free(c);
}

/* Each wrong combined sensor names its key and says what is wrong. */
static void test_combined_sensor_errors(void **unused)
{
#define Z(sensor) "zones = ( { name = \"s\";\n  sensor = " sensor ";\n  " TEMPS ONE_ACTOR "} );"
	(void)unused;
	expect_error(Z("{ }"), 2, "zones[0].sensor", "give either max = [ ... ] or sum = ( ... ), not neither");
	expect_error(Z("{ max = [\"a\"]; sum = ( { zone = \"b\"; } ); }"), 2, "zones[0].sensor",
		     "not both");
	expect_error(Z("{ sums = ( { zone = \"a\"; } ); }"), 2, "zones[0].sensor.sums", "did you mean \"sum\"");
	expect_error(Z("{ max = \"a\"; }"), 2, "zones[0].sensor.max", "expected an array of thermal zones");
	expect_error(Z("{ max = [ ]; }"), 2, "zones[0].sensor.max", "0 inputs: 1 to 8 are allowed");
	expect_error(Z("{ max = [\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\"]; }"), 2,
		     "zones[0].sensor.max", "9 inputs: 1 to 8 are allowed");
	expect_error(Z("{ max = [\"a\", \"a\"]; }"), 2, "zones[0].sensor.max[1]",
		     "\"a\" is already an input");
	expect_error(Z("{ max = [\"a\", \"../b\"]; }"), 2, "zones[0].sensor.max[1]",
		     "not a device name");
	expect_error(Z("{ max = (\"a\", 1); }"), 2, "zones[0].sensor.max[1]", "expected an array");
	expect_error(Z("{ sum = ( { weight = 0.5; } ); }"), 2, "zones[0].sensor.sum[0].zone", "missing");
	expect_error(Z("{ sum = ( { zone = \"a\"; weight = 0; } ); }"), 2,
		     "zones[0].sensor.sum[0].weight", "must be above 0");
	expect_error(Z("{ sum = ( { zone = \"a\"; weight = -1.0; } ); }"), 2,
		     "zones[0].sensor.sum[0].weight", "out of range");
	expect_error(Z("{ sum = ( { zone = \"a\"; wieght = 1.0; } ); }"), 2,
		     "zones[0].sensor.sum[0].wieght", "did you mean \"weight\"");
	expect_error(Z("{ sum = [ \"a\" ]; }"), 2, "zones[0].sensor.sum[0]", "expected a list of inputs");
	expect_error(Z("{ max = [\"a\"]; offset = 1.5; }"), 2, "zones[0].sensor.offset",
		     "did you mean 1500 (m°C)?");
	expect_error(Z("{ max = [\"a\"]; offset = 200000; }"), 2, "zones[0].sensor.offset",
		     "out of range");
	expect_error(Z("42"), 2, "zones[0].sensor", "expected a string");
#undef Z
	/* No trips of its own: both temperatures must be given. */
	expect_error("zones = ( { name = \"s\"; sensor = { max = [\"a\"]; };\n"
		     "  switch_on_temp = 40000;\n  " ONE_ACTOR "} );", 1, "zones[0].control_temp",
		     "a combined sensor has no trip points of its own");
	expect_error("zones = ( { name = \"s\"; sensor = { max = [\"a\"]; };\n"
		     "  control_temp = 40000;\n  " ONE_ACTOR "} );", 1, "zones[0].switch_on_temp",
		     "switch_on_temp and control_temp must be given");
}

static void test_man_page_documents_every_key(void **unused)
{
	const char *const *lists[] = { cfg_root_keys, cfg_zone_keys, cfg_cpufreq_keys,
				       cfg_devfreq_keys, cfg_powercap_keys, cfg_opp_keys,
				       cfg_sensor_keys, cfg_sensor_sum_keys, cfg_meter_keys };
	char *man = read_text(PROJECT_SOURCE_DIR "/man/powerallocd.conf.5.scd");
	size_t n = 0;

	(void)unused;
	for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
		for (const char *const *k = lists[l]; *k; k++) {
			char entry[64];

			snprintf(entry, sizeof(entry), "*%s*", *k);
			if (!strstr(man, entry))
				fail_msg("powerallocd.conf(5) has no entry for %s", *k);
			n++;
		}
	}
	assert_true(n > 30);
	free(man);
}

/* Every example config in powerallocd.conf(5) (``` blocks with "zones") parses. */
static void test_man_page_examples_parse(void **unused)
{
	char *man = read_text(PROJECT_SOURCE_DIR "/man/powerallocd.conf.5.scd");
	char *p = man;
	int examples = 0;

	(void)unused;
	while ((p = strstr(p, "```\n"))) {
		char *start = p + 4, *end = strstr(start, "```");
		struct pa_config *c;
		struct pa_config_error err;

		assert_non_null(end);
		*end = '\0';
		if (strstr(start, "zones = (")) {
			if (pa_config_load_string(start, "man example", &c, &err) < 0)
				fail_msg("example %d: %s", examples, err.text);
			assert_true(c->n_zones > 0);
			pa_config_free(c);
			examples++;
		}
		p = end + 3;
	}
	assert_int_equal(examples, 3);
	free(man);
}

/* Keys that no longer do anything load, with one warning each that names the key and why. */
static void test_retired_keys(void **unused)
{
	struct pa_config *c = NULL;
	struct pa_config_error err;

	(void)unused;
	n_warned = 0;
	pa_log_set_handler(collect_warnings, NULL);
	assert_int_equal(pa_config_load_string(ZONE_HEAD "wide_integral_bound = false;\n"
					       "budget_step_limit = 300;\nderivative_filter_ms = 50;\n"
					       ONE_ACTOR "} );", "old.conf", &c, &err), 0);
	pa_log_set_handler(NULL, NULL);
	assert_non_null(c);
	assert_int_equal(n_warned, 3);
	assert_non_null(strstr(warned[0], "old.conf:2: zones[0].wide_integral_bound is retired and "
					       "ignored: "));
	assert_non_null(strstr(warned[1], ":3: zones[0].budget_step_limit is retired"));
	assert_non_null(strstr(warned[2], "zones[0].derivative_filter_ms is retired and "
					       "ignored: the derivative (k_d) is filtered over 2 "
					       "periods; remove it"));
	pa_config_free(c);
	/* With the kernel's law too: a retired key is not an error there either. */
	n_warned = 0;
	pa_log_set_handler(collect_warnings, NULL);
	assert_int_equal(pa_config_load_string(ZONE_HEAD "controller = \"kernel\";\n"
					       "budget_step_limit = 300;\n" ONE_ACTOR "} );",
					       "old.conf", &c, &err), 0);
	pa_log_set_handler(NULL, NULL);
	assert_int_equal(n_warned, 1);
	pa_config_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_config),
		cmocka_unit_test(test_retired_keys),
		cmocka_unit_test(test_empty_config_defaults),
		cmocka_unit_test(test_syntax_error),
		cmocka_unit_test(test_groups_in_square_brackets),
		cmocka_unit_test(test_unknown_key),
		cmocka_unit_test(test_wrong_type),
		cmocka_unit_test(test_wrong_unit),
		cmocka_unit_test(test_room_temperature),
		cmocka_unit_test(test_nearest_key),
		cmocka_unit_test(test_retired_keys_not_offered),
		cmocka_unit_test(test_out_of_range),
		cmocka_unit_test(test_control_not_above_switch_on),
		cmocka_unit_test(test_control_margin_range),
		cmocka_unit_test(test_cpu_list_syntax),
		cmocka_unit_test(test_duplicate_zones),
		cmocka_unit_test(test_zone_without_actors),
		cmocka_unit_test(test_actor_kind),
		cmocka_unit_test(test_required_keys),
		cmocka_unit_test(test_default_mode_keys_with_kernel),
		cmocka_unit_test(test_opp_tables),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_shipped_example),
		cmocka_unit_test(test_power_meter_forms),
		cmocka_unit_test(test_power_meter_average),
		cmocka_unit_test(test_combined_sensor),
		cmocka_unit_test(test_combined_sensor_errors),
		cmocka_unit_test(test_man_page_documents_every_key),
		cmocka_unit_test(test_man_page_examples_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
