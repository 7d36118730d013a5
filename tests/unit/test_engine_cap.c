/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The external power cap divided among zones (lib/engine/engine_cap.c): by what
 * each zone's actors asked, within their maxima, an actor shared by two
 * zones counted once, and the lowest states' total; and a cap the lowest
 * states cannot meet on the RockPro64's tables (issue 32, 6), divided by
 * the zone (zone.c) so that no actor is granted less than it draws at its
 * lowest state while the others spend the difference.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "board.h"
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
	t->zones[0].setup.n_actors = 2;
	t->zones[0].setup.actors[0] = &t->little;
	t->zones[0].setup.actors[1] = &t->big;
	t->zones[1].setup.n_actors = shared ? 2 : 1;
	t->zones[1].setup.actors[0] = shared ? &t->big : &t->gpu;
	t->zones[1].setup.actors[1] = &t->gpu;
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
	t.zones[0].period.capped = true;
	engine_share_cap(&t.e);
	assert_false(t.zones[0].period.capped);
	assert_false(t.zones[1].period.capped);
	assert_int_equal(t.e.lowest_mw, 600);
	/* At least every actor's maximum together (7000 mW): nothing to hold. */
	t.e.cap_mw = 7000;
	engine_share_cap(&t.e);
	assert_false(t.zones[0].period.capped);
	assert_false(t.zones[1].period.capped);
	t.e.cap_mw = 6999;
	engine_share_cap(&t.e);
	assert_true(t.zones[0].period.capped && t.zones[1].period.capped);
}

static void test_by_request(void **unused)
{
	struct two_zones t;

	(void)unused;
	build(&t, false);
	t.zones[0].control.request_mw[0] = 500;
	t.zones[0].control.request_mw[1] = 2500;	/* cpu asks 3000 */
	t.zones[1].control.request_mw[0] = 1000;	/* gpu asks 1000 */
	t.e.cap_mw = 2000;
	engine_share_cap(&t.e);
	assert_true(t.zones[0].period.capped && t.zones[1].period.capped);
	assert_int_equal(t.zones[0].period.cap_mw, 1500);
	assert_int_equal(t.zones[1].period.cap_mw, 500);
}

static void test_within_the_maxima(void **unused)
{
	struct two_zones t;

	(void)unused;
	build(&t, false);
	t.zones[0].control.request_mw[1] = 100;
	t.zones[1].control.request_mw[0] = 1900;
	t.e.cap_mw = 6000;	/* gpu's share by request would pass its 2000 mW */
	engine_share_cap(&t.e);
	assert_int_equal(t.zones[1].period.cap_mw, 2000);
	assert_int_equal(t.zones[0].period.cap_mw, 4000);
}

static void test_nothing_asked_yet(void **unused)
{
	struct two_zones t;

	(void)unused;
	build(&t, false);
	t.e.cap_mw = 1400;	/* by the maxima: 5000 to 2000 */
	engine_share_cap(&t.e);
	assert_int_equal(t.zones[0].period.cap_mw, 1000);
	assert_int_equal(t.zones[1].period.cap_mw, 400);
	/* 200 mW would be under the gpu's 300 mW lowest (no power table: min_mw). */
	t.e.cap_mw = 700;
	engine_share_cap(&t.e);
	assert_int_equal(t.zones[0].period.cap_mw, 400);
	assert_int_equal(t.zones[1].period.cap_mw, 300);
}

static void test_shared_actor_counted_once(void **unused)
{
	struct two_zones t;

	(void)unused;
	build(&t, true);
	t.zones[0].control.request_mw[0] = 1000;
	t.zones[0].control.request_mw[1] = 2000;	/* big: half of it each zone's */
	t.zones[1].control.request_mw[0] = 2000;
	t.zones[1].control.request_mw[1] = 1000;
	t.e.cap_mw = 2000;
	engine_share_cap(&t.e);
	/* cpu asks 1000 + 1000, gpu 1000 + 1000: the cap in halves. */
	assert_int_equal(t.zones[0].period.cap_mw, 1000);
	assert_int_equal(t.zones[1].period.cap_mw, 1000);
}


/* The simulated RockPro64 (tools/sim): one zone with both clusters and the GPU. */
struct rockpro64 {
	struct actor little, big, gpu;
	struct actor *actors[3];
	struct zone zone;
	struct engine e;
};

