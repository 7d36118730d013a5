/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "opp_source.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control/enum_name.h"
#include "dt_props.h"
#include "log.h"
#include "parse.h"
#include "sysfs.h"

/* Room for tables with more entries than the driver lists. */
#define OPP_SET_MAX (2 * POWER_TABLE_MAX_OPPS)

struct opp_set {
	size_t n;
	struct opp opp[OPP_SET_MAX];
};

static const char *const source_names[] = { "none", "config", "energy-model", "opp-debugfs",
					     "device-tree" };

const char *opp_source_name(enum opp_source source)
{
	return ENUM_NAME(source_names, source);
}

static bool listed(const struct opp_device *dev, uint32_t khz)
{
	if (dev->n_freqs == 0)
		return true;
	for (size_t i = 0; i < dev->n_freqs; i++)
		if (dev->freq_khz[i] == khz)
			return true;
	return false;
}

static void set_add(const struct opp_device *dev, struct opp_set *set, const struct opp *o)
{
	for (size_t i = 0; i < set->n; i++)
		if (set->opp[i].freq_khz == o->freq_khz)
			return;
	if (listed(dev, o->freq_khz) && set->n < OPP_SET_MAX)
		set->opp[set->n++] = *o;
}

static enum opp_source finish(const struct opp_device *dev, const struct opp_set *set,
			      uint32_t dpc, enum opp_source source, struct power_table *table)
{
	size_t k;
	int r;

	if (set->n == 0) {
		pa_log(PA_LOG_WARNING, "%s: the %s OPPs match none of the driver's frequencies",
		       dev->name, opp_source_name(source));
		return OPP_SOURCE_NONE;
	}
	r = power_table_build(set->opp, set->n, dpc, table);
	if (r < 0) {
		pa_log(PA_LOG_WARNING, "%s: the %s OPPs do not make a power table: %s", dev->name,
		       opp_source_name(source), strerror(-r));
		return OPP_SOURCE_NONE;
	}
	if ((k = power_table_falling(table, false))) {
		pa_log(PA_LOG_WARNING, "%s: the %s OPPs do not make a power table: the power falls "
		       "as the frequency rises, %u mW at %u kHz under %u mW at %u kHz; not taken",
		       dev->name, opp_source_name(source), table->entry[k].power_mw,
		       table->entry[k].freq_khz, table->entry[k - 1].power_mw,
		       table->entry[k - 1].freq_khz);
		return OPP_SOURCE_NONE;	/* the table is left, for opp_load() to see why */
	}
	return source;
}

/* A u64 from @dir/@name; logs once, naming the file, when it cannot be read. */
static int read_entry(const char *dir, const char *name, uint64_t *v, const char *what)
{
	char path[SYSFS_PATH_MAX];
	int r = sysfs_pathf(path, "%s/%s", dir, name);

	if (r == 0)
		r = sysfs_read_u64(path, v);
	if (r < 0)
		pa_log(PA_LOG_WARNING, "%s: cannot read: %s; %s ignored", path, sysfs_strerror(r),
		       what);
	return r;
}

/*
 * Entry @prefix@id of @dir (a debugfs performance state or OPP): its path in
 * @entry and its two values @a_name and @b_name.  Return: 0 or negative errno.
 */
static int read_entry_pair(const char *dir, const char *prefix, int64_t id, char *entry,
			   const char *a_name, uint64_t *a, const char *b_name, uint64_t *b,
			   const char *what)
{
	int r = sysfs_pathf(entry, "%s/%s%lld", dir, prefix, (long long)id);

	if (r == 0)
		r = read_entry(entry, a_name, a, what);
	if (r == 0)
		r = read_entry(entry, b_name, b, what);
	return r;
}

static enum opp_source from_energy_model(const struct opp_device *dev, struct power_table *table)
{
	char dir[SYSFS_PATH_MAX], ps[SYSFS_PATH_MAX];
	struct opp_set set = { 0 };
	int64_t *ids;
	size_t n;

	if (sysfs_pathf(dir, DEBUGFS_EM_DIR "/%s", dev->name) < 0 ||
	    sysfs_list_ids(dir, "ps:", &ids, &n) < 0 || n == 0)
		return OPP_SOURCE_NONE;
	for (size_t i = 0; i < n; i++) {
		struct opp o = { 0 };
		uint64_t khz, uw;

		if (read_entry_pair(dir, "ps:", ids[i], ps, "frequency", &khz, "power", &uw,
				    "performance state") < 0)
			continue;
		if (uw == 0 || uw > UINT32_MAX || khz == 0 || khz > UINT32_MAX) {
			pa_log(PA_LOG_WARNING, "%s/power: %llu uW at %llu kHz is not a power; "
			       "performance state ignored", ps, (unsigned long long)uw,
			       (unsigned long long)khz);
			continue;
		}
		o.freq_khz = (uint32_t)khz;
		o.power_uw = (uint32_t)uw;
		set_add(dev, &set, &o);
	}
	free(ids);
	return finish(dev, &set, 0, OPP_SOURCE_ENERGY_MODEL, table);
}

