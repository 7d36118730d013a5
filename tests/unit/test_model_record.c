/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A zone's thermal model saved and resumed: thermal_model_export() and
 * thermal_model_import() (lib/control/thermal_model.c), the text and the hardware
 * fingerprint of lib/engine/model_record.c.  The models are learnt on the
 * synthetic plants of thermal_plant.c.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/model_record.h"
#include "control/model_tuning.h"
#include "control/thermal_model.h"
#include "thermal_plant.h"

/* A 1 s die on a 60 s case, 2.2 W sustainable, configured at half, 1 °C noisy sensor. */
static void learn(struct synth *s, double until_s)
{
	struct synth_spec sp = { .tau_die_s = 1, .tau_case_s = 60, .die_share = 0.1,
				 .sustainable_w = 2.2, .draw = 1, .step_c = 1, .noise_c = 0.2,
				 .load_every_s = 120, .load_low = 0.2, .seed = 11 };

	synth_init(s, &sp, 1.1);
	synth_run(s, until_s);
}

/* A fresh model for @s's zone, as the daemon starts it. */
static void fresh(struct thermal_model *m, const struct synth *s)
{
	thermal_model_init(m, SYNTH_PERIOD_MS, (int32_t)(SYNTH_CONTROL_C * 1000),
			   (uint32_t)lround(s->prior_w * 1000));
}

static void assert_same_estimate(const struct thermal_estimate *a, const struct thermal_estimate *b)
{
	assert_true(a->sustainable_w == b->sustainable_w);
	assert_true(a->sustainable_sd_w == b->sustainable_sd_w);
	assert_true(a->time_constant_s == b->time_constant_s);
	assert_true(a->gain_k_per_w == b->gain_k_per_w);
	assert_true(a->fast_gain_k_per_w == b->fast_gain_k_per_w);
	assert_true(a->offset_c == b->offset_c);
	assert_true(a->confidence == b->confidence);
}

/*
 * Exported, written as text, parsed and imported into a fresh model, a
 * learnt model is the same to the bit: the same estimate and confidence at
 * once, and the same after ten more minutes of the same samples as the
 * model that went on (its chain of blocks broken, as a restart breaks it).
 */
static void test_round_trip(void **unused)
{
	struct synth s, resumed;
	struct model_record rec, back;
	char text[MODEL_RECORD_TEXT_MAX], why[128] = "";
	int len;

	(void)unused;
	learn(&s, 600);
	assert_true(s.model.est.confidence > 0.9);
	memset(&rec, 0, sizeof(rec));
	snprintf(rec.fp.sensor_type, sizeof(rec.fp.sensor_type), "cpu-thermal");
	thermal_model_export(&s.model, &rec.state);
	len = model_record_format(&rec, "cpu", text, sizeof(text));
	assert_true(len > 0);
	assert_int_equal(strlen(text), len);
	assert_int_equal(model_record_parse(text, &back, why, sizeof(why)), 0);
	resumed = s;
	fresh(&resumed.model, &s);
	assert_true(resumed.model.est.confidence == 0);
	assert_int_equal(thermal_model_import(&resumed.model, &back.state), 0);
	assert_same_estimate(&resumed.model.est, &s.model.est);
	assert_int_equal(resumed.model.state.updates, s.model.state.updates);
	assert_int_equal(resumed.model.state.changes, s.model.state.changes);
	print_message("resumed: %u mW, confidence %.3f after %u blocks\n",
		      thermal_model_sustainable_mw(&resumed.model), resumed.model.est.confidence,
		      resumed.model.state.updates);
	thermal_model_break(&s.model);
	synth_run(&s, 1200);
	synth_run(&resumed, 1200);
	assert_same_estimate(&resumed.model.est, &s.model.est);
}

