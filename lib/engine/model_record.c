/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A zone's saved thermal model: fingerprint and text (model_record.h). */
#include "model_record.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "control/cpumask.h"
#include "control/model_tuning.h"

/* FNV-1a, 64 bits: a fingerprint, not a defence against forgery. */
#define FNV_OFFSET UINT64_C(0xcbf29ce484222325)
#define FNV_PRIME UINT64_C(0x100000001b3)

static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * FNV_PRIME;
	return h;
}

/* @s with its NUL, so that "ab" + "c" and "a" + "bc" differ. */
static uint64_t fnv_str(uint64_t h, const char *s)
{
	return fnv(h, s, strlen(s) + 1);
}

/* @v as 4 bytes, least significant first, whatever the host's order. */
static uint64_t fnv_u32(uint64_t h, uint32_t v)
{
	unsigned char b[4] = { v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >> 24 };

	return fnv(h, b, sizeof(b));
}

/*
 * The device an actor drives: its kind, name and CPUs (the policy's, not
 * the online ones: a CPU taken offline for a while is the same hardware).
 */
static uint64_t actor_hash(const struct actor *a)
{
	char cpus[1024] = "";

	cpumask_format_list(&a->cpus, cpus, sizeof(cpus));
	return fnv_str(fnv_str(fnv_str(FNV_OFFSET, actor_kind_name(a->kind)), a->name), cpus);
}

/*
 * Its power table as loaded (not as calibrated): each frequency and the
 * power at it; and for a calibrating actor its meter's key, since its
 * requests (what the model learns from) are then in the meter's watts: a
 * meter added, removed or changed starts a new model.
 */
static uint64_t table_hash(const struct actor *a)
{
	const struct power_table *t = actor_model_table(a);
	uint64_t h = fnv_u32(actor_hash(a), (uint32_t)t->n);

	for (size_t i = 0; i < t->n; i++)
		h = fnv_u32(fnv_u32(h, t->entry[i].freq_khz), t->entry[i].power_uw);
	if (a->calibrating)	/* its key, as actor_adopt_scale() compares it */
		h = fnv(fnv_u32(h, (uint32_t)a->meter->id_len), a->meter->name, a->meter->id_len);
	return h;
}

/* A calibration's key: the actor and its meter as named across boots. */
static uint64_t scale_key(const struct actor *a)
{
	return fnv(actor_hash(a), a->meter->name, a->meter->id_len);
}

void model_fingerprint_of(const struct zone *z, struct model_fingerprint *fp)
{
	/* Sums of each actor's hash: the order the actors are listed in does not count. */
	uint64_t actors = 0, tables = 0;

	memset(fp, 0, sizeof(*fp));
	snprintf(fp->sensor_type, sizeof(fp->sensor_type), "%s", z->setup.sensor_type);
	for (size_t i = 0; i < z->setup.n_actors; i++) {
		actors += actor_hash(z->setup.actors[i]);
		tables += table_hash(z->setup.actors[i]);
	}
	fp->actors = fnv_u32(fnv(FNV_OFFSET, &actors, sizeof(actors)), (uint32_t)z->setup.n_actors);
	fp->power_tables = fnv(FNV_OFFSET, &tables, sizeof(tables));
	fp->control_mc = z->setup.control_mc;
	fp->period_ms = z->setup.pid.period_ms;
}

const char *model_fingerprint_differs(const struct model_fingerprint *saved,
				      const struct model_fingerprint *now)
{
	if (strcmp(saved->sensor_type, now->sensor_type) != 0)
		return "sensor changed";
	if (saved->actors != now->actors)
		return "actors changed";
	if (saved->power_tables != now->power_tables)
		return "power table changed";
	if (saved->control_mc != now->control_mc)
		return "control temperature changed";
	if (saved->period_ms != now->period_ms)
		return "period changed";
	return NULL;
}

void model_record_of(const struct zone *z, struct model_record *r)
{
	memset(r, 0, sizeof(*r));
	model_fingerprint_of(z, &r->fp);
	thermal_model_export(&z->learning.model, &r->state);
	r->est = z->learning.model.est;
	for (size_t i = 0; i < z->setup.n_actors; i++) {
		const struct actor *a = z->setup.actors[i];

		if (!a->calibrating || a->power_scale.sums.weight <= 0)
			continue;
		r->scales[r->n_scales].key = scale_key(a);
		power_scale_export(&a->power_scale, &r->scales[r->n_scales++].state);
	}
}

