// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab run WORKLOAD [options]: run every cell of one specification,
 * write a run directory, print a summary per cell, and end with the run
 * directory's path. Exit 0 when every cell ran or was skipped, 1 when a
 * cell failed a check or was aborted or a write failed, 2 on bad usage, 3
 * when no cell ran at all (every one skipped: a script must not take that
 * for a result), 130 on Ctrl-C, SIGTERM or SIGHUP.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "measure/cell.h"
#include "cli/commands.h"
#include "cli/estimate.h"
#include "stats/figures.h"
#include "cli/interrupt.h"
#include "rundir/meta.h"
#include "rundir/write.h"
#include "cli/run_args.h"

/* Place every cell before anything is written: a bad placement is a
 * usage error, not a run directory full of failures. */
static int place_cells(const struct fl_spec *spec, unsigned long ncells)
{
	static struct fl_cell cell;
	char err[512];

	for (unsigned long i = 0; i < ncells; i++) {
		if (fl_spec_cell(spec, i, &cell, err, sizeof(err))) {
			fprintf(stderr, "futexlab run: %s\n", err);
			return -1;
		}
	}
	return 0;
}

/* Why the cells stopped before the last, when they did. */
enum stop { RAN_ALL, INTERRUPTED, WRITE_FAILED, OUTPUT_FAILED };

/*
 * Run the cells in order into run, a summary of each on out (JSON ones
 * into cells_json); *worst becomes 1 when a cell failed or was aborted.
 * The first failed write ends the loop: a full disk would fail them all.
 */
static enum stop run_cells(const struct fl_run_args *a, struct fl_run *run,
			   FILE *out, json_t *cells_json,
			   unsigned int by_status[4], unsigned long *ndone,
			   int *worst)
{
	unsigned long ncells = fl_spec_ncells(&a->spec);
	static struct fl_cell cell;
	char err[512];

	for (*ndone = 0; *ndone < ncells; ++*ndone) {
		struct fl_cell_result res;
		struct fl_cell_figures fig;

		fl_spec_cell(&a->spec, *ndone, &cell, err, sizeof(err));
		fl_cell_run(&cell, &res);
		if (fl_interrupted) {
			fl_cell_result_free(&res);
			return INTERRUPTED;
		}
		if (fl_run_write_cell(run, &cell, &res)) {
			fl_cell_result_free(&res);
			return WRITE_FAILED;
		}
		fl_cell_figures(&cell, &res, &fig);
		if (a->json)
			json_array_append_new(cells_json,
					      fl_cell_json(&cell, &res, &fig));
		/* the text summary goes to stderr under --json */
		fl_cell_print(out, &cell, &res, &fig);
		by_status[res.status]++;
		if (res.status == FL_STATUS_FAILED ||
		    res.status == FL_STATUS_ABORTED)
			*worst = 1;
		fl_cell_result_free(&res);
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
		fprintf(stderr, "futexlab run: interrupted; the cells done so "
			"far are in %s (not a complete run)\n", run->tmp);
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
static int print_result(const struct fl_run_args *a, const struct fl_run *run,
			json_t *cells_json)
{
	if (a->json) {
		json_t *doc = json_pack("{s:s, s:o}", "run_dir", run->final,
					"cells", cells_json);

		json_dumpf(doc, stdout, JSON_INDENT(2));
		printf("\n");
		json_decref(doc);
		fprintf(stderr, "%s\n", run->final);
	} else {
		json_decref(cells_json);
		printf("%s\n", run->final);
	}
	return 0;
}

int fl_cmd_run(int argc, char **argv)
{
	static struct fl_run_args a;
	struct fl_machine machine;
	struct fl_overhead overhead;
	struct fl_run run;
	unsigned int by_status[4] = { 0 };
	unsigned long ncells, ndone;
	char err[512];
	int rc, worst = 0;

	rc = fl_run_args_parse(argc - 1, argv + 1, &a);
	if (rc)
		return rc == 1 ? 0 : 2;
	ncells = fl_spec_ncells(&a.spec);
	if (place_cells(&a.spec, ncells) ||
	    fl_announce("run", ncells, ncells * a.spec.reps,
			fl_spec_seconds(&a.spec, 0), a.yes))
		return 2;
	fl_probe_machine(&machine);
	if (fl_run_open(&run, a.results_dir, machine.hostname, err,
			sizeof(err))) {
		fprintf(stderr, "futexlab run: %s\n", err);
		return 2;
	}
	fl_catch_interrupts();
	fl_measure_overhead(&overhead);
	json_t *meta = fl_meta_new(fl_main_argc, fl_main_argv, &machine,
				   &overhead, a.spec.seed);
	json_t *cells_json = json_array();

	fl_meta_add_workload(meta, a.spec.workload);
	enum stop why = run_cells(&a, &run, a.json ? stderr : stdout,
				  cells_json, by_status, &ndone, &worst);

	if (why == RAN_ALL) {
		fl_meta_finish(meta, (unsigned int)ncells, by_status, 0);
		if (fl_run_finish(&run, meta, err, sizeof(err))) {
			fprintf(stderr, "futexlab run: %s; %s holds the cells, "
				"not a complete run: delete it\n", err,
				run.tmp);
			why = WRITE_FAILED;
			worst = 1;
		}
	} else {
		worst = stopped(why, &run, ndone, ncells);
	}
	json_decref(meta);
	if (why != RAN_ALL) {
		json_decref(cells_json);
		return worst;
	}
	print_result(&a, &run, cells_json);
	if (!worst && !by_status[FL_STATUS_OK]) {
		fprintf(stderr, "futexlab run: no cell ran: all %lu were "
			"skipped (reasons above)\n", ncells);
		return FL_EXIT_NOTHING_RAN;
	}
	return worst;
}
