/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The actors of an engine being built: one per device, found or created for
 * the cooling devices the kernel binds and for the actors of the config.
 * When a configured actor matches nothing, the reason lists what the
 * platform has, so that the message tells the user what to write instead.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_build.h"
#include "inventory_text.h"
#include "platform/log.h"

struct actor *build_find_actor(const struct engine *e, int cdev_id)
{
	for (size_t i = 0; i < e->n_actors; i++)
		if (e->actors[i]->cdev_id == cdev_id)
			return e->actors[i];
	return NULL;
}

static struct actor *find_actor_by_name(const struct engine *e, const char *name)
{
	for (size_t i = 0; i < e->n_actors; i++)
		if (strcmp(e->actors[i]->name, name) == 0)
			return e->actors[i];
	return NULL;
}

struct actor *build_register_actor(struct engine *e, struct actor *a)
{
	struct actor **grown;

	assert(a);	/* what a constructor gave: on its error the caller registers nothing */
	grown = realloc(e->actors, (e->n_actors + 1) * sizeof(*grown));
	if (!grown) {
		actor_destroy(a);
		return NULL;
	}
	e->actors = grown;
	e->actors[e->n_actors++] = a;
	return a;
}

bool build_power_device_type(const struct build *b, const struct cooling_device_info *cdev)
{
	return cpufreq_policy_of_cdev(&b->cpufreq, cdev->type) ||
	       strncmp(cdev->type, "devfreq-", 8) == 0;
}

struct actor *build_actor_for_cdev(struct build *b, int cdev_id, const struct actor_config *cfg)
{
	const struct cooling_device_info *cdev = thermal_find_cdev(&b->thermal, cdev_id);
	const struct cpufreq_policy_info *policy;
	struct actor *a = build_find_actor(b->e, cdev_id);
	int r;

	if (a || !cdev)
		return a;
	if (!build_power_device_type(b, cdev)) {
		pa_log(PA_LOG_INFO, "cooling_device%d (%s): not a power actor", cdev_id, cdev->type);
		return NULL;
	}
	policy = cpufreq_policy_of_cdev(&b->cpufreq, cdev->type);
	r = policy ? actor_cpufreq_new(cdev_id, policy, cfg, &a)
		   : actor_devfreq_new(cdev_id, cdev->type + 8, cfg, &a);
	return r < 0 ? NULL : build_register_actor(b->e, a);
}

/* @why: "@what; cpufreq policies: <every policy>". */
static void why_with_policies(const struct build *b, char *why, size_t why_size,
			      const char *what)
{
	char list[INVENTORY_TEXT_MAX];

	inventory_text_policies(list, sizeof(list), &b->cpufreq, &b->thermal);
	snprintf(why, why_size, "%s; cpufreq policies: %s", what, list);
}

/* The cooling device of a configured cpufreq actor, or -1 with why. */
static int cdev_of_cpufreq_actor(const struct build *b, const struct actor_config *ac,
				 char *why, size_t why_size)
{
	const struct cpufreq_policy_info *p =
		cpufreq_policy_of_cpu(&b->cpufreq, cpumask_next(&ac->cpus, 0));
	char cpus[64], what[200];

	cpumask_format_list(&ac->cpus, cpus, sizeof(cpus));
	if (!p || memcmp(&p->related, &ac->cpus, sizeof(p->related)) != 0) {
		snprintf(what, sizeof(what), "cpus \"%s\" are not the CPUs of one cpufreq policy",
			 cpus);
		why_with_policies(b, why, why_size, what);
		return -1;
	}
	for (size_t i = 0; i < b->thermal.n_cdevs; i++)
		if (cpufreq_policy_of_cdev(&b->cpufreq, b->thermal.cdevs[i].type) == p)
			return b->thermal.cdevs[i].id;
	snprintf(what, sizeof(what), "policy%u has no cpufreq cooling device (type = "
		 "\"cpufreq_cap\" limits it through scaling_max_freq)", p->cpu);
	why_with_policies(b, why, why_size, what);
	return -1;
}

/* The cooling device of a configured devfreq actor, or -1 with why. */
static int cdev_of_devfreq_actor(const struct build *b, const struct actor_config *ac,
				 char *why, size_t why_size)
{
	char type[THERMAL_NAME_MAX + 16], list[INVENTORY_TEXT_MAX];

	snprintf(type, sizeof(type), "devfreq-%s", ac->device);
	for (size_t i = 0; i < b->thermal.n_cdevs; i++)
		if (strcmp(b->thermal.cdevs[i].type, type) == 0)
			return b->thermal.cdevs[i].id;
	inventory_text_devfreq(list, sizeof(list), &b->thermal);
	snprintf(why, why_size, "no cooling device %s; devfreq devices: %s", type, list);
	return -1;
}

