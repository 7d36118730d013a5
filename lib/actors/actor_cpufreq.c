/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A cpufreq cooling device (cpufreq-cpuN) as a power actor, as the kernel's
 * cpufreq_cooling.c does it: requested power = P(f_cur) x the sum of the
 * loads of the policy's online CPUs; maximum = P(f_max) x online CPUs; a
 * grant becomes the highest frequency whose power, normalised by the load,
 * fits (power2state), and that frequency's cooling state.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actor_internal.h"
#include "platform/cpufreq_policy.h"
#include "platform/log.h"

struct cpufreq_actor {
	struct freq_actor f;
	struct sysfs_attr cur_freq;
	bool cur_freq_failed;	/* logged once until it reads again */
};

static struct cpufreq_actor *to_cpufreq(struct actor *a)
{
	return (struct cpufreq_actor *)a;
}

static int cpufreq_sample(struct actor *a, const struct cycle_sample *s)
{
	struct cpufreq_actor *c = to_cpufreq(a);
	unsigned int online = 0;
	uint64_t khz;
	int r;

	for (unsigned int cpu = cpumask_next(&a->cpus, 0); cpu < CPUMASK_MAX_CPUS;
	     cpu = cpumask_next(&a->cpus, cpu + 1))
		online += cpumask_test(&s->cur->online, cpu);
	a->load_pct = cpu_loads_sum_pct(s->loads, &a->cpus, &a->saturated);
	r = sysfs_attr_read_u64(&c->cur_freq, &khz);
	if (r == 0 && khz > 0 && khz <= UINT32_MAX) {
		a->freq_khz = (uint32_t)khz;
		c->cur_freq_failed = false;
	} else if (!c->cur_freq_failed) {
		/* Keep the last frequency: the request is an estimate either way. */
		pa_log(PA_LOG_WARNING, "%s: %s", c->cur_freq.path,
		       r < 0 ? strerror(-r) : "not a frequency");
		c->cur_freq_failed = true;
	}
	a->n_cpus = online;
	actor_update_power(a, online);
	return 0;
}

static void cpufreq_destroy(struct actor *a)
{
	struct cpufreq_actor *c = to_cpufreq(a);

	cooling_state_close(&c->f.cs);
	sysfs_attr_close(&c->cur_freq);
	free(c);
}

static const struct actor_ops cpufreq_ops = {
	.sample = cpufreq_sample,
	.set_power = freq_actor_set_power,
	.state_for_power = freq_actor_state_for_power,
	.set_state = freq_actor_set_state,
	.check = freq_actor_check,
	.restore = freq_actor_restore,
	.save = freq_actor_save,
	.adopt = freq_actor_adopt,
	.destroy = cpufreq_destroy,
};

static int open_policy(struct cpufreq_actor *c, const struct cpufreq_policy_info *policy,
		       const struct actor_config *cfg)
{
	char name[16], of_node[SYSFS_PATH_MAX], path[SYSFS_PATH_MAX];
	struct opp_device dev = { .name = name, .of_node = of_node,
				  .freq_khz = policy->freq_khz, .n_freqs = policy->n_freqs };
	int r;

	if (cfg) {
		dev.dpc = cfg->dynamic_power_coefficient;
		dev.config_opps = cfg->opps;
		dev.n_config_opps = cfg->n_opps;
	}
	snprintf(name, sizeof(name), "cpu%u", policy->cpu);
	sysfs_pathf(of_node, CPU_DIR "/cpu%u/of_node", policy->cpu);
	sysfs_pathf(path, CPUFREQ_DIR "/policy%u/scaling_cur_freq", policy->cpu);
	r = sysfs_attr_open(&c->cur_freq, path, false);
	if (r < 0)
		return pa_log_errno(r, "%s: %s", path, sysfs_strerror(r));
	return actor_load_model(&c->f.base, &dev);
}

int actor_cpufreq_new(int cdev_id, const struct cpufreq_policy_info *policy,
		      const struct actor_config *cfg, struct actor **ret)
{
	struct cpufreq_actor *c = calloc(1, sizeof(*c));
	int r;

	assert(policy && ret);
	*ret = NULL;
	if (!c)
		return -ENOMEM;
	freq_actor_init(&c->f, &cpufreq_ops, ACTOR_CPUFREQ, cfg);
	c->cur_freq = (struct sysfs_attr)SYSFS_ATTR_INIT;
	snprintf(c->f.base.name, sizeof(c->f.base.name), "cpufreq-cpu%u", policy->cpu);
	c->f.base.cpus = policy->related;
	if (policy->capacity)
		c->f.base.capacity = policy->capacity;
	c->f.n_freqs = policy->n_freqs;
	memcpy(c->f.freq_khz, policy->freq_khz, sizeof(c->f.freq_khz));
	c->f.base.freq_khz = policy->max_khz;
	if (c->f.n_freqs == 0) {
		pa_log(PA_LOG_ERR, "%s: policy%u lists no frequencies (scaling_available_frequencies)",
		       c->f.base.name, policy->cpu);
		r = -EINVAL;
		goto fail;
	}
	if ((r = freq_actor_open_state(&c->f, cdev_id)) < 0 || (r = open_policy(c, policy, cfg)) < 0)
		goto fail;
	*ret = &c->f.base;
	return 0;
fail:
	cpufreq_destroy(&c->f.base);
	return r;
}
