// SPDX-License-Identifier: GPL-2.0
/*
 * A merge's meta.json (rundir/record.h): the first shard's, with the
 * command that merged, the cells counted over all shards, each cell's
 * cells_reps entry naming its host, the span of the shards' times, and
 * "merged" listing the shards. Every shard was read and checked before
 * (merge/read.c).
 */
#include "rundir/record.h"

#include <stdlib.h>
#include <string.h>

#include "rundir/meta.h"

int fl_record_has_cell(const struct fl_rd_run *r, unsigned long i)
{
	unsigned long lo = 0, hi = r->ncells;

	while (lo < hi) {
		unsigned long mid = lo + (hi - lo) / 2;

		if (r->cells[mid].index < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->ncells && r->cells[lo].index == i;
}

json_t *fl_record_merge_runs(const struct fl_record_merge_run *m,
			     unsigned int n)
{
	json_t *all = json_array();

	for (unsigned int i = 0; i < n; i++) {
		const struct fl_rd_run *r = m[i].r;
		json_t *cells = json_array();

		for (unsigned long c = 0; c < r->ncells; c++)
			json_array_append_new(cells, json_integer(
				(json_int_t)r->cells[c].index));
		json_array_append_new(all, json_pack(
			"{s:i, s:i, s:s, s:s, s:O?, s:O?, s:O?, s:O?, s:O?,"
			" s:O?, s:o}",
			"k", (int)m[i].k, "n", (int)m[i].n, "run", r->name,
			"host", m[i].host,
			"hostname", fl_rd_meta_json(r, "machine.hostname"),
			"kernel", fl_rd_meta_json(r, "machine.kernel"),
			"cpu_model", fl_rd_meta_json(r, "machine.cpu_model"),
			"cpus_allowed", fl_rd_meta_json(r,
				"machine.topology.cpus_allowed"),
			"start_time", fl_rd_meta_json(r, "start_time"),
			"end_time", fl_rd_meta_json(r, "end_time"),
			"cells", cells));
	}
	return all;
}

/* cells_reps of every shard, in cell order, each with its host. */
static json_t *cells_reps(const struct fl_record *rec)
{
	json_t **at = calloc(rec->ncells + 1, sizeof(*at));
	json_t *all = json_array(), *e;
	size_t k;

	for (unsigned int i = 0; at && i < rec->nmerged; i++) {
		const struct fl_record_merge_run *s = &rec->merged[i];

		json_array_foreach(fl_rd_meta_json(s->r, "cells_reps"), k, e) {
			json_t *c = json_object_get(e, "cell");
			json_int_t v = json_is_integer(c) ?
				       json_integer_value(c) : -1;

			/* only a cell this shard ran is taken from it */
			if (v < 0 || (unsigned long)v >= rec->ncells ||
			    at[v] || !json_is_object(e))
				continue;
			if (!fl_record_has_cell(s->r, (unsigned long)v))
				continue;
			at[v] = json_deep_copy(e);
			json_object_set_new(at[v], "host",
					    json_string(s->host));
		}
	}
	for (unsigned long c = 0; at && c < rec->ncells; c++)
		if (at[c])
			json_array_append_new(all, at[c]);
	free(at);
	return all;
}

/* The cells counted by status over every shard. */
static json_t *cell_counts(const struct fl_record *rec)
{
	static const char *const keys[] = { "total", "ok", "failed",
					    "skipped", "aborted" };
	json_t *o = json_object();

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_int_t sum = 0;

		for (unsigned int s = 0; s < rec->nmerged; s++) {
			json_t *v = json_object_get(fl_rd_meta_json(
				rec->merged[s].r, "cells"), keys[i]);

			sum += json_is_integer(v) ? json_integer_value(v) : 0;
		}
		json_object_set_new(o, keys[i], json_integer(sum));
	}
	return o;
}

/* The earliest start and the latest end, the most any shard's other
 * processes took, the budget the shards had together. */
static void span(const struct fl_record *rec, json_t *meta)
{
	const char *start = NULL, *end = NULL;
	double foreign = -1, budget = 0;

	for (unsigned int i = 0; i < rec->nmerged; i++) {
		const struct fl_rd_run *r = rec->merged[i].r;
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

json_t *fl_record_merged_json(const struct fl_record *rec)
{
	json_t *meta = json_deep_copy(rec->merged[0].r->meta);

	if (!meta)
		return NULL;
	fl_meta_set_command(meta, rec->argc, rec->argv);
	json_object_del(meta, "shard");
	json_object_set_new(meta, "cells", cell_counts(rec));
	json_object_set_new(meta, "cells_reps", cells_reps(rec));
	json_object_set_new(meta, "merged", json_pack("{s:i, s:o}", "shards",
		(int)rec->nmerged, "runs",
		fl_record_merge_runs(rec->merged, rec->nmerged)));
	span(rec, meta);
	return meta;
}
