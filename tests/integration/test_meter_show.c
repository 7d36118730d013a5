/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the daemon shows of each actor's power meter and its table's
 * calibration (issue 35, 3) on the rk3399-meters tree (suite integration):
 * the state and fault (daemon/meter_view.c, which D-Bus shows), the
 * metrics file's series (daemon/metrics.c) and the trace's columns
 * (daemon/trace.c).  The meters are real (an INA3221's volts times amps, an
 * SCMI energy counter); each configured meter calibrates its actor's
 * table from the start (actor_calibrate.c), with scale 1 and confidence 0
 * until a window moves it; the figures learnt are set by hand here, the
 * implausible drop is fed as the engine feeds it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config/config.h"
#include "engine/engine.h"
#include "platform/log.h"
#include "meter_view.h"
#include "metrics.h"
#include "trace.h"
#include "tree.h"

#define INA "/sys/class/hwmon/hwmon0"
#define SCMI "/sys/class/hwmon/hwmon1"
#define PERIOD_US 100000ULL

/* The little cluster on its rail (850 mV x 400 mA), the big one on its
 * (900 mV x 1500 mA), the GPU on an energy counter by path. */
static const char config[] =
	"zones = ( { name = \"soc\"; sensor = \"cpu-thermal\";\n"
	"  switch_on_temp = 60000; control_temp = 75000; sustainable_power = 2500;\n"
	"  actors = ( { type = \"cpufreq\"; cpus = \"0-3\";\n"
	"               power_meter = { hwmon = \"ina3221\"; label = \"VDD_CPU_L\"; }; },\n"
	"             { type = \"cpufreq\"; cpus = \"4-5\";\n"
	"               power_meter = { hwmon = \"ina3221\"; label = \"VDD_CPU_B\"; }; },\n"
	"             { type = \"devfreq\"; device = \"ff9a0000.gpu\";\n"
	"               power_meter = \"" SCMI "/energy2_input\"; } ); } );\n";

struct shown {
	struct pa_config *cfg;
	struct engine e;
	struct actor *little, *big, *gpu;
	uint64_t t_us;
	unsigned int busy_ticks;
};

/* A hot period with busy CPUs, the rails at 400 mA (little) and 1500 mA (big). */
static void hot_period(struct shown *s)
{
	s->busy_ticks += 100;
	tree_stat_cpus(6, s->busy_ticks, 0);
	tree_put("/sys/class/thermal/thermal_zone0/temp", "70000\n");
	tree_put_u64(INA "/curr1_input", 1500);
	tree_put_u64(INA "/curr2_input", 400);
	s->t_us += PERIOD_US;
	assert_int_equal(engine_cycle(&s->e, s->t_us, NULL), 0);
}

static int setup(void **state)
{
	struct shown *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	tree_log_clear();
	tree_put_u64(SCMI "/energy2_input", 2000000000ULL);
	s->cfg = tree_config(config);
	assert_int_equal(engine_build(&s->e, s->cfg), 1);
	assert_int_equal(s->e.n_bad_meters, 0);
	/* The zone's actors in the configuration's order. */
	assert_int_equal(s->e.zones[0].setup.n_actors, 3);
	s->little = s->e.zones[0].setup.actors[0];
	s->big = s->e.zones[0].setup.actors[1];
	s->gpu = s->e.zones[0].setup.actors[2];
	assert_string_equal(s->little->name, "cpufreq-cpu0");
	assert_string_equal(s->big->name, "cpufreq-cpu4");
	assert_string_equal(s->gpu->name, "devfreq-ff9a0000.gpu");
	hot_period(s);
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct shown *s = *state;

	engine_free(&s->e);
	pa_config_free(s->cfg);
	free(s);
	return 0;
}

/* The metrics file's text for @e (malloc'd). */
static char *metrics_text(const struct engine *e)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	assert_non_null(f);
	metrics_print(f, e);
	assert_int_equal(fclose(f), 0);
	return text;
}

