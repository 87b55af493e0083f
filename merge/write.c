// SPDX-License-Identifier: GPL-2.0
/*
 * Writing the merged run (merge/merge.h): a new run directory through
 * rundir/'s writer, the shards' rows in cell order, their histograms and
 * bins copied under the same names, the matrix's copy, and meta.json:
 * the first shard's, with the cells counted over all shards, each cell's
 * cells_reps entry naming its host, and "merged" listing the shards.
 * Every shard was read and checked before (merge/read.c): what fails
 * here is a write, and the partial directory goes with it.
 */
#include "merge/merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rundir/join.h"
#include "rundir/meta.h"
#include "rundir/regular.h"
#include "rundir/write.h"
#include "rundir/write_at.h"

/* Every shard's rows in cell order (rundir/join.c). */
static int write_rows(const struct fl_merged *m, struct fl_run *run)
{
	const char **texts = calloc(m->n, sizeof(*texts));
	size_t *lens = calloc(m->n, sizeof(*lens));
	int rc = -1;

	if (texts && lens) {
		for (unsigned int i = 0; i < m->n; i++) {
			texts[i] = m->shards[i].r.cells_text;
			lens[i] = m->shards[i].r.cells_len;
		}
		rc = fl_join_rows(run, texts, lens, m->n);
	}
	free((void *)texts);
	free(lens);
	return rc;
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

/* A merge that failed to write (a full disk) leaves no partial run: its
 * folders, then the directory, removed through their descriptors. */
static void discard(struct fl_run *run)
{
	char err[256];

	if (run->fd < 0 || run->dir_fd < 0)
		return;
	fl_remove_at(run->fd, "hist", "hist", err, sizeof(err));
	fl_remove_at(run->fd, "bins", "bins", err, sizeof(err));
	fl_remove_at(run->dir_fd, run->entry, run->tmp, err, sizeof(err));
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
	for (unsigned int i = 0; i < m->n; i++)
		if (fl_join_cell_files(&run, &m->shards[i].r, err, errlen))
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
	if (rc)
		discard(&run);
	fl_run_close(&run);
	return rc;
}
