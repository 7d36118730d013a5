/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The simulator's power meters (tools/simulator/sim_meters.c): the files a
 * real kernel would give, in a tree of their own, carrying the plant's
 * true power (its table times --power-scale, or the domain's own
 * --power-scale-domain), held between samples, with
 * the noise and the steps asked for; the description's key and the daemon's.
 */
#include <libconfig.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "assert_near.h"

#include "board.h"
#include "plant.h"
#include "sim_meters.h"


#define DT_S 0.01

struct fixture {
	char dir[64];
	const struct board *b;
	struct thermal_params p;
	struct plant pl;
	struct sim_meters mt;
};

static int setup(void **state)
{
	static struct fixture f;

	memset(&f, 0, sizeof(f));
	snprintf(f.dir, sizeof(f.dir), "/tmp/test-sim-meters.XXXXXX");
	if (!mkdtemp(f.dir))
		return -1;
	f.b = board_find("rk3399-rockpro64");
	f.p = (struct thermal_params){ .ambient_c = 25, .initial_c = 60,
				       .die_capacity_j_per_k = 0.5, .die_to_case_k_per_w = 2,
				       .case_capacity_j_per_k = 3, .case_to_ambient_k_per_w = 18,
				       .power_scale = 1.4 };
	plant_init(&f.pl, f.b, &f.p, WORKLOAD_STEADY, 60);
	*state = &f;
	return f.b ? 0 : -1;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	sim_meters_close(&f->mt);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* The number in the tree's @rel (relative to /), or -1. */
static double read_number(const struct fixture *f, const char *rel)
{
	char path[512];
	double v = -1;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", f->dir, rel);
	fp = fopen(path, "r");
	if (!fp)
		return -1;
	if (fscanf(fp, "%lf", &v) != 1)
		v = -1;
	fclose(fp);
	return v;
}

static void read_text(const struct fixture *f, const char *rel, char *buf, size_t size)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", f->dir, rel);
	fp = fopen(path, "r");
	assert_non_null(fp);
	assert_non_null(fgets(buf, (int)size, fp));
	fclose(fp);
	buf[strcspn(buf, "\n")] = '\0';
}

/* Every domain metered (--meters) each @period_ms, in steps of @step_mw (0: none), told by @config. */
static void meters_stepped(struct fixture *f, int period_ms, double noise_pct,
			   enum sim_meter_config config, double step_mw)
{
	struct sim_meter_options o = { .all = true, .period_ms = period_ms,
				       .noise_pct = noise_pct, .config = config,
				       .step_mw = step_mw };
	config_t cfg;

	config_init(&cfg);
	assert_int_equal(sim_meters_read_description(&cfg, f->b, &f->mt), 0);
	config_destroy(&cfg);
	sim_meters_apply(&f->mt, f->b, &o, 1);
	assert_int_equal(sim_meters_setup(&f->mt, f->dir, 1), 0);
}

/* Every domain metered (--meters) each @period_ms, the daemon told by @config. */
static void meters_all(struct fixture *f, int period_ms, double noise_pct,
		       enum sim_meter_config config)
{
	meters_stepped(f, period_ms, noise_pct, config, 0);
}

/* The files a kernel's hwmon and powercap give, through their class links. */
static void test_files_appear(void **state)
{
	struct fixture *f = *state;
	char text[64], rel[128];

	meters_all(f, 500, 0, SIM_METER_CONFIG_NONE);
	assert_int_equal(f->mt.n, 3);
	read_text(f, "sys/class/hwmon/hwmon0/name", text, sizeof(text));
	assert_string_equal(text, "sim_rails");
	assert_true(read_number(f, "sys/class/hwmon/hwmon0/update_interval") == 500);
	for (size_t k = 0; k < 3; k++) {
		char want[32];

		snprintf(want, sizeof(want), "vdd_%s", f->b->domains[k].name);
		snprintf(rel, sizeof(rel), "sys/class/hwmon/hwmon0/power%zu_label", k + 1);
		read_text(f, rel, text, sizeof(text));
		assert_string_equal(text, want);
		snprintf(rel, sizeof(rel), "sys/class/hwmon/hwmon0/in%zu_label", k + 1);
		read_text(f, rel, text, sizeof(text));
		assert_string_equal(text, want);
		snprintf(rel, sizeof(rel), "sys/class/powercap/sim-rapl:%zu/name", k);
		read_text(f, rel, text, sizeof(text));
		assert_string_equal(text, want);
		snprintf(rel, sizeof(rel), "sys/class/powercap/sim-rapl:%zu/max_energy_range_uj", k);
		assert_true(read_number(f, rel) == SIM_METERS_ENERGY_RANGE_UJ);
	}
}

