/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The journal lines the default controller's tuning switches give
 * (daemon/zone_notes.c), on zones built by hand: released from its model,
 * a zone says what it goes back to, the first approach's lowest power
 * (issue 34, 1) or its prior where that is what it feeds forward.  An
 * actor's limiting reason, said each time it changes, is not formatted
 * below the log level.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "capture.h"
#include "journal.h"
#include "platform/log.h"
#include "zone_notes.h"

#define MS 1000ULL	/* us */

struct notes_call {
	struct zone_notes *n;
	struct zone *z;
	uint64_t now_us;
};

static void update(const void *arg)
{
	const struct notes_call *c = arg;

	zone_notes_update(c->n, c->z, c->now_us);
}

/* What zone_notes_update() at @now_us wrote to stderr (the journal's target here), malloc'd. */
static char *notes_at(struct zone_notes *n, struct zone *z, uint64_t now_us)
{
	struct notes_call c = { n, z, now_us };

	return capture_any(STDERR_FILENO, update, &c);
}

/* The same at 1 s, which says something. */
static char *notes_of(struct zone_notes *n, struct zone *z)
{
	char *text = notes_at(n, z, 1000000);

	assert_true(text[0] != '\0');
	return text;
}

/* A default-mode zone configured at 2200 mW whose actors' lowest is 709 mW, tuned until now. */
static void released_zone(struct zone *z, struct actor *a, struct zone_notes *n)
{
	*a = (struct actor){ .min_mw = 709 };
	snprintf(z->setup.name, sizeof(z->setup.name), "soc");
	z->setup.n_actors = 1;
	z->setup.actors[0] = a;
	z->setup.pid.mode = PID_MODE_DEFAULT;
	z->setup.pid.sustainable_power_mw = 2200;
	z->setup.sp_source = SP_FROM_CONFIG;
	z->setup.control_mc = 75000;
	z->sensing.temp_mc = 60000;
	*n = (struct zone_notes){ .tuned = true };
}

static void test_released_to_the_first_approach(void **unused)
{
	struct zone *z = calloc(1, sizeof(*z));
	struct zone_notes n;
	struct actor a;
	char *t;

	(void)unused;
	released_zone(z, &a, &n);
	t = notes_of(&n, z);
	assert_non_null(strstr(t, "info: zone soc: thermal model no longer confident (0.00); back "
				  "to the first approach: the lowest power, 709 mW, fed forward "
				  "with the gains from the configured sustainable power 2200 mW "
				  "ZONE=soc"));
	assert_false(n.tuned);
	free(t);
	/* Always on, it goes back to its prior (model_tuning.h). */
	released_zone(z, &a, &n);
	z->setup.always_on = true;
	t = notes_of(&n, z);
	assert_non_null(strstr(t, "info: zone soc: thermal model no longer confident (0.00); back "
				  "to the configured sustainable power 2200 mW and the gains from "
				  "it ZONE=soc"));
	free(t);
	free(z);
}

/*
 * Zone "cpu" on a budget of @budget_mw: the little cluster (a), held at its
 * lowest state (4) granted @grant_mw, draws 153 mW there at its load (one
 * CPU busy); the big one (b), at state 0, would draw 500 mW at its lowest.
 */
static void lowest_zone(struct zone *z, struct actor *a, struct actor *b, uint32_t budget_mw,
			uint32_t grant_mw)
{
	*a = (struct actor){ .name = "cpufreq-cpu0", .kind = ACTOR_CPUFREQ, .state = 4,
			     .max_state = 4, .load_pct = 100 };
	a->table.n = 2;
	a->table.entry[0] = (struct power_entry){ .freq_khz = 408000, .power_mw = 153 };
	a->table.entry[1] = (struct power_entry){ .freq_khz = 1416000, .power_mw = 600 };
	*b = *a;
	snprintf(b->name, sizeof(b->name), "cpufreq-cpu4");
	b->state = 0;
	b->table.entry[0].power_mw = 250;
	b->load_pct = 200;
	snprintf(z->setup.name, sizeof(z->setup.name), "cpu");
	z->setup.n_actors = 2;
	z->setup.actors[0] = a;
	z->setup.actors[1] = b;
	z->control.active = true;
	z->control.budget_mw = budget_mw;
	z->control.grant_mw[0] = grant_mw;
	z->control.grant_mw[1] = budget_mw - grant_mw;
}

