/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Limiting reasons (lib/control/limit.h): the reason shown rises at once and holds
 * for LIMIT_HOLD_MS, a bursty load does not flap it, the time limited is
 * counted per period; a zone's and an actor's reason from their grants,
 * states, sensor and temperature, on zones and actors built by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/engine.h"
#include "engine/engine_limits.h"

#define MS 1000ULL	/* us */

static void test_names(void **unused)
{
	(void)unused;
	assert_string_equal(limit_reason_name(LIMIT_NONE), "none");
	assert_string_equal(limit_reason_name(LIMIT_TEMPERATURE), "temperature");
	assert_string_equal(limit_reason_name(LIMIT_POWER_LIMIT), "power-limit");
	assert_string_equal(limit_reason_name(LIMIT_LOWEST_STATE), "lowest-state");
	assert_string_equal(limit_reason_name(LIMIT_SENSOR_FAULT), "sensor-fault");
	assert_string_equal(limit_reason_name(LIMIT_REASONS), "?");
}

/* Shown at once, held LIMIT_HOLD_MS after the last period that had it; time counted per period. */
static void test_hold_and_count(void **unused)
{
	struct limit_tracker t = { 0 };

	(void)unused;
	limit_track(&t, LIMIT_NONE, 1000 * MS, false);
	assert_int_equal(t.shown, LIMIT_NONE);
	limit_track(&t, LIMIT_TEMPERATURE, 1100 * MS, false);
	assert_int_equal(t.shown, LIMIT_TEMPERATURE);
	assert_int_equal(t.limited_us, 0);	/* the interval before was none */
	limit_track(&t, LIMIT_TEMPERATURE, 1200 * MS, false);
	limit_track(&t, LIMIT_NONE, 1300 * MS, false);
	assert_int_equal(t.limited_us, 200 * MS);
	assert_int_equal(t.now, LIMIT_NONE);
	assert_int_equal(t.shown, LIMIT_TEMPERATURE);
	limit_track(&t, LIMIT_NONE, (1200 + LIMIT_HOLD_MS - 1) * MS, false);
	assert_int_equal(t.shown, LIMIT_TEMPERATURE);
	limit_track(&t, LIMIT_NONE, (1200 + LIMIT_HOLD_MS) * MS, false);
	assert_int_equal(t.shown, LIMIT_NONE);
	assert_int_equal(t.limited_us, 200 * MS);
}

/* A load that dips out of throttling every other period: one change, not one per burst. */
static void test_bursty_load_does_not_flap(void **unused)
{
	struct limit_tracker t = { 0 };
	enum limit_reason shown = LIMIT_NONE;
	unsigned int changes = 0;
	uint64_t now = 5000 * MS;

	(void)unused;
	for (int k = 0; k < 100; k++, now += 300 * MS) {
		limit_track(&t, k % 2 ? LIMIT_NONE : LIMIT_TEMPERATURE, now, false);
		changes += t.shown != shown;
		shown = t.shown;
	}
	assert_int_equal(changes, 1);
	assert_int_equal(t.limited_us, 50 * 300 * MS);	/* the 50 periods that had it */
	for (; now < 5000 * MS + 100 * 300 * MS + LIMIT_HOLD_MS * MS; now += 300 * MS)
		limit_track(&t, LIMIT_NONE, now, false);
	assert_int_equal(t.shown, LIMIT_NONE);
}

/* Going down from one more severe is one change: to what the period has then. */
static void test_down_in_one_step(void **unused)
{
	struct limit_tracker t = { 0 };

	(void)unused;
	limit_track(&t, LIMIT_LOWEST_STATE, 1000 * MS, false);
	limit_track(&t, LIMIT_TEMPERATURE, 1100 * MS, false);
	limit_track(&t, LIMIT_NONE, 1200 * MS, false);
	limit_track(&t, LIMIT_NONE, (1000 + LIMIT_HOLD_MS) * MS, false);
	assert_int_equal(t.shown, LIMIT_NONE);
}

