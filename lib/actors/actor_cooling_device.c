/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A cooling device without a power model (a fan, ACPI processor
 * throttling, ...), driven by state only through the step_wise fallback
 * (lib/control/fallback.h).  It asks for no power and takes no part in a budget.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "actor_internal.h"

struct cdev_actor {
	struct actor base;
	struct cooling_state cs;
};

static struct cdev_actor *to_cdev(struct actor *a)
{
	return (struct cdev_actor *)a;
}

static int cdev_sample(struct actor *a, const struct cycle_sample *s)
{
	(void)s;
	a->req_mw = a->max_mw = a->min_mw = 0;
	return 0;
}

/* Power has no meaning here: the state the fallback asks for is the decision. */
static int cdev_set_power(struct actor *a, uint32_t granted_mw)
{
	a->granted_mw = granted_mw;
	return 0;
}

/* No power model, so no power limits it: only the fallback's state does. */
static unsigned long cdev_state_for_power(const struct actor *a, uint32_t granted_mw)
{
	(void)a;
	(void)granted_mw;
	return 0;
}

static int cdev_set_state(struct actor *a, unsigned long state, uint32_t granted_mw)
{
	struct cdev_actor *c = to_cdev(a);
	int r = cooling_state_set(&c->cs, state);

	a->granted_mw = granted_mw;
	a->state = cooling_state_of(&c->cs, c->cs.file.written);
	return r;
}

static int cdev_check(struct actor *a, struct external_found *found)
{
	return actor_file_check(&to_cdev(a)->cs.file, found);
}

static int cdev_restore(struct actor *a)
{
	struct cdev_actor *c = to_cdev(a);
	int r = cooling_state_restore(&c->cs);

	a->state = cooling_state_of(&c->cs, c->cs.file.written);
	return r;
}

static int cdev_save(const struct actor *a, saved_value_fn fn, void *userdata)
{
	const struct cdev_actor *c = (const struct cdev_actor *)a;

	return actor_file_save(&c->cs.file, fn, userdata);
}

static void cdev_adopt(struct actor *a, const struct actor *old)
{
	cooling_state_adopt(&to_cdev(a)->cs, &((const struct cdev_actor *)old)->cs);
}

static void cdev_destroy(struct actor *a)
{
	cooling_state_close(&to_cdev(a)->cs);
	free(a);
}

static const struct actor_ops cdev_ops = {
	.sample = cdev_sample,
	.set_power = cdev_set_power,
	.state_for_power = cdev_state_for_power,
	.set_state = cdev_set_state,
	.check = cdev_check,
	.restore = cdev_restore,
	.save = cdev_save,
	.adopt = cdev_adopt,
	.destroy = cdev_destroy,
};

int actor_cooling_device_new(int cdev_id, const char *type, struct actor **ret)
{
	struct cdev_actor *c = calloc(1, sizeof(*c));
	int r;

	assert(type && ret);
	*ret = NULL;
	if (!c)
		return -ENOMEM;
	actor_init(&c->base, &cdev_ops, ACTOR_COOLING_DEVICE, NULL);
	c->base.cdev_id = cdev_id;
	snprintf(c->base.name, sizeof(c->base.name), "%s", type);
	if ((r = cooling_state_open(&c->cs, cdev_id)) < 0) {
		free(c);
		return r;
	}
	c->base.state = cooling_state_of(&c->cs, c->cs.file.original);
	c->base.max_state = c->cs.max_state;
	*ret = &c->base;
	return 0;
}