/* The policies that make up exactly the CPUs of a cpufreq_cap actor. */
static struct actor *cap_actor(struct build *b, const struct actor_config *ac, char *why,
			       size_t why_size)
{
	const struct cpufreq_policy_info *policies[CONFIG_MAX_ACTORS];
	struct cpumask covered;
	size_t n = 0;
	char cpus[64], name[80];
	struct actor *a = NULL;
	int r;

	cpumask_clear(&covered);
	cpumask_format_list(&ac->cpus, cpus, sizeof(cpus));
	snprintf(name, sizeof(name), "cpufreq-cap-%s", cpus);
	if ((a = find_actor_by_name(b->e, name)))
		return a;
	for (size_t i = 0; i < b->cpufreq.n && n < CONFIG_MAX_ACTORS; i++) {
		const struct cpufreq_policy_info *p = &b->cpufreq.policies[i];

		if (!cpumask_test(&ac->cpus, p->cpu))
			continue;
		policies[n++] = p;
		for (size_t w = 0; w < CPUMASK_MAX_CPUS / 64; w++)
			covered.bits[w] |= p->related.bits[w];
	}
	if (n == 0 || memcmp(&covered, &ac->cpus, sizeof(covered)) != 0) {
		char what[200];

		snprintf(what, sizeof(what), "cpus \"%s\" are not whole cpufreq policies", cpus);
		why_with_policies(b, why, why_size, what);
		return NULL;
	}
	r = actor_cpufreq_cap_new(policies, n, ac, &a);
	if (r == 0 && !(a = build_register_actor(b->e, a)))
		r = -ENOMEM;
	if (r == -ENODATA)	/* opp_load() found no table it takes */
		snprintf(why, why_size, "cpus \"%s\" cannot be limited: cpu%u has no power model "
			 "(see above): give this actor its opps (freq_khz with power_mw, or "
			 "voltage_uv with dynamic_power_coefficient)", cpus, policies[0]->cpu);
	else if (r == -ERANGE)
		snprintf(why, why_size, "cpus \"%s\" cannot be limited: no OPP of its power model "
			 "is within the policies' frequency limits (see above)", cpus);
	else if (r < 0)
		snprintf(why, why_size, "cpus \"%s\" cannot be limited: %s (see above)", cpus,
			 strerror(-r));
	return a;
}

/*
 * The directory of the powercap zone @ac names into @dir: its directory
 * name ("intel-rapl:0"), or the name the zone gives itself ("package-0")
 * where one zone has it.  Return: false with why (none, or several).
 */
static bool powercap_dir(const struct actor_config *ac, char *dir, size_t dir_size, char *why,
			 size_t why_size)
{
	char path[SYSFS_PATH_MAX], list[INVENTORY_TEXT_MAX];
	size_t n;

	if (sysfs_pathf(path, POWERCAP_CLASS_DIR "/%s", ac->powercap_zone) == 0 &&
	    sysfs_exists(path)) {
		snprintf(dir, dir_size, "%s", ac->powercap_zone);
		return true;
	}
	n = inventory_powercap_named(ac->powercap_zone, dir, dir_size, list, sizeof(list));
	if (n == 1)
		return true;
	if (n > 1) {
		snprintf(why, why_size, "\"%s\" is the name of %zu powercap zones: %s; name one by "
			 "its directory name, as zone = \"%s\"", ac->powercap_zone, n, list, dir);
		return false;
	}
	inventory_text_powercap(list, sizeof(list));
	snprintf(why, why_size, "no powercap zone \"%s\"; powercap zones: %s", ac->powercap_zone,
		 list);
	return false;
}

/* The powercap actor of @ac, or NULL with why. */
static struct actor *powercap_actor(struct build *b, const struct actor_config *ac, char *why,
				    size_t why_size)
{
	char dir[64];
	struct actor_config named = *ac;
	struct actor *a;

	if (!powercap_dir(ac, dir, sizeof(dir), why, why_size))
		return NULL;
	named.powercap_zone = dir;	/* the actor's name, whichever the config gave */
	if ((a = find_actor_by_name(b->e, dir)))
		return a;
	if (actor_powercap_new(&named, &a) == 0)
		a = build_register_actor(b->e, a);
	if (!a)
		snprintf(why, why_size, "powercap zone \"%s\" cannot be limited (see above)", dir);
	return a;
}

struct actor *build_actor_for_config(struct build *b, const struct actor_config *ac, char *why,
				     size_t why_size)
{
	const struct cooling_device_info *cdev;
	struct actor *a;
	int id;

	switch (ac->kind) {
	case ACTOR_CPUFREQ_CAP:
		return cap_actor(b, ac, why, why_size);
	case ACTOR_POWERCAP:
		return powercap_actor(b, ac, why, why_size);
	case ACTOR_CPUFREQ:
		id = cdev_of_cpufreq_actor(b, ac, why, why_size);
		break;
	case ACTOR_DEVFREQ:
		id = cdev_of_devfreq_actor(b, ac, why, why_size);
		break;
	default:
		snprintf(why, why_size, "not an actor a config names");
		return NULL;
	}
	if (id < 0)
		return NULL;
	a = build_actor_for_cdev(b, id, ac);
	cdev = thermal_find_cdev(&b->thermal, id);
	assert(cdev);	/* @id is one of b->thermal's */
	if (!a)
		snprintf(why, why_size, "cooling_device%d (%s) cannot be used (see above)", id,
			 cdev->type);
	return a;
}
