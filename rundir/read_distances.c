// SPDX-License-Identifier: GPL-2.0
/*
 * meta.json's node distance table (machine.topology.numa_distances: a
 * row per NUMA node, results/README.md), checked as the untrusted input
 * a run directory is: square, a row for each of machine.topology's
 * numa_nodes, each value a SLIT byte (0 to 255, 0 meaning unknown) and
 * 10, the node's distance to itself, on the diagonal where known. A run
 * written before futexlab kept the table has none: unknown, not wrong.
 */
#include "rundir/read.h"

#include <stdio.h>
#include <string.h>

/* The table at meta's machine.topology, or NULL (borrowed). */
static json_t *table(json_t *meta)
{
	return json_object_get(json_object_get(json_object_get(meta,
		"machine"), "topology"), "numa_distances");
}

/* Row i of t: 0, or -1 with err naming what is wrong. */
static int check_row(json_t *t, size_t i, size_t n, const char *file,
		     char *err, size_t errlen)
{
	json_t *row = json_array_get(t, i);

	if (!json_is_array(row) || json_array_size(row) != n) {
		snprintf(err, errlen, "%s: machine.topology.numa_distances: "
			 "row %zu is not a list of %zu distances (one per "
			 "node)", file, i, n);
		return -1;
	}
	for (size_t j = 0; j < n; j++) {
		json_t *v = json_array_get(row, j);
		json_int_t d = json_is_integer(v) ? json_integer_value(v) : -1;

		if (d < 0 || d > 255) {
			snprintf(err, errlen, "%s: machine.topology."
				 "numa_distances[%zu][%zu] is not a distance "
				 "from 0 to 255", file, i, j);
			return -1;
		}
		if (i == j && d != 10 && d != 0) {
			snprintf(err, errlen, "%s: machine.topology."
				 "numa_distances[%zu][%zu] is %lld: a node's "
				 "distance to itself is 10", file, i, j,
				 (long long)d);
			return -1;
		}
	}
	return 0;
}

int fl_rd_check_distances(json_t *meta, const char *file, char *err,
			  size_t errlen)
{
	json_t *t = table(meta), *nodes;
	size_t n;

	if (!t)
		return 0;
	nodes = json_object_get(json_object_get(json_object_get(meta,
		"machine"), "topology"), "numa_nodes");
	n = json_is_array(t) ? json_array_size(t) : 0;
	if (!json_is_integer(nodes) || json_integer_value(nodes) < 1 ||
	    json_integer_value(nodes) > FL_MAX_NODES) {
		snprintf(err, errlen, "%s: machine.topology.numa_distances "
			 "without a numa_nodes count from 1 to %d beside it",
			 file, FL_MAX_NODES);
		return -1;
	}
	if (!json_is_array(t) || n != (size_t)json_integer_value(nodes)) {
		snprintf(err, errlen, "%s: machine.topology.numa_distances is "
			 "not a list of %lld rows (one per NUMA node)", file,
			 (long long)json_integer_value(nodes));
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (check_row(t, i, n, file, err, errlen))
			return -1;
	return 0;
}

int fl_rd_distances(const struct fl_rd_run *r, struct fl_distances *d)
{
	json_t *t = table(r->meta);

	memset(d, 0, sizeof(*d));
	if (!t)
		return -1;
	/* checked when the run was opened (fl_rd_check_distances) */
	d->n = (unsigned int)json_array_size(t);
	for (unsigned int i = 0; i < d->n; i++)
		for (unsigned int j = 0; j < d->n; j++)
			d->d[i][j] = (unsigned char)json_integer_value(
				json_array_get(json_array_get(t, i), j));
	return 0;
}