/* What @z's notes say after its actor was at its lowest state from 1 s to 11 s, afresh. */
static char *after_10_s(struct zone *z, struct zone_notes *n)
{
	*n = (struct zone_notes){ 0 };
	free(notes_at(n, z, 1000000));
	return notes_at(n, z, 11000000);
}

/*
 * An actor at its lowest state for 10 s (issue 41, 5): "the budget is under
 * what it draws there" only where the zone's budget is under what its
 * actors draw at their lowest states (653 mW); with a budget of 2496 mW that
 * covers them, its share of it holds it there, and that is what is said.
 */
static void test_lowest_state_says_why(void **unused)
{
	struct zone *z = calloc(1, sizeof(*z));
	struct zone_notes n;
	struct actor a, b;
	char *t;

	(void)unused;
	lowest_zone(z, &a, &b, 2496, 90);
	t = after_10_s(z, &n);
	assert_non_null(strstr(t, "info: zone cpu: cpufreq-cpu0 has been at its lowest state (4) "
				  "for 10 s: its share of the budget, 90 of 2496 mW, is under the "
				  "153 mW it draws there; the division gives the zone's other actors "
				  "more ZONE=cpu"));
	assert_null(strstr(t, "notice:"));
	free(t);
	/* Once per episode. */
	t = notes_at(&n, z, 12000000);
	assert_null(strstr(t, "lowest state"));
	free(t);

	lowest_zone(z, &a, &b, 400, 90);
	t = after_10_s(z, &n);
	assert_non_null(strstr(t, "notice: zone cpu: cpufreq-cpu0 has been at its lowest state "
				  "(4) for 10 s: the budget, 400 mW, is under what the zone's "
				  "actors draw at their lowest states, 653 mW; check "
				  "sustainable_power and what else heats the zone ZONE=cpu"));
	free(t);

	/* Granted what it draws there: the budget does not hold it, nor its share. */
	lowest_zone(z, &a, &b, 2496, 153);
	t = after_10_s(z, &n);
	assert_null(strstr(t, "lowest state"));
	free(t);
	free(z);
}

/* Messages that reach the library's handler, that is, were formatted. */
static pa_log_handler journal_handler;
static int n_formatted;

static void count_formatted(void *userdata, int priority, const char *const *fields,
			    const char *message)
{
	n_formatted++;
	journal_handler(userdata, priority, fields, message);
}

/*
 * An actor's limiting reason, said at info level each time it changes on
 * the per-period path: below the log level it changes all the same, and
 * the message is not even formatted (as journal_log() did not).
 */
static void test_actor_reason_not_formatted_below_the_level(void **unused)
{
	struct actor a = { .name = "cpufreq-cpu0", .max_state = 5 };
	struct actor_notes n;
	void *userdata;

	(void)unused;
	actor_notes_init(&n, LIMIT_NONE);
	journal_setup(LOG_TARGET_STDERR, PA_LOG_NOTICE);
	pa_log_get_handler(&journal_handler, &userdata);
	pa_log_set_handler(count_formatted, userdata);
	n_formatted = 0;
	a.limit.shown = LIMIT_TEMPERATURE;
	assert_true(actor_notes_update(&n, &a, 1000 * MS));
	assert_int_equal(n.log.said, LIMIT_TEMPERATURE);
	assert_int_equal(n_formatted, 0);
	/* At info level, it is said. */
	journal_setup(LOG_TARGET_STDERR, PA_LOG_INFO);
	pa_log_get_handler(&journal_handler, &userdata);
	pa_log_set_handler(count_formatted, userdata);
	a.limit.shown = LIMIT_LOWEST_STATE;
	assert_true(actor_notes_update(&n, &a, 2000 * MS));
	assert_int_equal(n.log.said, LIMIT_LOWEST_STATE);
	assert_int_equal(n_formatted, 1);
	assert_false(actor_notes_update(&n, &a, 3000 * MS));
	assert_int_equal(n_formatted, 1);
	journal_setup(LOG_TARGET_STDERR, PA_LOG_INFO);
}

struct flip_call {
	struct actor_notes *n;
	struct actor *a;
	uint64_t from_us, period_us;
	unsigned int periods, changed;
	enum limit_reason reasons[2];
};

/* @periods periods of @period_us from @from_us, the reason shown alternating between two. */
static void flip(const void *arg)
{
	struct flip_call *c = (struct flip_call *)arg;

	for (unsigned int k = 0; k < c->periods; k++) {
		c->a->limit.shown = c->reasons[k % 2];
		c->changed += actor_notes_update(c->n, c->a, c->from_us + k * c->period_us);
	}
}

