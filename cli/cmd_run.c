// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab run WORKLOAD [options]: run every cell of one specification
 * (each repetition a fresh process, interleaved across the cells:
 * sweep/spec_run.h), write a run directory, print a summary per cell, and
 * end with the run directory's path. Exit 0 when every cell ran or was
 * skipped, 1 when a cell failed a check or was aborted or a write failed,
 * 2 on bad usage, 3 when no cell ran at all (every one skipped: a script
 * must not take that for a result), 130 on Ctrl-C, SIGTERM or SIGHUP.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/estimate.h"
#include "cli/interrupt.h"
#include "cli/run_args.h"
#include "measure/busy.h"
#include "rundir/meta.h"
#include "rundir/write.h"
#include "stats/figures.h"
#include "sweep/cost.h"
#include "sweep/spec_run.h"

/* Why the cells stopped before the last, when they did. */
enum stop { RAN_ALL, INTERRUPTED, WRITE_FAILED, OUTPUT_FAILED };

/*
 * Write and print every cell that had a visit, in cell order (JSON
 * summaries into cells_json); *worst becomes 1 when a cell failed or was
 * aborted. The first failed write ends the loop: a full disk would fail
 * them all.
 */
static enum stop write_cells(struct fl_spec_run *sr, struct fl_run *run,
			     FILE *out, json_t *cells_json,
			     unsigned int by_status[4], unsigned long *ndone,
			     int *worst)
{
	for (*ndone = 0; *ndone < sr->ncells; ++*ndone) {
		const struct fl_cell *cell = &sr->cells[*ndone];
		struct fl_cell_result *res = &sr->res[*ndone];
		struct fl_cell_figures fig;

		if (!res->nreps)
			continue;	/* interrupted before its first visit */
		if (fl_run_write_cell(run, cell, res))
			return WRITE_FAILED;
		fl_cell_figures(cell, res, &fig);
		if (cells_json)
			json_array_append_new(cells_json,
					      fl_cell_json(cell, res, &fig));
		/* the text summary goes to stderr under --json */
		fl_cell_print(out, cell, res, &fig);
		by_status[res->status]++;
		if (res->status == FL_STATUS_FAILED ||
		    res->status == FL_STATUS_ABORTED)
			*worst = 1;
		if (fflush(out) || ferror(out))
			return OUTPUT_FAILED;
	}
	return RAN_ALL;
}

/* Why the run stopped, and what to do with what it left; its status. */
static int stopped(enum stop why, const struct fl_run *run,
		   unsigned long ndone, unsigned long ncells)
{
	int e = errno;

	if (why == INTERRUPTED) {
		fprintf(stderr, "futexlab run: interrupted; the repetitions "
			"done so far are in %s (not a complete run)\n",
			run->tmp);
		return 130;
	}
	fprintf(stderr, "futexlab run: stopped after %lu of %lu cells: %s%s; "
		"%s holds the cells done so far, not a complete run: delete "
		"it\n", ndone, ncells, why == OUTPUT_FAILED ?
		"cannot write the summary: " : "cannot write the run directory "
		"(above)", why == OUTPUT_FAILED ? strerror(e) : "", run->tmp);
	return 1;
}

/* The run directory's path (and the JSON summary) as the last output. */
static void print_result(const struct fl_run_args *a, const struct fl_run *run,
			 json_t *cells_json)
{
	if (a->json) {
		json_t *doc = json_pack("{s:s, s:O}", "run_dir", run->final,
					"cells", cells_json);

		json_dumpf(doc, stdout, JSON_INDENT(2));
		printf("\n");
		json_decref(doc);
		fprintf(stderr, "%s\n", run->final);
	} else {
		printf("%s\n", run->final);
	}
}

static json_t *start_meta(const struct fl_run_args *a,
			  struct fl_machine *machine)
{
	struct fl_overhead overhead;
	json_t *meta;

	fl_measure_overhead(&overhead);
	meta = fl_meta_new(fl_main_argc, fl_main_argv, machine, &overhead,
			   a->spec.seed);
	fl_meta_add_workload(meta, a->spec.workload);
	json_object_set_new(meta, "settings", fl_meta_settings(&a->spec));
	return meta;
}

/* The estimate the announcement gives: the minimum repetitions, each in
 * its own process, or with --reps auto what the budget allows. */
static double estimate_s(const struct fl_spec *s)
{
	double minimum = fl_spec_minimum_seconds(s);
	double budget = fl_budget_seconds(s->budget_s, minimum);

	return s->reps_auto && budget > minimum ? budget : minimum;
}

/* Everything between the parsed flags and the exit status. */
static int run_spec(struct fl_run_args *a, struct fl_spec_run *sr)
{
	struct fl_machine machine;
	struct fl_busy busy;
	struct fl_run run;
	unsigned int by_status[4] = { 0 };
	unsigned long ndone = 0;
	char err[512];
	int worst = 0;

	fl_probe_machine(&machine);
	if (fl_run_open(&run, a->results_dir, machine.hostname, err,
			sizeof(err))) {
		fprintf(stderr, "futexlab run: %s\n", err);
		return 2;
	}
	fl_catch_interrupts();
	json_t *meta = start_meta(a, &machine);
	json_t *cells_json = a->json ? json_array() : NULL;

	fl_busy_start(&busy);
	enum stop why = fl_spec_run_passes(sr, stderr) == -EINTR ?
			INTERRUPTED : RAN_ALL;
	enum stop wrote = write_cells(sr, &run, a->json ? stderr : stdout,
				      cells_json, by_status, &ndone, &worst);

	if (why == RAN_ALL)
		why = wrote;
	if (why == RAN_ALL) {
		json_object_set_new(meta, "cells_reps",
				    fl_spec_run_cells_reps(sr));
		fl_meta_set_load(meta, fl_busy_foreign_share(&busy),
				 machine.rerun.loadavg);
		fl_meta_finish(meta, (unsigned int)sr->ncells, by_status, 0);
		if (fl_run_finish(&run, meta, err, sizeof(err))) {
			fprintf(stderr, "futexlab run: %s; %s holds the cells, "
				"not a complete run: delete it\n", err,
				run.tmp);
			why = WRITE_FAILED;
			worst = 1;
		}
	} else {
		worst = stopped(why, &run, ndone, sr->ncells);
	}
	json_decref(meta);
	if (why == RAN_ALL) {
		print_result(a, &run, cells_json);
		if (!worst && !by_status[FL_STATUS_OK]) {
			fprintf(stderr, "futexlab run: no cell ran: all %lu "
				"were skipped (reasons above)\n", sr->ncells);
			worst = FL_EXIT_NOTHING_RAN;
		}
	}
	json_decref(cells_json);
	return worst;
}

int fl_cmd_run(int argc, char **argv)
{
	static struct fl_run_args a;
	static struct fl_spec_run sr;
	char err[512];
	int rc;

	rc = fl_run_args_parse(argc - 1, argv + 1, &a);
	if (rc)
		return rc == 1 ? 0 : 2;
	/* place every cell before anything is written: a bad placement is a
	 * usage error, not a run directory full of failures */
	if (fl_spec_run_init(&sr, &a.spec, err, sizeof(err))) {
		fprintf(stderr, "futexlab run: %s\n", err);
		fl_spec_run_free(&sr);
		return 2;
	}
	if (fl_announce("run", sr.ncells, sr.ncells * a.spec.reps,
			estimate_s(&a.spec), a.yes)) {
		fl_spec_run_free(&sr);
		return 2;
	}
	rc = run_spec(&a, &sr);
	fl_spec_run_free(&sr);
	return rc;
}
