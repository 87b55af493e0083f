// SPDX-License-Identifier: GPL-2.0
/*
 * The time axis of a run: when each ok repetition started, and whether a
 * workload's figures drifted over that time (stats/drift.h); and the
 * counts of meta.json's cells and cells_reps held to cells.csv's rows
 * (a file cut to its header is not a run of the cells meta.json counts).
 *
 * The times are meta.json's cells_reps, one
 * entry per cell ({"cell": I, "rep_start": ["2026-12-04T06:38:19.107Z",
 * ...]}), the rep column indexing rep_start. Each is a UTC time of this
 * form or null (a visit matrix.json had no time for), checked when the
 * run is opened (read_meta.c); a run from an older futexlab, without
 * the times, or a null, leaves NaN and the drift check reports that it
 * had too few times.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rundir/columns.h"
#include "rundir/read.h"
#include "stats/drift.h"

int fl_rd_utc_seconds(const char *s, double *t)
{
	static const char form[] = "dddd-dd-ddTdd:dd:dd";
	struct tm tm = { 0 };
	int y, mo, d, h, mi, sec, used = 0;
	unsigned int ms = 0;

	/* digits where the form has them: sscanf alone takes a sign or a
	 * space in their place */
	for (size_t i = 0; i < 19; i++)
		if (!(form[i] == 'd' ? s[i] >= '0' && s[i] <= '9' :
		      s[i] == form[i]))
			return -1;
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec,
		   &used) != 6 || used != 19)
		return -1;
	s += used;
	if (*s == '.') {
		int digits = 0;

		while (s[1 + digits] >= '0' && s[1 + digits] <= '9' &&
		       digits < 9)
			digits++;
		if (digits != 3 || sscanf(s + 1, "%3u", &ms) != 1)
			return -1;
		s += 4;
	}
	if (strcmp(s, "Z") || y < 1970 || mo < 1 || mo > 12 || d < 1 ||
	    d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 ||
	    sec > 60)
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	*t = (double)timegm(&tm) + ms / 1000.0;
	return 0;
}

/* The run's cells by index: pos[i] is cell index i's place in r->cells,
 * or -1 (*npos entries; free it). NULL: out of memory. */
static long *index_map(const struct fl_rd_run *r, unsigned long *npos)
{
	long *pos;

	*npos = 0;
	for (unsigned long i = 0; i < r->ncells; i++)
		if (r->cells[i].index >= *npos)
			*npos = r->cells[i].index + 1;
	pos = malloc((*npos + 1) * sizeof(*pos));
	for (unsigned long i = 0; pos && i < *npos; i++)
		pos[i] = -1;
	for (unsigned long i = 0; pos && i < r->ncells; i++)
		pos[r->cells[i].index] = (long)i;
	return pos;
}

/* The place in r->cells of the cell an entry names, or -1 (none). */
static long place_of(const long *pos, unsigned long npos, json_t *entry)
{
	json_t *index = json_object_get(entry, "cell");
	json_int_t i = json_is_integer(index) ? json_integer_value(index) : -1;

	return i < 0 || (unsigned long long)i >= npos ? -1 : pos[i];
}

void fl_rd_rep_times(struct fl_rd_run *r)
{
	json_t *all = fl_rd_meta_json(r, "cells_reps"), *entry;
	unsigned long npos;
	long *pos, at;
	size_t k;

	for (unsigned long i = 0; i < r->ncells; i++)
		for (unsigned int j = 0; j < FL_RD_MAX_REPS; j++)
			r->cells[i].t_start[j] = NAN;
	if (!json_is_array(all) || !(pos = index_map(r, &npos)))
		return;
	json_array_foreach(all, k, entry) {
		json_t *starts = json_object_get(entry, "rep_start");
		struct fl_rd_cell *c;

		if ((at = place_of(pos, npos, entry)) < 0 ||
		    !json_is_array(starts))
			continue;
		c = &r->cells[at];
		for (unsigned int j = 0; j < c->nok; j++) {
			json_t *s = json_array_get(starts, c->ok_rep[j]);

			if (json_is_string(s) &&
			    fl_rd_utc_seconds(json_string_value(s),
					      &c->t_start[j]))
				c->t_start[j] = NAN;
		}
	}
	free(pos);
}