size_t model_record_resume_scales(struct zone *z, const struct model_record *r)
{
	size_t n = 0;

	for (size_t i = 0; i < z->setup.n_actors; i++) {
		struct actor *a = z->setup.actors[i];

		if (!a->calibrating || a->power_scale.sums.weight > 0)
			continue;	/* none, or learnt already (an actor another zone resumed) */
		for (size_t k = 0; k < r->n_scales; k++) {
			if (r->scales[k].key != scale_key(a) ||
			    power_scale_import(&a->power_scale, &r->scales[k].state) < 0)
				continue;
			actor_calibrate_table(a);
			n++;
			break;
		}
	}
	return n;
}

int model_record_resume(struct thermal_model *m, const struct model_record *r,
			double *confidence)
{
	struct thermal_model resumed = *m;

	if (thermal_model_import(&resumed, &r->state) < 0)
		return -EINVAL;
	*confidence = resumed.est.confidence;
	if (resumed.est.confidence < MODEL_TUNING_ENGAGE)
		return -ENODATA;
	*m = resumed;
	return 0;
}

enum field_type { F_TEXT, F_HEX, F_INT, F_UINT, F_DOUBLES };

/**
 * struct field - one key of the text.
 * @key: its name.
 * @type: its value's type.
 * @offset: where the value is in struct model_record.
 * @count: F_DOUBLES: how many numbers; F_TEXT: the room, bytes.
 */
struct field {
	const char *key;
	enum field_type type;
	size_t offset;
	size_t count;
};

#define AT(member) offsetof(struct model_record, member)
#define DOUBLES(key, member, n) { key, F_DOUBLES, AT(member), n }

/* Every key after "format", in the order they are written. */
static const struct field fields[] = {
	{ "sensor", F_TEXT, AT(fp.sensor_type), sizeof(((struct model_fingerprint *)0)->sensor_type) },
	{ "actors", F_HEX, AT(fp.actors), 1 },
	{ "power_tables", F_HEX, AT(fp.power_tables), 1 },
	{ "control_mc", F_INT, AT(fp.control_mc), 1 },
	{ "period_ms", F_UINT, AT(fp.period_ms), 1 },
	DOUBLES("block_s", state.block_s, 1),
	DOUBLES("ref_c", state.ref_c, 1),
	DOUBLES("prior", state.prior, THERMAL_MODEL_N),
	DOUBLES("gain_min_k_per_w", state.gain_min_k_per_w, 1),
	DOUBLES("gain_max_k_per_w", state.gain_max_k_per_w, 1),
	DOUBLES("floor", state.floor, THERMAL_MODEL_N),
	DOUBLES("info", state.info, THERMAL_MODEL_N * THERMAL_MODEL_N),
	DOUBLES("rhs", state.rhs, THERMAL_MODEL_N),
	DOUBLES("theta", state.theta, THERMAL_MODEL_N),
	DOUBLES("noise_var", state.noise_var, 1),
	DOUBLES("cusum_high", state.cusum_high, 1),
	DOUBLES("cusum_low", state.cusum_low, 1),
	DOUBLES("recent_var", state.recent_var, 1),
	{ "changes", F_UINT, AT(state.changes), 1 },
	{ "updates", F_UINT, AT(state.updates), 1 },
};
#define N_FIELDS (sizeof(fields) / sizeof(fields[0]))

/* The optional key, once per metered actor, after the fields (struct model_scale). */
#define SCALE_KEY "power_scale"


/* Appends to @buf (@size bytes) at *@len; *@len goes past @size when it does not fit. */
__attribute__((format(printf, 4, 5)))
static void append(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*len < size ? buf + *len : NULL, *len < size ? size - *len : 0, fmt, ap);
	va_end(ap);
	*len += n > 0 ? (size_t)n : 0;
}

static void format_field(const struct field *f, const struct model_record *r, char *buf,
			 size_t size, size_t *len)
{
	const char *at = (const char *)r + f->offset;

	append(buf, size, len, "%s =", f->key);
	switch (f->type) {
	case F_TEXT: append(buf, size, len, " %s", at); break;
	case F_HEX: append(buf, size, len, " %016" PRIx64, *(const uint64_t *)(const void *)at); break;
	case F_INT: append(buf, size, len, " %" PRId32, *(const int32_t *)(const void *)at); break;
	case F_UINT: append(buf, size, len, " %" PRIu32, *(const uint32_t *)(const void *)at); break;
	case F_DOUBLES:
		/* 17 digits: each number reads back to the same bits. */
		for (size_t i = 0; i < f->count; i++)
			append(buf, size, len, " %.17g", ((const double *)(const void *)at)[i]);
		break;
	}
	append(buf, size, len, "\n");
}

