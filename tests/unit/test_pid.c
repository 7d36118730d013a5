/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The PID controller.  Kernel-mode sequences are computed by hand from
 * drivers/thermal/gov_power_allocator.c; every budget must match to the mW.
 * Default-mode tests each show what one fix changes against the kernel.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "control/pid.h"

/* SP = 1500 mW, switch-on 70 °C, control 85 °C: dT = 15000 m°C. */
#define SP 1500
#define SWITCH_ON 70000
#define CONTROL 85000

struct expect {
	int32_t temp_mc;
	uint32_t budget_mw;
	int64_t p_mw, i_mw, err_integral_mc;
};

static void setup_params(struct pid_params *pp, enum pid_mode mode, uint32_t sp)
{
	pp->mode = mode;
	pp->sustainable_power_mw = sp;
	pp->period_ms = 100;
	assert_int_equal(pid_default_gains(sp, SWITCH_ON, CONTROL, &pp->gains), 0);
	pid_default_fixes(&pp->fixes);
	/* Each fix is tested on its own; the margin has test_default_control_margin(). */
	pp->fixes.control_margin_mc = 0;
}

static void run_sequence(const struct pid_params *pp, uint32_t max_mw,
			 const struct expect *e, size_t n)
{
	struct pid_state st;

	pid_reset(&st);
	for (size_t k = 0; k < n; k++) {
		struct pid_output out;
		uint32_t b = pid_step(pp, &st, CONTROL, e[k].temp_mc, 0, max_mw, &out);

		print_message("step %zu T=%d budget=%u p=%lld i=%lld ei=%lld\n", k, e[k].temp_mc, b,
			      (long long)out.p_mw, (long long)out.i_mw, (long long)out.err_integral_mc);
		assert_int_equal(b, e[k].budget_mw);
		assert_int_equal(out.budget_mw, b);
		assert_int_equal(out.p_mw, e[k].p_mw);
		assert_int_equal(out.i_mw, e[k].i_mw);
		assert_int_equal(out.err_integral_mc, e[k].err_integral_mc);
	}
}

static void test_default_gains(void **unused)
{
	struct pid_gains g;

	(void)unused;
	/* k_po = (1500 << 10) / 15000 = 1536000 / 15000 = 102 (102.4 truncated);
	 * k_pu = (3000 << 10) / 15000 = 204; k_i = 204 / 10 = 20. */
	assert_int_equal(pid_default_gains(1500, 70000, 85000, &g), 0);
	assert_int_equal(g.k_po, 102);
	assert_int_equal(g.k_pu, 204);
	assert_int_equal(g.k_i, 20);
	assert_int_equal(g.k_d, 0);
	assert_int_equal(g.integral_cutoff_mc, 0);
	/* A tiny SP: k_pu = (2 << 10) / 15000 = 0, so k_i is forced to 1. */
	assert_int_equal(pid_default_gains(1, 70000, 85000, &g), 0);
	assert_int_equal(g.k_pu, 0);
	assert_int_equal(g.k_i, 1);
	assert_int_equal(pid_default_gains(1500, 85000, 85000, &g), -EINVAL);
	assert_int_equal(pid_default_gains(1500, 90000, 85000, &g), -EINVAL);
}

/*
 * Rising through control.  err is Q10: (85000 - T) * 1024.
 *  80000: err 5120000; p = 204 * 5120000 >> 10 = 1020000 (996 mW); no
 *         integration (err >= cutoff 0); budget = 1500 + (1020000 >> 10) = 2496.
 *  83000: p = 204 * 2048000 >> 10 = 408000 (398); budget 1898.
 *  85000: err 0, p 0; 0 < 0 is false, no integration; budget 1500.
 *  86000: err -1024000; p = 102 * -1024000 >> 10 = -102000 (-100 floored);
 *         i_next = 20 * -1024000 >> 10 = -20000, |i_next| < 4000 << 10, so
 *         ei = -1024000 (-1000 m°C); budget = 1500 + (-122000 >> 10) = 1500 - 120.
 *  87000: p = -204000 (-200); i = -20000 + (20 * -2048000 >> 10) = -60000 (-59);
 *         budget = 1500 + (-264000 >> 10) = 1500 - 258 = 1242.
 */