#define assert_contains(text, words)						\
	do {									\
		if (!strstr(text, words))					\
			fail_msg("no \"%s\" in:\n%s", words, text);		\
	} while (0)

/* After one period: the clusters read, the GPU's counter waits for a second value. */
static void test_states(void **state)
{
	struct shown *s = *state;
	struct meter_view_scale v;

	assert_int_equal(meter_view_state(s->little), METER_VIEW_READING);
	assert_int_equal(meter_view_state(s->big), METER_VIEW_READING);
	assert_int_equal(meter_view_state(s->gpu), METER_VIEW_WAITING);
	assert_string_equal(meter_view_state_name(METER_VIEW_WAITING), "waiting");
	assert_string_equal(meter_view_name(s->little), "hwmon \"ina3221\" label \"VDD_CPU_L\" ("
			    INA "/in2_input)");
	assert_string_equal(meter_view_name(s->gpu), SCMI "/energy2_input");
	assert_string_equal(meter_view_fault(s->big), "");
	/* A configured meter calibrates from the start: nothing learnt yet, so scale 1, confidence 0. */
	v = meter_view_scale(s->big);
	assert_true(v.calibrating);
	assert_true(v.scale == 1.0 && v.offset_mw == 0.0 && v.confidence == 0.0);
	/* Calibrating: what the estimator learnt. */
	s->big->power_scale.scale = 1.38;
	s->big->power_scale.offset_mw = 68;
	s->big->power_scale.confidence = 0.72;
	v = meter_view_scale(s->big);
	assert_true(v.calibrating);
	assert_true(v.scale == 1.38 && v.offset_mw == 68 && v.confidence == 0.72);
}

/*
 * The meter reads 5 x its table: the calibration drops it (actor_calibrate.c
 * stops calibrating, the table as loaded again) and it shows dropped as
 * implausible with the table's figures, while the meter itself stays open.
 */
static void test_implausible_shown(void **state)
{
	struct shown *s = *state;
	struct actor *big = s->big;
	enum power_scale_event ev = POWER_SCALE_NONE;
	struct meter_view_scale v;
	uint64_t now_us = big->meter_read_us;

	assert_true(big->calibrating);
	/* Fed as engine_cycle() feeds it, a period at a time: 1000 mW by the table, 5000 read. */
	for (int k = 0; k < 100000 && ev != POWER_SCALE_DROPPED; k++) {
		now_us += big->scale_period_us;
		big->meter_read_us = now_us;
		big->measured_valid = true;
		big->measured_mw = 5000;
		big->model_mw = 1000;
		ev = actor_feed_scale(big, now_us);
	}
	assert_int_equal(ev, POWER_SCALE_DROPPED);
	assert_int_equal(tree_log_count("outside the plausible 0.3-3 x"), 1);
	assert_false(big->calibrating);
	assert_memory_equal(&big->table, &big->model_table, sizeof(big->table));
	assert_int_equal(meter_view_state(big), METER_VIEW_DROPPED);
	assert_string_equal(meter_view_fault(big), "implausible");
	assert_string_equal(meter_view_name(big), "hwmon \"ina3221\" label \"VDD_CPU_B\" ("
			    INA "/in1_input)");
	v = meter_view_scale(big);
	assert_false(v.calibrating);
	assert_true(v.scale == 1.0 && v.offset_mw == 0.0 && v.confidence == 0.0);
}

/*
 * The table's power shown beside the measured: the table as loaded for the
 * state and load in effect, which the calibration does not move (the
 * request, the maximum do: real watts); 0 for the fan, which has no table.
 */
