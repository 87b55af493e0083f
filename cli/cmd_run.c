// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab run WORKLOAD [options]: the one-experiment matrix of the flags
 * on the matrix engine (sweep/job.h: each repetition a fresh process,
 * interleaved across the cells in passes), then a summary per cell, and
 * the run directory's path last. futexlab run --resume DIR finishes a
 * run that was interrupted, from the flags its directory recorded; a
 * program they run (app's --cmd) runs only with --yes or --cmd naming
 * it again. Exit 0 when every cell ran or was
 * skipped, 1 when a cell failed a check or was aborted or a write failed,
 * 2 on bad usage, 3 when no cell ran at all (every one skipped: a script
 * must not take that for a result), 130 on Ctrl-C, SIGTERM or SIGHUP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cell_output.h"
#include "cli/commands.h"
#include "cli/estimate.h"
#include "cli/flags.h"
#include "cli/interrupt.h"
#include "cli/outputs.h"
#include "cli/run_args.h"
#include "measure/host_load.h"
#include "measure/overhead.h"
#include "measure/probe.h"
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
static int stopped(enum stop why, const struct fl_run *run)
{
	if (why == INTERRUPTED) {
		fprintf(stderr, "futexlab run: interrupted; the repetitions "
			"done so far are in %s (not a complete run): "
			"futexlab run --resume %s runs the rest\n", run->tmp,
			run->tmp);
		return 130;
	}
	fprintf(stderr, "futexlab run: cannot write the run directory "
		"(above); %s holds the repetitions done so far, not a "
		"complete run: futexlab run --resume %s runs the rest once "
		"there is room\n", run->tmp, run->tmp);
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

/* The run's record as the command knows it: its command line, the
 * machine, the harness's overhead measured before the cells. */
static void start_record(struct fl_record *rec, struct fl_machine *machine)
{
	memset(rec, 0, sizeof(*rec));
	rec->argc = fl_main_argc;
	rec->argv = fl_main_argv;
	rec->machine = machine;
	fl_measure_overhead(&rec->overhead);
}

/* The estimate the announcement gives: the minimum repetitions, or with
 * --reps auto what the budget allows. */
static double estimate_s(const struct fl_spec *s)
{
	double minimum = fl_spec_minimum_seconds(s);
	double budget = fl_budget_seconds(s->budget_s, minimum);

	return s->reps_auto && budget > minimum ? budget : minimum;
}

/* The run finalized (rows in cell order, histograms merged) and its
 * meta.json written; 0, or -1 said on stderr. */
static int finish(struct fl_matrix_job *job, struct fl_record *rec,
		  const struct fl_host_load *load)
{
	char err[512];

	rec->foreign_share = fl_host_load_foreign_share(load);
	rec->loadavg_start = rec->machine->rerun.loadavg;
	if (fl_matrix_job_finalize(job, err, sizeof(err)) == 0 &&
	    fl_matrix_job_finish(job, rec, err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "futexlab run: %s; %s holds the cells, not a "
		"complete run: delete it\n", err, job->run.tmp);
	return -1;
}

/* The passes, the run directory finished, the cells summed up: the
 * status. */
static int run_job(struct fl_run_args *a, struct fl_matrix_job *job,
		   struct fl_machine *machine)
{
	struct summary s = { a->json ? stderr : stdout,
			     a->json ? json_array() : NULL, 0 };
	struct fl_host_load load;
	struct fl_record rec;
	enum fl_job_outcome out;

	start_record(&rec, machine);
	fl_host_load_start(&load);
	job->say = &fl_say_stderr;
	out = fl_matrix_job_run(job, stderr, 0);
	if (out == FL_JOB_INTERRUPTED || out == FL_JOB_WRITE_FAILED) {
		s.worst = stopped(out == FL_JOB_INTERRUPTED ? INTERRUPTED :
				  WRITE_FAILED, &job->run);
	} else if (finish(job, &rec, &load)) {
		s.worst = 1;
	} else {
		if (job->resumed)
			fprintf(s.out, "resumed: the summaries below count "
				"this session's repetitions; futexlab report "
				"%s has every cell's\n", job->run.final);
		if (fl_matrix_job_each_cell(job, print_cell, &s)) {
			fprintf(stderr, "futexlab run: cannot write the "
				"summary: %s; the run is complete in %s\n",
				strerror(errno), job->run.final);
			s.worst = 1;
		}
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

/*
 * The flags a run directory recorded, parsed as `run` parses its own;
 * what the parser would say (it prints) caught into why, so a bad record
 * is one line naming the file. 0, or the parser's status.
 */
static int parse_recorded(int n, const char **flags, struct fl_run_args *a,
			  char *why, size_t whylen)
{
	char *text = NULL;
	size_t len = 0;
	int rc;

	fl_flags_said = open_memstream(&text, &len);
	if (!fl_flags_said) {
		snprintf(why, whylen, "out of memory");
		return 2;
	}
	rc = fl_run_args_parse(n, (char **)flags, a);
	fclose(fl_flags_said);
	fl_flags_said = NULL;
	if (rc) {
		const char *msg = text ? text : "";

		if (!strncmp(msg, "futexlab run: ", 14))
			msg += 14;
		snprintf(why, whylen, "%.*s", (int)strcspn(msg, "\n"), msg);
		if (!*why)
			snprintf(why, whylen, "--help");
	}
	free(text);
	return rc;
}

/* What `run --resume DIR` may be told beside DIR: --yes, and --cmd
 * naming the command the run recorded. */
struct resume_say {
	int yes;
	const char *cmd;
};

/* The flags after DIR; 0, or 2 after one line. */
static int parse_say(int argc, char **argv, struct resume_say *say)
{
	memset(say, 0, sizeof(*say));
	for (int i = 0; i < argc; i++) {
		const char *was = say->cmd;

		if (!strcmp(argv[i], "--yes"))
			say->yes = 1;
		else if (!strncmp(argv[i], "--cmd=", 6))
			say->cmd = argv[i] + 6;
		else if (!strcmp(argv[i], "--cmd") && i + 1 < argc)
			say->cmd = argv[++i];
		else {
			fprintf(stderr, "futexlab run: --resume takes one run "
				"directory, and --yes or --cmd CMD to run the "
				"program it names; not '%.80s'\n", argv[i]);
			return 2;
		}
		if (was && say->cmd != was) {
			fprintf(stderr, "futexlab run: --cmd given twice\n");
			return 2;
		}
	}
	return 0;
}

/*
 * The program the recorded flags run (app's --cmd), shown, and run only
 * with the user's say: --yes, or --cmd naming it again. 0, or 2 after
 * one line naming it.
 */
static int confirm_program(const char *dir, const struct fl_spec *s,
			   const struct resume_say *say)
{
	const char *prog = fl_spec_program(s);

	if (!prog) {
		if (!say->cmd)
			return 0;
		fprintf(stderr, "futexlab run: --cmd: %s is a %s run, which "
			"runs no program\n", dir, s->workload->name);
		return 2;
	}
	if (say->cmd && strcmp(say->cmd, prog)) {
		fprintf(stderr, "futexlab run: --cmd '%.200s' is not what %s "
			"runs: its matrix.json names '%s'\n", say->cmd, dir,
			prog);
		return 2;
	}
	if (!say->cmd && !say->yes) {
		fprintf(stderr, "futexlab run: %s/matrix.json runs '%s': a "
			"partial directory runs a program only with your say: "
			"give --yes, or --cmd with that command\n", dir, prog);
		return 2;
	}
	fprintf(stderr, "futexlab run: resuming runs '%s' (confirmed by "
		"%s)\n", prog, say->cmd ? "--cmd" : "--yes");
	return 0;
}

/* futexlab run --resume DIR: the flags DIR recorded, planned again, and
 * what its visits left undone run. */
static int resume(const char *dir, const struct resume_say *say,
		  struct fl_run_args *a, struct fl_matrix_job *job,
		  struct fl_machine *machine)
{
	const char **flags;
	char err[512], why[256];
	int n, rc;

	if (fl_matrix_job_reopen_run(job, dir, &n, &flags, err,
				     sizeof(err))) {
		fprintf(stderr, "futexlab run: %s\n", err);
		return 2;
	}
	rc = parse_recorded(n, flags, a, why, sizeof(why));
	if (rc) {
		fprintf(stderr, "futexlab run: %s/matrix.json: its recorded "
			"flags do not parse (%s): only what futexlab wrote can "
			"be resumed\n", dir, why);
		return 2;
	}
	if (confirm_program(dir, &a->spec, say))
		return 2;
	rc = fl_matrix_job_resume_run(job, &a->spec, fl_main_argc,
				      fl_main_argv, err, sizeof(err));
	/* what the resume found on its way, before what stopped it */
	fputs(job->notes, stderr);
	if (rc) {
		fprintf(stderr, "futexlab run: %s\n", err);
		return 2;
	}
	fl_probe_machine(machine);
	fl_catch_interrupts();
	return run_job(a, job, machine);
}

int fl_cmd_run(int argc, char **argv)
{
	static struct fl_run_args a;
	static struct fl_matrix_job job;
	struct fl_machine machine;
	char err[512];
	int rc;

	if (argc >= 2 && !strcmp(argv[1], "--resume")) {
		struct resume_say say;

		if (argc < 3) {
			fprintf(stderr, "futexlab run: --resume takes one run "
				"directory\n");
			return 2;
		}
		if (parse_say(argc - 3, argv + 3, &say))
			return 2;
		rc = resume(argv[2], &say, &a, &job, &machine);
		fl_matrix_job_free(&job);
		return rc;
	}
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
					   machine.hostname, argc - 1, argv + 1,
					   err, sizeof(err))) {
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
