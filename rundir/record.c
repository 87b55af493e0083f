// SPDX-License-Identifier: GPL-2.0
/*
 * A run's record turned into its meta.json (rundir/record.h): the only
 * place meta.json's keys are set. A merge's is the first shard's with
 * what a merge changes (rundir/record_merge.c).
 */
#include "rundir/record.h"

#include <stdio.h>

#include "base/result.h"
#include "rundir/columns.h"
#include "rundir/meta.h"
#include "spec/spec.h"
#include "spec/workload.h"

json_t *fl_record_shard_json(const struct fl_record_shard *s)
{
	json_t *cells = json_array();

	for (unsigned long c = 0; c < s->matrix_cells; c++)
		if (s->in_shard[c])
			json_array_append_new(cells, json_integer(
					      (json_int_t)c));
	return json_pack("{s:i, s:i, s:I, s:o}", "k", (int)s->k,
			 "n", (int)s->n, "matrix_cells",
			 (json_int_t)s->matrix_cells, "cells", cells);
}

json_t *fl_record_resume_json(const char *time, int argc, char **argv,
			      unsigned long cells_done)
{
	return json_pack("{s:s, s:o, s:I}", "time", time,
			 "argv", fl_meta_argv_json(argc, argv),
			 "cells_done", (json_int_t)cells_done);
}

static json_t *cells_reps_json(const struct fl_record *rec)
{
	json_t *all = json_array();

	for (unsigned long i = 0; i < rec->ncells_reps; i++) {
		const struct fl_record_cell *c = &rec->cells[i];
		json_t *starts = json_array();

		for (unsigned int r = 0; r < c->nstarts; r++)
			json_array_append_new(starts, c->rep_start[r] ?
					      json_string(c->rep_start[r]) :
					      json_null());
		json_array_append_new(all, json_pack("{s:I, s:i, s:b, s:o}",
			"cell", (json_int_t)c->cell, "reps", (int)c->reps,
			"converged", c->converged, "rep_start", starts));
	}
	return all;
}

static json_t *matrix_json(const struct fl_record *rec)
{
	json_t *exps = json_array();

	for (unsigned int x = 0; x < rec->matrix.nexps; x++) {
		const struct fl_record_exp *e = &rec->matrix.exps[x];

		json_array_append_new(exps, json_pack(
			"{s:s, s:s, s:I, s:I, s:o}", "name", e->name,
			"workload", e->spec->workload->name,
			"first_cell", (json_int_t)e->first_cell,
			"cells", (json_int_t)e->ncells,
			"settings", fl_meta_settings(e->spec)));
	}
	return json_pack("{s:s, s:s, s:s, s:s, s:o, s:f, s:i}",
			 "source", rec->matrix.source,
			 "fnv1a64", rec->matrix.fnv1a64,
			 "copy", "matrix.ini", "state", "matrix.json",
			 "experiments", exps,
			 "time_budget_s", rec->matrix.time_budget_s,
			 "passes", (int)rec->matrix.passes);
}

/* What each source of the counts is called where meta.json says it was
 * not counted: the column it would fill, or the perf event whose
 * column has another source. */
static const char *const source_names[FL_NSRC] = {
	[FL_SRC_TASK_CLOCK] = "task_clock", [FL_SRC_CTX] = "ctx_switches",
	[FL_SRC_MIGRATIONS] = "cpu_migrations", [FL_SRC_FAULTS] = "page_faults",
	[FL_SRC_CYCLES] = "cycles", [FL_SRC_INSTRUCTIONS] = "instructions",
	[FL_SRC_REF_CYCLES] = "ref_cycles", [FL_SRC_SCHEDSTAT] = "run_delay_ns",
	[FL_SRC_STEAL] = "steal_ns",
};

/*
 * meta.json's "counters": each column of the kernel's counts with its
 * unit and source, the ones this run could not count and why, and the
 * rule a repetition is judged contaminated by.
 */
