/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A powercap zone (Intel RAPL package "intel-rapl:0", or any powercap zone
 * with a power-limit constraint) as a power actor.  Requested power is the
 * average power since the previous period, from energy_uj (which wraps at
 * max_energy_range_uj); the grant is written to constraint_0_power_limit_uw,
 * clamped to [constraint_0_min_power_uw, constraint_0_max_power_uw], only
 * when it changes; the original limit is restored.  Without
 * constraint_0_max_power_uw, the limit found at start is taken as the
 * maximum.  Without constraint_0_min_power_uw (intel_rapl has none), no limit
 * below a tenth of the maximum is written: a package limited to almost
 * nothing stalls the whole machine, which no temperature is worth.  An
 * actor made at_most_original (automatic x86 zones) never writes above the
 * limit found at start: the firmware's, kept over a rescan (adopt).
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actor_internal.h"
#include "platform/log.h"

/* For the step_wise controller: state k limits to max - k/10 of (max - min). */
#define POWERCAP_STEPS 10

struct powercap_actor {
	struct actor base;
	struct power_meter meter;	/* energy_uj: its request, and its measured power */
	struct actor_file limit;	/* constraint_0_power_limit_uw; its original, the limit found */
	uint64_t max_energy_range_uj;
	uint64_t max_power_uw;
	uint64_t tdp_uw;	/* constraint_0_max_power_uw, or the limit found */
	bool at_most_original;
	uint64_t min_power_uw;
	bool energy_failed;	/* a fault of energy_uj, said once until it reads again */
};

static struct powercap_actor *to_powercap(struct actor *a)
{
	return (struct powercap_actor *)a;
}

/*
 * A fault of energy_uj, said once until it reads again.  The counter is the
 * actor's only measure of its request (it has no power table): it is read
 * again next period, from a fresh start.
 */
static int powercap_fault(struct actor *a, int fault)
{
	struct powercap_actor *p = to_powercap(a);

	if (!p->energy_failed)
		actor_meter_fault(a, fault, "its request starts again from the next reading");
	p->energy_failed = true;
	a->measured_valid = false;
	if (fault != METER_UNREADABLE && fault != METER_VANISHED)
		return 0;	/* the next reading counts from the value that faulted */
	p->meter.track.have_last = false;
	return -p->meter.error;
}

/* The request: the mean power since the last reading of energy_uj (0 until there is one). */
static int powercap_sample(struct actor *a, const struct cycle_sample *s)
{
	struct powercap_actor *p = to_powercap(a);
	uint32_t mw = 0;
	int r;

	a->meter_read_us = s->now_us;	/* read here, once a period, for the engine too */
	a->max_mw = (uint32_t)(p->max_power_uw / 1000);
	a->min_mw = (uint32_t)(p->min_power_uw / 1000);
	p->meter.track.max_mw = a->max_mw <= UINT32_MAX / METER_JUMP_FACTOR
					? a->max_mw * METER_JUMP_FACTOR : UINT32_MAX;
	/* No model says whether it draws: a counter that stops reads as nothing requested. */
	r = power_meter_read(&p->meter, s->now_us, 0, &mw);
	if (r < 0)
		return powercap_fault(a, -r);
	p->energy_failed = false;
	a->measured_valid = r == 1;
	a->measured_mw = mw;
	a->req_mw = mw > a->max_mw ? a->max_mw : mw;
	a->load_pct = a->max_mw ? (unsigned int)((uint64_t)a->req_mw * 100 / a->max_mw) : 0;
	return 0;
}

static int powercap_set_power(struct actor *a, uint32_t granted_mw)
{
	struct powercap_actor *p = to_powercap(a);
	uint64_t uw = (uint64_t)granted_mw * 1000;

	a->granted_mw = granted_mw;
	if (uw > p->max_power_uw)
		uw = p->max_power_uw;
	if (uw < p->min_power_uw)
		uw = p->min_power_uw;
	return actor_file_set(&p->limit, uw);
}

static uint64_t limit_of_state(const struct powercap_actor *p, unsigned long state)
{
	return p->max_power_uw - (p->max_power_uw - p->min_power_uw) * state / POWERCAP_STEPS;
}

static unsigned long powercap_state_for_power(const struct actor *a, uint32_t granted_mw)
{
	const struct powercap_actor *p = (const struct powercap_actor *)a;
	unsigned long state = 0;

	while (state < POWERCAP_STEPS && limit_of_state(p, state) > (uint64_t)granted_mw * 1000)
		state++;
	return state;
}

static int powercap_set_state(struct actor *a, unsigned long state, uint32_t granted_mw)
{
	struct powercap_actor *p = to_powercap(a);
	int r;

	a->state = state > POWERCAP_STEPS ? POWERCAP_STEPS : state;
	r = powercap_set_power(a, (uint32_t)(limit_of_state(p, a->state) / 1000));
	a->granted_mw = granted_mw;
	return r;
}

static int powercap_restore(struct actor *a)
{
	struct powercap_actor *p = to_powercap(a);

	return actor_file_restore(&p->limit);
}