static void test_kernel_rising_through_control(void **unused)
{
	static const struct expect e[] = {
		{ 80000, 2496, 996, 0, 0 },
		{ 83000, 1898, 398, 0, 0 },
		{ 85000, 1500, 0, 0, 0 },
		{ 86000, 1380, -100, -20, -1000 },
		{ 87000, 1242, -200, -59, -3000 },
	};
	struct pid_params pp;

	(void)unused;
	setup_params(&pp, PID_MODE_KERNEL, SP);
	run_sequence(&pp, 4000, e, sizeof(e) / sizeof(e[0]));
}

/*
 * Overshoot to 90 °C and return to 80 °C.  The integral only accumulates
 * while err < 0 and never unwinds, so after the return it is stuck at
 * -13000 m°C (i = 20 * -13312000 >> 10 = -260000, -254 mW) and the budget
 * stays 254 mW below SP + p: the kernel fault the default mode fixes.
 *  84000: p = 204 * 1024000 >> 10 = 204000 (199); budget 1699.
 *  88000: ei = -1000 - 3000 = -4000; i = 20 * -4096000 >> 10 = -80000 (-79);
 *         p = 102 * -3072000 >> 10 = -306000 (-299); 1500 + (-386000 >> 10) = 1123.
 *  90000: ei = -9000; i = -180000 (-176); p = -510000 (-499); 1500 - 674 = 826.
 *  84000: i = -260000, p = 204000: 1500 + (-56000 >> 10) = 1500 - 55 = 1445.
 */
static void test_kernel_overshoot_and_return(void **unused)
{
	static const struct expect e[] = {
		{ 84000, 1699, 199, 0, 0 },
		{ 86000, 1380, -100, -20, -1000 },
		{ 88000, 1123, -299, -79, -4000 },
		{ 90000, 826, -499, -176, -9000 },
		{ 88000, 966, -299, -235, -12000 },
		{ 86000, 1146, -100, -254, -13000 },
		{ 84000, 1445, 199, -254, -13000 },
		{ 82000, 1843, 597, -254, -13000 },
		{ 80000, 2242, 996, -254, -13000 },
	};
	struct pid_params pp;

	(void)unused;
	setup_params(&pp, PID_MODE_KERNEL, SP);
	run_sequence(&pp, 4000, e, sizeof(e) / sizeof(e[0]));
}

/*
 * SP = 5000 mW with only 3000 mW allocatable.  Gains: k_po = 5120000 / 15000
 * = 341, k_pu = 682, k_i = 68.  Every budget clamps to max_power: above
 * control the integral may reach at most -3000 mW, so SP + p + i stays above
 * 3000 until it is far above control.
 *  80000: p = 682 * 5120000 >> 10 = 3410000 (3330); 5000 + 3330 -> 3000.
 *  86000: p = 341 * -1024000 >> 10 = -341000 (-334); i = 68 * -1024000 >> 10
 *         = -68000 (-67); 5000 - 401 = 4599 -> 3000.
 */
static void test_kernel_sp_above_max(void **unused)
{
	static const struct expect e[] = {
		{ 80000, 3000, 3330, 0, 0 },
		{ 85000, 3000, 0, 0, 0 },
		{ 86000, 3000, -334, -67, -1000 },
		{ 86000, 3000, -334, -133, -2000 },
		{ 86000, 3000, -334, -200, -3000 },
		{ 84000, 3000, 666, -200, -3000 },
	};
	struct pid_params pp;

	(void)unused;
	setup_params(&pp, PID_MODE_KERNEL, 5000);
	assert_int_equal(pp.gains.k_po, 341);
	assert_int_equal(pp.gains.k_pu, 682);
	assert_int_equal(pp.gains.k_i, 68);
	run_sequence(&pp, 3000, e, sizeof(e) / sizeof(e[0]));
}

/*
 * 95 °C held with max_power 2000 mW: each period adds err = -10240000
 * (i step 20 * -10240000 >> 10 = -200000, -195.3 mW).  After ten periods
 * i = -2000000 (-1954 mW); the eleventh would make |i| = 2200000 >= 2000 << 10
 * = 2048000, so the kernel freezes the integral there.
 */
