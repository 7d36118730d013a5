/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "write_retry.h"

#include <errno.h>

uint32_t write_retry_delay_ms(uint32_t failures)
{
	uint32_t ms = WRITE_RETRY_FIRST_MS;

	for (uint32_t k = 1; k < failures && ms < WRITE_RETRY_MAX_MS; k++)
		ms *= 2;
	return ms < WRITE_RETRY_MAX_MS ? ms : WRITE_RETRY_MAX_MS;
}

bool write_retry_due(const struct write_retry *w, uint64_t now_us)
{
	return w->failures == 0 || now_us + WRITE_RETRY_EARLY_US >= w->retry_us;
}

int write_retry_note(struct write_retry *w, int r, uint64_t now_us)
{
	if (r == 0) {
		w->failures = 0;
		w->retry_us = 0;
		return 0;
	}
	if (w->errors < UINT32_MAX)
		w->errors++;
	if (r != -EAGAIN)
		return r;
	if (w->failures < UINT32_MAX)
		w->failures++;
	w->retry_us = now_us + (uint64_t)write_retry_delay_ms(w->failures) * 1000;
	return 0;
}