static void test_table_power(void **state)
{
	struct shown *s = *state;
	struct actor *big = s->big, *fan = s->e.zones[0].setup.fallback[0].actor;
	uint32_t table_mw, model_max_mw = big->max_mw;

	hot_period(s);	/* a second: the CPUs' load over a period */
	table_mw = meter_view_table_mw(big);
	assert_true(table_mw > 100);
	assert_int_equal(table_mw, big->req_mw);	/* nothing learnt: the table as it is */
	assert_int_equal(meter_view_table_mw(s->gpu), s->gpu->model_mw);
	assert_int_equal(meter_view_table_mw(fan), 0);
	/* Learnt: 1.5 x, sure of it; the table rebuilt as at a window. */
	big->power_scale.scale = 1.5;
	big->power_scale.confidence = 1.0;
	actor_calibrate_table(big);
	hot_period(s);
	assert_int_equal(meter_view_table_mw(big), table_mw);
	assert_in_range(big->req_mw, table_mw * 3 / 2 - 3, table_mw * 3 / 2 + 3);
	assert_in_range(big->max_mw, model_max_mw * 3 / 2 - 3, model_max_mw * 3 / 2 + 3);
}

/* A meter that faults (a current of 100 A: jumped) is dropped, and shown so until a rebuild. */
static void test_fault_shown(void **state)
{
	struct shown *s = *state;
	char *text;

	tree_put_u64(INA "/curr2_input", 100000);
	s->busy_ticks += 100;
	tree_stat_cpus(6, s->busy_ticks, 0);
	s->t_us += PERIOD_US;
	assert_int_equal(engine_cycle(&s->e, s->t_us, NULL), 0);
	assert_int_equal(meter_view_state(s->little), METER_VIEW_DROPPED);
	assert_string_equal(meter_view_fault(s->little), "jumped");
	assert_string_equal(meter_view_name(s->little), "");
	/* Its calibration stopped with it: the table as loaded, shown so. */
	assert_false(s->little->calibrating);
	assert_false(meter_view_scale(s->little).calibrating);
	assert_true(meter_view_scale(s->little).confidence == 0.0);
	hot_period(s);
	assert_int_equal(meter_view_state(s->little), METER_VIEW_DROPPED);
	assert_int_equal(meter_view_state(s->big), METER_VIEW_READING);
	/* Its scale still shown (the table's), its reading no more. */
	text = metrics_text(&s->e);
	assert_null(strstr(text, "powerallocd_actor_measured_power_watts{actor=\"cpufreq-cpu0\"}"));
	assert_contains(text, "powerallocd_actor_power_scale_ratio{actor=\"cpufreq-cpu0\"} 1\n");
	free(text);
}

/*
 * The metrics: the power measured (W) for the meters that read; the table's
 * power and the scale for every meter.
 */
static void test_metrics(void **state)
{
	struct shown *s = *state;
	char *text, table[512];

	s->big->calibrating = true;
	s->big->power_scale.scale = 1.38;
	s->big->power_scale.offset_mw = 68;
	s->big->power_scale.confidence = 0.72;
	text = metrics_text(&s->e);
	assert_contains(text, "# TYPE powerallocd_actor_measured_power_watts gauge\n"
			"powerallocd_actor_measured_power_watts{actor=\"cpufreq-cpu0\"} 0.34\n"
			"powerallocd_actor_measured_power_watts{actor=\"cpufreq-cpu4\"} 1.35\n"
			"# HELP powerallocd_actor_table_power_watts ");
	/* The table's power, uncalibrated, for every meter (the GPU's counter has no reading yet). */
	snprintf(table, sizeof(table), "# TYPE powerallocd_actor_table_power_watts gauge\n"
		 "powerallocd_actor_table_power_watts{actor=\"cpufreq-cpu0\"} %.12g\n"
		 "powerallocd_actor_table_power_watts{actor=\"cpufreq-cpu4\"} %.12g\n"
		 "powerallocd_actor_table_power_watts{actor=\"devfreq-ff9a0000.gpu\"} %.12g\n",
		 s->little->model_mw / 1e3, s->big->model_mw / 1e3, s->gpu->model_mw / 1e3);
	assert_contains(text, table);
	/* The GPU's load is its own from the first period (the CPUs' needs two): a real figure. */
	assert_true(s->gpu->model_mw > 1000);
	assert_contains(text, "powerallocd_actor_power_scale_ratio{actor=\"cpufreq-cpu0\"} 1\n"
			"powerallocd_actor_power_scale_ratio{actor=\"cpufreq-cpu4\"} 1.38\n"
			"powerallocd_actor_power_scale_ratio{actor=\"devfreq-ff9a0000.gpu\"} 1\n");
	assert_contains(text, "powerallocd_actor_power_scale_offset_watts{actor=\"cpufreq-cpu4\"} "
			"0.068\n");
	assert_contains(text, "powerallocd_actor_power_scale_confidence_ratio{actor=\"cpufreq-cpu0\"} "
			"0\npowerallocd_actor_power_scale_confidence_ratio{actor=\"cpufreq-cpu4\"} "
			"0.72\n");
	free(text);
	/* No meter anywhere: none of these families (a family needs a series). */
	for (size_t i = 0; i < s->e.n_actors; i++)
		actor_free_meter(s->e.actors[i]);
	s->big->calibrating = false;
	text = metrics_text(&s->e);
	assert_null(strstr(text, "measured_power"));
	assert_null(strstr(text, "power_scale"));
	assert_null(strstr(text, "table_power"));
	free(text);
}