static void test_kernel_integral_at_clamp(void **unused)
{
	/* p = 102 * -10240000 >> 10 = -1020000 (-997 mW) every period. */
	static const struct expect e[] = {
		{ 95000, 308, -997, -196, -10000 },	/* 1500 + (-1220000 >> 10) */
		{ 95000, 113, -997, -391, -20000 },	/* 1500 + (-1420000 >> 10) */
		{ 95000, 0, -997, -586, -30000 },
		{ 95000, 0, -997, -782, -40000 },
		{ 95000, 0, -997, -977, -50000 },
		{ 95000, 0, -997, -1172, -60000 },
		{ 95000, 0, -997, -1368, -70000 },
		{ 95000, 0, -997, -1563, -80000 },
		{ 95000, 0, -997, -1758, -90000 },
		{ 95000, 0, -997, -1954, -100000 },
		{ 95000, 0, -997, -1954, -100000 },	/* frozen */
		{ 95000, 0, -997, -1954, -100000 },
	};
	struct pid_params pp;

	(void)unused;
	setup_params(&pp, PID_MODE_KERNEL, SP);
	run_sequence(&pp, 2000, e, sizeof(e) / sizeof(e[0]));
}

/* Below the integral cutoff the kernel integrates positive errors too. */
static void test_kernel_integral_cutoff(void **unused)
{
	struct pid_params pp;
	struct pid_state st;
	struct pid_output out;

	(void)unused;
	setup_params(&pp, PID_MODE_KERNEL, SP);
	pp.gains.integral_cutoff_mc = 3000;
	pid_reset(&st);
	/* err = 2000 < 3000: integrated; i = 20 * 2048000 >> 10 = 40000 (39). */
	pid_step(&pp, &st, CONTROL, 83000, 0, 4000, &out);
	assert_int_equal(out.err_integral_mc, 2000);
	assert_int_equal(out.i_mw, 39);
	/* 1500 + ((408000 + 40000) >> 10) = 1500 + 437 */
	assert_int_equal(out.budget_mw, 1937);
	/* err = 5000 >= 3000: not integrated, the old term is kept. */
	pid_step(&pp, &st, CONTROL, 80000, 0, 4000, &out);
	assert_int_equal(out.err_integral_mc, 2000);
	assert_int_equal(out.i_mw, 39);
}

/*
 * The kernel's derivative: d = ((k_d * derr >> 10) << 10) / period, 1024 times
 * its formula, and prev_err starts at 0 after a reset (a kick at switch-on).
 */
static void test_kernel_derivative(void **unused)
{
	struct pid_params pp;
	struct pid_state st;
	struct pid_output out;

	(void)unused;
	setup_params(&pp, PID_MODE_KERNEL, SP);
	pp.gains.k_d = 1024;
	pid_reset(&st);
	/* derr = 5120000 - 0: d = (5120000 << 10) / 100 = 52428800 (51200 mW). */
	pid_step(&pp, &st, CONTROL, 80000, 0, 100000, &out);
	assert_int_equal(out.d_mw, 51200);
	/* derr = -1024000: d = -1048576000 / 100 = -10485760 (-10240 mW). */
	pid_step(&pp, &st, CONTROL, 81000, 0, 100000, &out);
	assert_int_equal(out.d_mw, -10240);
}

/* Reset forgets the integral and the previous error. */
static void test_reset(void **unused)
{
	struct pid_params pp;
	struct pid_state st;
	struct pid_output out;

	(void)unused;
	setup_params(&pp, PID_MODE_KERNEL, SP);
	pid_reset(&st);
	pid_step(&pp, &st, CONTROL, 90000, 0, 4000, &out);
	assert_true(st.err_integral != 0);
	pid_reset(&st);
	assert_int_equal(st.err_integral, 0);
	assert_int_equal(st.prev_err, 0);
	assert_int_equal(pid_step(&pp, &st, CONTROL, 80000, 0, 4000, NULL), 2496);
}

static uint32_t hold(const struct pid_params *pp, struct pid_state *st, int32_t temp,
		     int periods, uint32_t min_mw, uint32_t max_mw);

/*
 * After a sleep, the derivative sees no change across the gap, in both
 * modes, and the integral is kept: 90 °C before, 60 °C after (the error
 * changes by 30000 m°C) with k_d = 1024 would otherwise give d = 30000 x
 * 1024 / 100 = 307200 mW (kernel, 1024 times its formula) or 300 mW
 * filtered to 100 (default).
 */