static json_t *counters_json(const struct fl_count_probe *p)
{
	json_t *cols = json_object(), *off = json_object();

	for (int i = 0; i < FL_NCOUNT_COLS; i++)
		json_object_set_new(cols, fl_col_name(fl_count_cols[i].col),
				    json_pack("{s:s, s:s}", "unit",
					      fl_count_cols[i].unit, "source",
					      fl_count_cols[i].source));
	json_object_set_new(cols, "contaminated", json_pack("{s:s, s:s}",
		"unit", "0 or 1", "source", "the rule below, from cpu_ns, "
		"run_delay_ns and steal_ns"));
	for (int s = 0; s < FL_NSRC; s++) {
		char text[160];

		if (!p->why[s][0])
			continue;
		snprintf(text, sizeof(text), "%s%s", p->why[s],
			 s == FL_SRC_TASK_CLOCK && !p->why[FL_SRC_SCHEDSTAT][0] ?
			 "; cpu_ns from schedstat" : "");
		json_object_set_new(off, source_names[s], json_string(text));
	}
	if (p->why[FL_SRC_TASK_CLOCK][0] && p->why[FL_SRC_SCHEDSTAT][0])
		json_object_set_new(off, "cpu_ns", json_string(
				    "neither task-clock nor schedstat"));
	return json_pack("{s:o, s:o, s:{s:s, s:f, s:f}}", "columns", cols,
			 "unavailable", off, "contamination", "rule",
			 "denied share (run_delay_ns over cpu_ns + "
			 "run_delay_ns) above 1 - cpus/threads (0 when the "
			 "threads have a CPU each) by denied_margin, or "
			 "steal_ns, less one USER_HZ tick a CPU, above "
			 "steal_max of the online CPUs' time over elapsed_ns",
			 "denied_margin", FL_DENIED_MARGIN,
			 "steal_max", FL_STEAL_MAX);
}

/* A run's or a matrix's meta.json, measured on this machine. */
static json_t *measured_json(const struct fl_record *rec)
{
	json_t *meta = fl_meta_new(rec->argc, rec->argv, rec->machine,
				   &rec->overhead, rec->seed);

	if (!meta)
		return NULL;
	for (unsigned int w = 0; w < rec->nworkloads; w++)
		fl_meta_add_workload(meta, rec->workloads[w]);
	fl_meta_set_load(meta, rec->foreign_share, rec->loadavg_start);
	json_object_set_new(meta, "counters",
			    counters_json(&rec->overhead.counting));
	fl_meta_finish(meta, rec->ncells, rec->by_status, rec->interrupted);
	/* the run's start is when its first cell could start, not the
	 * resume's; the resumes are listed */
	if (rec->start_time)
		json_object_set_new(meta, "start_time",
				    json_string(rec->start_time));
	if (rec->resumed)
		json_object_set(meta, "resumed", rec->resumed);
	/* a run's meta has its settings where a matrix's has its
	 * experiments */
	if (rec->settings)
		json_object_set_new(meta, "settings",
				    fl_meta_settings(rec->settings));
	if (rec->matrix.source)
		json_object_set_new(meta, "matrix", matrix_json(rec));
	json_object_set_new(meta, "cells_reps", cells_reps_json(rec));
	if (rec->shard.n)
		json_object_set_new(meta, "shard",
				    fl_record_shard_json(&rec->shard));
	return meta;
}

json_t *fl_record_json(const struct fl_record *rec)
{
	if (rec->nmerged)
		return fl_record_merged_json(rec);
	return measured_json(rec);
}

int fl_run_finish_record(struct fl_run *run, const struct fl_record *rec,
			 char *err, size_t errlen)
{
	json_t *meta = fl_record_json(rec);
	int rc;

	if (!meta) {
		snprintf(err, errlen, "cannot write %s/meta.json: out of "
			 "memory", run->tmp);
		return -1;
	}
	rc = fl_run_finish(run, meta, err, errlen);
	json_decref(meta);
	return rc;
}