int model_record_format(const struct model_record *r, const char *zone, char *buf, size_t size)
{
	size_t len = 0;

	append(buf, size, &len, "# powerallocd: the thermal model learnt for zone %s; see "
	       "powerallocd(8), THERMAL MODEL\n# sustainable power %.0f mW, time constant %.1f s, "
	       "confidence %.3f, %" PRIu32 " blocks fitted\nformat = %d\n", zone,
	       r->est.sustainable_w * 1000, r->est.time_constant_s, r->est.confidence,
	       r->state.updates, MODEL_RECORD_FORMAT);
	for (size_t i = 0; i < N_FIELDS; i++)
		format_field(&fields[i], r, buf, size, &len);
	for (size_t i = 0; i < r->n_scales; i++) {
		const struct power_scale_state *st = &r->scales[i].state;

		append(buf, size, &len, "power_scale = %016" PRIx64 " %.17g %.17g %.17g %.17g %.17g "
		       "%.17g\n", r->scales[i].key, st->weight, st->sum_p, st->sum_m, st->sum_pp,
		       st->sum_pm, st->sum_mm);
	}
	return len < size ? (int)len : -ENOSPC;
}

/* Reads one value of @f from @v into @r.  Return: 0 or -EINVAL. */
static int parse_value(const struct field *f, const char *v, struct model_record *r)
{
	char *at = (char *)r + f->offset, *end;
	size_t n = strlen(v);

	errno = 0;
	switch (f->type) {
	case F_TEXT:
		if (n == 0 || n >= f->count)
			return -EINVAL;
		memcpy(at, v, n + 1);
		return 0;
	case F_HEX: {
		unsigned long long x = strtoull(v, &end, 16);

		*(uint64_t *)(void *)at = x;
		return n != 16 || strspn(v, "0123456789abcdefABCDEF") != n || errno ? -EINVAL : 0;
	}
	case F_INT: {
		long x = strtol(v, &end, 10);

		*(int32_t *)(void *)at = (int32_t)x;
		return errno || end == v || *end || x < INT32_MIN || x > INT32_MAX ? -EINVAL : 0;
	}
	case F_UINT: {
		unsigned long x = strtoul(v, &end, 10);

		*(uint32_t *)(void *)at = (uint32_t)x;
		return errno || end == v || *end || *v == '-' || x > UINT32_MAX ? -EINVAL : 0;
	}
	case F_DOUBLES:
		for (size_t i = 0; i < f->count; i++) {
			((double *)(void *)at)[i] = strtod(v, &end);
			if (errno || end == v)
				return -EINVAL;
			v = end;
		}
		return *v ? -EINVAL : 0;
	}
	return -EINVAL;
}

static const struct field *find_field(const char *key)
{
	for (size_t i = 0; i < N_FIELDS; i++)
		if (strcmp(fields[i].key, key) == 0)
			return &fields[i];
	return NULL;
}

/* Cuts @line (modified) at its '=' into a trimmed key and value.  Return: false without '='. */
static bool split(char *line, char **key, char **value)
{
	char *eq = strchr(line, '='), *end;

	if (!eq)
		return false;
	*eq = '\0';
	for (end = eq; end > line && isspace((unsigned char)end[-1]); end--)
		end[-1] = '\0';
	for (*value = eq + 1; isspace((unsigned char)**value); (*value)++)
		;
	for (end = *value + strlen(*value); end > *value && isspace((unsigned char)end[-1]); end--)
		end[-1] = '\0';
	*key = line;
	return true;
}

/* The "format" line: 0 for ours, -EPROTONOSUPPORT for another, -EINVAL for none. */
static int parse_format(const char *key, const char *value, char *why, size_t why_size)
{
	char *end;
	long format;

	if (strcmp(key, "format") != 0) {
		snprintf(why, why_size, "\"%s\" before \"format\"", key);
		return -EINVAL;
	}
	format = strtol(value, &end, 10);
	if (end == value || *end || format < 1) {
		snprintf(why, why_size, "format \"%s\" is not a number", value);
		return -EINVAL;
	}
	if (format != MODEL_RECORD_FORMAT) {
		snprintf(why, why_size, "format %ld, not this version's %d", format,
			 MODEL_RECORD_FORMAT);
		return -EPROTONOSUPPORT;
	}
	return 0;
}