/* @a as the board's domain @k, its CPUs (or the device) @load_pct busy each at its top OPP. */
static void rk3399_actor(struct actor *a, size_t k, unsigned int load_pct)
{
	const struct board *b = board_find("rk3399-rockpro64");
	const struct board_domain *d = &b->domains[k];
	unsigned int n_cpus = d->n_cpus ? d->n_cpus : 1;

	assert_non_null(b);
	memset(a, 0, sizeof(*a));
	for (size_t i = 0; i < d->n_opps; i++)
		a->table.entry[i] = (struct power_entry){ d->opps[i].freq_khz, d->opps[i].voltage_uv,
							  d->opps[i].power_uw, d->opps[i].power_mw };
	a->table.n = d->n_opps;
	a->n_cpus = n_cpus;
	a->weight_q10 = 1024;
	/* cpu_capacity as the fixture writes it: dmips x top MHz, the big cluster's 1024. */
	a->capacity = d->n_cpus ? d->capacity_dmips_mhz * (d->opps[d->n_opps - 1].freq_khz / 1000) *
				  1024 / (1024 * 1800) : 1024;
	a->load_pct = load_pct * n_cpus;
	a->saturated = load_pct >= 100 ? n_cpus : 0;
	a->freq_khz = d->opps[d->n_opps - 1].freq_khz;
	a->max_state = d->n_opps - 1;
	a->max_mw = d->opps[d->n_opps - 1].power_mw * n_cpus;
	a->min_mw = d->opps[0].power_mw * n_cpus;
	a->req_mw = power_table_requested_power(&a->table, a->freq_khz, a->load_pct);
}

static void rockpro64(struct rockpro64 *t, unsigned int gpu_load_pct)
{
	memset(t, 0, sizeof(*t));
	rk3399_actor(&t->little, 0, 100);
	rk3399_actor(&t->big, 1, 100);
	rk3399_actor(&t->gpu, 2, gpu_load_pct);
	t->actors[0] = &t->little;
	t->actors[1] = &t->big;
	t->actors[2] = &t->gpu;
	memcpy(t->zone.setup.actors, t->actors, sizeof(t->actors));
	t->zone.setup.n_actors = 3;
	t->zone.setup.efficiency_division = true;
	t->zone.setup.pid.mode = PID_MODE_DEFAULT;
	/* Under switch-on: the zone grants its maximum, and the cap alone holds it. */
	t->zone.setup.switch_on_mc = 70000;
	t->zone.setup.control_mc = 75000;
	t->zone.sensing.temp_mc = t->zone.sensing.prev_temp_mc = 60000;
	t->e.zones = &t->zone;
	t->e.n_zones = 1;
	t->e.actors = t->actors;
	t->e.n_actors = 3;
}

/* The state @a's grant puts it in, as power2state takes it (no carry). */
static unsigned int state_of(const struct actor *a, uint32_t grant_mw)
{
	return power_table_freq_to_state(&a->table, power_table_power_to_freq(&a->table, grant_mw,
									       a->load_pct));
}

/* What @a draws at @state with its load, mW (the power table's figure). */
static uint32_t draw_at(const struct actor *a, unsigned int state)
{
	return power_table_requested_power(&a->table, power_table_state_to_freq(&a->table, state),
					   a->load_pct);
}

/* Caps the board at @cap_mw for one period; returns what the states it gets draw, mW. */
static uint32_t capped_draw(struct rockpro64 *t, uint32_t cap_mw, unsigned int *states)
{
	uint32_t draw_mw = 0;

	t->e.cap_mw = cap_mw;
	engine_share_cap(&t->e);
	zone_cycle(&t->zone);
	for (size_t i = 0; i < 3; i++) {
		states[i] = state_of(t->actors[i], t->zone.control.grant_mw[i]);
		draw_mw += draw_at(t->actors[i], states[i]);
	}
	return draw_mw;
}

