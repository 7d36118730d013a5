/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The external power cap divided among zones (lib/engine/engine_cap.c): by what
 * each zone's actors asked, within their maxima, an actor shared by two
 * zones counted once, and the lowest states' total.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "engine/engine.h"

/* Two zones: cpu {little, big}, gpu {gpu}; or with @shared, gpu {big, gpu}. */
struct two_zones {
	struct actor little, big, gpu;
	struct actor *actors[3];
	struct zone zones[2];
	struct engine e;
};

static void build(struct two_zones *t, bool shared)
{
	memset(t, 0, sizeof(*t));
	t->little = (struct actor){ .min_mw = 100, .max_mw = 1000 };
	t->big = (struct actor){ .min_mw = 200, .max_mw = 4000 };
	t->gpu = (struct actor){ .min_mw = 300, .max_mw = 2000 };
	t->actors[0] = &t->little;
	t->actors[1] = &t->big;
	t->actors[2] = &t->gpu;
	t->zones[0].n_actors = 2;
	t->zones[0].actors[0] = &t->little;
	t->zones[0].actors[1] = &t->big;
	t->zones[1].n_actors = shared ? 2 : 1;
	t->zones[1].actors[0] = shared ? &t->big : &t->gpu;
	t->zones[1].actors[1] = &t->gpu;
	t->e.zones = t->zones;
	t->e.n_zones = 2;
	t->e.actors = t->actors;
	t->e.n_actors = 3;
}

static void test_no_cap(void **unused)
{
	struct two_zones t;

	(void)unused;
	build(&t, false);
	t.zones[0].capped = true;
	engine_share_cap(&t.e);
	assert_false(t.zones[0].capped);
	assert_false(t.zones[1].capped);
	assert_int_equal(t.e.lowest_mw, 600);
}

static void test_by_request(void **unused)
{
	struct two_zones t;

	(void)unused;
	build(&t, false);
	t.zones[0].request_mw[0] = 500;
	t.zones[0].request_mw[1] = 2500;	/* cpu asks 3000 */
	t.zones[1].request_mw[0] = 1000;	/* gpu asks 1000 */
	t.e.cap_mw = 2000;
	engine_share_cap(&t.e);
	assert_true(t.zones[0].capped && t.zones[1].capped);
	assert_int_equal(t.zones[0].cap_mw, 1500);
	assert_int_equal(t.zones[1].cap_mw, 500);
}

static void test_within_the_maxima(void **unused)
{
	struct two_zones t;

	(void)unused;
	build(&t, false);
	t.zones[0].request_mw[1] = 100;
	t.zones[1].request_mw[0] = 1900;
	t.e.cap_mw = 6000;	/* gpu's share by request would pass its 2000 mW */
	engine_share_cap(&t.e);
	assert_int_equal(t.zones[1].cap_mw, 2000);
	assert_int_equal(t.zones[0].cap_mw, 4000);
}

static void test_nothing_asked_yet(void **unused)
{
	struct two_zones t;

	(void)unused;
	build(&t, false);
	t.e.cap_mw = 700;	/* by the maxima: 5000 to 2000 */
	engine_share_cap(&t.e);
	assert_int_equal(t.zones[0].cap_mw, 500);
	assert_int_equal(t.zones[1].cap_mw, 200);
}

static void test_shared_actor_counted_once(void **unused)
{
	struct two_zones t;

	(void)unused;
	build(&t, true);
	t.zones[0].request_mw[0] = 1000;
	t.zones[0].request_mw[1] = 2000;	/* big: half of it each zone's */
	t.zones[1].request_mw[0] = 2000;
	t.zones[1].request_mw[1] = 1000;
	t.e.cap_mw = 2000;
	engine_share_cap(&t.e);
	/* cpu asks 1000 + 1000, gpu 1000 + 1000: the cap in halves. */
	assert_int_equal(t.zones[0].cap_mw, 1000);
	assert_int_equal(t.zones[1].cap_mw, 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_cap),
		cmocka_unit_test(test_by_request),
		cmocka_unit_test(test_within_the_maxima),
		cmocka_unit_test(test_nothing_asked_yet),
		cmocka_unit_test(test_shared_actor_counted_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
