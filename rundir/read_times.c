// SPDX-License-Identifier: GPL-2.0
/*
 * The time axis of a run: when each ok repetition started, and whether a
 * workload's figures drifted over that time (stats/drift.h).
 *
 * The times are meta.json's cells_reps, one
 * entry per cell ({"cell": I, "rep_start": ["2026-12-04T06:38:19.107Z",
 * ...]}), the rep column indexing rep_start. Read leniently: the times
 * serve one check (the drift over time, stats/drift.h), so a run from an
 * older futexlab, or a time that is not a UTC timestamp of this form,
 * leaves NaN and the check reports that it had too few times.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rundir/read.h"
#include "stats/drift.h"

/* "YYYY-MM-DDTHH:MM:SS[.fff]Z" as seconds since the epoch, or NaN */
static double utc_seconds(const char *s)
{
	struct tm tm = { 0 };
	int y, mo, d, h, mi, sec, used = 0;
	unsigned int ms = 0;

	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec,
		   &used) != 6 || used != 19)
		return NAN;
	s += used;
	if (*s == '.') {
		int digits = 0;

		while (s[1 + digits] >= '0' && s[1 + digits] <= '9' &&
		       digits < 9)
			digits++;
		if (digits != 3 || sscanf(s + 1, "%3u", &ms) != 1)
			return NAN;
		s += 4;
	}
	if (strcmp(s, "Z") || y < 1970 || mo < 1 || mo > 12 || d < 1 ||
	    d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 ||
	    sec > 60)
		return NAN;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	return (double)timegm(&tm) + ms / 1000.0;
}

/* The cell with this index through pos (index -> place, -1: none) */
static struct fl_rd_cell *cell_of(struct fl_rd_run *r, const long *pos,
				  unsigned long npos, json_t *index)
{
	json_int_t i = json_is_integer(index) ? json_integer_value(index) : -1;

	if (i < 0 || (unsigned long long)i >= npos || pos[i] < 0)
		return NULL;
	return &r->cells[pos[i]];
}

void fl_rd_rep_times(struct fl_rd_run *r)
{
	json_t *all = fl_rd_meta_json(r, "cells_reps"), *entry;
	unsigned long npos = 0;
	long *pos;
	size_t k;

	for (unsigned long i = 0; i < r->ncells; i++) {
		for (unsigned int j = 0; j < FL_RD_MAX_REPS; j++)
			r->cells[i].t_start[j] = NAN;
		if (r->cells[i].index >= npos)
			npos = r->cells[i].index + 1;
	}
	if (!json_is_array(all) || !(pos = malloc((npos + 1) * sizeof(*pos))))
		return;
	for (unsigned long i = 0; i < npos; i++)
		pos[i] = -1;
	for (unsigned long i = 0; i < r->ncells; i++)
		pos[r->cells[i].index] = (long)i;
	json_array_foreach(all, k, entry) {
		struct fl_rd_cell *c = cell_of(r, pos, npos,
					       json_object_get(entry, "cell"));
		json_t *starts = json_object_get(entry, "rep_start");

		if (!c || !json_is_array(starts))
			continue;
		for (unsigned int j = 0; j < c->nok; j++) {
			json_t *s = json_array_get(starts, c->ok_rep[j]);

			if (json_is_string(s))
				c->t_start[j] = utc_seconds(
					json_string_value(s));
		}
	}
	free(pos);
}

int fl_rd_drift(const struct fl_rd_run *r, const char *workload,
		double *const *vals, struct fl_drift *d)
{
	const double **v = calloc(r->ncells + 1, sizeof(*v));
	const double **t = calloc(r->ncells + 1, sizeof(*t));
	unsigned int *n = calloc(r->ncells + 1, sizeof(*n));
	size_t k = 0;
	int rc = -1;

	memset(d, 0, sizeof(*d));
	for (unsigned long i = 0; v && t && n && i < r->ncells; i++) {
		const struct fl_rd_cell *c = &r->cells[i];

		if (strcmp(c->workload, workload) || strcmp(c->status, "ok"))
			continue;
		v[k] = vals && vals[i] ? vals[i] : c->primary;
		t[k] = c->t_start;
		n[k++] = c->nok;
	}
	if (v && t && n)
		rc = fl_drift_of_cells(v, t, n, k, d);
	free(v);
	free(t);
	free(n);
	return rc;
}