static void test_forget_trend(void **unused)
{
	enum pid_mode modes[] = { PID_MODE_KERNEL, PID_MODE_DEFAULT };

	(void)unused;
	for (size_t m = 0; m < 2; m++) {
		struct pid_params pp;
		struct pid_state st;
		struct pid_output out;
		int64_t integral;

		setup_params(&pp, modes[m], SP);
		pp.gains.k_d = 1024;
		pid_reset(&st);
		hold(&pp, &st, 90000, 5, 0, 100000);
		integral = st.err_integral;
		assert_true(integral != 0);
		pid_forget_trend(&st);
		assert_int_equal(st.err_integral, integral);
		pid_step(&pp, &st, CONTROL, 60000, 0, 100000, &out);
		assert_int_equal(out.d_mw, 0);
		/* The next period's derivative is from this one's error again. */
		pid_step(&pp, &st, CONTROL, 61000, 0, 100000, &out);
		assert_true(out.d_mw < 0);
		/* Without forgetting, the jump is a derivative kick. */
		pid_reset(&st);
		hold(&pp, &st, 90000, 5, 0, 100000);
		pid_step(&pp, &st, CONTROL, 60000, 0, 100000, &out);
		assert_true(out.d_mw > 50);
	}
}

static uint32_t hold(const struct pid_params *pp, struct pid_state *st, int32_t temp,
		     int periods, uint32_t min_mw, uint32_t max_mw)
{
	uint32_t b = 0;

	for (int k = 0; k < periods; k++)
		b = pid_step(pp, st, CONTROL, temp, min_mw, max_mw, NULL);
	return b;
}

/*
 * SP above max_power (SP clamp off to isolate the bound): 1 °C above control
 * for 300 periods.  The kernel's |i| < max_power leaves the budget at
 * 5000 - 334 - 2999 = 1667 mW or more for ever; the default mode's wide
 * bound lets the integral cancel the feed-forward and the budget reaches 0.
 */
static void test_default_wide_integral_bound(void **unused)
{
	struct pid_params kernel, fixed;
	struct pid_state s1, s2;
	struct pid_output out;

	(void)unused;
	setup_params(&kernel, PID_MODE_KERNEL, 5000);
	setup_params(&fixed, PID_MODE_DEFAULT, 5000);
	fixed.fixes.clamp_sustainable_power = false;
	pid_reset(&s1);
	pid_reset(&s2);
	assert_true(hold(&kernel, &s1, 86000, 300, 0, 3000) >= 1667);
	assert_int_equal(hold(&fixed, &s2, 86000, 300, 0, 3000), 0);
	/* The integral is clamped at -(max + SP) = -8000 mW, not beyond. */
	pid_step(&fixed, &s2, CONTROL, 86000, 0, 3000, &out);
	assert_true(out.i_mw >= -8001 && out.i_mw <= -7990);
}

/*
 * The kernel's law, the default mode and the default mode again for the
 * caller to turn one fix off in, at SP, each with a fresh state.
 */
static void setup_three(struct pid_params *kernel, struct pid_params *fixed,
			struct pid_params *off, struct pid_state *s1, struct pid_state *s2,
			struct pid_state *s3)
{
	setup_params(kernel, PID_MODE_KERNEL, SP);
	setup_params(fixed, PID_MODE_DEFAULT, SP);
	*off = *fixed;
	pid_reset(s1);
	pid_reset(s2);
	pid_reset(s3);
}

/*
 * After an overshoot, the kernel keeps the negative integral once below
 * control (budget 1445 at 84 °C instead of SP + p = 1699).  The bleed unwinds
 * it by a quarter of each positive error: 1024000 / 4 = 256000 per period at
 * 84 °C, so the -13312000 left by the overshoot is gone after 52 periods.
 */
