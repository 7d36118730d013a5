/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "parse.h"

uint32_t parse_be32(const unsigned char *cell)
{
	return (uint32_t)cell[0] << 24 | (uint32_t)cell[1] << 16 | (uint32_t)cell[2] << 8 | cell[3];
}

uint64_t parse_dt_u64(const unsigned char *cells)
{
	return (uint64_t)parse_be32(cells) << 32 | parse_be32(cells + 4);
}