/* How many lines of @text hold @words. */
static unsigned int lines_with(const char *text, const char *words)
{
	unsigned int n = 0;

	for (const char *p = text; (p = strstr(p, words)); p += strlen(words))
		n++;
	return n;
}

/*
 * A big cluster stepping between two cooling states every period, its
 * reason flipping between temperature and none (a release is shown at once),
 * for 60 periods of 1 s: D-Bus sees every change, the journal one line (the
 * first change; the bound: a reason is said at once only when it was not
 * shown in the 10 s before, else once it has held 10 s), not one per flip
 * (issue 41, 6: 26 lines in 12 s).  A real change, to a reason not shown in
 * the last 10 s, is said in its own period; a flip back to one shown then,
 * once it has held for 10 s.
 */
static void test_actor_reason_does_not_flood(void **unused)
{
	struct actor a = { .name = "cpufreq-cpu4", .max_state = 5, .max_mw = 2260 };
	struct actor_notes n;
	struct flip_call c = { &n, &a, 1000 * MS, 1000 * MS, 60, 0,
			       { LIMIT_TEMPERATURE, LIMIT_NONE } };
	char *t;

	(void)unused;
	actor_notes_init(&n, LIMIT_NONE);
	t = capture_any(STDERR_FILENO, flip, &c);
	assert_int_equal(c.changed, 60);
	assert_int_equal(lines_with(t, "limiting reason"), 1);
	assert_non_null(strstr(t, "actor cpufreq-cpu4: limiting reason temperature (was none)"));
	free(t);
	/* Lowest-state, never said: at once, in its period. */
	c = (struct flip_call){ &n, &a, 61000 * MS, 1000 * MS, 1, 0, { LIMIT_LOWEST_STATE } };
	t = capture_any(STDERR_FILENO, flip, &c);
	assert_int_equal(lines_with(t, "limiting reason lowest-state (was temperature)"), 1);
	free(t);
	/* Back to temperature, left 1 s ago: said once it has held 10 s, at 72 s. */
	c = (struct flip_call){ &n, &a, 62000 * MS, 1000 * MS, 10, 0,
				{ LIMIT_TEMPERATURE, LIMIT_TEMPERATURE } };
	t = capture_any(STDERR_FILENO, flip, &c);
	assert_int_equal(lines_with(t, "limiting reason"), 0);
	free(t);
	c.from_us = 72000 * MS;
	c.periods = 1;
	t = capture_any(STDERR_FILENO, flip, &c);
	assert_int_equal(lines_with(t, "limiting reason temperature (was lowest-state)"), 1);
	free(t);
	/* None, last shown at 60 s: at once. */
	c = (struct flip_call){ &n, &a, 73000 * MS, 1000 * MS, 1, 0, { LIMIT_NONE } };
	t = capture_any(STDERR_FILENO, flip, &c);
	assert_int_equal(lines_with(t, "limiting reason none (was temperature)"), 1);
	free(t);
}

/* The same for a zone: its reason flipping every period for 60 s is said once. */
static void test_zone_reason_does_not_flood(void **unused)
{
	struct zone *z = calloc(1, sizeof(*z));
	struct zone_notes n = { 0 };
	unsigned int lines = 0;

	(void)unused;
	snprintf(z->setup.name, sizeof(z->setup.name), "cpu");
	z->control.active = true;
	for (unsigned int k = 0; k < 60; k++) {
		char *t;

		z->sensing.limit.shown = k % 2 ? LIMIT_NONE : LIMIT_TEMPERATURE;
		t = notes_at(&n, z, (1000 + 1000 * k) * MS);
		lines += lines_with(t, "limiting reason");
		assert_int_equal(n.reason, z->sensing.limit.shown);
		free(t);
	}
	assert_int_equal(lines, 1);
	free(z);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_released_to_the_first_approach),
		cmocka_unit_test(test_lowest_state_says_why),
		cmocka_unit_test(test_actor_reason_not_formatted_below_the_level),
		cmocka_unit_test(test_actor_reason_does_not_flood),
		cmocka_unit_test(test_zone_reason_does_not_flood),
	};

	/* As the daemon does before its first message: "priority: message FIELDS" on stderr. */
	journal_setup(LOG_TARGET_STDERR, PA_LOG_INFO);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
