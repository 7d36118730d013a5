/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * Retrying a device whose writes fail while it is still there (EIO from a
 * flaky driver): its next write waits WRITE_RETRY_FIRST_MS, doubling with
 * each failure up to WRITE_RETRY_MAX_MS, so that it is neither hammered
 * every period nor taken for gone.  A device that is gone is the caller's
 * (a rescan).
 */
#include <stdbool.h>
#include <stdint.h>

/* Wait after the first failed write of an episode, ms. */
#define WRITE_RETRY_FIRST_MS 100
/* Longest wait between two tries, ms. */
#define WRITE_RETRY_MAX_MS 2000
/* A try this early counts as on time (timers wake a periodic caller a little early), us. */
#define WRITE_RETRY_EARLY_US 5000

/**
 * struct write_retry - one device's failed writes.
 * @errors: every failed write since it was first opened (saturates).
 * @failures: consecutive failed writes, this episode.
 * @retry_us: while @failures > 0, no write before this time (monotonic, us).
 */
struct write_retry {
	uint32_t errors;
	uint32_t failures;
	uint64_t retry_us;
};

/**
 * write_retry_delay_ms() - the wait after @failures consecutive failed writes
 * (>= 1): WRITE_RETRY_FIRST_MS doubled @failures - 1 times, at most
 * WRITE_RETRY_MAX_MS.
 */
uint32_t write_retry_delay_ms(uint32_t failures);

/** write_retry_due() - whether the device may be written at @now_us (not waiting out a backoff). */
bool write_retry_due(const struct write_retry *w, uint64_t now_us);

/**
 * write_retry_note() - account for the result @r of a write at @now_us:
 * 0 ends an episode; -EAGAIN (failed, the device is still there) counts
 * and backs off; another negative errno (the device is gone) only counts.
 * Return: 0 for 0 and -EAGAIN (handled here), else @r.
 */
int write_retry_note(struct write_retry *w, int r, uint64_t now_us);
