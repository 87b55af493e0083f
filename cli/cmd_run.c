// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab run WORKLOAD [options]: the one-experiment matrix of the flags
 * on the matrix engine (sweep/job.h: each repetition a fresh process,
 * interleaved across the cells in passes), then a summary per cell, and
 * the run directory's path last. Exit 0 when every cell ran or was
 * skipped, 1 when a cell failed a check or was aborted or a write failed,
 * 2 on bad usage, 3 when no cell ran at all (every one skipped: a script
 * must not take that for a result), 130 on Ctrl-C, SIGTERM or SIGHUP.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cell_output.h"
#include "cli/commands.h"
#include "cli/estimate.h"
#include "cli/interrupt.h"
#include "cli/run_args.h"
#include "measure/host_load.h"
#include "measure/overhead.h"
#include "measure/probe.h"
#include "rundir/meta.h"
#include "stats/figures.h"
#include "sweep/cost.h"
#include "sweep/job.h"

/* Why the cells stopped before the last, when they did. */
enum stop { RAN_ALL, INTERRUPTED, WRITE_FAILED, OUTPUT_FAILED };

/* Where each written cell's summary goes. */
struct summary {
	FILE *out;			/* the text: stderr under --json */
	json_t *cells_json;		/* --json's cells, or NULL */
	int worst;			/* 1 once a cell failed or aborted */
};

static int print_cell(void *ctx, const struct fl_cell *cell,
		      const struct fl_cell_result *res)
{
	struct summary *s = ctx;
	struct fl_cell_figures fig;

	fl_cell_figures(cell, res, &fig);
	if (s->cells_json)
		json_array_append_new(s->cells_json,
				      fl_cell_json(cell, res, &fig));
	fl_cell_print(s->out, cell, res, &fig);
	if (res->status == FL_STATUS_FAILED ||
	    res->status == FL_STATUS_ABORTED)
		s->worst = 1;
	return fflush(s->out) || ferror(s->out) ? 1 : 0;
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
	return meta;
}

/* The estimate the announcement gives: the minimum repetitions, or with
 * --reps auto what the budget allows. */
static double estimate_s(const struct fl_spec *s)
{
	double minimum = fl_spec_minimum_seconds(s);
	double budget = fl_budget_seconds(s->budget_s, minimum);

	return s->reps_auto && budget > minimum ? budget : minimum;
}

/* The passes, the cells written and summed up, meta.json: the status. */
static int run_job(struct fl_run_args *a, struct fl_matrix_job *job,
		   struct fl_machine *machine)
{
	struct summary s = { a->json ? stderr : stdout,
			     a->json ? json_array() : NULL, 0 };
	struct fl_busy busy;
	unsigned long ndone = 0;
	char err[512];
	json_t *meta = start_meta(a, machine);

	fl_busy_start(&busy);
	enum stop why = fl_matrix_job_run(job, stderr, 0) ==
			FL_JOB_INTERRUPTED ? INTERRUPTED : RAN_ALL;
	int wrote = fl_matrix_job_write_cells(job, print_cell, &s, &ndone);

	if (why == RAN_ALL && wrote)
		why = wrote < 0 ? WRITE_FAILED : OUTPUT_FAILED;
	if (why == RAN_ALL) {
		fl_meta_set_load(meta, fl_busy_foreign_share(&busy),
				 machine->rerun.loadavg);
		fl_meta_finish(meta, (unsigned int)job->m.ncells,
			       job->by_status, 0);
		if (fl_matrix_job_finish(job, meta, err, sizeof(err))) {
			fprintf(stderr, "futexlab run: %s; %s holds the cells, "
				"not a complete run: delete it\n", err,
				job->run.tmp);
			why = WRITE_FAILED;
			s.worst = 1;
		}
	} else {
		s.worst = stopped(why, &job->run, ndone, job->m.ncells);
	}
	json_decref(meta);
	if (why == RAN_ALL) {
		print_result(a, &job->run, s.cells_json);
		if (!s.worst && !job->by_status[FL_STATUS_OK]) {
			fprintf(stderr, "futexlab run: no cell ran: all %lu "
				"were skipped (reasons above)\n",
				job->m.ncells);
			s.worst = FL_EXIT_NOTHING_RAN;
		}
	}
	json_decref(s.cells_json);
	return s.worst;
}

int fl_cmd_run(int argc, char **argv)
{
	static struct fl_run_args a;
	static struct fl_matrix_job job;
	struct fl_machine machine;
	char err[512];
	int rc;

	rc = fl_run_args_parse(argc - 1, argv + 1, &a);
	if (rc)
		return rc == 1 ? 0 : 2;
	if (fl_matrix_job_plan_run(&job, &a.spec, err, sizeof(err))) {
		fprintf(stderr, "futexlab run: %s\n", err);
		rc = 2;
	} else if (fl_announce("run", job.m.ncells,
			       job.m.ncells * a.spec.reps, estimate_s(&a.spec),
			       a.yes)) {
		rc = 2;
	} else {
		fl_probe_machine(&machine);
		if (fl_matrix_job_open_run(&job, a.results_dir,
					   machine.hostname, err,
					   sizeof(err))) {
			fprintf(stderr, "futexlab run: %s\n", err);
			rc = 2;
		} else {
			fl_catch_interrupts();
			rc = run_job(&a, &job, &machine);
		}
	}
	fl_matrix_job_free(&job);
	return rc;
}
