/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `futexlab matrix` adds for a lab of machines (docs/fleet.md): the
 * shards' command lines for an engine to run, and the machine's label.
 */
#ifndef FUTEXLAB_CLI_SHARDS_H
#define FUTEXLAB_CLI_SHARDS_H

#include "measure/probe.h"
#include "sweep/job.h"

/*
 * One line per shard on stdout, "BIN matrix FILE --shard K/N [--results
 * DIR]", each word quoted for a shell, after checking the file parses
 * and has at least n cells on this machine. The exit status: 0, or 2
 * after one line on stderr.
 */
int fl_print_shard_commands(const char *file, unsigned int n,
			    const char *results);

#define FL_LABEL_MAX 63

/* A label is a name of 1 to FL_LABEL_MAX letters, digits, '-', '_', '.'
 * (no ".."): it becomes a column title and a plot line's. */
int fl_label_ok(const char *s);

/* The machine's label: the one given (kept in matrix.json for a
 * resume), or a resumed run's from matrix.json, or none. */
void fl_label_machine(struct fl_machine *m, struct fl_matrix_job *j,
		      const char *label);

#endif