/* A resumed model knows at once what a fresh one needs minutes for. */
static void test_resumed_is_confident_at_once(void **unused)
{
	struct synth s, fresh_start;
	struct model_record rec;

	(void)unused;
	learn(&s, 900);
	thermal_model_export(&s.model, &rec.state);
	learn(&fresh_start, 10);
	fresh(&s.model, &s);
	assert_int_equal(thermal_model_import(&s.model, &rec.state), 0);
	print_message("after 10 s: fresh %.0f mW at %.2f, resumed %.0f mW at %.2f\n",
		      fresh_start.model.est.sustainable_w * 1000, fresh_start.model.est.confidence,
		      s.model.est.sustainable_w * 1000, s.model.est.confidence);
	assert_true(fresh_start.model.est.confidence < 0.2);
	assert_true(s.model.est.confidence > 0.9);
	assert_true(fabs(s.model.est.sustainable_w / 2.2 - 1) < 0.1);
}

/* A state a model cannot be in is refused, the model left as it was. */
static void test_import_refuses(void **unused)
{
	struct thermal_model m, before, other;
	struct thermal_model_state good, bad;
	struct synth s;

	(void)unused;
	learn(&s, 300);
	thermal_model_export(&s.model, &good);
	fresh(&m, &s);
	memcpy(&before, &m, sizeof(m));
	for (int k = 0; k < 9; k++) {
		bad = good;
		switch (k) {
		case 0: bad.theta[1] = NAN; break;
		case 1: bad.info[2][3] = INFINITY; break;
		case 2: bad.block_s = 10; break;			/* another period */
		case 3: bad.ref_c = 80; break;				/* another control */
		case 4: bad.info[0][1] += 1e3; break;			/* not symmetric */
		case 5: memset(bad.info, 0, sizeof(bad.info)); break;	/* not definite */
		case 6: bad.theta[0] = 1.5; break;			/* a pole past 1 */
		case 7: bad.noise_var = -1; break;
		case 8: bad.gain_min_k_per_w = 2 * bad.gain_max_k_per_w; break;
		}
		assert_int_equal(thermal_model_import(&m, &bad), -EINVAL);
		assert_memory_equal(&m, &before, sizeof(m));
	}
	/* A model of another period or control refuses even a good state. */
	thermal_model_init(&other, 200, 75000, 1100);
	assert_int_equal(thermal_model_import(&other, &good), -EINVAL);
	thermal_model_init(&other, 100, 70000, 1100);
	assert_int_equal(thermal_model_import(&other, &good), -EINVAL);
	assert_int_equal(thermal_model_import(&m, &good), 0);
}

/*
 * A model under the confidence at which the controller would take it
 * (one block, 12 s: 0.04 measured) is not resumed, nor one out of range;
 * the model refused is left as it was.  A confident one is.
 */
static void test_resume_needs_the_engage_confidence(void **unused)
{
	struct synth s;
	struct model_record rec;
	struct thermal_model m, before;
	double confidence = -1;

	(void)unused;
	learn(&s, 12);
	print_message("after 12 s: %u blocks, %u mW at confidence %.4f\n", s.model.state.updates,
		      thermal_model_sustainable_mw(&s.model), s.model.est.confidence);
	assert_true(s.model.state.updates > 0);
	assert_true(s.model.est.confidence > 0 && s.model.est.confidence < MODEL_TUNING_ENGAGE);
	memset(&rec, 0, sizeof(rec));
	thermal_model_export(&s.model, &rec.state);
	fresh(&m, &s);
	memcpy(&before, &m, sizeof(m));
	assert_int_equal(model_record_resume(&m, &rec, &confidence), -ENODATA);
	assert_true(fabs(confidence - s.model.est.confidence) < 1e-9);
	assert_memory_equal(&m, &before, sizeof(m));
	rec.state.noise_var = -1;
	assert_int_equal(model_record_resume(&m, &rec, &confidence), -EINVAL);
	assert_memory_equal(&m, &before, sizeof(m));

	learn(&s, 300);
	thermal_model_export(&s.model, &rec.state);
	assert_int_equal(model_record_resume(&m, &rec, &confidence), 0);
	assert_true(confidence > 0.9);
	assert_true(m.est.confidence == confidence);
	assert_int_equal(m.state.updates, s.model.state.updates);
}