static void test_rockpro64_cap_under_the_floor(void **unused)
{
	struct rockpro64 t;
	unsigned int states[3];

	(void)unused;
	rockpro64(&t, 100);
	/* 4 x 27 + 2 x 121 + 359 mW: the lowest OPPs at full load. */
	assert_int_equal(t.e.lowest_mw, 0);
	engine_share_cap(&t.e);
	assert_int_equal(t.e.lowest_mw, 709);
	/*
	 * powerallocctl limit 0.5: before, the efficiency division spent the cap
	 * on the little cluster's 816 MHz (232 mW, state 3 of 5) and granted the
	 * GPU 0 mW: 833 mW in all, 124 over the floor the journal claimed.
	 */
	assert_int_equal(capped_draw(&t, 500, states), 709);
	assert_true(t.zone.period.cap_limited);
	assert_int_equal(states[0], 5);
	assert_int_equal(states[1], 7);
	assert_int_equal(states[2], 5);
	/* Each granted what it draws there, so the grants say what is drawn. */
	assert_int_equal(t.zone.control.grant_mw[0], 108);
	assert_int_equal(t.zone.control.grant_mw[1], 242);
	assert_int_equal(t.zone.control.grant_mw[2], 359);
	/* However far under: still the lowest states, no grant under them. */
	assert_int_equal(capped_draw(&t, 1, states), 709);
}

/* Under @cap_mw with @draw_mw drawn at @states: no actor's next OPP would still fit. */
static void assert_filled(const struct rockpro64 *t, uint32_t cap_mw, const unsigned int *states,
			  uint32_t draw_mw)
{
	for (size_t i = 0; i < 3; i++)
		if (states[i] > 0)
			assert_true(draw_at(t->actors[i], states[i] - 1) -
				    draw_at(t->actors[i], states[i]) > cap_mw - draw_mw);
}

static void test_rockpro64_cap_over_the_floor(void **unused)
{
	struct rockpro64 t;
	unsigned int states[3];
	uint32_t granted, draw;

	(void)unused;
	rockpro64(&t, 100);
	/* Between the floor (709 mW) and the demand (716 + 2260 + 2555 mW). */
	for (uint32_t cap_mw = 710; cap_mw <= 3000; cap_mw += 10) {
		draw = capped_draw(&t, cap_mw, states);
		/* At or under the cap, as close as whole OPP steps come... */
		assert_in_range(draw, 709, cap_mw);
		assert_filled(&t, cap_mw, states, draw);
		/* ...each actor granted what it draws there, at least its lowest state's. */
		for (size_t i = 0; i < 3; i++)
			assert_int_equal(t.zone.control.grant_mw[i], draw_at(t.actors[i], states[i]));
	}
	/*
	 * 800 mW: the 91 mW over the floor take the little cluster, the most
	 * efficient, to 600 MHz (+52 mW); no other OPP fits in them.  Before,
	 * 1075 mW (little 816 MHz, big 600 MHz, GPU granted 0 mW at 359).
	 */
	assert_int_equal(capped_draw(&t, 800, states), 761);
	assert_int_equal(states[0], 4);
	assert_int_equal(states[1], 7);
	assert_int_equal(states[2], 5);
	/* 1500 mW: what the clusters' OPPs leave takes the GPU to 297 MHz (before: 1747 mW). */
	assert_int_equal(capped_draw(&t, 1500, states), 1497);
	assert_int_equal(states[2], 4);
	/* A zone that dithers spends the parts between OPPs itself: all of the cap granted. */
	t.zone.setup.pid.fixes.dither_grants = true;
	for (uint32_t cap_mw = 710; cap_mw <= 3000; cap_mw += 10) {
		capped_draw(&t, cap_mw, states);
		granted = t.zone.control.grant_mw[0] + t.zone.control.grant_mw[1] + t.zone.control.grant_mw[2];
		assert_in_range(granted, cap_mw - 3, cap_mw);
		assert_true(t.zone.control.grant_mw[0] >= 108 && t.zone.control.grant_mw[1] >= 242 &&
			    t.zone.control.grant_mw[2] >= 359);
	}
}

static void test_rockpro64_idle_gpu(void **unused)
{
	struct rockpro64 t;
	unsigned int states[3];
	uint32_t draw;

	(void)unused;
	/* The GPU idle draws nothing at any state: the cap goes to the clusters. */
	rockpro64(&t, 0);
	draw = capped_draw(&t, 500, states);
	assert_int_equal(draw_at(&t.gpu, states[2]), 0);
	assert_in_range(draw, 350, 500);
	assert_filled(&t, 500, states, draw);
}

/* A 0 mW grant is each kind of numbering's deepest state: the lowest power. */
/*
 * A cap whose share the zone's thermal budget stays under binds nothing: the
 * grants are the uncapped division's, with no floors and no OPP filling.
 */