/*
 * The plant's true power: powerN_input the mean over each 500 ms sample
 * (µW), held in between; energyN_input and energy_uj its integral (µJ);
 * inN_input the OPP's voltage.  The silicon draws 1.4 x its table here.
 */
static void test_true_power(void **state)
{
	struct fixture *f = *state;
	double energy_j[3] = { 0 }, sample_j[3] = { 0 }, held[3] = { 0 };

	meters_all(f, 500, 0, SIM_METER_CONFIG_NONE);
	for (int step = 1; step <= 300; step++) {
		/* The cooling states move within each sample: the mean is no reading. */
		for (size_t k = 0; k < 3; k++)
			f->pl.dom[k].state = (unsigned long)(step / 7 + k) % 4;
		plant_step(&f->pl, DT_S);
		sim_meters_step(&f->mt, &f->pl, DT_S);
		for (size_t k = 0; k < 3; k++) {
			const struct board_domain *d = &f->b->domains[k];
			const struct domain_state *s = &f->pl.dom[k];
			char rel[128];
			double table_w = 0, got;

			for (size_t i = 0; i < d->n_opps; i++)
				if (d->opps[i].freq_khz == s->freq_khz)
					table_w = d->opps[i].power_uw / 1e6 *
						  (d->n_cpus ? d->n_cpus : 1) * s->busy;
			/* The true power, not the table's. */
			assert_near(s->power_w, 1.4 * table_w, 1e-9);
			energy_j[k] += s->power_w * DT_S;
			sample_j[k] += s->power_w * DT_S;
			snprintf(rel, sizeof(rel), "sys/class/hwmon/hwmon0/energy%zu_input", k + 1);
			assert_near(read_number(f, rel), energy_j[k] * 1e6, 1.5);
			snprintf(rel, sizeof(rel), "sys/class/powercap/sim-rapl:%zu/energy_uj", k);
			assert_near(read_number(f, rel), energy_j[k] * 1e6, 1.5);
			snprintf(rel, sizeof(rel), "sys/class/hwmon/hwmon0/power%zu_input", k + 1);
			got = read_number(f, rel);
			if (step == 1) {
				/* The first step samples at once: a reading from the start. */
				held[k] = s->power_w * 1e6;
				sample_j[k] = 0;
			} else if (step % 50 == 1) {
				held[k] = sample_j[k] / 0.5 * 1e6;
				sample_j[k] = 0;
			}
			assert_near(got, held[k], 1.5);
			assert_true(got > 0);
			snprintf(rel, sizeof(rel), "sys/class/hwmon/hwmon0/in%zu_input", k + 1);
			for (size_t i = 0; i < d->n_opps; i++)
				if (d->opps[i].freq_khz == s->freq_khz && step % 50 == 1)
					assert_near(read_number(f, rel),
							   floor(d->opps[i].voltage_uv / 1000.0), 0.5);
		}
	}
}

/* The table's power of domain @k at its state this step, W. */
static double table_w(const struct fixture *f, size_t k)
{
	const struct board_domain *d = &f->b->domains[k];
	const struct domain_state *s = &f->pl.dom[k];

	for (size_t i = 0; i < d->n_opps; i++)
		if (d->opps[i].freq_khz == s->freq_khz)
			return d->opps[i].power_uw / 1e6 * (d->n_cpus ? d->n_cpus : 1) * s->busy;
	return -1;
}

/*
 * Each domain's own scale (--power-scale-domain cluster1=0.7,gpu=2 on a
 * plant at 1.4): its true power, and so its meter, follows its factor;
 * cluster0 keeps the plant's.
 */
