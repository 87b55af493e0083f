// SPDX-License-Identifier: GPL-2.0
/* Per-repetition and per-cell figures. */
#include "stats/figures.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stats/stats.h"

void fl_rep_figures(const struct fl_rep_result *r, struct fl_rep_figures *f)
{
	unsigned int n = r->nthreads;

	memset(f, 0, sizeof(*f));
	if (r->elapsed_ns)
		f->ops_per_sec = (double)r->ops * 1e9 / (double)r->elapsed_ns;
	if (n)
		f->ops_per_sec_per_thread = f->ops_per_sec / n;
	f->lat_count = r->hist.count;
	f->p50 = fl_hist_quantile(&r->hist, 0.50);
	f->p90 = fl_hist_quantile(&r->hist, 0.90);
	f->p99 = fl_hist_quantile(&r->hist, 0.99);
	f->p999 = fl_hist_quantile(&r->hist, 0.999);
	f->max = r->hist.count ? r->hist.max : 0;
	f->mean = r->hist.count ? r->hist.sum / r->hist.count : 0;
	f->jain = fl_thread_ops_jain(&r->thread_ops);
	f->thread_ops_min = r->thread_ops.min;
	f->thread_ops_max = r->thread_ops.max;
}

const double fl_pct_q[FL_NPCT] = { 0.50, 0.90, 0.99, 0.999 };
const char *const fl_pct_name[FL_NPCT] = { "p50", "p90", "p99", "p99.9" };

#define MAX_REPS 256

void fl_cell_figures(const struct fl_cell *cell,
		     const struct fl_cell_result *res,
		     struct fl_cell_figures *f)
{
	double ops[MAX_REPS], per[MAX_REPS], p50[MAX_REPS], jain[MAX_REPS];
	double tmin[MAX_REPS], tmax[MAX_REPS], cnt[FL_NCOUNTERS][MAX_REPS];
	static struct fl_rep_counts counts[MAX_REPS];
	uint64_t nops[MAX_REPS];
	unsigned int n = 0;

	memset(f, 0, sizeof(*f));
	for (unsigned int r = 0; r < res->nreps && n < MAX_REPS; r++) {
		struct fl_rep_figures rf;

		if (!res->reps[r].done || res->reps[r].status != FL_STATUS_OK)
			continue;
		fl_rep_figures(&res->reps[r], &rf);
		ops[n] = rf.ops_per_sec;
		per[n] = rf.ops_per_sec_per_thread;
		p50[n] = (double)rf.p50;
		jain[n] = rf.jain;
		tmin[n] = (double)rf.thread_ops_min;
		tmax[n] = (double)rf.thread_ops_max;
		for (unsigned int c = 0; c < cell->workload->ncounters; c++)
			cnt[c][n] = (double)res->reps[r].counters[c];
		counts[n] = res->reps[r].counts;
		nops[n] = res->reps[r].ops;
		n++;
	}
	f->nreps = n;
	f->latency_primary = cell->workload->primary ==
			     FL_PRIMARY_LATENCY_P50;
	f->lat_count = res->merged.count;
	f->max = res->merged.count ? res->merged.max : 0;
	for (int i = 0; i < FL_NPCT; i++)
		fl_hist_percentile(&res->merged, fl_pct_q[i], &f->pct[i]);
	if (!n)
		return;
	f->ops_per_sec = fl_median(ops, n);
	fl_median_ci(f->latency_primary ? p50 : ops, n, FL_CONFIDENCE,
		     &f->primary);
	f->noisy = fl_ci_noisy(&f->primary, FL_NOISY_HALFWIDTH);
	fl_cost_of(counts, nops, n, &f->cost);
	f->ops_per_sec_per_thread = fl_median(per, n);
	f->jain = fl_median(jain, n);
	f->thread_ops_min = (uint64_t)fl_median(tmin, n);
	f->thread_ops_max = (uint64_t)fl_median(tmax, n);
	for (unsigned int c = 0; c < cell->workload->ncounters; c++)
		f->counters[c] = fl_median(cnt[c], n);
}
