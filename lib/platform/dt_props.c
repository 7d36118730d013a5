/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "dt_props.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "parse.h"

int dt_decode_opp(const void *hz, size_t hz_len, const void *uv, size_t uv_len, struct opp *opp)
{
	uint64_t khz;

	if (hz_len < 8 || uv_len < 4)
		return -EINVAL;
	khz = parse_dt_u64(hz) / 1000;
	memset(opp, 0, sizeof(*opp));
	if (khz == 0 || khz > UINT32_MAX)
		return -EINVAL;
	opp->freq_khz = (uint32_t)khz;
	opp->voltage_uv = parse_be32(uv);
	return opp->voltage_uv ? 0 : -EINVAL;
}

size_t dt_decode_operating_points(const void *cells, size_t len, struct opp *opps, size_t max)
{
	const unsigned char *c = cells;
	size_t n = 0;

	for (size_t i = 0; i + 8 <= len && n < max; i += 8) {
		struct opp o = { .freq_khz = parse_be32(c + i), .voltage_uv = parse_be32(c + i + 4) };

		if (o.freq_khz && o.voltage_uv)
			opps[n++] = o;
	}
	return n;
}