static void test_default_integral_bleed(void **unused)
{
	static const int32_t up[] = { 84000, 86000, 88000, 90000, 88000, 86000 };
	struct pid_params kernel, fixed, off;
	struct pid_state s1, s2, s3;

	(void)unused;
	setup_three(&kernel, &fixed, &off, &s1, &s2, &s3);
	off.fixes.integral_bleed_q10 = 0;
	for (size_t k = 0; k < sizeof(up) / sizeof(up[0]); k++) {
		uint32_t a = pid_step(&kernel, &s1, CONTROL, up[k], 0, 4000, NULL);

		/* Before the error changes sign both laws agree to the mW. */
		assert_int_equal(pid_step(&fixed, &s2, CONTROL, up[k], 0, 4000, NULL), a);
		assert_int_equal(pid_step(&off, &s3, CONTROL, up[k], 0, 4000, NULL), a);
	}
	assert_int_equal(hold(&kernel, &s1, 84000, 50, 0, 4000), 1445);
	assert_int_equal(hold(&off, &s3, 84000, 50, 0, 4000), 1445);
	assert_int_equal(hold(&fixed, &s2, 84000, 100, 0, 4000), 1699);
	assert_int_equal(s2.err_integral, 0);
	/* First bleed period: ei = -13312000 + 256000; i = 20 * -13056000 >> 10
	 * = -255000; 1500 + ((204000 - 255000) >> 10) = 1500 - 50 = 1450. */
	pid_reset(&s2);
	for (size_t k = 0; k < sizeof(up) / sizeof(up[0]); k++)
		pid_step(&fixed, &s2, CONTROL, up[k], 0, 4000, NULL);
	assert_int_equal(pid_step(&fixed, &s2, CONTROL, 84000, 0, 4000, NULL), 1450);
	assert_int_equal(s2.err_integral, -13056000);
	/* 51 more periods leave 0, never a positive integral. */
	hold(&fixed, &s2, 84000, 51, 0, 4000);
	assert_int_equal(s2.err_integral, 0);
}

/*
 * Held 1 °C under control (err = 1024000 Q10) with a saturated actor held
 * back, the integral learns an eighth of the error per period: ui 128000,
 * i = 20 * 128000 >> 10 = 2500 (Q10), budget 1500 + ((204000 + 2500) >> 10)
 * = 1701 where p alone gives 1699.  The learnt term stops at 4 p:
 * 4 * (204 * 1024000 >> 10) = 816000, ui = (816000 << 10) / 20 = 41779200
 * (after 327 periods), budget 1500 + (1020000 >> 10) = 2496.  At 84.5 °C the
 * cap is 4 * 102000 = 408000, held back or not: ui 20889600, budget
 * 1500 + (510000 >> 10) = 1998.  At the aim nothing learnt is left.
 */
static void test_default_integral_under(void **unused)
{
	struct pid_params kernel, fixed, off;
	struct pid_state s1, s2, s3;

	(void)unused;
	setup_three(&kernel, &fixed, &off, &s1, &s2, &s3);
	assert_int_equal(fixed.fixes.integral_under_q10, 128);	/* the default */
	off.fixes.integral_under_q10 = 0;
	/* Nothing held back: nothing learnt. */
	assert_int_equal(hold(&fixed, &s2, 84000, 50, 0, 4000), 1699);
	assert_int_equal(s2.under_integral + s2.err_integral, 0);
	s1.held_back = s2.held_back = s3.held_back = true;
	assert_int_equal(pid_step(&fixed, &s2, CONTROL, 84000, 0, 4000, NULL), 1701);
	assert_int_equal(s2.under_integral, 128000);
	assert_int_equal(hold(&fixed, &s2, 84000, 400, 0, 4000), 2496);
	assert_int_equal(s2.under_integral, 41779200);
	assert_int_equal(s2.err_integral, 0);	/* the kernel's integral untouched */
	s2.held_back = false;
	assert_int_equal(pid_step(&fixed, &s2, CONTROL, 84500, 0, 4000, NULL), 1998);
	assert_int_equal(s2.under_integral, 20889600);
	assert_int_equal(pid_step(&fixed, &s2, CONTROL, 85000, 0, 4000, NULL), 1500);
	assert_int_equal(s2.under_integral, 0);
	/* Off, and the kernel's law: p alone. */
	assert_int_equal(hold(&off, &s3, 84000, 400, 0, 4000), 1699);
	assert_int_equal(hold(&kernel, &s1, 84000, 400, 0, 4000), 1699);
	assert_int_equal(s1.err_integral + s3.err_integral + s3.under_integral, 0);
	/* A reset forgets what was learnt and that an actor was held back. */
	s2.under_integral = 1;
	s2.held_back = true;
	pid_reset(&s2);
	assert_false(s2.held_back);
	assert_int_equal(s2.under_integral, 0);
}

