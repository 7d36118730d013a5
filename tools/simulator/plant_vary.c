/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "plant_vary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double plant_die_tau_s(const struct thermal_params *p)
{
	return p->die_capacity_j_per_k * p->die_to_case_k_per_w;
}

double plant_case_tau_s(const struct thermal_params *p)
{
	return p->case_capacity_j_per_k * p->case_to_ambient_k_per_w;
}

void plant_vary(struct thermal_params *p, const struct plant_variation *v)
{
	double die_tau_s = v->die_tau_s > 0 ? v->die_tau_s : plant_die_tau_s(p);
	double case_tau_s = v->case_tau_s > 0 ? v->case_tau_s : plant_case_tau_s(p);
	double total = p->die_to_case_k_per_w + p->case_to_ambient_k_per_w;
	double share = p->die_to_case_k_per_w / total;

	if (v->resistance_k_per_w > 0)
		total = v->resistance_k_per_w;
	if (v->die_share > 0 && v->die_share < 1)
		share = v->die_share;
	p->die_to_case_k_per_w = share * total;
	p->case_to_ambient_k_per_w = (1 - share) * total;
	p->die_capacity_j_per_k = die_tau_s / p->die_to_case_k_per_w;
	p->case_capacity_j_per_k = case_tau_s / p->case_to_ambient_k_per_w;
	if (v->power_scale > 0)
		p->power_scale = v->power_scale;
	if (v->ambient_step_c != 0)
		p->ambient_step_c = v->ambient_step_c;
}

/* "@what: no domain X on BOARD (its domains: a, b, c)". */
static void say_domains(const struct board *b, const char *what, const char *name, size_t len)
{
	fprintf(stderr, "%s: no domain \"%.*s\" on %s (its domains:", what, (int)len, name,
		b->name);
	for (size_t k = 0; k < b->n_domains; k++)
		fprintf(stderr, "%s %s", k ? "," : "", b->domains[k].name);
	fprintf(stderr, ")\n");
}

/* One "NAME=X" of @len characters at @s into @scale.  Return: 0 or -1 (said). */
static int parse_domain_scale(const struct board *b, const char *s, size_t len,
			      double scale[PLANT_MAX_DOMAINS], const char *what)
{
	const char *eq = memchr(s, '=', len);
	char number[32], *end;
	double x;

	if (!eq || eq == s || (size_t)(s + len - eq - 1) >= sizeof(number)) {
		fprintf(stderr, "%s: NAME=X[,NAME=X...], not \"%.*s\"\n", what, (int)len, s);
		return -1;
	}
	snprintf(number, sizeof(number), "%.*s", (int)(s + len - eq - 1), eq + 1);
	x = strtod(number, &end);
	if (end == number || *end || !(x >= 0.1 && x <= 10)) {
		fprintf(stderr, "%s: %.*s: a number from 0.1 to 10, not \"%s\"\n", what,
			(int)(eq - s), s, number);
		return -1;
	}
	for (size_t k = 0; k < b->n_domains && k < PLANT_MAX_DOMAINS; k++)
		if (strlen(b->domains[k].name) == (size_t)(eq - s) &&
		    strncmp(b->domains[k].name, s, (size_t)(eq - s)) == 0) {
			scale[k] = x;
			return 0;
		}
	say_domains(b, what, s, (size_t)(eq - s));
	return -1;
}

int plant_vary_domains(struct thermal_params *p, const struct board *b, const char *text,
		       const char *what)
{
	double scale[PLANT_MAX_DOMAINS] = { 0 };

	for (const char *s = text; s && *s;) {
		size_t len = strcspn(s, ",");

		if (parse_domain_scale(b, s, len, scale, what) < 0)
			return -1;
		s += len + (s[len] == ',');
	}
	for (size_t k = 0; k < PLANT_MAX_DOMAINS; k++)
		if (scale[k] > 0)
			p->domain_scale[k] = scale[k];
	return 0;
}