/* The node's dynamic-power-coefficient, 0 when it has none. */
static uint32_t dt_dpc(const char *node)
{
	char path[SYSFS_PATH_MAX];
	unsigned char cell[4];

	if (!node || sysfs_pathf(path, "%s/dynamic-power-coefficient", node) < 0 ||
	    sysfs_read_bin(path, cell, sizeof(cell)) != (ssize_t)sizeof(cell))
		return 0;
	return parse_be32(cell);
}

static uint32_t device_dpc(const struct opp_device *dev)
{
	return dev->dpc ? dev->dpc : dt_dpc(dev->of_node);
}

static enum opp_source from_opp_debugfs(const struct opp_device *dev, struct power_table *table)
{
	char dir[SYSFS_PATH_MAX], entry[SYSFS_PATH_MAX];
	struct opp_set set = { 0 };
	uint32_t dpc;
	int64_t *ids;
	size_t n;

	if (sysfs_pathf(dir, DEBUGFS_OPP_DIR "/%s", dev->name) < 0 ||
	    sysfs_list_ids(dir, "opp:", &ids, &n) < 0 || n == 0)
		return OPP_SOURCE_NONE;
	dpc = device_dpc(dev);
	if (!dpc) {
		pa_log(PA_LOG_INFO, "%s: OPPs in %s but no dynamic-power-coefficient", dev->name, dir);
		free(ids);
		return OPP_SOURCE_NONE;
	}
	for (size_t i = 0; i < n; i++) {
		struct opp o = { 0 };
		uint64_t hz, uv;

		if (read_entry_pair(dir, "opp:", ids[i], entry, "rate_hz", &hz,
				    "supply-0/u_volt_target", &uv, "OPP") < 0)
			continue;
		if (hz / 1000 == 0 || hz / 1000 > UINT32_MAX || uv == 0 || uv > UINT32_MAX) {
			pa_log(PA_LOG_WARNING, "%s: %llu Hz at %llu uV is not an operating point; "
			       "OPP ignored", entry, (unsigned long long)hz, (unsigned long long)uv);
			continue;
		}
		o.freq_khz = (uint32_t)(hz / 1000);
		o.voltage_uv = (uint32_t)uv;
		set_add(dev, &set, &o);
	}
	free(ids);
	return finish(dev, &set, dpc, OPP_SOURCE_OPP_DEBUGFS, table);
}

struct phandle_search {
	const char *parent;
	uint32_t phandle;
	char found[SYSFS_PATH_MAX];
};

static int match_phandle(const char *name, void *userdata)
{
	struct phandle_search *s = userdata;
	char path[SYSFS_PATH_MAX];
	unsigned char cell[4];

	if (sysfs_pathf(path, "%s/%s/phandle", s->parent, name) < 0 ||
	    sysfs_read_bin(path, cell, sizeof(cell)) != (ssize_t)sizeof(cell) ||
	    parse_be32(cell) != s->phandle)
		return 0;
	return sysfs_pathf(s->found, "%s/%s", s->parent, name) == 0 ? 1 : 0;
}

/* The OPP table node with @phandle: a child of the root or of the node's parent. */
static int find_phandle(const char *node, uint32_t phandle, char *found)
{
	struct phandle_search s = { .phandle = phandle };
	char parent[SYSFS_PATH_MAX];

	s.parent = DT_BASE_DIR;
	if (sysfs_list_dir(DT_BASE_DIR, match_phandle, &s) == 1) {
		strcpy(found, s.found);
		return 0;
	}
	if (sysfs_pathf(parent, "%s/..", node) < 0)
		return -ENAMETOOLONG;
	s.parent = parent;
	if (sysfs_list_dir(parent, match_phandle, &s) == 1) {
		strcpy(found, s.found);
		return 0;
	}
	return -ENOENT;
}

struct dt_table {
	const struct opp_device *dev;
	const char *table;
	struct opp_set *set;
};

