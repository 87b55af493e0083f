// SPDX-License-Identifier: GPL-2.0
/*
 * A repetition's threads merged into its result, once they joined: the
 * operations and counters summed (or their maximum, as the workload's
 * counter table says), the histograms added, and each thread's count
 * kept for fairness.
 */
#include <string.h>

#include "measure/cell.h"
#include "stats/stats.h"

void fl_rep_merge(struct fl_rep_result *out, const struct fl_rep *rep)
{
	const struct fl_workload *w = rep->cell->workload;

	out->nthreads = rep->nthreads;
	out->ops = 0;
	memset(&out->thread_ops, 0, sizeof(out->thread_ops));
	memset(out->counters, 0, sizeof(out->counters));
	fl_hist_init(&out->hist);
	for (unsigned int i = 0; i < rep->nthreads; i++) {
		const struct fl_thread *t = &rep->threads[i];

		out->ops += t->ops;
		fl_thread_ops_add(&out->thread_ops, t->ops);
		for (unsigned int c = 0; c < w->ncounters; c++) {
			if (w->counters[c].merge == FL_MERGE_MAX) {
				if (t->counters[c] > out->counters[c])
					out->counters[c] = t->counters[c];
			} else {
				out->counters[c] += t->counters[c];
			}
		}
		fl_hist_merge(&out->hist, t->hist);
	}
}
