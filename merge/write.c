// SPDX-License-Identifier: GPL-2.0
/*
 * Writing the merged run (merge/merge.h): a new run directory through
 * rundir/'s writer, the shards' rows in cell order, their histograms and
 * bins copied under the same names, the matrix's copy, and meta.json:
 * the first shard's, with the cells counted over all shards, each cell's
 * cells_reps entry naming its host, and "merged" listing the shards.
 */
#include "merge/merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rundir/meta.h"
#include "rundir/regular.h"
#include "rundir/write.h"
#include "rundir/write_at.h"

struct row {
	unsigned long cell;
	unsigned long order;		/* its place among all rows read */
	const char *text;
	size_t len;
};

static int by_cell(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->cell != y->cell)
		return x->cell < y->cell ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Every shard's rows (the readers passed them), in cell order: the
 * cell column leads each row. */
static int write_rows(const struct fl_merged *m, struct fl_run *run)
{
	unsigned long nrows = 0, at = 0;
	struct row *rows;
	int rc = 0;

	for (unsigned int i = 0; i < m->n; i++)
		for (size_t b = 0; b < m->shards[i].cells_len; b++)
			nrows += m->shards[i].cells_text[b] == '\n';
	rows = calloc(nrows + 1, sizeof(*rows));
	if (!rows)
		return -1;
	for (unsigned int i = 0; i < m->n; i++) {
		const char *t = m->shards[i].cells_text;
		const char *end = t + m->shards[i].cells_len;
		const char *p = memchr(t, '\n', (size_t)(end - t)) + 1;

		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));

			rows[at] = (struct row){ strtoul(p, NULL, 10), at, p,
						 (size_t)(nl - p) + 1 };
			at++;
			p = nl + 1;
		}
	}
	qsort(rows, at, sizeof(*rows), by_cell);
	for (unsigned long r = 0; r < at && !rc; r++)
		if (fwrite(rows[r].text, 1, rows[r].len, run->cells) !=
		    rows[r].len)
			rc = -1;
	free(rows);
	return rc || fflush(run->cells) ? -1 : 0;
}

/* folder/name of the shard copied into the run's folder; 0 when there
 * is none (a bins file), -1 with err. */
static int copy_file(const struct fl_merge_shard *s, int folder_fd,
		     const char *folder, const char *name, struct fl_run *run,
		     char *err, size_t errlen)
{
	char from[320], shown[PATH_MAX + 320];
	char *text;
	size_t len;
	int rc;

	snprintf(from, sizeof(from), "%s/%s", folder, name);
	snprintf(shown, sizeof(shown), "%s/%s", s->r.dir, from);
	if (fl_read_regular(s->r.dirfd, from, shown, FL_NOFOLLOW,
			    FL_MAX_INPUT_BYTES, &text, &len, err, errlen))
		return errno == ENOENT && !strcmp(folder, "bins") ? 0 : -1;
	snprintf(shown, sizeof(shown), "%s/%s", run->tmp, from);
	rc = fl_write_at(folder_fd, name, shown, text, len, err, errlen);
	free(text);
	return rc;
}

/* Each cell's histogram and its repetitions' bins. */
static int copy_cell_files(const struct fl_merged *m, struct fl_run *run,
			   char *err, size_t errlen)
{
	char shown[PATH_MAX + 16], name[64];
	int hist, bins, rc = 0;

	snprintf(shown, sizeof(shown), "%s/hist", run->tmp);
	hist = fl_folder_at(run->fd, "hist", shown, err, errlen);
	snprintf(shown, sizeof(shown), "%s/bins", run->tmp);
	bins = hist < 0 ? -1 : fl_folder_at(run->fd, "bins", shown, err,
					    errlen);
	for (unsigned int i = 0; bins >= 0 && !rc && i < m->n; i++) {
		const struct fl_merge_shard *s = &m->shards[i];

		for (unsigned long c = 0; !rc && c < s->r.ncells; c++) {
			const struct fl_rd_cell *cell = &s->r.cells[c];

			if (*cell->hist)
				rc = copy_file(s, hist, "hist", cell->hist + 5,
					       run, err, errlen);
			for (unsigned int r = 0; !rc && r < FL_RD_MAX_REPS;
			     r++) {
				snprintf(name, sizeof(name),
					 "cell-%04lu-rep-%03u.csv", cell->index,
					 r);
				rc = copy_file(s, bins, "bins", name, run, err,
					       errlen);
			}
		}
	}
	if (hist >= 0)
		close(hist);
	if (bins >= 0)
		close(bins);
	return hist < 0 || bins < 0 ? -1 : rc;
}