/* The more severe reason shows at once; the less severe one after the hold. */
static void test_more_severe_first(void **unused)
{
	struct limit_tracker t = { 0 };

	(void)unused;
	limit_track(&t, LIMIT_TEMPERATURE, 1000 * MS, false);
	limit_track(&t, LIMIT_SENSOR_FAULT, 1100 * MS, false);
	assert_int_equal(t.shown, LIMIT_SENSOR_FAULT);
	limit_track(&t, LIMIT_TEMPERATURE, 1200 * MS, false);
	assert_int_equal(t.shown, LIMIT_SENSOR_FAULT);
	limit_track(&t, LIMIT_TEMPERATURE, (1100 + LIMIT_HOLD_MS) * MS, false);
	assert_int_equal(t.shown, LIMIT_TEMPERATURE);
	assert_int_equal(t.limited_us, (100 + LIMIT_HOLD_MS) * MS);
}

/* Two actors of 500-2000 mW and 100-1000 mW in one zone, idle, at 60 °C. */
struct rig {
	struct engine e;
	struct zone zones[2];
	struct actor big, little, fan;
	struct actor *actors[3];
};

static struct rig *rig_new(void)
{
	struct rig *r = calloc(1, sizeof(*r));
	struct zone *z = &r->zones[0];

	r->big = (struct actor){ .name = "big", .min_mw = 500, .max_mw = 2000, .max_state = 7 };
	r->little = (struct actor){ .name = "little", .min_mw = 100, .max_mw = 1000,
				    .max_state = 5 };
	r->fan = (struct actor){ .name = "fan", .kind = ACTOR_COOLING_DEVICE, .max_state = 3 };
	r->actors[0] = &r->big;
	r->actors[1] = &r->little;
	r->actors[2] = &r->fan;
	for (size_t k = 0; k < 2; k++) {
		r->zones[k].setup.switch_on_mc = 70000;
		r->zones[k].setup.control_mc = 80000;
		r->zones[k].sensing.temp_mc = 60000;
	}
	snprintf(z->setup.name, sizeof(z->setup.name), "soc");
	z->setup.n_actors = 2;
	z->setup.actors[0] = &r->big;
	z->setup.actors[1] = &r->little;
	z->control.request_mw[0] = 1500;
	z->control.request_mw[1] = 800;
	z->control.grant_mw[0] = 2000;
	z->control.grant_mw[1] = 1000;
	z->control.budget_mw = 3000;
	z->setup.n_fallback = 1;
	z->setup.fallback[0].actor = &r->fan;
	r->e = (struct engine){ .zones = r->zones, .n_zones = 1, .actors = r->actors, .n_actors = 3 };
	return r;
}

/* The zone active at @temp_mc with @budget_mw granted as @big_mw and @little_mw. */
static void throttle(struct zone *z, int32_t temp_mc, uint32_t budget_mw, uint32_t big_mw,
		     uint32_t little_mw)
{
	z->control.active = true;
	z->sensing.temp_mc = temp_mc;
	z->control.budget_mw = budget_mw;
	z->control.grant_mw[0] = big_mw;
	z->control.grant_mw[1] = little_mw;
}

/*
 * A RAPL package (powercap) keeps no cooling state: it is at its lowest when
 * granted its lowest limit, and a zone above control with it there says so.
 */
static void test_powercap_at_lowest(void **unused)
{
	struct rig *r = rig_new();
	struct zone *z = &r->zones[0];

	(void)unused;
	r->big = (struct actor){ .name = "intel-rapl:0", .kind = ACTOR_POWERCAP, .min_mw = 4500,
				 .max_mw = 28000, .max_state = 10 };
	z->setup.n_actors = 1;
	z->control.request_mw[0] = 20000;
	throttle(z, 95000, 4500, 4500, 0);
	r->big.granted_mw = 4500;
	assert_true(actor_at_lowest(&r->big));
	assert_int_equal(zone_limit_reason(z), LIMIT_LOWEST_STATE);
	r->big.granted_mw = 9000;
	z->control.grant_mw[0] = 9000;
	assert_false(actor_at_lowest(&r->big));
	assert_int_equal(zone_limit_reason(z), LIMIT_TEMPERATURE);
	/* A fan at its top state is cooling, not at a lowest state. */
	r->fan.state = 3;
	assert_false(actor_at_lowest(&r->fan));
	free(r);
}