/* A "power_scale" line's value, the @n-th line: a metered actor's calibration. */
static int parse_scale(const char *value, unsigned int n, struct model_record *r, char *why,
		       size_t why_size)
{
	static const struct field key = { SCALE_KEY, F_HEX, 0, 1 };
	static const struct field sums = { SCALE_KEY, F_DOUBLES, 0, 6 };
	struct model_scale *s = &r->scales[r->n_scales];
	char hex[17];
	size_t len = strcspn(value, " \t");

	if (r->n_scales >= ZONE_MAX_ACTORS) {
		snprintf(why, why_size, "line %u: more than %d %s lines", n, ZONE_MAX_ACTORS,
			 SCALE_KEY);
		return -EINVAL;
	}
	snprintf(hex, sizeof(hex), "%.*s", (int)(len < 16 ? len : 16), value);
	value += len;
	value += strspn(value, " \t");
	/* The helpers write at their field's offset in a record: here, into @s. */
	if (len != 16 || parse_value(&key, hex, (struct model_record *)(void *)&s->key) < 0 ||
	    parse_value(&sums, value, (struct model_record *)(void *)&s->state) < 0) {
		snprintf(why, why_size, "line %u: bad %s \"%.40s\"", n, SCALE_KEY, value);
		return -EINVAL;
	}
	r->n_scales++;
	return 0;
}

/* One line of the text (modified), the @n-th; *@format_seen once "format" was read. */
static int parse_line(char *line, unsigned int n, bool *format_seen, bool *seen,
		      struct model_record *r, char *why, size_t why_size)
{
	const struct field *f;
	char *key, *value;
	int err;

	while (isspace((unsigned char)*line))
		line++;
	if (*line == '\0' || *line == '#')
		return 0;
	if (!split(line, &key, &value)) {
		snprintf(why, why_size, "line %u: no \"key = value\"", n);
		return -EINVAL;
	}
	if (!*format_seen) {
		err = parse_format(key, value, why, why_size);
		*format_seen = err == 0;
		return err;
	}
	if (strcmp(key, SCALE_KEY) == 0)
		return parse_scale(value, n, r, why, why_size);
	f = find_field(key);
	if (!f || seen[f - fields]) {
		snprintf(why, why_size, "line %u: %s key \"%s\"", n, f ? "repeated" : "unknown", key);
		return -EINVAL;
	}
	seen[f - fields] = true;
	if (parse_value(f, value, r) < 0) {
		snprintf(why, why_size, "line %u: bad %s \"%.40s\"", n, key, value);
		return -EINVAL;
	}
	return 0;
}

int model_record_parse(const char *text, struct model_record *r, char *why, size_t why_size)
{
	char line[MODEL_RECORD_TEXT_MAX];
	bool seen[N_FIELDS] = { false }, format_seen = false;
	unsigned int n = 0;
	int err = 0;

	memset(r, 0, sizeof(*r));
	while (*text && err == 0) {
		size_t len = strcspn(text, "\n");

		n++;
		if (len >= sizeof(line)) {
			snprintf(why, why_size, "line %u: too long", n);
			return -EINVAL;
		}
		memcpy(line, text, len);
		line[len] = '\0';
		text += len + (text[len] == '\n');
		err = parse_line(line, n, &format_seen, seen, r, why, why_size);
	}
	if (err < 0)
		return err;
	if (!format_seen) {
		snprintf(why, why_size, "no \"format\" line");
		return -EINVAL;
	}
	for (size_t i = 0; i < N_FIELDS; i++) {
		if (!seen[i]) {
			snprintf(why, why_size, "no \"%s\" line", fields[i].key);
			return -EINVAL;
		}
	}
	return 0;
}

int model_record_file_name(const char *zone, char *buf, size_t size)
{
	size_t len = 0;

	for (const char *p = zone; *p; p++) {
		unsigned char c = (unsigned char)*p;
		bool plain = isalnum(c) || c == '-' || c == '_' || (c == '.' && p != zone);

		/* isalnum() of the C locale: ASCII letters and digits only. */
		if (plain && c < 0x80)
			append(buf, size, &len, "%c", c);
		else
			append(buf, size, &len, "%%%02X", c);
	}
	append(buf, size, &len, ".model");
	return len < size ? (int)len : -ENAMETOOLONG;
}
