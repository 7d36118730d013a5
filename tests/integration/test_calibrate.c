/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Calibrating an actor's power table from its meter, on rk3399-meters
 * (suite integration): the GPU metered by the SCMI firmware's energy
 * counter, which the test winds each period to a chosen multiple of what
 * the GPU's table says for the frequency it ran at.  A meter reading 1.4 x
 * the table makes its request and maximum 1.4 x and the state a grant buys
 * deeper; a meter implausibly far from the table is dropped with one line
 * and the table is used as loaded; the calibration survives a rebuild (a
 * reload) and a restart (the model file's text); an actor without a meter
 * keeps its table bit for bit.
 */
#include <math.h>
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
#include "engine/model_record.h"
#include "platform/log.h"
#include "tree.h"

#define GPU_ENERGY "/sys/class/hwmon/hwmon1/energy2_input"
#define GPU_FREQ "/sys/class/devfreq/ff9a0000.gpu/cur_freq"
#define CPU_TEMP "/sys/class/thermal/thermal_zone0/temp"
#define PERIOD_US 100000ULL
/* Periods enough for the estimate to settle: 60 windows of 20 periods. */
#define CONVERGE_PERIODS 1200

/* The little cluster unmetered, the GPU metered by its energy counter (or not: %s empty). */
static const char config_text[] =
	"zones = ( { name = \"soc\"; sensor = \"cpu-thermal\";\n"
	"  switch_on_temp = 60000; control_temp = 75000; sustainable_power = 2500;\n"
	"  actors = ( { type = \"cpufreq\"; cpus = \"0-3\"; },\n"
	"             { type = \"devfreq\"; device = \"ff9a0000.gpu\"; %s } ); } );\n";

static struct pa_config *config(bool metered)
{
	char text[sizeof(config_text) + 128];

	snprintf(text, sizeof(text), config_text,
		 metered ? "power_meter = \"" GPU_ENERGY "\";" : "");
	return tree_config(text);
}

/* The simulated silicon: its period count, counter and CPU ticks. */
struct plant {
	uint64_t t_us;
	unsigned long long energy_uj;
	unsigned int ticks;
	unsigned int k;
};

static void plant_start(struct plant *p)
{
	memset(p, 0, sizeof(*p));
	p->t_us = 1000000;
	p->energy_uj = 2000000000ULL;
	tree_put_u64(GPU_ENERGY, p->energy_uj);
	tree_put(CPU_TEMP, "70000\n");
}

/*
 * @n periods of @e: the GPU runs at each of its OPPs in turn (two periods
 * each) and its counter counts @scale x its table's power at that OPP and
 * its load, over the period the next cycle reads it for.
 */
static void run_every(struct engine *e, struct plant *p, const struct actor *gpu, double scale,
		      unsigned int n, unsigned int every)
{
	const struct power_table *t = actor_model_table(gpu);

	for (unsigned int i = 0; i < n; i++, p->k++) {
		uint32_t khz = t->entry[(p->k / 2) % t->n].freq_khz;
		double mw = power_table_requested_power(t, khz, gpu->load_pct ? gpu->load_pct : 100);

		tree_put_u64(GPU_FREQ, (unsigned long long)khz * 1000);
		/* A live sensor under control: a stuck one would be a sensor fault. */
		tree_put_u64(CPU_TEMP, 70000 + 100 * (p->k % 7));
		p->energy_uj += (unsigned long long)llround(scale * mw * PERIOD_US / 1000);
		if (p->k % every == 0)
			tree_put_u64(GPU_ENERGY, p->energy_uj);
		p->ticks += 100;
		tree_stat_cpus(6, p->ticks, 0);
		p->t_us += PERIOD_US;
		assert_int_equal(engine_cycle(e, p->t_us, NULL), 0);
	}
}

static void run(struct engine *e, struct plant *p, const struct actor *gpu, double scale,
		unsigned int n)
{
	run_every(e, p, gpu, scale, n, 1);
}

/* @e restored (the states found, for the next test's engine) and freed. */
static void finish(struct engine *e)
{
	assert_int_equal(engine_restore(e), 0);
	engine_free(e);
}

/* The GPU's maximum and its table's, at its load now. */
static double max_ratio(const struct actor *gpu)
{
	const struct power_table *t = actor_model_table(gpu);

	return (double)gpu->max_mw / t->entry[t->n - 1].power_mw;
}

/* @e built from @cfg, its GPU (returned) run at 1.4 x until its calibration settled. */
static struct actor *converged_gpu(struct engine *e, struct plant *p, const struct pa_config *cfg)
{
	struct actor *gpu;

	plant_start(p);
	assert_int_equal(engine_build(e, cfg), 1);
	gpu = tree_actor_named(e, "devfreq-ff9a0000.gpu");
	run(e, p, gpu, 1.4, CONVERGE_PERIODS);
	return gpu;
}

static int setup(void **unused)
{
	(void)unused;
	tree_log_clear();
	return 0;
}

/*
 * 1.4 x: the request and the maximum become 1.4 x the table's (within 3 %:
 * the confidence blends the last few percent), and a grant that buys an
 * OPP by the table buys one lower.
 */
static void test_converges(void **unused)
{
	struct pa_config *cfg = config(true);
	struct actor *gpu;
	struct plant p;
	struct engine e;
	uint32_t grant_mw;
	unsigned long table_state;
	const struct power_table *t;

	(void)unused;
	plant_start(&p);
	assert_int_equal(engine_build(&e, cfg), 1);
	gpu = tree_actor_named(&e, "devfreq-ff9a0000.gpu");
	assert_true(gpu->calibrating);
	run(&e, &p, gpu, 1.4, CONVERGE_PERIODS);
	assert_true(e.zones[0].control.active);
	assert_true(gpu->power_scale.confidence > 0.9);
	assert_true(fabs(gpu->power_scale.scale - 1.4) < 0.01);
	assert_true(fabs(max_ratio(gpu) - 1.4) < 0.04);
	assert_true(gpu->req_mw > 0);
	assert_true(fabs((double)gpu->req_mw / gpu->model_mw - 1.4) < 0.04);
	/* The grant the table says the second OPP from the top draws buys a lower one. */
	t = actor_model_table(gpu);
	grant_mw = (uint32_t)(t->entry[t->n - 2].power_mw * gpu->load_pct / 100);
	table_state = power_table_freq_to_state(t, power_table_power_to_freq(t, grant_mw,
									       gpu->load_pct));
	assert_int_equal(table_state, 1);
	assert_true(actor_state_for_power(gpu, grant_mw) > table_state);
	assert_int_equal(tree_log_count("going on from the power table"), 0);
	finish(&e);
	pa_config_free(cfg);
}

/*
 * A meter reading 5 x the table is no meter of this rail: dropped with one
 * warning that names the actor, the meter and the ratio, and the GPU goes
 * on from its table as loaded.
 */
static void test_dropped(void **unused)
{
	struct pa_config *cfg = config(true), *plain_cfg = config(false);
	struct actor *gpu, *plain_gpu;
	struct engine e, plain;
	struct plant p;
	char line[256];

	(void)unused;
	plant_start(&p);
	assert_int_equal(engine_build(&e, cfg), 1);
	assert_int_equal(engine_build(&plain, plain_cfg), 1);
	gpu = tree_actor_named(&e, "devfreq-ff9a0000.gpu");
	plain_gpu = tree_actor_named(&plain, "devfreq-ff9a0000.gpu");
	run(&e, &p, gpu, 5.0, 200);
	assert_false(gpu->calibrating);
	assert_true(gpu->power_scale.implausible);
	snprintf(line, sizeof(line), "devfreq-ff9a0000.gpu: power meter %s reads 5.00 x its power "
		 "table, outside the plausible 0.3-3 x; calibration dropped until a reload, going "
		 "on from the power table", GPU_ENERGY);
	assert_int_equal(tree_log_count(line), 1);
	assert_memory_equal(&gpu->table, &plain_gpu->table, sizeof(gpu->table));
	run(&e, &p, gpu, 5.0, 200);
	assert_int_equal(tree_log_count("going on from the power table"), 1);
	assert_true(fabs(max_ratio(gpu) - 1.0) < 1e-9);
	finish(&plain);
	finish(&e);
	pa_config_free(plain_cfg);
	pa_config_free(cfg);
}

/*
 * An SCMI energy counter that the firmware updates once a second (every 10
 * periods): the reads between its steps say nothing new, and the
 * calibration must still converge (the counter averages over its steps).
 */
static void test_slow_energy_counter(void **unused)
{
	struct pa_config *cfg = config(true);
	struct actor *gpu;
	struct plant p;
	struct engine e;

	(void)unused;
	plant_start(&p);
	assert_int_equal(engine_build(&e, cfg), 1);
	gpu = tree_actor_named(&e, "devfreq-ff9a0000.gpu");
	run_every(&e, &p, gpu, 1.4, CONVERGE_PERIODS, 10);
	assert_true(gpu->calibrating);
	print_message("slow counter: weight %.2f scale %.3f confidence %.2f\n",
		      gpu->power_scale.sums.weight, gpu->power_scale.scale,
		      gpu->power_scale.confidence);
	assert_true(gpu->power_scale.sums.weight > 5);
	assert_true(fabs(gpu->power_scale.scale - 1.4) < 0.05);
	finish(&e);
	pa_config_free(cfg);
}

/*
 * A meter that faults in a period whose grants were divided in the
 * calibrated table's watts: the state that period buys is the calibrated
 * table's for the grant, not the loaded table's (a grant 1.4 x the loaded
 * table's watts would buy a state 1.4 x over the budget for a period).
 */
static void test_drop_same_table(void **unused)
{
	struct pa_config *cfg = config(true);
	static struct power_table calibrated, loaded;
	unsigned long want;
	struct actor *gpu;
	struct engine e;
	struct plant p;
	uint32_t grant;

	(void)unused;
	gpu = converged_gpu(&e, &p, cfg);
	for (unsigned int i = 0; i < 10; i++, p.k++) {
		p.energy_uj += (unsigned long long)llround(1.4 * gpu->model_mw * PERIOD_US / 1000);
		tree_put_u64(GPU_ENERGY, p.energy_uj);
		tree_put_u64(CPU_TEMP, 74000 + 100 * (p.k % 7));
		p.ticks += 100;
		tree_stat_cpus(6, p.ticks, 0);
		p.t_us += PERIOD_US;
		assert_int_equal(engine_cycle(&e, p.t_us, NULL), 0);
	}
	calibrated = gpu->table;
	tree_put_u64(GPU_ENERGY, p.energy_uj / 2);	/* backwards: dropped in this period */
	tree_put_u64(CPU_TEMP, 74000);
	p.ticks += 100;
	tree_stat_cpus(6, p.ticks, 0);
	p.t_us += PERIOD_US;
	assert_int_equal(engine_cycle(&e, p.t_us, NULL), 0);
	assert_false(gpu->calibrating);
	grant = gpu->granted_mw;
	loaded = gpu->table;
	gpu->table = calibrated;
	want = actor_state_for_power(gpu, grant);
	gpu->table = loaded;
	print_message("grant %u mW: state %lu, the calibrated table's %lu, the loaded's %lu\n",
		      grant, gpu->state, want, actor_state_for_power(gpu, grant));
	assert_true(grant < gpu->max_mw);
	assert_int_equal(gpu->state, want);
	finish(&e);
	pa_config_free(cfg);
}

/* A reload: the engine built anew takes the calibration of the one it replaces. */
static void test_reload(void **unused)
{
	struct pa_config *cfg = config(true);
	struct actor *gpu, *gpu2;
	struct engine e, e2;
	struct plant p;

	(void)unused;
	gpu = converged_gpu(&e, &p, cfg);
	assert_int_equal(engine_build(&e2, cfg), 1);
	gpu2 = tree_actor_named(&e2, "devfreq-ff9a0000.gpu");
	assert_true(gpu2->power_scale.sums.weight == 0);
	engine_adopt_state(&e2, &e);
	assert_true(gpu2->power_scale.scale == gpu->power_scale.scale);
	assert_true(gpu2->power_scale.confidence == gpu->power_scale.confidence);
	assert_memory_equal(&gpu2->table, &gpu->table, sizeof(gpu->table));
	engine_free(&e);	/* replaced, as a reload does: e2 restores what e found */
	run(&e2, &p, gpu2, 1.4, 20);
	assert_true(fabs(max_ratio(gpu2) - 1.4) < 0.04);
	finish(&e2);
	pa_config_free(cfg);
}

/*
 * A reload that gives the GPU another power table (its dynamic power
 * coefficient doubled): a scale learnt against the old table says nothing
 * of the new one, and is not carried (a restart discards it by the
 * fingerprint, which hashes the table).
 */
static void test_reload_new_table(void **unused)
{
	struct pa_config *cfg = config(true), *cfg2;
	struct actor *gpu, *gpu2;
	struct engine e, e2;
	struct plant p;

	(void)unused;
	cfg2 = tree_config("zones = ( { name = \"soc\"; sensor = \"cpu-thermal\";\n"
			   "  switch_on_temp = 60000; control_temp = 75000; sustainable_power = 2500;\n"
			   "  actors = ( { type = \"cpufreq\"; cpus = \"0-3\"; },\n"
			   "             { type = \"devfreq\"; device = \"ff9a0000.gpu\";\n"
			   "               dynamic_power_coefficient = 5000;\n"
			   "               power_meter = \"" GPU_ENERGY "\"; } ); } );\n");
	assert_non_null(cfg2);
	gpu = converged_gpu(&e, &p, cfg);
	assert_int_equal(engine_build(&e2, cfg2), 1);
	gpu2 = tree_actor_named(&e2, "devfreq-ff9a0000.gpu");
	assert_true(memcmp(actor_model_table(gpu), actor_model_table(gpu2),
			   sizeof(struct power_table)) != 0);
	engine_adopt_state(&e2, &e);
	print_message("new table: weight %.2f scale %.3f\n", gpu2->power_scale.sums.weight,
		      gpu2->power_scale.scale);
	assert_true(gpu2->power_scale.sums.weight == 0);
	engine_free(&e);
	finish(&e2);
	pa_config_free(cfg2);
	pa_config_free(cfg);
}

/* A sleep: the window being filled is dropped, what was learnt is kept. */
static void test_resume_breaks(void **unused)
{
	struct pa_config *cfg = config(true);
	struct actor *gpu;
	struct engine e;
	struct plant p;
	double weight, scale;

	(void)unused;
	gpu = converged_gpu(&e, &p, cfg);
	run(&e, &p, gpu, 1.4, 7);
	assert_true(gpu->power_scale.win_us > 0);
	weight = gpu->power_scale.sums.weight;
	scale = gpu->power_scale.scale;
	p.t_us += 60 * 1000000ULL;
	engine_resume(&e, p.t_us);
	assert_true(gpu->power_scale.win_us == 0 && gpu->scale_fed_us == 0);
	assert_true(gpu->power_scale.sums.weight == weight && gpu->power_scale.scale == scale);
	finish(&e);
	pa_config_free(cfg);
}

/*
 * A sleep that resets the energy counter (firmware counts from 0 again after
 * a suspend): the reading across the sleep is no period's power, and the
 * meter is no faulty meter for it; the calibration goes on.
 */
static void test_resume_counter_reset(void **unused)
{
	struct pa_config *cfg = config(true);
	struct actor *gpu;
	struct engine e;
	struct plant p;

	(void)unused;
	gpu = converged_gpu(&e, &p, cfg);
	p.t_us += 2 * 1000000ULL;
	p.energy_uj = 1000;
	tree_put_u64(GPU_ENERGY, p.energy_uj);
	engine_resume(&e, p.t_us);
	run(&e, &p, gpu, 1.4, 100);
	assert_int_equal(tree_log_count("went backwards"), 0);
	assert_true(gpu->calibrating);
	assert_true(fabs(max_ratio(gpu) - 1.4) < 0.04);
	finish(&e);
	pa_config_free(cfg);
}

/*
 * A restart: the calibration goes into the zone's model text and comes back
 * from it (its weight cut to 10 windows: the scale the same, the
 * confidence a little lower).  A text without it loads, with none.
 */
static void test_restart(void **unused)
{
	struct pa_config *cfg = config(true);
	static struct model_record rec, back;
	char text[MODEL_RECORD_TEXT_MAX], why[128] = "";
	struct actor *gpu2;
	double learnt;
	struct engine e, e2;
	struct plant p;

	(void)unused;
	learnt = converged_gpu(&e, &p, cfg)->power_scale.scale;
	assert_true(fabs(learnt - 1.4) < 0.01);
	model_record_of(&e.zones[0], &rec);
	assert_int_equal(rec.n_scales, 1);
	assert_true(model_record_format(&rec, "soc", text, sizeof(text)) > 0);
	assert_non_null(strstr(text, "\npower_scale = "));
	assert_int_equal(model_record_parse(text, &back, why, sizeof(why)), 0);
	assert_int_equal(back.n_scales, 1);
	finish(&e);

	assert_int_equal(engine_build(&e2, cfg), 1);
	gpu2 = tree_actor_named(&e2, "devfreq-ff9a0000.gpu");
	assert_int_equal(model_record_resume_scales(&e2.zones[0], &back), 1);
	assert_true(fabs(gpu2->power_scale.scale - learnt) < 1e-9);
	assert_true(gpu2->power_scale.confidence > 0.85);
	run(&e2, &p, gpu2, 1.4, 1);
	assert_true(fabs(max_ratio(gpu2) - 1.4) < 0.08);
	finish(&e2);

	/* The same text without its power_scale line: the model loads, no calibration. */
	*strstr(text, "power_scale = ") = '\0';
	assert_int_equal(model_record_parse(text, &back, why, sizeof(why)), 0);
	assert_int_equal(back.n_scales, 0);
	pa_config_free(cfg);
}

/*
 * Without a meter nothing changes: the unmetered little cluster beside a
 * calibrated GPU, and every actor of an engine without meters, keep their
 * tables as loaded, bit for bit, and request from them.
 */
static void test_unmetered_identical(void **unused)
{
	struct pa_config *cfg = config(true), *plain_cfg = config(false);
	struct actor *little, *plain_little, *gpu, *plain_gpu;
	struct engine e, plain;
	struct plant p, pp;

	(void)unused;
	plant_start(&p);
	assert_int_equal(engine_build(&e, cfg), 1);
	assert_int_equal(engine_build(&plain, plain_cfg), 1);
	little = tree_actor_named(&e, "cpufreq-cpu0");
	plain_little = tree_actor_named(&plain, "cpufreq-cpu0");
	gpu = tree_actor_named(&e, "devfreq-ff9a0000.gpu");
	plain_gpu = tree_actor_named(&plain, "devfreq-ff9a0000.gpu");
	run(&e, &p, gpu, 1.4, 400);
	pp = p;
	run(&plain, &pp, plain_gpu, 1.4, 400);
	assert_false(little->calibrating || plain_little->calibrating || plain_gpu->calibrating);
	assert_memory_equal(&little->table, &plain_little->table, sizeof(little->table));
	assert_int_equal(little->req_mw, little->model_mw);
	assert_int_equal(plain_gpu->req_mw, plain_gpu->model_mw);
	assert_int_equal(plain_gpu->max_mw, plain_gpu->table.entry[plain_gpu->table.n - 1].power_mw);
	assert_true(max_ratio(gpu) > 1.3);
	finish(&plain);
	finish(&e);
	pa_config_free(plain_cfg);
	pa_config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_converges, setup),
		cmocka_unit_test_setup(test_dropped, setup),
		cmocka_unit_test_setup(test_slow_energy_counter, setup),
		cmocka_unit_test_setup(test_drop_same_table, setup),
		cmocka_unit_test_setup(test_reload, setup),
		cmocka_unit_test_setup(test_reload_new_table, setup),
		cmocka_unit_test_setup(test_resume_breaks, setup),
		cmocka_unit_test_setup(test_resume_counter_reset, setup),
		cmocka_unit_test_setup(test_restart, setup),
		cmocka_unit_test_setup(test_unmetered_identical, setup),
	};

	if (tree_main_guard())
		return 1;
	tree_log_capture();
	pa_log_set_level(PA_LOG_NOTICE);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
