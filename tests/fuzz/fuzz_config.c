/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target: the config parser, any bytes as a config file. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct pa_config *c;
	struct pa_config_error err;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (pa_config_load_string(text, "fuzz.conf", &c, &err) == 0)
		pa_config_free(c);
	free(text);
	return 0;
}
