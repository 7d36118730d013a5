/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's trace and log, read back by the simulator: the zone's budget,
 * the gaps between active periods, the budget's swings (the limit-cycle
 * detector) and the sustainable power the daemon chose.
 */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_io.h"

/* Field @col (0-based) of a trace row, or NULL. */
static const char *trace_field(const char *row, int col)
{
	for (int c = 0; c < col && row; c++) {
		row = strchr(row, ',');
		row = row ? row + 1 : NULL;
	}
	return row;
}

/* The 0-based column named @name in the trace's header row, -1 when it has none. */
static int header_column(const char *header, const char *name)
{
	size_t len = strlen(name);
	int col = 0;

	for (const char *f = header; f; f = strchr(f, ','), f = f ? f + 1 : NULL, col++)
		if (strncmp(f, name, len) == 0 && (f[len] == ',' || f[len] == '\0' || f[len] == '\n'))
			return col;
	return -1;
}

/* The model the zone had at its first active period: its sustainable power and confidence. */
static void note_first_model(struct sim *sim, const char *row)
{
	const char *sp = sim->sp_col > 0 ? trace_field(row, sim->sp_col) : NULL;
	const char *conf = sim->confidence_col > 0 ? trace_field(row, sim->confidence_col) : NULL;

	sim->first_model_sp_mw = sp ? strtol(sp, NULL, 10) : -1;
	sim->first_model_confidence = conf ? strtod(conf, NULL) : -1;
}

/*
 * The limit-cycle detector, once per active period: the budget's band
 * (under SIM_BUDGET_LOW or over SIM_BUDGET_HIGH of the maximum, else the
 * band it was in), and a swing counted when it moves from one band to the
 * other.
 */
static void count_swing(struct sim *sim)
{
	double share = sim->max_budget_mw > 0 ? sim->budget_mw / sim->max_budget_mw : 0;
	int band = share <= SIM_BUDGET_LOW ? -1 : share >= SIM_BUDGET_HIGH ? 1 : sim->budget_band;

	if (sim->trace_settled && band && sim->budget_band && band != sim->budget_band)
		sim->budget_swings++;
	sim->budget_band = band;
}

/*
 * One complete trace row: the budget (column 10), the gap since the
 * previous period when both were active (columns 1 and 4), which shows a
 * daemon that did not run on time, and the temperature the zone first
 * became active at (column 3).
 */
static void trace_row(struct sim *sim, const char *row)
{
	const char *temp = trace_field(row, 2), *active = trace_field(row, 3);
	const char *budget = trace_field(row, 9);
	long time_ms = strtol(row, NULL, 10);
	bool is_active = active && active[0] == '1';

	if (strncmp(row, "time_ms,", 8) == 0) {
		sim->sp_col = header_column(row, "learned_sp_mw");
		sim->confidence_col = header_column(row, "model_confidence");
	}
	if (row[0] < '0' || row[0] > '9' || !budget || !strchr(budget, ','))
		return;	/* the header, or not a row */
	sim->budget_mw = strtol(budget, NULL, 10);
	if (time_ms == sim->trace_last_ms)
		return;	/* another actor of the same period */
	if (is_active && sim->trace_last_active && time_ms - sim->trace_last_ms > sim->trace_max_gap_ms)
		sim->trace_max_gap_ms = time_ms - sim->trace_last_ms;
	if (is_active && !sim->first_active_mc && temp) {
		sim->first_active_mc = strtol(temp, NULL, 10);
		sim->first_active_daemon_ms = time_ms;
		note_first_model(sim, row);
	}
	if (is_active)
		count_swing(sim);
	sim->trace_last_ms = time_ms;
	sim->trace_last_active = is_active;
}

void sim_read_trace(struct sim *sim)
{
	char buf[4096 + sizeof(sim->trace_tail)];
	size_t kept = strlen(sim->trace_tail);
	ssize_t n;

	if (sim->trace_fd < 0) {
		char path[512];

		snprintf(path, sizeof(path), "%s/trace.csv", sim->dir);
		sim->trace_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (sim->trace_fd < 0)
			return;	/* no trace yet */
	}
	/* A row the daemon had not finished writing at the last read comes first. */
	memcpy(buf, sim->trace_tail, kept);
	while ((n = read(sim->trace_fd, buf + kept, sizeof(buf) - 1 - kept)) > 0) {
		char *row = buf, *nl;

		buf[kept + (size_t)n] = '\0';
		while ((nl = strchr(row, '\n'))) {
			*nl = '\0';
			trace_row(sim, row);
			row = nl + 1;
		}
		kept = strlen(row);
		if (kept >= sizeof(sim->trace_tail))
			kept = 0;	/* no row is that long: drop it */
		memmove(buf, row, kept);
	}
	memcpy(sim->trace_tail, buf, kept);
	sim->trace_tail[kept] = '\0';
}

/* @row of the trace with its sim_time_ms (the header with the name) to @out. */
static void write_with_plant_clock(FILE *out, const char *row, const struct sim *sim,
				   double speed)
{
	size_t len = strcspn(row, "\n");

	if (row[0] < '0' || row[0] > '9') {
		fprintf(out, "%.*s%s\n", (int)len, row, strncmp(row, "time_ms,", 8) == 0 ?
			",sim_time_ms" : "");
		return;
	}
	fprintf(out, "%.*s,%ld\n", (int)len, row,
		lround((strtod(row, NULL) - sim->plant_start_daemon_ms) * speed));
}

int sim_trace_add_plant_clock(const struct sim *sim, double speed)
{
	char path[600], tmp[610], row[1024];
	FILE *in, *out = NULL;
	int r = -1;

	snprintf(path, sizeof(path), "%s/trace.csv", sim->dir);
	snprintf(tmp, sizeof(tmp), "%s.sim", path);
	if (sim->plant_start_daemon_ms < 0) {
		fprintf(stderr, "%s: the plant's clock is unknown; no sim_time_ms column\n", path);
		return -1;
	}
	in = fopen(path, "re");
	if (in && (out = fopen(tmp, "we"))) {
		/* A row cut at the daemon's stop has no newline: it is left out. */
		while (fgets(row, sizeof(row), in))
			if (strchr(row, '\n'))
				write_with_plant_clock(out, row, sim, speed);
		r = ferror(in) || fclose(out) != 0 ? -1 : rename(tmp, path);
		out = NULL;
	}
	if (out)
		fclose(out);
	if (r < 0) {
		fprintf(stderr, "%s: cannot add sim_time_ms\n", path);
		unlink(tmp);
	}
	if (in)
		fclose(in);
	return r;
}

bool sim_limit_cycle(const struct sim *sim, double settled_s)
{
	return sim->budget_swings >= SIM_LIMIT_CYCLE_MIN_SWINGS &&
	       settled_s / sim->budget_swings <= SIM_LIMIT_CYCLE_SWING_S;
}

void sim_daemon_sustainable(const struct sim *sim, char *buf, size_t size)
{
	static const char key[] = "sustainable power ";
	char path[600], line[512];
	FILE *log;

	snprintf(buf, size, "?");
	snprintf(path, sizeof(path), "%s/powerallocd.log", sim->dir);
	log = fopen(path, "re");
	while (log && fgets(line, sizeof(line), log)) {
		const char *at = strstr(line, key), *end;

		/* "sustainable power 2200 mW (config)": the number and its source. */
		if (!at || !(end = strchr(at, ')')))
			continue;
		at += sizeof(key) - 1;
		snprintf(buf, size, "%.*s", (int)(end + 1 - at), at);
	}
	if (log)
		fclose(log);
}
