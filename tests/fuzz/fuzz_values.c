/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target: sysfs value parsing (numbers) and CPU lists. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "control/cpumask.h"
#include "fuzz.h"
#include "platform/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct cpumask mask;
	char list[256];
	uint64_t u;
	int64_t s;

	if (!text)
		return 0;
	parse_u64((const char *)data, size, &u);
	parse_s64((const char *)data, size, &s);
	memcpy(text, data, size);
	text[size] = '\0';
	/* A list that parses formats back to one that parses to the same set. */
	if (cpumask_parse_list(text, &mask, NULL) == 0 &&
	    cpumask_format_list(&mask, list, sizeof(list)) >= 0) {
		struct cpumask again;

		if (cpumask_parse_list(list, &again, NULL) != 0 ||
		    memcmp(&mask, &again, sizeof(mask)) != 0)
			abort();
	}
	free(text);
	return 0;
}