/* One opp-* child of an operating-points-v2 table. */
static int add_dt_opp(const char *name, void *userdata)
{
	struct dt_table *t = userdata;
	char path[SYSFS_PATH_MAX];
	/* Several clocks or supplies add cells; the first is the one we want. */
	unsigned char hz[64], uv[64];
	ssize_t hz_len, uv_len;
	char status[16];
	struct opp o;

	if (sysfs_pathf(path, "%s/%s/opp-hz", t->table, name) < 0 || !sysfs_exists(path))
		return 0;
	hz_len = sysfs_read_bin(path, hz, sizeof(hz));
	if (sysfs_pathf(path, "%s/%s/status", t->table, name) == 0 &&
	    sysfs_read_str(path, status, sizeof(status)) >= 0 && strcmp(status, "okay") != 0 &&
	    strcmp(status, "ok") != 0)
		return 0;
	sysfs_pathf(path, "%s/%s/opp-microvolt", t->table, name);
	uv_len = sysfs_read_bin(path, uv, sizeof(uv));
	if (dt_decode_opp(hz, hz_len > 0 ? (size_t)hz_len : 0, uv, uv_len > 0 ? (size_t)uv_len : 0,
			  &o) < 0) {
		pa_log(PA_LOG_WARNING, "%s/%s: no usable opp-hz and opp-microvolt; OPP ignored",
		       t->table, name);
		return 0;
	}
	set_add(t->dev, t->set, &o);
	return 0;
}

/* Legacy "operating-points": <kHz uV> pairs. */
static void add_dt_legacy(const struct opp_device *dev, const char *node, struct opp_set *set)
{
	unsigned char cells[8 * OPP_SET_MAX];
	struct opp opps[OPP_SET_MAX];
	char path[SYSFS_PATH_MAX];
	ssize_t len;
	size_t n;

	if (sysfs_pathf(path, "%s/operating-points", node) < 0 ||
	    (len = sysfs_read_bin(path, cells, sizeof(cells))) <= 0)
		return;
	n = dt_decode_operating_points(cells, (size_t)len, opps, OPP_SET_MAX);
	for (size_t i = 0; i < n; i++)
		set_add(dev, set, &opps[i]);
}

static enum opp_source from_device_tree(const struct opp_device *dev, struct power_table *table)
{
	struct opp_set set = { 0 };
	char path[SYSFS_PATH_MAX], table_node[SYSFS_PATH_MAX];
	unsigned char cell[4];
	uint32_t dpc;

	if (!dev->of_node || !sysfs_exists(dev->of_node))
		return OPP_SOURCE_NONE;
	dpc = device_dpc(dev);
	if (sysfs_pathf(path, "%s/operating-points-v2", dev->of_node) == 0 &&
	    sysfs_read_bin(path, cell, sizeof(cell)) == (ssize_t)sizeof(cell)) {
		struct dt_table t = { .dev = dev, .table = table_node, .set = &set };

		if (find_phandle(dev->of_node, parse_be32(cell), table_node) < 0) {
			pa_log(PA_LOG_WARNING, "%s: no OPP table node has phandle %u", path,
			       parse_be32(cell));
			return OPP_SOURCE_NONE;
		}
		sysfs_list_dir(table_node, add_dt_opp, &t);
	} else {
		add_dt_legacy(dev, dev->of_node, &set);
	}
	if (set.n == 0)
		return OPP_SOURCE_NONE;
	if (!dpc) {
		pa_log(PA_LOG_WARNING, "%s: OPPs in the device tree but no dynamic-power-coefficient",
		       dev->of_node);
		return OPP_SOURCE_NONE;
	}
	return finish(dev, &set, dpc, OPP_SOURCE_DEVICE_TREE, table);
}

static enum opp_source from_config(const struct opp_device *dev, struct power_table *table)
{
	struct opp_set set = { 0 };

	for (size_t i = 0; i < dev->n_config_opps; i++)
		set_add(dev, &set, &dev->config_opps[i]);
	return finish(dev, &set, dev->dpc, OPP_SOURCE_CONFIG, table);
}

enum opp_source opp_load(const struct opp_device *dev, struct power_table *table)
{
	enum opp_source s;

	memset(table, 0, sizeof(*table));
	if (dev->n_config_opps)
		s = from_config(dev, table);
	else if ((s = from_energy_model(dev, table)) == OPP_SOURCE_NONE &&
		 (s = from_opp_debugfs(dev, table)) == OPP_SOURCE_NONE)
		s = from_device_tree(dev, table);
	if (s != OPP_SOURCE_NONE)
		return s;
	if (table->n || dev->n_config_opps) {
		/* A table was refused, and said so (finish()): it is no model. */
		memset(table, 0, sizeof(*table));
		return OPP_SOURCE_NONE;
	}
	pa_log(PA_LOG_WARNING, "%s: no power model (no energy model, OPP debugfs, device-tree "
	       "OPPs with a dynamic-power-coefficient, or opps in the config)", dev->name);
	return OPP_SOURCE_NONE;
}
