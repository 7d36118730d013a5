/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "inventory_text.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actors/actor.h"
#include "platform/sysfs.h"

/* Devices named in one list at most; more are counted as "N more". */
#define NAMES_MAX 64
/* Longest name kept (a sysfs directory entry, as config_keys.c allows). */
#define NAME_MAX_LEN 201

/*
 * A ", "-separated list in @buf that keeps room for " and N more" (a
 * number of up to 10 digits) and counts the items that did not fit.
 */
struct list {
	char *buf;
	size_t size;
	size_t len;
	unsigned int dropped;
};

static void list_init(struct list *l, char *buf, size_t size)
{
	*l = (struct list){ .buf = buf, .size = size };
	if (size)
		buf[0] = '\0';
}

static void __attribute__((format(printf, 2, 3))) list_add(struct list *l, const char *fmt, ...)
{
	static const size_t room_for_more = sizeof(" and 4294967295 more");
	char item[INVENTORY_TEXT_MAX];
	size_t sep = l->len ? 2 : 0, n;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(item, sizeof(item), fmt, ap);
	va_end(ap);
	n = strlen(item);
	if (l->dropped || l->len + sep + n + room_for_more > l->size) {
		l->dropped++;
		return;
	}
	snprintf(l->buf + l->len, l->size - l->len, "%s%s", sep ? ", " : "", item);
	l->len += sep + n;
}

static void list_end(struct list *l)
{
	if (l->size == 0)
		return;
	if (l->dropped)
		snprintf(l->buf + l->len, l->size - l->len, "%s and %u more", l->len ? "" : "...",
			 l->dropped);
	else if (l->len == 0)
		snprintf(l->buf, l->size, "none");
}

/* The id of the cooling device of type @type, or -1. */
static int cdev_of_type(const struct thermal_inventory *thermal, const char *type)
{
	for (size_t i = 0; i < thermal->n_cdevs; i++)
		if (strcmp(thermal->cdevs[i].type, type) == 0)
			return thermal->cdevs[i].id;
	return -1;
}

void inventory_text_policies(char *buf, size_t size, const struct cpufreq_inventory *cpufreq,
			     const struct thermal_inventory *thermal)
{
	struct list l;

	list_init(&l, buf, size);
	for (size_t i = 0; i < cpufreq->n; i++) {
		const struct cpufreq_policy_info *p = &cpufreq->policies[i];
		const char *cpu_word = cpumask_weight(&p->related) == 1 ? "CPU" : "CPUs";
		char cpus[64];
		int cdev = -1;

		cpumask_format_list(&p->related, cpus, sizeof(cpus));
		for (size_t k = 0; k < thermal->n_cdevs && cdev < 0; k++)
			if (cpufreq_policy_of_cdev(cpufreq, thermal->cdevs[k].type) == p)
				cdev = thermal->cdevs[k].id;
		if (cdev >= 0)
			list_add(&l, "policy%u (%s %s, cooling_device%d)", p->cpu, cpu_word, cpus, cdev);
		else
			list_add(&l, "policy%u (%s %s, no cooling device)", p->cpu, cpu_word, cpus);
	}
	list_end(&l);
}

/* Names collected from a directory, sorted for a stable message. */
struct names {
	char name[NAMES_MAX][NAME_MAX_LEN];
	size_t n;
	unsigned int more;
};

static void names_add(struct names *ns, const char *name)
{
	for (size_t i = 0; i < ns->n; i++)
		if (strcmp(ns->name[i], name) == 0)
			return;
	if (ns->n == NAMES_MAX || strlen(name) >= NAME_MAX_LEN) {
		ns->more++;
		return;
	}
	snprintf(ns->name[ns->n++], NAME_MAX_LEN, "%s", name);
}