/*
 * With the default 50 m°C margin the aim is 84950 and learning starts two
 * margins under it.  At 84000 (err 950 m°C) p = 204 * 972800 >> 10 = 193800
 * and 850 m°C is beyond the band: ui += 870400 / 8 = 108800, i = 2125,
 * budget 1500 + (195925 >> 10) = 1691 (1689 from p alone).  At 84850 (the
 * band's edge) what was learnt is dropped: p = 204 * 102400 >> 10 = 20400,
 * budget 1519.  Inside the band, held back or not, nothing is learnt.
 */
static void test_default_integral_under_band(void **unused)
{
	struct pid_params pp;
	struct pid_state st;

	(void)unused;
	setup_params(&pp, PID_MODE_DEFAULT, SP);
	pp.fixes.control_margin_mc = 50;
	pid_reset(&st);
	st.held_back = true;
	assert_int_equal(pid_step(&pp, &st, CONTROL, 84000, 0, 4000, NULL), 1691);
	assert_int_equal(st.under_integral, 108800);
	assert_int_equal(pid_step(&pp, &st, CONTROL, 84850, 0, 4000, NULL), 1519);
	assert_int_equal(st.under_integral, 0);
	assert_int_equal(hold(&pp, &st, 84870, 100, 0, 4000), 1515);
	assert_int_equal(st.under_integral, 0);
}

/*
 * k_d = 1024 (1 mW per m°C/ms).  The kernel kicks by 51200 mW at switch-on and
 * gives -10240 mW for a 1 °C drop in 100 ms; the default law starts at 0 and
 * gives -10 mW (-10240 in Q10) filtered over PID_DERIVATIVE_FILTER_PERIODS
 * (2): -10240 / 3 = -3413 (-4 mW floored), then -10240 + 2/3 of the way.
 */
static void test_default_derivative_filter(void **unused)
{
	struct pid_params pp;
	struct pid_state st;
	struct pid_output out;

	(void)unused;
	setup_params(&pp, PID_MODE_DEFAULT, SP);
	pp.gains.k_d = 1024;
	pid_reset(&st);
	pid_step(&pp, &st, CONTROL, 80000, 0, 100000, &out);
	assert_int_equal(out.d_mw, 0);
	pid_step(&pp, &st, CONTROL, 81000, 0, 100000, &out);
	assert_int_equal(out.d_mw, -4);
	/* The same fall again: -3413 + (-10240 + 3413) / 3 = -5688 (-6 mW floored). */
	pid_step(&pp, &st, CONTROL, 82000, 0, 100000, &out);
	assert_int_equal(out.d_mw, -6);
}

/* SP outside [min, max] of the actors is clamped into it in default mode. */
static void test_default_clamp_sustainable_power(void **unused)
{
	struct pid_params kernel, fixed, off;
	struct pid_state st;
	struct pid_output out;

	(void)unused;
	setup_params(&kernel, PID_MODE_KERNEL, 100);
	setup_params(&fixed, PID_MODE_DEFAULT, 100);
	off = fixed;
	off.fixes.clamp_sustainable_power = false;
	pid_reset(&st);
	assert_int_equal(pid_step(&kernel, &st, CONTROL, CONTROL, 500, 4000, NULL), 100);
	pid_reset(&st);
	assert_int_equal(pid_step(&fixed, &st, CONTROL, CONTROL, 500, 4000, &out), 500);
	assert_int_equal(out.sustainable_power_mw, 500);
	pid_reset(&st);
	assert_int_equal(pid_step(&off, &st, CONTROL, CONTROL, 500, 4000, NULL), 100);
	fixed.sustainable_power_mw = 9000;
	pid_reset(&st);
	pid_step(&fixed, &st, CONTROL, CONTROL, 500, 4000, &out);
	assert_int_equal(out.sustainable_power_mw, 4000);
}

/*
 * The default mode aims control_margin (50 m°C by default) under control:
 * at control - 50 its error is 0 and the budget is SP; at control it is
 * 50 m°C over, k_po = 3 x ((2000 << 10) / 15000) = 408, p = 408 x -51200 >> 10
 * = -20400 (Q10), -20 mW, so 2000 - 20 = 1980 (k_i = 0 here, so the budget
 * is SP + p).  The kernel's law ignores the margin.
 */
