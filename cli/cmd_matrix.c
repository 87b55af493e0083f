// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab matrix FILE: run every cell of a matrix file (see matrix.h)
 * into one run directory; futexlab matrix --resume DIR finishes a run that
 * was interrupted or killed. The run directory's path is the last line.
 * Exit 0 when every cell ran or was skipped, 1 when a cell failed a check
 * or was aborted, 2 on a bad matrix file or usage, 130 when interrupted.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/flags.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "measure/busy.h"
#include "sweep/job.h"
#include "rundir/meta.h"
#include "measure/overhead.h"
#include "measure/probe.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: futexlab matrix FILE [--results DIR] [--list]\n"
		"       futexlab matrix --resume PARTIAL-DIR [FILE]\n\n"
		"Run every cell of a matrix file (INI: [defaults] and one\n"
		"[experiment NAME] per experiment; see docs/matrix.md and\n"
		"matrix/default.ini) into one run directory under results/.\n\n"
		"  --results DIR   where run directories go (default results)\n"
		"  --list          print the cells and exit; runs nothing\n"
		"  --run-dir-file F  also write the finished run directory's\n"
		"                  path to F (for scripts: stdout stays a\n"
		"                  terminal)\n"
		"  --resume DIR    finish the partial run in DIR (a\n"
		"                  results/.partial-* directory left by an\n"
		"                  interrupted or killed matrix run); only\n"
		"                  cells without all their rows run. Refused\n"
		"                  if the matrix file changed since.\n"
		"  --help          this help\n");
}

static int list_cells(const struct fl_matrix *m)
{
	static struct fl_cell cell;
	const struct fl_matrix_exp *e;
	char err[256];

	printf("# cell experiment workload backend threads placement "
	       "options\n");
	for (unsigned long i = 0; i < m->ncells; i++) {
		if (fl_matrix_cell(m, i, &cell, &e, err, sizeof(err))) {
			fprintf(stderr, "futexlab matrix: %s\n", err);
			return 2;
		}
		printf("%lu %s %s %s %u %s %s\n", i, e->name,
		       cell.workload->name, cell.backend->name, cell.threads, cell.placement,
		       cell.options[0] ? cell.options : "-");
	}
	printf("# %lu cells in %u experiment(s); their repetitions run as %lu "
	       "interleaved visits\n", m->ncells, m->nexps, m->nvisits);
	return 0;
}

/* futexlab matrix FILE | --resume DIR: parse, run every cell, finish the
 * run directory; meta.json also describes each workload (units, counters)
 * so the plots and the report can read the run directory alone. */