static int collect_name(const char *name, void *userdata)
{
	names_add(userdata, name);
	return 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void names_sort(struct names *ns)
{
	qsort(ns->name, ns->n, sizeof(ns->name[0]), compare_names);
}

/* The entries of @dir (none when it cannot be read); NULL, said in @buf, without memory. */
static struct names *names_of_dir(const char *dir, char *buf, size_t size)
{
	struct names *ns = calloc(1, sizeof(*ns));

	if (!ns) {
		snprintf(buf, size, "(out of memory)");
		return NULL;
	}
	sysfs_list_dir(dir, collect_name, ns);
	return ns;
}

/* Ends @l, counting the names @ns had no room for, and frees @ns. */
static void names_end(struct list *l, struct names *ns)
{
	l->dropped += ns->more;
	list_end(l);
	free(ns);
}

void inventory_text_devfreq(char *buf, size_t size, const struct thermal_inventory *thermal)
{
	struct names *ns;
	struct list l;

	list_init(&l, buf, size);
	if (!(ns = names_of_dir(DEVFREQ_CLASS_DIR, buf, size)))
		return;
	/* A devfreq cooling device whose device is not listed still counts. */
	for (size_t i = 0; i < thermal->n_cdevs; i++)
		if (strncmp(thermal->cdevs[i].type, "devfreq-", 8) == 0)
			names_add(ns, thermal->cdevs[i].type + 8);
	names_sort(ns);
	for (size_t i = 0; i < ns->n; i++) {
		char type[NAME_MAX_LEN + 8];
		int cdev;

		snprintf(type, sizeof(type), "devfreq-%s", ns->name[i]);
		cdev = cdev_of_type(thermal, type);
		if (cdev >= 0)
			list_add(&l, "%s (cooling_device%d)", ns->name[i], cdev);
		else
			list_add(&l, "%s (no cooling device)", ns->name[i]);
	}
	names_end(&l, ns);
}

/*
 * Whether powercap zone @dir (its directory name) has a limit of its own,
 * and its name attribute in @name ("" when unreadable).  A control type
 * (intel-rapl) has none.
 */
static bool powercap_zone(const char *dir, char *name, size_t size)
{
	char path[SYSFS_PATH_MAX];

	name[0] = '\0';
	if (sysfs_pathf(path, POWERCAP_CLASS_DIR "/%s/constraint_0_power_limit_uw", dir) < 0 ||
	    !sysfs_exists(path))
		return false;
	if (sysfs_pathf(path, POWERCAP_CLASS_DIR "/%s/name", dir) < 0 ||
	    sysfs_read_str(path, name, size) <= 0)
		name[0] = '\0';
	return true;
}

void inventory_text_powercap(char *buf, size_t size)
{
	struct names *ns;
	struct list l;

	list_init(&l, buf, size);
	if (!(ns = names_of_dir(POWERCAP_CLASS_DIR, buf, size)))
		return;
	names_sort(ns);
	for (size_t i = 0; i < ns->n; i++) {
		char name[64];

		if (!powercap_zone(ns->name[i], name, sizeof(name)))
			continue;
		if (name[0])
			list_add(&l, "%s (%s)", ns->name[i], name);
		else
			list_add(&l, "%s", ns->name[i]);
	}
	names_end(&l, ns);
}

size_t inventory_powercap_named(const char *name, char *dir, size_t dir_size, char *buf,
				size_t size)
{
	struct names *ns;
	struct list l;
	size_t n = 0;

	list_init(&l, buf, size);
	if (!(ns = names_of_dir(POWERCAP_CLASS_DIR, buf, size)))
		return 0;
	names_sort(ns);
	for (size_t i = 0; i < ns->n; i++) {
		char its[64];

		if (!powercap_zone(ns->name[i], its, sizeof(its)) || strcmp(its, name) != 0)
			continue;
		if (n++ == 0)
			snprintf(dir, dir_size, "%s", ns->name[i]);
		list_add(&l, "%s", ns->name[i]);
	}
	names_end(&l, ns);
	return n;
}

void inventory_text_thermal_zones(char *buf, size_t size, const struct thermal_inventory *thermal)
{
	struct list l;

	list_init(&l, buf, size);
	for (size_t i = 0; i < thermal->n_zones; i++)
		list_add(&l, "thermal_zone%d (%s)", thermal->zones[i].id, thermal->zones[i].type);
	list_end(&l);
}

void inventory_text_zones_named(char *buf, size_t size, const struct thermal_inventory *thermal,
				const char *sensor)
{
	struct list l;

	list_init(&l, buf, size);
	for (size_t i = 0; i < thermal->n_zones; i++) {
		const struct thermal_zone_info *z = &thermal->zones[i];
		int64_t temp_mc;

		if (strcmp(z->type, sensor) != 0)
			continue;
		if (thermal_zone_read_temp(z, &temp_mc) == 0)
			list_add(&l, "thermal_zone%d (%.1f °C)", z->id, temp_mc / 1000.0);
		else
			list_add(&l, "thermal_zone%d (temperature unreadable)", z->id);
	}
	list_end(&l);
}
