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
	snprintf(z->name, sizeof(z->name), "soc");
	z->n_actors = 1;
	z->actors[0] = a;
	z->pid.mode = PID_MODE_DEFAULT;
	z->pid.sustainable_power_mw = 2200;
	z->sp_source = SP_FROM_CONFIG;
	z->control_mc = 75000;
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
	z->always_on = true;
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
	snprintf(z->name, sizeof(z->name), "cpu");
	z->n_actors = 2;
	z->actors[0] = a;
	z->actors[1] = b;
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
	enum limit_reason said = LIMIT_NONE;
	void *userdata;

	(void)unused;
	journal_setup(LOG_TARGET_STDERR, PA_LOG_NOTICE);
	pa_log_get_handler(&journal_handler, &userdata);
	pa_log_set_handler(count_formatted, userdata);
	n_formatted = 0;
	a.limit.shown = LIMIT_TEMPERATURE;
	assert_true(actor_notes_update(&said, &a));
	assert_int_equal(said, LIMIT_TEMPERATURE);
	assert_int_equal(n_formatted, 0);
	/* At info level, it is said. */
	journal_setup(LOG_TARGET_STDERR, PA_LOG_INFO);
	pa_log_get_handler(&journal_handler, &userdata);
	pa_log_set_handler(count_formatted, userdata);
	a.limit.shown = LIMIT_LOWEST_STATE;
	assert_true(actor_notes_update(&said, &a));
	assert_int_equal(said, LIMIT_LOWEST_STATE);
	assert_int_equal(n_formatted, 1);
	assert_false(actor_notes_update(&said, &a));
	assert_int_equal(n_formatted, 1);
	journal_setup(LOG_TARGET_STDERR, PA_LOG_INFO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_released_to_the_first_approach),
		cmocka_unit_test(test_lowest_state_says_why),
		cmocka_unit_test(test_actor_reason_not_formatted_below_the_level),
	};

	/* As the daemon does before its first message: "priority: message FIELDS" on stderr. */
	journal_setup(LOG_TARGET_STDERR, PA_LOG_INFO);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