static int powercap_check(struct actor *a, struct external_found *found)
{
	return actor_file_check(&to_powercap(a)->limit, found);
}

static int powercap_save(const struct actor *a, saved_value_fn fn, void *userdata)
{
	const struct powercap_actor *p = (const struct powercap_actor *)a;

	return actor_file_save(&p->limit, fn, userdata);
}

/* The limit found at start, failing writes, and the last energy sample (a request at once). */
static void powercap_adopt(struct actor *a, const struct actor *old)
{
	struct powercap_actor *p = to_powercap(a);
	const struct powercap_actor *o = (const struct powercap_actor *)old;

	actor_file_adopt(&p->limit, &o->limit);
	if (p->at_most_original && o->limit.original >= p->min_power_uw)
		p->max_power_uw = p->tdp_uw < o->limit.original ? p->tdp_uw : o->limit.original;
	a->max_mw = (uint32_t)(p->max_power_uw / 1000);
	p->meter.track = o->meter.track;
	p->energy_failed = o->energy_failed;
}

static void powercap_destroy(struct actor *a)
{
	struct powercap_actor *p = to_powercap(a);

	power_meter_close(&p->meter);
	actor_file_close(&p->limit);
	free(p);
}

static const struct actor_ops powercap_ops = {
	.sample = powercap_sample,
	.set_power = powercap_set_power,
	.state_for_power = powercap_state_for_power,
	.set_state = powercap_set_state,
	.check = powercap_check,
	.restore = powercap_restore,
	.save = powercap_save,
	.adopt = powercap_adopt,
	.destroy = powercap_destroy,
};

/* Reads @dir/@attr; logs once, naming the file, when @required. */
static int read_attr(const char *dir, const char *attr, uint64_t *v, bool required)
{
	char path[SYSFS_PATH_MAX];
	int r = sysfs_pathf(path, "%s/%s", dir, attr);

	if (r == 0)
		r = sysfs_read_u64(path, v);
	if (r < 0 && required)
		pa_log(PA_LOG_ERR, "%s: %s", path, sysfs_strerror(r));
	return r;
}

static int open_zone(struct powercap_actor *p, const char *dir)
{
	char path[SYSFS_PATH_MAX];
	uint64_t limit_uw;
	int r;

	if ((r = read_attr(dir, "max_energy_range_uj", &p->max_energy_range_uj, true)) < 0)
		return r;
	sysfs_pathf(path, "%s/constraint_0_power_limit_uw", dir);
	if ((r = actor_file_open(&p->limit, path, false)) < 0)
		goto fail;
	limit_uw = p->limit.original;
	if (read_attr(dir, "constraint_0_max_power_uw", &p->max_power_uw, false) < 0 ||
	    p->max_power_uw == 0)
		p->max_power_uw = limit_uw;
	if (read_attr(dir, "constraint_0_min_power_uw", &p->min_power_uw, false) < 0 ||
	    p->min_power_uw > p->max_power_uw)
		p->min_power_uw = p->max_power_uw / 10;
	p->tdp_uw = p->max_power_uw;
	if (p->at_most_original && limit_uw < p->max_power_uw && limit_uw >= p->min_power_uw)
		p->max_power_uw = limit_uw;
	sysfs_pathf(path, "%s/energy_uj", dir);
	if ((r = power_meter_open_path(&p->meter, path)) == 0) {
		p->meter.track.range_uj = p->max_energy_range_uj;
		return 0;
	}
fail:
	return pa_log_errno(r, "%s: %s", path, sysfs_strerror(r));
}

int actor_powercap_new(const struct actor_config *cfg, struct actor **ret)
{
	struct powercap_actor *p = calloc(1, sizeof(*p));
	char dir[SYSFS_PATH_MAX];
	int r;

	assert(cfg && ret);
	*ret = NULL;
	if (!p)
		return -ENOMEM;
	actor_init(&p->base, &powercap_ops, ACTOR_POWERCAP, cfg);
	power_meter_init(&p->meter);
	p->base.meter = &p->meter;
	actor_file_init(&p->limit);
	snprintf(p->base.name, sizeof(p->base.name), "%s", cfg->powercap_zone);
	p->at_most_original = cfg->at_most_original;
	if ((r = sysfs_pathf(dir, POWERCAP_CLASS_DIR "/%s", cfg->powercap_zone)) < 0 ||
	    (r = open_zone(p, dir)) < 0) {
		powercap_destroy(&p->base);
		return r;
	}
	p->base.max_mw = (uint32_t)(p->max_power_uw / 1000);
	p->base.min_mw = (uint32_t)(p->min_power_uw / 1000);
	p->base.max_state = POWERCAP_STEPS;
	pa_log(PA_LOG_INFO, "%s: powercap zone, limit %" PRIu64 " uW, range %" PRIu64 "-%" PRIu64
	       " uW", p->base.name, p->limit.original, p->min_power_uw, p->max_power_uw);
	*ret = &p->base;
	return 0;
}