/* One entry of cells_reps against its cell's rows; seen marks the cells
 * named so far. 0, or -1 with err. */
static int check_entry(const struct fl_rd_run *r, json_t *e, size_t k,
		       long at, unsigned char *seen, const char *file,
		       char *err, size_t errlen)
{
	json_t *reps = json_object_get(e, "reps");
	json_t *starts = json_object_get(e, "rep_start");
	long long cell = (long long)json_integer_value(json_object_get(e,
								      "cell"));
	unsigned int rows;

	if (at < 0 || seen[at]) {
		snprintf(err, errlen, "%s: cells_reps[%zu].cell: %s %lld", file,
			 k, at < 0 ? "cells.csv has no rows of cell" :
			 "an earlier entry is of cell", cell);
		return -1;
	}
	seen[at] = 1;
	rows = r->cells[at].nrows;
	if (reps && json_integer_value(reps) != (json_int_t)rows) {
		snprintf(err, errlen, "%s: cells_reps[%zu].reps is %lld, but "
			 "cells.csv holds %u rows of cell %lld", file, k,
			 (long long)json_integer_value(reps), rows, cell);
		return -1;
	}
	if (starts && json_array_size(starts) != rows) {
		snprintf(err, errlen, "%s: cells_reps[%zu].rep_start has %zu "
			 "times, but cells.csv holds %u rows of cell %lld",
			 file, k, json_array_size(starts), rows, cell);
		return -1;
	}
	return 0;
}

/* cells_reps (types checked by read_meta.c): an entry per cell of
 * cells.csv, each with as many repetitions and start times as the cell
 * has rows. */
static int check_cells_reps(const struct fl_rd_run *r, const char *file,
			    char *err, size_t errlen)
{
	json_t *all = json_object_get(r->meta, "cells_reps"), *e;
	unsigned char *seen = calloc(r->ncells + 1, 1);
	unsigned long npos;
	long *pos = index_map(r, &npos);
	int rc = -1;
	size_t k;

	if (!seen || !pos) {
		snprintf(err, errlen, "%s: out of memory", file);
		goto out;
	}
	json_array_foreach(all, k, e)
		if (check_entry(r, e, k, place_of(pos, npos, e), seen, file,
				err, errlen))
			goto out;
	for (unsigned long i = 0; all && i < r->ncells; i++) {
		if (!seen[i]) {
			snprintf(err, errlen, "%s: cells_reps has no entry of "
				 "cell %lu, which cells.csv has", file,
				 r->cells[i].index);
			goto out;
		}
	}
	rc = 0;
out:
	free(seen);
	free(pos);
	return rc;
}

int fl_rd_check_counts(const struct fl_rd_run *r, const char *file,
		       char *err, size_t errlen)
{
	/* in the order of fl_col_status_rank() */
	static const char *const keys[] = { "ok", "failed", "skipped",
					    "aborted" };
	json_t *cells = json_object_get(r->meta, "cells"), *v;
	unsigned long n[4] = { 0 };

	for (unsigned long i = 0; i < r->ncells; i++)
		n[fl_col_status_rank(r->cells[i].status)]++;
	v = json_object_get(cells, "total");
	if (v && json_integer_value(v) != (json_int_t)r->ncells) {
		snprintf(err, errlen, "%s: cells.total is %lld, but cells.csv "
			 "holds %lu cells", file,
			 (long long)json_integer_value(v), r->ncells);
		return -1;
	}
	for (size_t i = 0; i < 4; i++) {
		v = json_object_get(cells, keys[i]);
		if (v && json_integer_value(v) != (json_int_t)n[i]) {
			snprintf(err, errlen, "%s: cells.%s is %lld, but "
				 "cells.csv holds %lu %s cells (a cell is as "
				 "its worst row)", file, keys[i],
				 (long long)json_integer_value(v), n[i],
				 keys[i]);
			return -1;
		}
	}
	return check_cells_reps(r, file, err, errlen);
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