int fl_cmd_matrix(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "results", 1, NULL, 'r' },
		{ "resume", 1, NULL, 'R' },
		{ "list", 0, NULL, 'l' },
		{ "run-dir-file", 1, NULL, 'f' },
		{ "help", 0, NULL, 'h' },
		{ 0 },
	};
	static struct fl_matrix_job job;
	const char *results = "results", *resume = NULL, *file = NULL;
	const char *dir_file = NULL;
	struct fl_machine machine;
	struct fl_overhead overhead;
	char err[2048];
	int list = 0, rc;

	fl_getopt_start();
	for (;;) {
		int c = fl_getopt("matrix", argc, argv, longopts);

		if (c == -1)
			break;
		switch (c) {
		case 'r':
			if (!*optarg) {
				fprintf(stderr, "futexlab matrix: --results: "
					"empty path\n");
				return 2;
			}
			results = optarg;
			break;
		case 'R':
			resume = optarg;
			break;
		case 'l':
			list = 1;
			break;
		case 'f':
			dir_file = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:	/* FL_GETOPT_BAD: it said why */
			return 2;
		}
	}
	if (optind < argc)
		file = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "futexlab matrix: unexpected argument '%s'\n",
			argv[optind]);
		return 2;
	}
	if (!file && !resume) {
		usage(stderr);
		return 2;
	}
	if (list) {
		if (resume || !file) {
			fprintf(stderr, "futexlab matrix: --list takes a "
				"matrix FILE, not --resume\n");
			return 2;
		}
		if (fl_matrix_load(file, &job.m, err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			fl_matrix_free(&job.m);
			return 2;
		}
		rc = list_cells(&job.m);
		fl_matrix_free(&job.m);
		return rc;
	}

	rc = resume ? fl_matrix_job_resume(&job, fl_main_argc, fl_main_argv,
					   resume, file, err, sizeof(err)) :
		      fl_matrix_job_start(&job, fl_main_argc, fl_main_argv,
					  file, results, err, sizeof(err));
	if (rc) {
		/* a bad matrix file already reads "FILE:LINE: ..." */
		if (strncmp(err, job.m.name, strlen(job.m.name)) == 0 &&
		    *job.m.name)
			fprintf(stderr, "%s\n", err);
		else
			fprintf(stderr, "futexlab matrix: %s\n", err);
		fl_matrix_job_free(&job);
		return 2;
	}
	fl_catch_interrupts();
	if (resume)
		fprintf(stderr, "futexlab matrix: resuming %s: %lu of %lu "
			"visits done\n", job.run.tmp, job.ndone,
			job.m.nvisits);
	else
		fprintf(stderr, "futexlab matrix: %lu cells in %u experiment(s), "
			"%lu visits (one repetition each, interleaved); "
			"writing %s\n", job.m.ncells, job.m.nexps,
			job.m.nvisits, job.run.tmp);
	fl_probe_machine(&machine);
	fl_measure_overhead(&overhead);
	struct fl_busy busy;

	fl_busy_start(&busy);
	enum fl_job_outcome outcome = fl_matrix_job_run(&job, stdout,
							isatty(STDOUT_FILENO));
	int worst = outcome == FL_JOB_FAILED ? FL_EXIT_FAILED : FL_EXIT_OK;

	if (outcome == FL_JOB_INTERRUPTED) {
		fprintf(stderr, "futexlab matrix: interrupted after %lu of %lu "
			"visits; resume with: futexlab matrix --resume %s\n",
			job.ndone, job.m.nvisits, job.run.tmp);
		fl_matrix_job_free(&job);
		return FL_EXIT_INTERRUPTED;
	}
	if (fl_matrix_job_finalize(&job, err, sizeof(err))) {
		fprintf(stderr, "futexlab matrix: %s (resume with: futexlab "
			"matrix --resume %s)\n", err, job.run.tmp);
		fl_matrix_job_free(&job);
		return 1;
	}
	/* cells that ran before a resume may have failed too */
	if (job.by_status[FL_STATUS_FAILED] ||
	    job.by_status[FL_STATUS_ABORTED])
		worst = 1;
	json_t *meta = fl_meta_new(fl_main_argc, fl_main_argv, &machine,
				   &overhead, job.m.exps[0].spec.seed);

	for (unsigned int x = 0; x < job.m.nexps; x++)
		fl_meta_add_workload(meta, job.m.exps[x].spec.workload);
	double foreign = fl_busy_foreign_share(&busy);

	if (foreign >= 0)	/* of this session, when resumed */
		json_object_set_new(meta, "foreign_cpu_share",
				    json_real(foreign));
	fl_meta_finish(meta, (unsigned int)job.m.ncells, job.by_status, 0);
	if (fl_matrix_job_finish(&job, meta, err, sizeof(err))) {
		fprintf(stderr, "futexlab matrix: %s\n", err);
		json_decref(meta);
		fl_matrix_job_free(&job);
		return 1;
	}
	json_decref(meta);
	printf("%lu cells: %u ok, %u skipped, %u failed, %u aborted\n",
	       job.m.ncells, job.by_status[FL_STATUS_OK],
	       job.by_status[FL_STATUS_SKIPPED],
	       job.by_status[FL_STATUS_FAILED],
	       job.by_status[FL_STATUS_ABORTED]);
	printf("%s\n", job.run.final);
	if (dir_file) {
		FILE *f = fopen(dir_file, "w");

		if (!f || fprintf(f, "%s\n", job.run.final) < 0 || fclose(f)) {
			fprintf(stderr, "futexlab matrix: cannot write %s\n",
				dir_file);
			worst = 1;
		}
	}
	if (!worst && !job.by_status[FL_STATUS_OK]) {
		fprintf(stderr, "futexlab matrix: no cell ran: all %lu were "
			"skipped\n", job.m.ncells);
		worst = FL_EXIT_NOTHING_RAN;
	}
	fl_matrix_job_free(&job);
	return worst;
}
