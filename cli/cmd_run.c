// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab run WORKLOAD [options]: run every cell of one specification,
 * write a run directory, print a summary per cell, and end with the run
 * directory's path. Exit 0 when every cell ran or was skipped, 1 when a
 * cell failed a check or was aborted, 2 on bad usage, 3 when no cell ran
 * at all (every one skipped: a script must not take that for a result),
 * 130 on Ctrl-C.
 */
#include <stdio.h>

#include "measure/cell.h"
#include "cli/commands.h"
#include "stats/figures.h"
#include "cli/interrupt.h"
#include "rundir/meta.h"
#include "rundir/write.h"
#include "cli/run_args.h"

int fl_cmd_run(int argc, char **argv)
{
	static struct fl_run_args a;
	static struct fl_cell cell;
	struct fl_machine machine;
	struct fl_overhead overhead;
	struct fl_run run;
	unsigned int by_status[4] = { 0 };
	char err[512];
	int rc;

	rc = fl_run_args_parse(argc - 1, argv + 1, &a);
	if (rc)
		return rc == 1 ? 0 : 2;
	unsigned long ncells = fl_spec_ncells(&a.spec);

	/* place every cell before anything is written: a bad placement is a
	 * usage error, not a run directory full of failures */
	for (unsigned long i = 0; i < ncells; i++) {
		if (fl_spec_cell(&a.spec, i, &cell, err, sizeof(err))) {
			fprintf(stderr, "futexlab run: %s\n", err);
			return 2;
		}
	}
	fl_probe_machine(&machine);
	if (fl_run_open(&run, a.results_dir, machine.hostname, err,
			sizeof(err))) {
		fprintf(stderr, "futexlab run: %s\n", err);
		return 2;
	}
	fl_catch_interrupts();
	fl_measure_overhead(&overhead);
	json_t *meta = fl_meta_new(fl_main_argc, fl_main_argv, &machine,
				   &overhead,
				   a.spec.seed);
	json_t *cells_json = json_array();

	fl_meta_add_workload(meta, a.spec.workload);
	FILE *out = a.json ? stderr : stdout;
	int worst = 0;

	for (unsigned long i = 0; i < ncells && !fl_interrupted; i++) {
		struct fl_cell_result res;
		struct fl_cell_figures fig;

		fl_spec_cell(&a.spec, i, &cell, err, sizeof(err));
		fl_cell_run(&cell, &res);
		if (fl_interrupted) {
			fl_cell_result_free(&res);
			break;
		}
		if (fl_run_write_cell(&run, &cell, &res))
			worst = 1;
		fl_cell_figures(&cell, &res, &fig);
		if (a.json) {
			json_array_append_new(cells_json,
					      fl_cell_json(&cell, &res, &fig));
		}
		/* the text summary goes to stderr under --json */
		fl_cell_print(out, &cell, &res, &fig);
		fflush(out);
		by_status[res.status]++;
		if (res.status == FL_STATUS_FAILED ||
		    res.status == FL_STATUS_ABORTED)
			worst = 1;
		fl_cell_result_free(&res);
	}
	if (fl_interrupted) {
		fprintf(stderr, "futexlab run: interrupted; the cells done so "
			"far are in %s (not a complete run)\n", run.tmp);
		json_decref(meta);
		json_decref(cells_json);
		return 130;
	}
	fl_meta_finish(meta, (unsigned int)ncells, by_status, 0);
	if (fl_run_finish(&run, meta, err, sizeof(err))) {
		fprintf(stderr, "futexlab run: %s\n", err);
		json_decref(meta);
		json_decref(cells_json);
		return 1;
	}
	json_decref(meta);
	if (a.json) {
		json_t *doc = json_pack("{s:s, s:o}", "run_dir", run.final,
					"cells", cells_json);

		json_dumpf(doc, stdout, JSON_INDENT(2));
		printf("\n");
		json_decref(doc);
		fprintf(stderr, "%s\n", run.final);
	} else {
		json_decref(cells_json);
		printf("%s\n", run.final);
	}
	if (!worst && !by_status[FL_STATUS_OK]) {
		fprintf(stderr, "futexlab run: no cell ran: all %lu were "
			"skipped (reasons above)\n", ncells);
		return FL_EXIT_NOTHING_RAN;
	}
	return worst;
}