/* Per shard: where it ran and when. */
static json_t *shard_list(const struct fl_merged *m)
{
	json_t *all = json_array();

	for (unsigned int i = 0; i < m->n; i++) {
		const struct fl_merge_shard *s = &m->shards[i];
		json_t *cells = json_array();

		for (unsigned long c = 0; c < s->r.ncells; c++)
			json_array_append_new(cells, json_integer(
				(json_int_t)s->r.cells[c].index));
		json_array_append_new(all, json_pack(
			"{s:i, s:i, s:s, s:s, s:O?, s:O?, s:O?, s:O?, s:O?,"
			" s:O?, s:o}",
			"k", (int)s->k, "n", (int)s->n, "run", s->r.name,
			"host", s->host,
			"hostname", fl_rd_meta_json(&s->r, "machine.hostname"),
			"kernel", fl_rd_meta_json(&s->r, "machine.kernel"),
			"cpu_model", fl_rd_meta_json(&s->r, "machine.cpu_model"),
			"cpus_allowed", fl_rd_meta_json(&s->r,
				"machine.topology.cpus_allowed"),
			"start_time", fl_rd_meta_json(&s->r, "start_time"),
			"end_time", fl_rd_meta_json(&s->r, "end_time"),
			"cells", cells));
	}
	return all;
}

/* cells_reps of every shard, in cell order, each with its host. */
static json_t *cells_reps(const struct fl_merged *m)
{
	json_t **at = calloc(m->ncells + 1, sizeof(*at));
	json_t *all = json_array(), *e;
	size_t k;

	for (unsigned int i = 0; at && i < m->n; i++) {
		const struct fl_merge_shard *s = &m->shards[i];

		json_array_foreach(fl_rd_meta_json(&s->r, "cells_reps"), k, e) {
			json_t *c = json_object_get(e, "cell");
			json_int_t v = json_is_integer(c) ?
				       json_integer_value(c) : -1;

			/* only a cell this shard ran is taken from it */
			if (v < 0 || (unsigned long)v >= m->ncells || at[v] ||
			    !json_is_object(e))
				continue;
			if (!fl_merge_has_cell(&s->r, (unsigned long)v))
				continue;
			at[v] = json_deep_copy(e);
			json_object_set_new(at[v], "host",
					    json_string(s->host));
		}
	}
	for (unsigned long c = 0; at && c < m->ncells; c++)
		if (at[c])
			json_array_append_new(all, at[c]);
	free(at);
	return all;
}

/* The cells counted by status over every shard. */
static json_t *cell_counts(const struct fl_merged *m)
{
	static const char *const keys[] = { "total", "ok", "failed",
					    "skipped", "aborted" };
	json_t *o = json_object();

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_int_t sum = 0;

		for (unsigned int s = 0; s < m->n; s++) {
			json_t *v = json_object_get(fl_rd_meta_json(
				&m->shards[s].r, "cells"), keys[i]);

			sum += json_is_integer(v) ? json_integer_value(v) : 0;
		}
		json_object_set_new(o, keys[i], json_integer(sum));
	}
	return o;
}

/* The earliest start and the latest end, the most any shard's other
 * processes took, the budget the shards had together. */