/* The text of a record learnt on a plant for two minutes, for the parse tests. */
static void good_text(char *text, size_t size)
{
	struct model_record rec;
	struct synth s;

	learn(&s, 120);
	memset(&rec, 0, sizeof(rec));
	snprintf(rec.fp.sensor_type, sizeof(rec.fp.sensor_type), "cpu-thermal");
	rec.fp.actors = UINT64_C(0x0123456789abcdef);
	rec.fp.power_tables = UINT64_C(0xfedcba9876543210);
	rec.fp.control_mc = 75000;
	rec.fp.period_ms = 100;
	thermal_model_export(&s.model, &rec.state);
	assert_true(model_record_format(&rec, "cpu", text, size) > 0);
}

/* @text with the first @from replaced by @to, in @out. */
static void replace(const char *text, const char *from, const char *to, char *out, size_t size)
{
	const char *at = strstr(text, from);

	assert_non_null(at);
	snprintf(out, size, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
}

static void test_parse(void **unused)
{
	static const char *const broken[][3] = {
		/* from, to, what the error says */
		{ "format = 1\n", "", "before \"format\"" },
		{ "format = 1", "format = one", "not a number" },
		{ "actors = ", "actors = zz", "bad actors" },
		{ "period_ms = 100", "period_ms = -100", "bad period_ms" },
		{ "control_mc = 75000", "control_mc = 75000x", "bad control_mc" },
		{ "updates = ", "updates = 99999999999 ", "bad updates" },
		{ "noise_var = ", "noise_var = 1 2 ", "bad noise_var" },
		{ "\nprior = ", "\nprior = 1 ", "bad prior" },
		{ "\ntheta", "\ntheta = 0 0 0 0\ntheta", "repeated key \"theta\"" },
		{ "\nfloor", "\nfloors = 1\nfloor", "unknown key \"floors\"" },
		{ "\ncusum_low = ", "\ncusum_lo = ", "unknown key" },
		{ "\nrhs = ", "\nrhs ", "no \"key = value\"" },
		{ "\nsensor = cpu-thermal", "\nsensor = ", "bad sensor" },
	};
	char text[MODEL_RECORD_TEXT_MAX], changed[MODEL_RECORD_TEXT_MAX], why[128];
	struct model_record rec;

	(void)unused;
	good_text(text, sizeof(text));
	assert_int_equal(model_record_parse(text, &rec, why, sizeof(why)), 0);
	assert_string_equal(rec.fp.sensor_type, "cpu-thermal");
	assert_true(rec.fp.actors == UINT64_C(0x0123456789abcdef));
	assert_true(rec.fp.power_tables == UINT64_C(0xfedcba9876543210));
	assert_int_equal(rec.fp.control_mc, 75000);
	assert_int_equal(rec.fp.period_ms, 100);
	/* Blank lines, comments and blanks around keys are fine. */
	replace(text, "\nrhs = ", "\n\n  # a comment\n  rhs   =  ", changed, sizeof(changed));
	assert_int_equal(model_record_parse(changed, &rec, why, sizeof(why)), 0);
	for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		replace(text, broken[i][0], broken[i][1], changed, sizeof(changed));
		why[0] = '\0';
		assert_int_equal(model_record_parse(changed, &rec, why, sizeof(why)), -EINVAL);
		print_message("%s\n", why);
		assert_non_null(strstr(why, broken[i][2]));
	}
	/* Cut short: the keys after the cut are missing. */
	snprintf(changed, sizeof(changed), "%.*s", (int)(strstr(text, "\ninfo") - text), text);
	assert_int_equal(model_record_parse(changed, &rec, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "no \"info\" line");
	assert_int_equal(model_record_parse("", &rec, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "no \"format\" line");
	assert_int_equal(model_record_parse("\x7f\x45LF\x01\x02", &rec, why, sizeof(why)), -EINVAL);
	/* Another format is not a corrupt file: it is told apart. */
	replace(text, "format = 1", "format = 2", changed, sizeof(changed));
	assert_int_equal(model_record_parse(changed, &rec, why, sizeof(why)), -EPROTONOSUPPORT);
	assert_string_equal(why, "format 2, not this version's 1");
	/* Too small a buffer to write it in. */
	assert_int_equal(model_record_format(&rec, "cpu", changed, 100), -ENOSPC);
}

/* Two actors like the RK3399's clusters, in a zone. */
static struct actor little, big;
static struct zone zone;

static void setup_zone(void)
{
	static const uint32_t khz[] = { 408000, 816000, 1200000, 1416000 };

	memset(&little, 0, sizeof(little));
	memset(&zone, 0, sizeof(zone));
	little.kind = ACTOR_CPUFREQ;
	snprintf(little.name, sizeof(little.name), "cpufreq-cpu0");
	for (unsigned int c = 0; c < 4; c++)
		cpumask_set(&little.cpus, c);
	little.n_cpus = 4;
	little.table.n = 4;
	for (size_t i = 0; i < 4; i++) {
		little.table.entry[i].freq_khz = khz[i];
		little.table.entry[i].power_uw = 20000 * (uint32_t)(i + 1);
	}
	big = little;
	snprintf(big.name, sizeof(big.name), "cpufreq-cpu4");
	cpumask_clear(&big.cpus);
	cpumask_set(&big.cpus, 4);
	cpumask_set(&big.cpus, 5);
	big.n_cpus = 2;
	big.table.entry[3].power_uw = 400000;
	snprintf(zone.setup.sensor_type, sizeof(zone.setup.sensor_type), "cpu-thermal");
	zone.setup.control_mc = 75000;
	zone.setup.pid.period_ms = 100;
	zone.setup.n_actors = 2;
	zone.setup.actors[0] = &little;
	zone.setup.actors[1] = &big;
}

/* What model_fingerprint_differs() says of the zone now against @saved. */
static const char *differs(const struct model_fingerprint *saved)
{
	struct model_fingerprint now;

	model_fingerprint_of(&zone, &now);
	return model_fingerprint_differs(saved, &now);
}

static void test_fingerprint(void **unused)
{
	struct model_fingerprint saved;

	(void)unused;
	setup_zone();
	model_fingerprint_of(&zone, &saved);
	assert_null(differs(&saved));
	/* The order the actors are listed in does not count, nor CPUs offline. */
	zone.setup.actors[0] = &big;
	zone.setup.actors[1] = &little;
	little.n_cpus = 3;
	assert_null(differs(&saved));
	/* An OPP's power, an OPP's frequency, an OPP more. */
	big.table.entry[2].power_uw++;
	assert_string_equal(differs(&saved), "power table changed");
	setup_zone();
	little.table.entry[0].freq_khz = 600000;
	assert_string_equal(differs(&saved), "power table changed");
	setup_zone();
	big.table.n = 3;
	assert_string_equal(differs(&saved), "power table changed");
	/* An actor gone, renamed, with other CPUs, of another kind; tables swapped. */
	setup_zone();
	zone.setup.n_actors = 1;
	assert_string_equal(differs(&saved), "actors changed");
	setup_zone();
	snprintf(big.name, sizeof(big.name), "cpufreq-cpu5");
	assert_string_equal(differs(&saved), "actors changed");
	setup_zone();
	cpumask_set(&little.cpus, 6);
	assert_string_equal(differs(&saved), "actors changed");
	setup_zone();
	big.kind = ACTOR_CPUFREQ_CAP;
	assert_string_equal(differs(&saved), "actors changed");
	setup_zone();
	little.table = big.table;
	assert_string_equal(differs(&saved), "power table changed");
	/* The sensor, the control temperature, the period. */
	setup_zone();
	snprintf(zone.setup.sensor_type, sizeof(zone.setup.sensor_type), "soc-thermal");
	assert_string_equal(differs(&saved), "sensor changed");
	setup_zone();
	zone.setup.control_mc = 80000;
	assert_string_equal(differs(&saved), "control temperature changed");
	setup_zone();
	zone.setup.pid.period_ms = 50;
	assert_string_equal(differs(&saved), "period changed");
}

/* @a calibrates from a meter named @name, of which @id_len names it across boots. */
static void give_meter(struct actor *a, struct power_meter *m, const char *name, size_t id_len)
{
	power_meter_init(m);
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->id_len = id_len;
	a->meter = m;
	a->calibrating = true;
}

/*
 * A calibrating actor's requests are in its meter's watts: a meter added,
 * removed or changed is another model; the same meter under another hwmonN
 * (past its id_len) is the same.
 */
static void test_fingerprint_meter(void **unused)
{
	struct model_fingerprint unmetered, metered;
	struct power_meter m1, m2;
	const char *ina = "ina226 vdd_cpu_big hwmon3", *ina_b = "ina226 vdd_cpu_big hwmon5";

	(void)unused;
	setup_zone();
	model_fingerprint_of(&zone, &unmetered);
	give_meter(&big, &m1, ina, 18);
	assert_string_equal(differs(&unmetered), "power table changed");
	model_fingerprint_of(&zone, &metered);
	assert_null(differs(&metered));
	/* The same meter twice, the same meter renumbered: the same model. */
	setup_zone();
	give_meter(&big, &m2, ina, 18);
	assert_null(differs(&metered));
	setup_zone();
	give_meter(&big, &m2, ina_b, 18);
	assert_null(differs(&metered));
	/* Another meter, or on the other actor; and the meter removed. */
	setup_zone();
	give_meter(&big, &m2, "ina226 vdd_cpu_lit hwmon3", 18);
	assert_string_equal(differs(&metered), "power table changed");
	setup_zone();
	give_meter(&little, &m2, ina, 18);
	assert_string_equal(differs(&metered), "power table changed");
	setup_zone();
	assert_string_equal(differs(&metered), "power table changed");
	assert_null(differs(&unmetered));
}

/* The fingerprint goes through the text unchanged. */
static void test_fingerprint_in_text(void **unused)
{
	struct model_record rec, back;
	char text[MODEL_RECORD_TEXT_MAX], why[128];

	(void)unused;
	setup_zone();
	thermal_model_init(&zone.learning.model, 100, 75000, 2200);
	zone.learning.model.state.updates = 1;
	model_record_of(&zone, &rec);
	assert_int_equal(rec.state.updates, 1);
	assert_true(model_record_format(&rec, "cpu", text, sizeof(text)) > 0);
	assert_non_null(strstr(text, "sustainable power 2200 mW"));
	assert_int_equal(model_record_parse(text, &back, why, sizeof(why)), 0);
	assert_null(model_fingerprint_differs(&back.fp, &rec.fp));
}

static void test_file_name(void **unused)
{
	static const char *const names[][2] = {
		{ "cpu-thermal", "cpu-thermal.model" },
		{ "gpu_thermal.0", "gpu_thermal.0.model" },
		{ "a b/c", "a%20b%2Fc.model" },
		{ "..", "%2E..model" },
		{ "50%", "50%25.model" },
		{ "\xc3\xa9t\xc3\xa9", "%C3%A9t%C3%A9.model" },
	};
	char buf[64];

	(void)unused;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_int_equal(model_record_file_name(names[i][0], buf, sizeof(buf)),
				 strlen(names[i][1]));
		assert_string_equal(buf, names[i][1]);
	}
	assert_int_equal(model_record_file_name("cpu-thermal", buf, 17), -ENAMETOOLONG);
	assert_int_equal(model_record_file_name("cpu-thermal", buf, 18), 17);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_resumed_is_confident_at_once),
		cmocka_unit_test(test_import_refuses),
		cmocka_unit_test(test_resume_needs_the_engage_confidence),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_fingerprint),
		cmocka_unit_test(test_fingerprint_meter),
		cmocka_unit_test(test_fingerprint_in_text),
		cmocka_unit_test(test_file_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
