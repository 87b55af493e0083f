/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --topology FILE: a synthetic machine, an hwloc XML file (lstopo --of
 * xml; tests/topologies/ holds three), for planning and listing only:
 * `futexlab list --topology` shows what futexlab sees of it, and
 * `futexlab matrix --estimate --topology` plans a matrix for it.
 */
#ifndef FUTEXLAB_CLI_TOPOLOGY_FILE_H
#define FUTEXLAB_CLI_TOPOLOGY_FILE_H

#include <stdio.h>

#include "base/machine.h"

/*
 * The topology in path (a regular file, no symbolic link, at most a few
 * MiB) into t: 0, or -1 after "futexlab CMD: --topology: why" on stderr.
 */
int fl_topology_file(const char *cmd, const char *path,
		     struct fl_topology *t);

/* The distance table as a small table, indented by indent spaces; a line
 * saying it is unknown when d->n is 0. */
void fl_print_distances(FILE *f, const struct fl_distances *d, int indent);

/* What futexlab sees of t: CPUs, nodes, packages, the thread grammar's
 * words and the distance table. */
void fl_print_topology(FILE *f, const struct fl_topology *t);

#endif