static void test_domain_scale(void **state)
{
	static const double want[3] = { 1.4, 0.7, 2.0 };
	struct fixture *f = *state;
	double energy_j[3] = { 0 };

	f->p.domain_scale[1] = 0.7;
	f->p.domain_scale[2] = 2.0;
	plant_init(&f->pl, f->b, &f->p, WORKLOAD_STEADY, 60);
	meters_all(f, 500, 0, SIM_METER_CONFIG_NONE);
	for (int step = 1; step <= 151; step++) {
		for (size_t k = 0; k < 3; k++)
			f->pl.dom[k].state = step <= 51 ? 0 : (unsigned long)(step / 7 + k) % 4;
		plant_step(&f->pl, DT_S);
		sim_meters_step(&f->mt, &f->pl, DT_S);
		for (size_t k = 0; k < 3; k++) {
			char rel[128];

			assert_near(f->pl.dom[k].power_w, want[k] * table_w(f, k), 1e-9);
			energy_j[k] += want[k] * table_w(f, k) * DT_S;
			snprintf(rel, sizeof(rel), "sys/class/hwmon/hwmon0/energy%zu_input", k + 1);
			assert_near(read_number(f, rel), energy_j[k] * 1e6, 1.5);
			snprintf(rel, sizeof(rel), "sys/class/powercap/sim-rapl:%zu/energy_uj", k);
			assert_near(read_number(f, rel), energy_j[k] * 1e6, 1.5);
			/* The first sample at state 0 throughout: the held power is that state's. */
			snprintf(rel, sizeof(rel), "sys/class/hwmon/hwmon0/power%zu_input", k + 1);
			if (step == 51)
				assert_near(read_number(f, rel), want[k] * table_w(f, k) * 1e6, 1.5);
		}
	}
}

/* 5 % noise: each reading moves, their mean stays the true power. */
static void test_noise(void **state)
{
	struct fixture *f = *state;
	double sum = 0, sum2 = 0;
	int n = 0;

	meters_all(f, 10, 5, SIM_METER_CONFIG_NONE);
	for (int step = 1; step <= 2000; step++) {
		double r;

		plant_step(&f->pl, DT_S);
		sim_meters_step(&f->mt, &f->pl, DT_S);
		r = read_number(f, "sys/class/hwmon/hwmon0/power2_input") /
		    (f->pl.dom[1].power_w * 1e6);
		sum += r;
		sum2 += r * r;
		n++;
	}
	assert_near(sum / n, 1.0, 0.01);
	assert_near(sqrt(sum2 / n - (sum / n) * (sum / n)), 0.05, 0.01);
}

/*
 * --meter-step-mw 250: each power reading is the multiple of 250 mW nearest
 * the mean power (a coarse rail monitor), said in the summary's line; the
 * energy counters keep counting to the µJ.
 */
static void test_steps(void **state)
{
	struct fixture *f = *state;
	char line[128];

	meters_stepped(f, 10, 0, SIM_METER_CONFIG_NONE, 250);
	for (int step = 1; step <= 20; step++) {
		for (size_t k = 0; k < 3; k++)
			f->pl.dom[k].state = (unsigned long)(step + k) % 4;
		plant_step(&f->pl, DT_S);
		sim_meters_step(&f->mt, &f->pl, DT_S);
		for (size_t k = 0; k < 3; k++) {
			char rel[128];

			snprintf(rel, sizeof(rel), "sys/class/hwmon/hwmon0/power%zu_input", k + 1);
			assert_near(read_number(f, rel),
				    round(f->pl.dom[k].power_w * 4) * 250000, 0.5);
		}
	}
	sim_meters_describe(&f->mt, line, sizeof(line));
	assert_string_equal(line, "sim_rails (hwmon0), 10 ms, noise 0.0 %, steps 250 mW");
	f->mt.step_mw = 0;
	sim_meters_describe(&f->mt, line, sizeof(line));
	assert_string_equal(line, "sim_rails (hwmon0), 10 ms, noise 0.0 %");
}