/* Field @name of the trace's @row, by the @header's names (malloc'd). */
static char *field(const char *header, const char *row, const char *name)
{
	size_t col = 0, n = strlen(name);
	const char *p = header;

	while (strncmp(p, name, n) != 0 || (p[n] != ',' && p[n] != '\n')) {
		p = strchr(p, ',');
		if (!p)
			fail_msg("no column %s in %s", name, header);
		p++;
		col++;
	}
	for (p = row; col; col--)
		p = strchr(p, ',') + 1;
	return strndup(p, strcspn(p, ",\n"));
}

/*
 * The trace: measured_mw (empty without a reading), power_scale and its
 * confidence, then table_mw, last.
 */
static void test_trace(void **state)
{
	struct shown *s = *state;
	char path[] = "/tmp/powerallocd-trace.XXXXXX", header[1024], row[1024], want[16], *v;
	int rows = 0;
	struct trace t;
	FILE *f;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	s->big->calibrating = true;
	s->big->power_scale.scale = 1.38;
	s->big->power_scale.confidence = 0.72;
	assert_int_equal(trace_open(&t, path), 0);
	trace_zone(&t, 100, &s->e.zones[0], 0);
	trace_close(&t);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(header, sizeof(header), f));
	assert_non_null(strstr(header, ",power_limit_mw,measured_mw,power_scale,"
			       "power_scale_confidence,table_mw\n"));
	/* The GPU's counter has no second value yet; the fan on the fallback has no meter. */
	while (fgets(row, sizeof(row), f)) {
		bool big = strstr(row, ",cpufreq-cpu4,"), little = strstr(row, ",cpufreq-cpu0,");

		v = field(header, row, "measured_mw");
		assert_string_equal(v, big ? "1350" : little ? "340" : "");
		free(v);
		v = field(header, row, "power_scale");
		assert_string_equal(v, big ? "1.3800" : "1.0000");
		free(v);
		v = field(header, row, "power_scale_confidence");
		assert_string_equal(v, big ? "0.720" : "0.000");
		free(v);
		/* The table's power beside the measured (uncalibrated); the fan has no table. */
		v = field(header, row, "table_mw");
		snprintf(want, sizeof(want), "%u", big ? s->big->model_mw : little ? s->little->model_mw
				 : strstr(row, ",devfreq-") ? s->gpu->model_mw : 0);
		assert_string_equal(v, want);
		free(v);
		rows++;
	}
	assert_int_equal(rows, 4);	/* the clusters, the GPU, the fan */
	assert_true(s->gpu->model_mw > 1000);	/* a real figure in its table_mw */
	fclose(f);
	close(fd);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_states, setup, teardown),
		cmocka_unit_test_setup_teardown(test_implausible_shown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table_power, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fault_shown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_metrics, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trace, setup, teardown),
	};

	if (tree_main_guard())
		return 1;
	tree_log_capture();
	pa_log_set_level(PA_LOG_NOTICE);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