static void test_zone_reasons(void **unused)
{
	struct rig *r = rig_new();
	struct zone *z = &r->zones[0];

	(void)unused;
	assert_int_equal(zone_limit_reason(z), LIMIT_NONE);		/* idle */
	throttle(z, 78000, 2300, 1500, 800);
	assert_int_equal(zone_limit_reason(z), LIMIT_NONE);		/* covers the requests */
	throttle(z, 78000, 1800, 1100, 700);
	assert_int_equal(zone_limit_reason(z), LIMIT_TEMPERATURE);
	r->big.state = 7;
	r->little.state = 5;
	assert_int_equal(zone_limit_reason(z), LIMIT_TEMPERATURE);	/* under control */
	z->sensing.temp_mc = 81000;
	assert_int_equal(zone_limit_reason(z), LIMIT_LOWEST_STATE);
	r->little.state = 4;
	assert_int_equal(zone_limit_reason(z), LIMIT_TEMPERATURE);	/* one can give more */
	z->sensing.sensor_failed = true;
	assert_int_equal(zone_limit_reason(z), LIMIT_SENSOR_FAULT);
	/* step_wise: a state asked above 0; the budget is the actors' maxima. */
	z->sensing.sensor_failed = false;
	z->setup.pid.mode = PID_MODE_STEP_WISE;
	z->control.budget_mw = 3000;
	assert_int_equal(zone_limit_reason(z), LIMIT_NONE);
	z->control.step_state[1] = 2;
	assert_int_equal(zone_limit_reason(z), LIMIT_TEMPERATURE);
	free(r);
}

/*
 * Held by the power cap's share (zone->period.cap_limited): power-limit, whether
 * the zone is active, idle or step_wise, for the zone and the actors under
 * their request; none when the share covers the requests; the more severe
 * reasons still win; a fallback device on stays temperature.
 */
static void test_power_limit(void **unused)
{
	struct rig *r = rig_new();
	struct zone *z = &r->zones[0];

	(void)unused;
	z->period.cap_limited = true;
	z->control.budget_mw = 2500;
	assert_int_equal(zone_limit_reason(z), LIMIT_NONE);		/* covers the requests */
	z->control.budget_mw = 1800;
	z->control.grant_mw[0] = 1100;
	z->control.grant_mw[1] = 700;
	assert_int_equal(zone_limit_reason(z), LIMIT_POWER_LIMIT);	/* idle, capped */
	throttle(z, 78000, 1800, 1100, 700);
	z->setup.fallback[0].state = 1;
	r->fan.state = 1;				/* as the engine applied it */
	engine_track_limits(&r->e, 1000 * MS, NULL);
	assert_int_equal(z->sensing.limit.now, LIMIT_POWER_LIMIT);
	assert_int_equal(r->big.limit.now, LIMIT_POWER_LIMIT);
	assert_int_equal(r->little.limit.now, LIMIT_POWER_LIMIT);
	assert_int_equal(r->fan.limit.now, LIMIT_TEMPERATURE);
	z->period.cap_limited = false;					/* the controller's budget */
	assert_int_equal(zone_limit_reason(z), LIMIT_TEMPERATURE);
	z->period.cap_limited = true;
	r->big.state = 7;
	r->little.state = 5;
	z->sensing.temp_mc = 81000;
	assert_int_equal(zone_limit_reason(z), LIMIT_LOWEST_STATE);
	z->sensing.sensor_failed = true;
	assert_int_equal(zone_limit_reason(z), LIMIT_SENSOR_FAULT);
	/* step_wise at state 0: only the cap holds it. */
	z->sensing.sensor_failed = false;
	z->sensing.temp_mc = 60000;
	z->setup.pid.mode = PID_MODE_STEP_WISE;
	assert_int_equal(zone_limit_reason(z), LIMIT_POWER_LIMIT);
	z->period.cap_limited = false;
	assert_int_equal(zone_limit_reason(z), LIMIT_NONE);
	free(r);
}

static void test_actor_reasons(void **unused)
{
	struct rig *r = rig_new();
	struct zone *z = &r->zones[0];

	(void)unused;
	engine_track_limits(&r->e, 1000 * MS, NULL);
	assert_int_equal(r->big.limit.now, LIMIT_NONE);
	/* Over budget: the big cluster is held under its request, the little one is not. */
	throttle(z, 78000, 2000, 1100, 900);
	engine_track_limits(&r->e, 1100 * MS, NULL);
	assert_int_equal(z->sensing.limit.now, LIMIT_TEMPERATURE);
	assert_int_equal(r->big.limit.now, LIMIT_TEMPERATURE);
	assert_int_equal(r->little.limit.now, LIMIT_NONE);
	/* At its lowest state with the zone over control. */
	r->big.state = 7;
	z->sensing.temp_mc = 82000;
	engine_track_limits(&r->e, 1200 * MS, NULL);
	assert_int_equal(r->big.limit.now, LIMIT_LOWEST_STATE);
	assert_int_equal(z->sensing.limit.now, LIMIT_TEMPERATURE);
	/* The fan the zone turned on. */
	z->setup.fallback[0].state = 1;
	r->fan.state = 1;				/* as the engine applied it */
	engine_track_limits(&r->e, 1300 * MS, NULL);
	assert_int_equal(r->fan.limit.now, LIMIT_TEMPERATURE);
	/* At its top state, over control: cooling as hard as it can, for the
	 * temperature; not lowest-state, which is a power actor's under a budget
	 * (issue 31, 9). */
	z->setup.fallback[0].state = 3;
	r->fan.state = 3;
	engine_track_limits(&r->e, 1400 * MS, NULL);
	assert_int_equal(r->fan.limit.now, LIMIT_TEMPERATURE);
	assert_int_equal(r->big.limit.now, LIMIT_LOWEST_STATE);
	free(r);
}

