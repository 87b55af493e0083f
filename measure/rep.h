/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a workload asks of the repetition that runs it (cell_child.c):
 * memory for its shared state and futex words, and a failure to record.
 * Called from init() and from the threads outside their measured loops.
 */
#ifndef FUTEXLAB_MEASURE_REP_H
#define FUTEXLAB_MEASURE_REP_H

#include <stddef.h>

#include "spec/workload.h"

/* Memory for futex words and shared state, of the backend's kind
 * (MAP_SHARED for shared keys), zeroed, page aligned; node >= 0 binds it
 * to that NUMA node. Freed by the harness after the repetition. */
void *fl_rep_alloc(struct fl_rep *rep, size_t size, int node);

/* Record a broken invariant; the cell fails with this reason. */
void fl_rep_fail(struct fl_rep *rep, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
