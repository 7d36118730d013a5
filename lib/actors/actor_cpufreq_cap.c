/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CPUs limited through their cpufreq policies' scaling_max_freq, for
 * machines without cpufreq cooling devices (x86 with intel_pstate or
 * acpi-cpufreq).  The power model is per CPU, as for a cooling device;
 * requested power is the sum over the policies of P(f_cur) x load.  The cap
 * is one frequency for all the actor's policies, written only when it
 * changes; the original scaling_max_freq of each is restored.  Policies are
 * discovered through libcpupower, but scaling_max_freq is written through
 * lib/platform/sysfs.c, opened once with O_NOFOLLOW like every file
 * powerallocd writes (libcpupower opens the file at each write and follows
 * links).  Where the driver lists no frequencies, the power table's
 * frequencies within the hardware limits are the steps.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actor_internal.h"
#include "platform/cpufreq_policy.h"
#include "platform/log.h"

struct cap_policy {
	unsigned int cpu;
	struct cpumask cpus;
	struct sysfs_attr cur_freq;
	struct actor_file max_freq;	/* its original is the limit found at start */
	uint32_t freq_khz;	/* last read */
};

struct cap_actor {
	struct actor base;	/* its table's OPPs are its steps */
	size_t n_policies;
	struct cap_policy policy[];
};

static struct cap_actor *to_cap(struct actor *a)
{
	return (struct cap_actor *)a;
}

static int cap_sample(struct actor *a, const struct cycle_sample *s)
{
	struct cap_actor *c = to_cap(a);
	unsigned int online = 0;
	uint64_t req = 0, model = 0;

	a->load_pct = 0;
	a->saturated = 0;
	a->freq_khz = 0;
	for (size_t i = 0; i < c->n_policies; i++) {
		struct cap_policy *p = &c->policy[i];
		unsigned int full, load = cpu_loads_sum_pct(s->loads, &p->cpus, &full);
		uint64_t khz;

		for (unsigned int cpu = cpumask_next(&p->cpus, 0); cpu < CPUMASK_MAX_CPUS;
		     cpu = cpumask_next(&p->cpus, cpu + 1))
			online += cpumask_test(&s->cur->online, cpu);
		if (sysfs_attr_read_u64(&p->cur_freq, &khz) == 0 && khz > 0 && khz <= UINT32_MAX)
			p->freq_khz = (uint32_t)khz;
		req += power_table_requested_power(&a->table, p->freq_khz, load);
		model += power_table_requested_power(actor_model_table(a), p->freq_khz, load);
		a->load_pct += load;
		a->saturated += full;
		if (p->freq_khz > a->freq_khz)
			a->freq_khz = p->freq_khz;
	}
	actor_update_power(a, online);
	a->req_mw = req > UINT32_MAX ? UINT32_MAX : (uint32_t)req;
	a->model_mw = model > UINT32_MAX ? UINT32_MAX : (uint32_t)model;
	return 0;
}

static int write_cap(struct cap_policy *p, uint64_t khz)
{
	return actor_file_set(&p->max_freq, khz);
}

static unsigned long cap_state_for_power(const struct actor *a, uint32_t granted_mw)
{
	uint32_t khz = power_table_power_to_freq(&a->table, granted_mw, a->load_pct);

	return power_table_freq_to_state(&a->table, khz);
}

static int cap_set_state(struct actor *a, unsigned long state, uint32_t granted_mw)
{
	struct cap_actor *c = to_cap(a);
	uint32_t khz;
	int first_error = 0;

	a->granted_mw = granted_mw;
	a->state = state > a->max_state ? a->max_state : state;
	khz = power_table_state_to_freq(&a->table, (unsigned int)a->state);
	for (size_t i = 0; i < c->n_policies; i++) {
		/* The top step lifts the cap entirely, to the original limit. */
		uint64_t cap = a->state == 0 ? c->policy[i].max_freq.original : khz;
		int r = write_cap(&c->policy[i], cap);

		/* One policy gone is the actor gone, whatever failed before it. */
		if (r < 0 && (!first_error || r == -ENODEV))
			first_error = r;
	}
	return first_error;
}

static int cap_set_power(struct actor *a, uint32_t granted_mw)
{
	return cap_set_state(a, cap_state_for_power(a, granted_mw), granted_mw);
}

/* The first policy whose limit holds another value than the one known there; each is read. */
static int cap_check(struct actor *a, struct external_found *found)
{
	struct cap_actor *c = to_cap(a);
	struct external_found other;
	int changed = 0;

	for (size_t i = 0; i < c->n_policies; i++)
		if (actor_file_check(&c->policy[i].max_freq, changed ? &other : found))
			changed = 1;
	return changed;
}

static int cap_restore(struct actor *a)
{
	struct cap_actor *c = to_cap(a);
	int first_error = 0;

	for (size_t i = 0; i < c->n_policies; i++) {
		int r = actor_file_restore(&c->policy[i].max_freq);

		if (r < 0 && !first_error)
			first_error = r;
	}
	return first_error;
}

static int cap_save(const struct actor *a, saved_value_fn fn, void *userdata)
{
	const struct cap_actor *c = (const struct cap_actor *)a;

	for (size_t i = 0; i < c->n_policies; i++) {
		int r = actor_file_save(&c->policy[i].max_freq, fn, userdata);

		if (r < 0)
			return r;
	}
	return 0;
}