static void span(const struct fl_merged *m, json_t *meta)
{
	const char *start = NULL, *end = NULL;
	double foreign = -1, budget = 0;

	for (unsigned int i = 0; i < m->n; i++) {
		const struct fl_rd_run *r = &m->shards[i].r;
		const char *s = json_string_value(fl_rd_meta_json(r,
							"start_time"));
		const char *e = json_string_value(fl_rd_meta_json(r,
							"end_time"));
		json_t *f = fl_rd_meta_json(r, "foreign_cpu_share");
		json_t *b = fl_rd_meta_json(r, "matrix.time_budget_s");

		if (s && (!start || strcmp(s, start) < 0))
			start = s;
		if (e && (!end || strcmp(e, end) > 0))
			end = e;
		if (json_is_number(f) && json_number_value(f) > foreign)
			foreign = json_number_value(f);
		budget += json_is_number(b) ? json_number_value(b) : 0;
	}
	if (start)
		json_object_set_new(meta, "start_time", json_string(start));
	if (end)
		json_object_set_new(meta, "end_time", json_string(end));
	if (foreign >= 0)
		json_object_set_new(meta, "foreign_cpu_share",
				    json_real(foreign));
	json_object_set_new(json_object_get(meta, "matrix"), "time_budget_s",
			    json_real(budget));
}

static json_t *merged_meta(const struct fl_merged *m, int argc, char **argv)
{
	json_t *meta = json_deep_copy(m->shards[0].r.meta), *args = json_array();
	char line[4096] = "";
	size_t used = 0;

	for (int i = 0; i < argc; i++) {
		json_array_append_new(args, json_string(argv[i]));
		if (used < sizeof(line))
			used += (size_t)snprintf(line + used, sizeof(line) -
						 used, "%s%s", i ? " " : "",
						 argv[i]);
	}
	json_object_set_new(meta, "argv", args);
	json_object_set_new(meta, "command_line", json_string(line));
	json_object_del(meta, "shard");
	json_object_set_new(meta, "cells", cell_counts(m));
	json_object_set_new(meta, "cells_reps", cells_reps(m));
	json_object_set_new(meta, "merged", json_pack("{s:i, s:o}", "shards",
						      (int)m->n, "runs",
						      shard_list(m)));
	span(m, meta);
	return meta;
}

int fl_merge_write(const struct fl_merged *m, const char *results, int argc,
		   char **argv, char *final, size_t finallen, char *err,
		   size_t errlen)
{
	char shown[PATH_MAX + 32];
	struct fl_run run;
	json_t *meta = NULL, *state;
	char *text = NULL;
	int rc = -1;

	if (fl_run_open(&run, results, "merged", err, errlen))
		return -1;
	if (write_rows(m, &run)) {
		snprintf(err, errlen, "%s/cells.csv: %s", run.tmp,
			 strerror(errno));
		goto out;
	}
	if (copy_cell_files(m, &run, err, errlen))
		goto out;
	snprintf(shown, sizeof(shown), "%s/matrix.ini", run.tmp);
	if (fl_write_at(run.fd, "matrix.ini", shown, m->ini, m->ini_len, err,
			errlen))
		goto out;
	state = json_pack("{s:O?, s:O?, s:o}", "source",
			  fl_rd_meta_json(&m->shards[0].r, "matrix.source"),
			  "fnv1a64",
			  fl_rd_meta_json(&m->shards[0].r, "matrix.fnv1a64"),
			  "merged_from", shard_list(m));
	text = state ? json_dumps(state, JSON_INDENT(2) | JSON_SORT_KEYS) :
	       NULL;
	json_decref(state);
	snprintf(shown, sizeof(shown), "%s/matrix.json", run.tmp);
	if (!text || fl_write_at(run.fd, "matrix.json", shown, text,
				 strlen(text), err, errlen))
		goto out;
	meta = merged_meta(m, argc, argv);
	if (!meta || fl_run_finish(&run, meta, err, errlen))
		goto out;
	snprintf(final, finallen, "%s", run.final);
	rc = 0;
out:
	free(text);
	json_decref(meta);
	fl_run_close(&run);
	return rc;
}
