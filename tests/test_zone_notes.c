/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The journal lines the default controller's tuning switches give
 * (daemon/zone_notes.c), on zones built by hand: released from its model,
 * a zone says what it goes back to, the first approach's lowest power
 * (issue 34, 1) or its prior where that is what it feeds forward.
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
};

static void update(const void *arg)
{
	const struct notes_call *c = arg;

	zone_notes_update(c->n, c->z, 1000000);
}

/* What zone_notes_update() wrote to stderr (the journal's target here), malloc'd. */
static char *notes_of(struct zone_notes *n, struct zone *z)
{
	struct notes_call c = { n, z };

	return capture(STDERR_FILENO, update, &c);
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
	z->temp_mc = 60000;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_released_to_the_first_approach),
	};

	/* As the daemon does before its first message: "priority: message FIELDS" on stderr. */
	journal_setup(LOG_TARGET_STDERR, PA_LOG_INFO);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