/* As the engine applied a zone's grant to @a at @state. */
static void applied(struct actor *a, uint32_t granted_mw, unsigned long state)
{
	a->granted_mw = granted_mw;
	a->state = state;
}

/*
 * Nothing held back any more shows none at once, not after the hold (issue
 * 32, 5): an actor at state 0 granted its maximum, a zone gone idle (every
 * actor granted its maximum), a fan turned off.  A load that dips under a
 * grant still below the maximum keeps its reason for the hold.
 */
static void test_released_at_once(void **unused)
{
	struct rig *r = rig_new();
	struct zone *z = &r->zones[0];

	(void)unused;
	throttle(z, 78000, 1800, 1100, 700);
	applied(&r->big, 1100, 3);
	applied(&r->little, 700, 1);
	z->setup.fallback[0].state = 1;
	applied(&r->fan, 0, 1);
	engine_track_limits(&r->e, 1000 * MS, NULL);
	assert_int_equal(z->sensing.limit.shown, LIMIT_TEMPERATURE);
	assert_int_equal(r->big.limit.shown, LIMIT_TEMPERATURE);
	assert_int_equal(r->little.limit.shown, LIMIT_TEMPERATURE);
	assert_int_equal(r->fan.limit.shown, LIMIT_TEMPERATURE);
	/* The big cluster's load dips under its grant, still under its maximum: held. */
	z->control.request_mw[0] = 900;
	engine_track_limits(&r->e, 1100 * MS, NULL);
	assert_int_equal(r->big.limit.now, LIMIT_NONE);
	assert_int_equal(r->big.limit.shown, LIMIT_TEMPERATURE);
	/* The little cluster granted its maximum, at state 0: none at once; the
	 * zone still holds the big one under its maximum: its reason is held. */
	z->control.grant_mw[1] = 1000;
	applied(&r->little, 1000, 0);
	engine_track_limits(&r->e, 1200 * MS, NULL);
	assert_int_equal(r->little.limit.shown, LIMIT_NONE);
	assert_int_equal(r->big.limit.shown, LIMIT_TEMPERATURE);
	assert_int_equal(z->sensing.limit.shown, LIMIT_TEMPERATURE);
	/* Under switch-on: idle, every actor granted its maximum, the fan off. */
	z->control.active = false;
	z->sensing.temp_mc = 60000;
	z->control.budget_mw = 3000;
	z->control.grant_mw[0] = 2000;
	applied(&r->big, 2000, 0);
	z->setup.fallback[0].state = 0;
	applied(&r->fan, 0, 0);
	engine_track_limits(&r->e, 1300 * MS, NULL);
	assert_int_equal(z->sensing.limit.shown, LIMIT_NONE);
	assert_int_equal(r->big.limit.shown, LIMIT_NONE);
	assert_int_equal(r->fan.limit.shown, LIMIT_NONE);
	/* Counted while it held them: from 1000 to 1100 ms, when the dip covered the requests. */
	assert_int_equal(z->sensing.limit.limited_us, 100 * MS);
	free(r);
}

/*
 * A request over the actor's maximum (saturated_request asks one OPP more
 * than the top) granted that maximum is not held by the temperature: the
 * grant cannot go higher (issue 32, 5).
 */