/* The description's meters: some rails, labelled; the daemon's keys as asked. */
static void test_description_and_config(void **state)
{
	struct fixture *f = *state;
	struct sim_meter_options o = { .period_ms = -1, .noise_pct = -1,
				       .config = SIM_METER_CONFIG_HWMON };
	config_t cfg;
	char line[160];

	config_init(&cfg);
	assert_int_equal(config_read_string(&cfg, "meters = { period_ms = 200; noise_pct = 1.5; "
					    "rails = ( { domain = \"cluster1\"; label = \"vdd_cpu_b\"; },"
					    " { domain = \"gpu\"; label = \"vdd_gpu\"; } ); };"),
			 CONFIG_TRUE);
	assert_int_equal(sim_meters_read_description(&cfg, f->b, &f->mt), 0);
	config_destroy(&cfg);
	sim_meters_apply(&f->mt, f->b, &o, 1);
	assert_int_equal(f->mt.n, 2);
	assert_int_equal(f->mt.period_ms, 200);
	assert_near(f->mt.noise_pct, 1.5, 1e-9);
	assert_int_equal(sim_meters_setup(&f->mt, f->dir, 1), 0);
	sim_meters_config(&f->mt, 0, line, sizeof(line));
	assert_string_equal(line, "");
	sim_meters_config(&f->mt, 1, line, sizeof(line));
	assert_string_equal(line, "power_meter = { hwmon = \"sim_rails\"; label = \"vdd_cpu_b\"; }; ");
	f->mt.config = SIM_METER_CONFIG_POWER;
	sim_meters_config(&f->mt, 2, line, sizeof(line));
	assert_string_equal(line, "power_meter = \"/sys/class/hwmon/hwmon0/power2_input\"; ");
	f->mt.config = SIM_METER_CONFIG_ENERGY;
	sim_meters_config(&f->mt, 2, line, sizeof(line));
	assert_string_equal(line, "power_meter = \"/sys/class/hwmon/hwmon0/energy2_input\"; ");
	f->mt.config = SIM_METER_CONFIG_ENERGY_UJ;
	sim_meters_config(&f->mt, 1, line, sizeof(line));
	assert_string_equal(line, "power_meter = \"/sys/class/powercap/sim-rapl:0/energy_uj\"; ");
	/* Told nothing: the daemon's configuration as without meters. */
	f->mt.config = SIM_METER_CONFIG_NONE;
	for (size_t k = 0; k < 3; k++) {
		sim_meters_config(&f->mt, k, line, sizeof(line));
		assert_string_equal(line, "");
	}
}

/* Bad descriptions are refused with the reason; no meters without the key or --meters. */
static void test_bad_descriptions(void **state)
{
	static const char *const bad[] = {
		"meters = { rails = ( { domain = \"npu\"; label = \"x\"; } ); };",
		"meters = { rails = ( { domain = \"gpu\"; } ); };",
		"meters = { rails = ( { domain = \"gpu\"; label = \"a\"; }, "
		"{ domain = \"gpu\"; label = \"b\"; } ); };",
		"meters = { period_ms = 5; };",
		"meters = { noise_pct = 80.0; };",
	};
	struct fixture *f = *state;
	struct sim_meter_options o = { .period_ms = -1, .noise_pct = -1 };
	enum sim_meter_config c;
	config_t cfg;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		config_init(&cfg);
		assert_int_equal(config_read_string(&cfg, bad[i]), CONFIG_TRUE);
		assert_int_equal(sim_meters_read_description(&cfg, f->b, &f->mt), -1);
		config_destroy(&cfg);
	}
	config_init(&cfg);
	assert_int_equal(sim_meters_read_description(&cfg, f->b, &f->mt), 0);
	config_destroy(&cfg);
	sim_meters_apply(&f->mt, f->b, &o, 1);
	assert_int_equal(f->mt.n, 0);
	assert_int_equal(sim_meters_setup(&f->mt, f->dir, 1), 0);
	assert_int_not_equal(access(f->dir, F_OK), -1);
	assert_true(read_number(f, "sys/class/hwmon/hwmon0/name") == -1);
	assert_int_equal(sim_meter_config_parse("energy_uj", &c), 0);
	assert_int_equal(c, SIM_METER_CONFIG_ENERGY_UJ);
	assert_int_equal(sim_meter_config_parse("rapl", &c), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_files_appear, setup, teardown),
		cmocka_unit_test_setup_teardown(test_true_power, setup, teardown),
		cmocka_unit_test_setup_teardown(test_domain_scale, setup, teardown),
		cmocka_unit_test_setup_teardown(test_noise, setup, teardown),
		cmocka_unit_test_setup_teardown(test_steps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_description_and_config, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_descriptions, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
