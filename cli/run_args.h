/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flags of `futexlab run`: the common ones, which mean the same in
 * every workload, and the workload's own, from its option table.
 */
#ifndef FUTEXLAB_RUN_ARGS_H
#define FUTEXLAB_RUN_ARGS_H

#include "spec/spec.h"

struct fl_run_args {
	struct fl_spec spec;
	const char *results_dir;
	int json;
	int yes;			/* --yes: past the estimate's bound */
};

/*
 * Parse argv (argv[0] is the workload name). Returns 0, 1 when --help
 * was printed, or 2 after printing a one-line usage error to stderr.
 */
int fl_run_args_parse(int argc, char **argv, struct fl_run_args *a);
void fl_run_usage(FILE *f, const struct fl_workload *w);

#endif