static void test_request_over_maximum(void **unused)
{
	struct rig *r = rig_new();
	struct zone *z = &r->zones[0];

	(void)unused;
	throttle(z, 78000, 3000, 2000, 1000);
	z->control.request_mw[0] = 2400;
	applied(&r->big, 2000, 1);	/* dithering between its top OPPs */
	applied(&r->little, 1000, 0);
	assert_int_equal(zone_limit_reason(z), LIMIT_NONE);
	engine_track_limits(&r->e, 1000 * MS, NULL);
	assert_int_equal(r->big.limit.now, LIMIT_NONE);
	/* Granted less than its maximum: held. */
	z->control.budget_mw = 2600;
	z->control.grant_mw[0] = 1800;
	applied(&r->big, 1800, 1);
	assert_int_equal(zone_limit_reason(z), LIMIT_TEMPERATURE);
	engine_track_limits(&r->e, 1100 * MS, NULL);
	assert_int_equal(r->big.limit.now, LIMIT_TEMPERATURE);
	free(r);
}

/*
 * Under a power cap, a busy cluster granted what it draws at the OPP the cap
 * holds it at asks for no more than that: it is held all the same, since
 * it is saturated and under its maximum.
 */
static void test_saturated_under_cap(void **unused)
{
	struct rig *r = rig_new();
	struct zone *z = &r->zones[0];

	(void)unused;
	z->control.active = false;
	z->period.cap_limited = true;
	z->control.budget_mw = 1800;
	z->control.request_mw[0] = z->control.grant_mw[0] = 1100;
	z->control.request_mw[1] = z->control.grant_mw[1] = 700;
	applied(&r->big, 1100, 3);
	applied(&r->little, 700, 1);
	assert_int_equal(zone_limit_reason(z), LIMIT_NONE);	/* idle loads: nothing held */
	r->big.saturated = 2;
	assert_int_equal(zone_limit_reason(z), LIMIT_POWER_LIMIT);
	engine_track_limits(&r->e, 1000 * MS, NULL);
	assert_int_equal(r->big.limit.now, LIMIT_POWER_LIMIT);
	assert_int_equal(r->little.limit.now, LIMIT_NONE);
	free(r);
}

/* An actor two zones share: the most severe reason of those that hold it back. */
static void test_shared_actor_and_due(void **unused)
{
	struct rig *r = rig_new();
	struct zone *a = &r->zones[0], *b = &r->zones[1];
	bool due[2] = { false, true };

	(void)unused;
	r->e.n_zones = 2;
	snprintf(b->setup.name, sizeof(b->setup.name), "gpu");
	b->setup.n_actors = 1;
	b->setup.actors[0] = &r->big;
	b->control.request_mw[0] = 1500;
	throttle(a, 78000, 1800, 1100, 700);
	throttle(b, 78000, 1200, 1200, 0);
	b->sensing.sensor_failed = true;
	engine_track_limits(&r->e, 1000 * MS, NULL);
	assert_int_equal(a->sensing.limit.now, LIMIT_TEMPERATURE);
	assert_int_equal(b->sensing.limit.now, LIMIT_SENSOR_FAULT);
	assert_int_equal(r->big.limit.now, LIMIT_SENSOR_FAULT);
	assert_int_equal(r->little.limit.now, LIMIT_TEMPERATURE);
	/* Zone a does not run this cycle: it keeps its reason, its count and its grants. */
	b->sensing.sensor_failed = false;
	b->control.budget_mw = 2000;
	b->control.grant_mw[0] = 2000;
	engine_track_limits(&r->e, 1500 * MS, due);
	assert_int_equal(a->sensing.limit.now, LIMIT_TEMPERATURE);
	assert_int_equal(a->sensing.limit.updated_us, 1000 * MS);
	assert_int_equal(b->sensing.limit.now, LIMIT_NONE);
	assert_int_equal(b->sensing.limit.limited_us, 500 * MS);
	/* Zone a's last grants still hold the big cluster. */
	assert_int_equal(r->big.limit.now, LIMIT_TEMPERATURE);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_hold_and_count),
		cmocka_unit_test(test_bursty_load_does_not_flap),
		cmocka_unit_test(test_more_severe_first),
		cmocka_unit_test(test_down_in_one_step),
		cmocka_unit_test(test_zone_reasons),
		cmocka_unit_test(test_power_limit),
		cmocka_unit_test(test_actor_reasons),
		cmocka_unit_test(test_shared_actor_and_due),
		cmocka_unit_test(test_released_at_once),
		cmocka_unit_test(test_request_over_maximum),
		cmocka_unit_test(test_powercap_at_lowest),
		cmocka_unit_test(test_saturated_under_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