/* Per policy (the same CPUs, or left as found): the limit found at start, failing writes. */
static void cap_adopt(struct actor *a, const struct actor *old)
{
	struct cap_actor *c = to_cap(a);
	const struct cap_actor *o = (const struct cap_actor *)old;

	for (size_t i = 0; i < c->n_policies; i++)
		for (size_t k = 0; k < o->n_policies; k++) {
			const struct cap_policy *op = &o->policy[k];

			if (op->cpu != c->policy[i].cpu)
				continue;
			actor_file_adopt(&c->policy[i].max_freq, &op->max_freq);
		}
}

static void cap_destroy(struct actor *a)
{
	struct cap_actor *c = to_cap(a);

	for (size_t i = 0; i < c->n_policies; i++) {
		sysfs_attr_close(&c->policy[i].cur_freq);
		actor_file_close(&c->policy[i].max_freq);
	}
	free(c);
}

static const struct actor_ops cap_ops = {
	.sample = cap_sample,
	.set_power = cap_set_power,
	.state_for_power = cap_state_for_power,
	.set_state = cap_set_state,
	.check = cap_check,
	.restore = cap_restore,
	.save = cap_save,
	.adopt = cap_adopt,
	.destroy = cap_destroy,
};

static int open_cap_policy(struct cap_policy *p, const struct cpufreq_policy_info *info)
{
	char path[SYSFS_PATH_MAX];
	uint64_t max;
	int r;

	p->cpu = info->cpu;
	p->cpus = info->related;
	p->freq_khz = info->max_khz;
	sysfs_pathf(path, CPUFREQ_DIR "/policy%u/scaling_max_freq", info->cpu);
	r = actor_file_open(&p->max_freq, path, false);
	p->max_freq.shows_lowest = true;
	max = p->max_freq.original;
	if (r == 0 && (max == 0 || max > UINT32_MAX))
		r = -ERANGE;
	if (r == 0) {
		sysfs_pathf(path, CPUFREQ_DIR "/policy%u/scaling_cur_freq", info->cpu);
		r = sysfs_attr_open(&p->cur_freq, path, false);
	}
	if (r < 0)
		pa_log(PA_LOG_ERR, "%s: %s", path, sysfs_strerror(r));
	return r;
}

/*
 * Steps: the table's frequencies within the policies' hardware limits.  The
 * table keeps only those, so that its maximum and minimum powers and the
 * OPP a grant buys are ones the CPUs can run at.
 */
static int choose_steps(struct cap_actor *c, const struct cpufreq_policy_info *const *policies)
{
	struct power_table *t = &c->base.table;
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++) {
		uint32_t khz = t->entry[i].freq_khz;

		if (khz >= policies[0]->min_khz && khz <= policies[0]->max_khz)
			t->entry[n++] = t->entry[i];
	}
	if (n && n < t->n)
		pa_log(PA_LOG_NOTICE, "%s: %zu OPPs of the power model are outside %" PRIu32 "-%"
		       PRIu32 " kHz; left out", c->base.name, t->n - n, policies[0]->min_khz,
		       policies[0]->max_khz);
	t->n = n;
	if (n == 0)
		return pa_log_errno(-ERANGE, "%s: no OPP of the power model is within %" PRIu32 "-%"
				    PRIu32 " kHz", c->base.name, policies[0]->min_khz,
				    policies[0]->max_khz);
	c->base.max_state = power_table_max_state(t);
	return 0;
}

int actor_cpufreq_cap_new(const struct cpufreq_policy_info *const *policies, size_t n_policies,
			  const struct actor_config *cfg, struct actor **ret)
{
	struct cap_actor *c = calloc(1, sizeof(*c) + n_policies * sizeof(c->policy[0]));
	char name[16], of_node[SYSFS_PATH_MAX], cpus[48];
	struct opp_device dev = { .name = name, .of_node = of_node };
	int r;

	assert(policies && n_policies > 0 && cfg && ret);
	*ret = NULL;
	if (!c)
		return -ENOMEM;
	actor_init(&c->base, &cap_ops, ACTOR_CPUFREQ_CAP, cfg);
	for (size_t i = 0; i < n_policies; i++) {
		c->policy[i].cur_freq = (struct sysfs_attr)SYSFS_ATTR_INIT;
		actor_file_init(&c->policy[i].max_freq);
	}
	c->n_policies = n_policies;
	c->base.cpus = cfg->cpus;
	if (policies[0]->capacity)
		c->base.capacity = policies[0]->capacity;
	cpumask_format_list(&cfg->cpus, cpus, sizeof(cpus));
	snprintf(c->base.name, sizeof(c->base.name), "cpufreq-cap-%s", cpus);
	snprintf(name, sizeof(name), "cpu%u", policies[0]->cpu);
	sysfs_pathf(of_node, CPU_DIR "/cpu%u/of_node", policies[0]->cpu);
	dev.freq_khz = policies[0]->freq_khz;
	dev.n_freqs = policies[0]->n_freqs;
	dev.dpc = cfg->dynamic_power_coefficient;
	dev.config_opps = cfg->opps;
	dev.n_config_opps = cfg->n_opps;
	for (size_t i = 0; i < n_policies; i++)
		if ((r = open_cap_policy(&c->policy[i], policies[i])) < 0)
			goto fail;
	if ((r = actor_load_model(&c->base, &dev)) < 0 || (r = choose_steps(c, policies)) < 0)
		goto fail;
	c->base.freq_khz = policies[0]->max_khz;
	*ret = &c->base;
	return 0;
fail:
	cap_destroy(&c->base);
	return r;
}