static void test_loose_cap_changes_nothing(void **unused)
{
	struct rockpro64 t;
	uint32_t free_mw[3];

	(void)unused;
	rockpro64(&t, 100);
	t.zone.sensing.temp_mc = t.zone.sensing.prev_temp_mc = 74000;	/* active, under control */
	t.zone.setup.pid.sustainable_power_mw = 1500;
	zone_cycle(&t.zone);
	assert_true(t.zone.control.active);
	memcpy(free_mw, t.zone.control.grant_mw, sizeof(free_mw));
	memset(&t.zone.control.pid_state, 0, sizeof(t.zone.control.pid_state));
	t.e.cap_mw = 5000;
	engine_share_cap(&t.e);
	assert_true(t.zone.period.capped);
	zone_cycle(&t.zone);
	assert_false(t.zone.period.cap_limited);
	assert_int_equal(t.zone.control.grant_mw[0], free_mw[0]);
	assert_int_equal(t.zone.control.grant_mw[1], free_mw[1]);
	assert_int_equal(t.zone.control.grant_mw[2], free_mw[2]);
}

static void test_zero_grant_is_the_lowest_state(void **unused)
{
	struct rockpro64 t;

	(void)unused;
	rockpro64(&t, 100);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(state_of(t.actors[i], 0), t.actors[i]->max_state);
		assert_int_equal(draw_at(t.actors[i], (unsigned int)t.actors[i]->max_state),
				 t.actors[i]->min_mw);
	}
}

/* What the journal says of the states a cap it cannot meet left. */
static void test_lowest_text(void **unused)
{
	struct rockpro64 t;
	unsigned int states[3];
	char buf[300];

	(void)unused;
	rockpro64(&t, 100);
	strcpy(t.little.name, "cpufreq-cpu0");
	strcpy(t.big.name, "cpufreq-cpu4");
	strcpy(t.gpu.name, "devfreq-gpu");
	capped_draw(&t, 500, states);
	for (size_t i = 0; i < 3; i++)
		t.actors[i]->state = states[i];
	assert_string_equal(engine_lowest_text(&t.e, buf, sizeof(buf)),
			    "every actor is held at its lowest state");
	t.little.state = 3;
	assert_string_equal(engine_lowest_text(&t.e, buf, sizeof(buf)),
			    "held at their lowest states: cpufreq-cpu4, devfreq-gpu; above theirs: "
			    "cpufreq-cpu0 (the loads now draw less than at full load)");
	t.big.state = t.gpu.state = 0;
	assert_string_equal(engine_lowest_text(&t.e, buf, sizeof(buf)),
			    "no actor is at its lowest state (cpufreq-cpu0, cpufreq-cpu4, "
			    "devfreq-gpu): the loads now draw less than at full load");
}

/* Two zones sharing the cap: neither is given less than its actors' lowest states draw. */
static void test_zone_shares_over_their_floors(void **unused)
{
	struct two_zones t;

	(void)unused;
	build(&t, false);		/* cpu: floors 100 + 200 mW, gpu: 300 mW */
	t.zones[0].control.request_mw[0] = 1000;
	t.zones[0].control.request_mw[1] = 4000;
	t.zones[1].control.request_mw[0] = 1000;
	t.e.cap_mw = 1000;		/* by request the gpu's share would be 167 mW */
	engine_share_cap(&t.e);
	assert_int_equal(t.zones[1].period.cap_mw, 300);
	assert_int_equal(t.zones[0].period.cap_mw, 700);
	t.e.cap_mw = 400;		/* under the 600 mW floor: each zone at its own */
	engine_share_cap(&t.e);
	assert_int_equal(t.zones[0].period.cap_mw, 300);
	assert_int_equal(t.zones[1].period.cap_mw, 300);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_cap),
		cmocka_unit_test(test_by_request),
		cmocka_unit_test(test_within_the_maxima),
		cmocka_unit_test(test_nothing_asked_yet),
		cmocka_unit_test(test_shared_actor_counted_once),
		cmocka_unit_test(test_rockpro64_cap_under_the_floor),
		cmocka_unit_test(test_rockpro64_cap_over_the_floor),
		cmocka_unit_test(test_rockpro64_idle_gpu),
		cmocka_unit_test(test_loose_cap_changes_nothing),
		cmocka_unit_test(test_zero_grant_is_the_lowest_state),
		cmocka_unit_test(test_zone_shares_over_their_floors),
		cmocka_unit_test(test_lowest_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