static void test_default_control_margin(void **unused)
{
	struct pid_params kernel, fixed;
	struct pid_state st;
	struct pid_output out;

	(void)unused;
	setup_params(&kernel, PID_MODE_KERNEL, 2000);
	setup_params(&fixed, PID_MODE_DEFAULT, 2000);
	pid_default_fixes(&fixed.fixes);
	assert_int_equal(fixed.fixes.control_margin_mc, 50);
	fixed.gains.k_po *= 3;
	fixed.gains.k_i = 0;
	pid_reset(&st);
	assert_int_equal(pid_step(&fixed, &st, CONTROL, CONTROL - 50, 0, 4000, &out), 2000);
	assert_int_equal(out.err_mc, 0);
	pid_reset(&st);
	assert_int_equal(pid_step(&fixed, &st, CONTROL, CONTROL, 0, 4000, &out), 1980);
	assert_int_equal(out.err_mc, -50);
	assert_int_equal(out.p_mw, -20);
	pid_reset(&st);
	assert_int_equal(pid_step(&kernel, &st, CONTROL, CONTROL, 0, 4000, &out), 2000);
	assert_int_equal(out.err_mc, 0);
	/* What the trace's aim_mc shows: 85000 - 50 m°C; the kernel's law aims at control. */
	assert_int_equal(pid_aim_mc(&fixed, CONTROL), 84950);
	assert_int_equal(pid_aim_mc(&kernel, CONTROL), 85000);
	fixed.fixes.control_margin_mc = 100;
	assert_int_equal(pid_aim_mc(&fixed, INT32_MIN + 10), INT32_MIN);
}

/* Absurd temperatures never overflow: the budget stays in [0, max]. */
static void test_extreme_inputs(void **unused)
{
	static const int32_t temps[] = { INT32_MIN, -273150, 0, 500000, INT32_MAX };
	struct pid_params pp;
	struct pid_state st;

	(void)unused;
	for (int mode = 0; mode < 4; mode++) {
		/* Modes 2 and 3: the largest gains the defaults can produce, every term on. */
		setup_params(&pp, (enum pid_mode)(mode % 2), SP);
		if (mode >= 2) {
			assert_int_equal(pid_default_gains(UINT32_MAX, CONTROL - 1, CONTROL, &pp.gains), 0);
			pp.gains.k_d = INT32_MAX;
			pp.gains.integral_cutoff_mc = INT32_MAX;
			pp.sustainable_power_mw = UINT32_MAX;
			pp.period_ms = 0;
		}
		pid_reset(&st);
		for (int rep = 0; rep < 1000; rep++)
			for (size_t k = 0; k < sizeof(temps) / sizeof(temps[0]); k++)
				assert_true(pid_step(&pp, &st, CONTROL, temps[k], 0, 4000, NULL) <= 4000);
	}
}

/* The default mode's gains before its model is confident: k_po x 3, saturating; k_pu, k_i the kernel's. */
static void test_tune_gains(void **unused)
{
	struct pid_gains g;

	(void)unused;
	assert_int_equal(pid_default_gains(1500, 70000, 85000, &g), 0);
	pid_tune_gains(&g);
	assert_int_equal(g.k_po, 3 * ((1500 << 10) / 15000));
	assert_int_equal(g.k_pu, (3000 << 10) / 15000);
	assert_int_equal(g.k_i, (3000 << 10) / 15000 / 10);
	assert_int_equal(g.k_d, 0);
	/* INT32_MAX / 3 x 3 still fits; one more saturates. */
	g.k_po = INT32_MAX / 3;
	pid_tune_gains(&g);
	assert_int_equal(g.k_po, INT32_MAX - 1);
	g.k_po = INT32_MAX / 3 + 1;
	pid_tune_gains(&g);
	assert_int_equal(g.k_po, INT32_MAX);
}

/*
 * pid_retune(): a zone held 2 °C over its aim on a 6000 mW feed-forward
 * whose integral has learnt -3000 mW switches to a 1500 mW feed-forward
 * with four times the gains; the next budget goes on from the last (one
 * period's integration of the new k_i apart) instead of jumping by the
 * 4500 mW of feed-forward and the new proportional term.
 */
