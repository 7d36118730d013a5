/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Walking the hwmon devices, new and old style; coretemp's TjMax per package. */
#include "hwmon.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysfs.h"

/* One hwmon device's attributes, walked: is it @package's, and its lowest tempN_crit. */
struct coretemp_walk {
	const char *dir;
	int package;
	bool is_package;
	int64_t crit_mc;	/* 0: none read yet */
};

static int visit_attr(const char *name, void *userdata)
{
	struct coretemp_walk *w = userdata;
	char path[SYSFS_PATH_MAX], label[64], want[32];
	unsigned int n;
	int64_t v;
	int len = 0;

	if (sscanf(name, "temp%u_label%n", &n, &len) == 1 && name[len] == '\0') {
		snprintf(want, sizeof(want), "Package id %d", w->package);
		if (sysfs_pathf(path, "%s/%s", w->dir, name) == 0 &&
		    sysfs_read_str(path, label, sizeof(label)) > 0 && strcmp(label, want) == 0)
			w->is_package = true;
	} else if (sscanf(name, "temp%u_crit%n", &n, &len) == 1 && name[len] == '\0') {
		if (sysfs_pathf(path, "%s/%s", w->dir, name) == 0 && sysfs_read_s64(path, &v) == 0 &&
		    v > 0 && (w->crit_mc == 0 || v < w->crit_mc))
			w->crit_mc = v;
	}
	return 0;
}

/*
 * The name of hwmon device @id, into @name, and where its attributes are,
 * into @dir: hwmonN, or its parent device's directory (hwmonN/device) for a
 * driver registered the old way, whose hwmonN has no name (as libsensors
 * looks).  Return: 0, or a negative errno when neither has a name.
 */
static int find_device(int64_t id, char *dir, char *name, size_t name_size)
{
	static const char *const places[] = { "", "/device" };
	char path[SYSFS_PATH_MAX];

	for (size_t k = 0; k < sizeof(places) / sizeof(places[0]); k++) {
		if (sysfs_pathf(dir, HWMON_CLASS_DIR "/hwmon%lld%s", (long long)id, places[k]) == 0 &&
		    sysfs_pathf(path, "%s/name", dir) == 0 &&
		    sysfs_read_str(path, name, name_size) > 0)
			return 0;
	}
	return -ENOENT;
}

int hwmon_each(int (*fn)(const struct hwmon_device *dev, void *userdata), void *userdata)
{
	int64_t *ids = NULL;
	size_t n = 0;
	int r = 0;

	if (sysfs_list_ids(HWMON_CLASS_DIR, "hwmon", &ids, &n) < 0)
		return -ENOENT;
	for (size_t i = 0; i < n && r == 0; i++) {
		char dir[SYSFS_PATH_MAX], name[64], id[32];
		struct hwmon_device dev = { dir, id, name };

		snprintf(id, sizeof(id), "hwmon%lld", (long long)ids[i]);
		if (find_device(ids[i], dir, name, sizeof(name)) == 0)
			r = fn(&dev, userdata);
	}
	free(ids);
	return r;
}

/* A coretemp device that names w->package: its lowest tempN_crit into w->crit_mc; 1 when found. */
static int visit_coretemp(const struct hwmon_device *dev, void *userdata)
{
	struct coretemp_walk *w = userdata;

	if (strcmp(dev->name, "coretemp") != 0)
		return 0;
	w->dir = dev->dir;
	w->is_package = false;
	w->crit_mc = 0;
	sysfs_list_dir(dev->dir, visit_attr, w);
	return w->is_package && w->crit_mc > 0 && w->crit_mc <= INT32_MAX;
}

int hwmon_coretemp_tjmax(int package, int32_t *tjmax_mc)
{
	struct coretemp_walk w = { .package = package };

	if (hwmon_each(visit_coretemp, &w) != 1)
		return -ENOENT;
	*tjmax_mc = (int32_t)w.crit_mc;
	return 0;
}