static void test_retune_keeps_budget(void **unused)
{
	struct pid_params from, to;
	struct pid_state st;
	struct pid_output out;
	uint32_t before, after, jump;
	int32_t temp = CONTROL + 2000;

	(void)unused;
	setup_params(&from, PID_MODE_DEFAULT, 6000);
	from.fixes.integral_bleed_q10 = 0;
	to = from;
	to.sustainable_power_mw = 1500;
	to.gains.k_po *= 4;
	to.gains.k_pu *= 4;
	to.gains.k_i *= 4;
	pid_reset(&st);
	st.err_integral = -(INT64_C(3000) << 20) / from.gains.k_i;	/* -3000 mW of integral */
	before = pid_step(&from, &st, CONTROL, temp, 0, 10000, &out);
	assert_in_range(before, 1000, 9000);
	struct pid_state kept = st;
	jump = pid_step(&to, &kept, CONTROL, temp, 0, 10000, NULL);
	pid_retune(&from, &to, &st, 0, 10000);
	after = pid_step(&to, &st, CONTROL, temp, 0, 10000, NULL);
	/* One period's integration of -2000 m°C under the new k_i, and rounding. */
	int64_t step_mw = (int64_t)to.gains.k_i * 2000 / 1024 + 4;
	assert_true(llabs((int64_t)after - before) <= step_mw);
	assert_true(llabs((int64_t)jump - before) > 2000);
	/* An unprimed state (the zone idle) is left alone. */
	pid_reset(&st);
	pid_retune(&from, &to, &st, 0, 10000);
	assert_int_equal(st.err_integral, 0);
}

/*
 * pid_retune() from the first approach (issue 34, 1): the actors' lowest
 * power, 700 mW, fed forward with the gains of a prior 4 x too high
 * (8800 mW), the zone held back 0.2 °C beyond the under band, so that
 * integral_under learnt what p does not give; the model engages with
 * 2200 mW and gains a third of the prior's.  The under integral's cap
 * shrinks with the new k_pu: what it cuts off must stay in the budget
 * (before: 1755 mW, then 1274 at the switch, 17.6 s to come back).
 */
static void test_retune_keeps_under_integral(void **unused)
{
	struct pid_params from, to;
	struct pid_state st, kept;
	uint32_t before, after;
	int32_t temp;

	(void)unused;
	setup_params(&from, PID_MODE_DEFAULT, 8800);
	from.fixes.control_margin_mc = 50;
	from.sustainable_power_mw = 700;
	to = from;
	to.sustainable_power_mw = 2200;
	to.gains.k_po = to.gains.k_pu = 563;	/* 550 mW/°C: 12.5 x 2200 mW / 50 °C */
	to.gains.k_i = 56;
	temp = pid_aim_mc(&from, CONTROL) - 50 * PID_UNDER_BAND - 200;
	pid_reset(&st);
	for (int k = 0; k < 600; k++) {
		st.held_back = true;
		before = pid_step(&from, &st, CONTROL, temp, 700, 5000, NULL);
	}
	assert_true(st.under_integral > 0);
	kept = st;
	assert_int_equal(pid_step(&from, &kept, CONTROL, temp, 700, 5000, NULL), before);
	pid_retune(&from, &to, &st, 700, 5000);
	st.held_back = true;
	after = pid_step(&to, &st, CONTROL, temp, 700, 5000, NULL);
	assert_in_range(after, before - 20, before + 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tune_gains),
		cmocka_unit_test(test_retune_keeps_budget),
		cmocka_unit_test(test_retune_keeps_under_integral),
		cmocka_unit_test(test_default_gains),
		cmocka_unit_test(test_kernel_rising_through_control),
		cmocka_unit_test(test_kernel_overshoot_and_return),
		cmocka_unit_test(test_kernel_sp_above_max),
		cmocka_unit_test(test_kernel_integral_at_clamp),
		cmocka_unit_test(test_kernel_integral_cutoff),
		cmocka_unit_test(test_kernel_derivative),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_forget_trend),
		cmocka_unit_test(test_default_wide_integral_bound),
		cmocka_unit_test(test_default_integral_bleed),
		cmocka_unit_test(test_default_integral_under),
		cmocka_unit_test(test_default_integral_under_band),
		cmocka_unit_test(test_default_derivative_filter),
		cmocka_unit_test(test_default_clamp_sustainable_power),
		cmocka_unit_test(test_default_control_margin),
		cmocka_unit_test(test_extreme_inputs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
