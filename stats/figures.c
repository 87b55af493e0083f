// SPDX-License-Identifier: GPL-2.0
/* Per-repetition and per-cell figures, and their printed and JSON forms. */
#include "stats/figures.h"

#include <stdio.h>
#include <string.h>

#include "stats/stats.h"

void fl_rep_figures(const struct fl_rep_result *r, struct fl_rep_figures *f)
{
	unsigned int n = r->nthreads < FL_MAX_THREADS ? r->nthreads :
			 FL_MAX_THREADS;

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
	f->jain = fl_jain(r->thread_ops, n);
	if (n) {
		f->thread_ops_min = UINT64_MAX;
		for (unsigned int i = 0; i < n; i++) {
			if (r->thread_ops[i] < f->thread_ops_min)
				f->thread_ops_min = r->thread_ops[i];
			if (r->thread_ops[i] > f->thread_ops_max)
				f->thread_ops_max = r->thread_ops[i];
		}
	}
}

void fl_cell_figures(const struct fl_cell *cell,
		     const struct fl_cell_result *res,
		     struct fl_cell_figures *f)
{
	double ops[256], per[256], p50[256], p90[256], p99[256], p999[256];
	double jain[256], tmin[256], tmax[256], cnt[FL_NCOUNTERS][256];
	unsigned int n = 0;

	memset(f, 0, sizeof(*f));
	for (unsigned int r = 0; r < res->nreps && n < 256; r++) {
		struct fl_rep_figures rf;

		if (!res->reps[r].done || res->reps[r].status != FL_STATUS_OK)
			continue;
		fl_rep_figures(&res->reps[r], &rf);
		ops[n] = rf.ops_per_sec;
		per[n] = rf.ops_per_sec_per_thread;
		p50[n] = (double)rf.p50;
		p90[n] = (double)rf.p90;
		p99[n] = (double)rf.p99;
		p999[n] = (double)rf.p999;
		jain[n] = rf.jain;
		tmin[n] = (double)rf.thread_ops_min;
		tmax[n] = (double)rf.thread_ops_max;
		if (rf.max > f->max)
			f->max = rf.max;
		for (unsigned int c = 0; c < cell->workload->ncounters; c++)
			cnt[c][n] = (double)res->reps[r].counters[c];
		n++;
	}
	f->nreps = n;
	if (!n)
		return;
	f->ops_per_sec = fl_median(ops, n);
	f->ops_spread = fl_spread(ops, n);
	f->ops_per_sec_per_thread = fl_median(per, n);
	f->p50 = (uint64_t)fl_median(p50, n);
	f->p90 = (uint64_t)fl_median(p90, n);
	f->p99 = (uint64_t)fl_median(p99, n);
	f->p999 = (uint64_t)fl_median(p999, n);
	f->jain = fl_median(jain, n);
	f->thread_ops_min = (uint64_t)fl_median(tmin, n);
	f->thread_ops_max = (uint64_t)fl_median(tmax, n);
	for (unsigned int c = 0; c < cell->workload->ncounters; c++)
		f->counters[c] = fl_median(cnt[c], n);
	f->noisy = fl_is_noisy(f->ops_spread);
}

void fl_fmt_rate(double v, char *buf, size_t len)
{
	if (v >= 1e9)
		snprintf(buf, len, "%.3gG", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, len, "%.3gM", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, len, "%.3gk", v / 1e3);
	else
		snprintf(buf, len, "%.3g", v);
}

void fl_fmt_ns(uint64_t ns, char *buf, size_t len)
{
	if (ns >= 1000000000ull)
		snprintf(buf, len, "%.3g s", (double)ns / 1e9);
	else if (ns >= 1000000)
		snprintf(buf, len, "%.3g ms", (double)ns / 1e6);
	else if (ns >= 1000)
		snprintf(buf, len, "%.3g us", (double)ns / 1e3);
	else
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
}

void fl_cell_print(FILE *out, const struct fl_cell *cell,
		   const struct fl_cell_result *res,
		   const struct fl_cell_figures *f)
{
	const struct fl_workload *w = cell->workload;
	char rate[32], per[32], a[32], b[32], c[32], d[32], e[32];

	fprintf(out, "%s %s threads=%u placement=%s %s\n", w->name,
	       cell->backend->name, cell->threads, cell->placement,
	       cell->options);
	if (res->note[0])
		fprintf(out, "  note: %s\n", res->note);
	if (res->status != FL_STATUS_OK) {
		fprintf(out, "  %s: %s\n", fl_status_name(res->status), res->reason);
		if (!f->nreps)
			return;
	}
	fl_fmt_rate(f->ops_per_sec, rate, sizeof(rate));
	fl_fmt_rate(f->ops_per_sec_per_thread, per, sizeof(per));
	fprintf(out, "  %s/s %s (spread %.1f%%%s, %u reps)", w->ops_unit, rate,
		f->ops_spread * 100, f->noisy ? ", NOISY" : "", f->nreps);
	if (!w->ops_by_one_thread)
		fprintf(out, ", per thread %s/s", per);
	fprintf(out, "\n");
	fl_fmt_ns(f->p50, a, sizeof(a));
	fl_fmt_ns(f->p90, b, sizeof(b));
	fl_fmt_ns(f->p99, c, sizeof(c));
	fl_fmt_ns(f->p999, d, sizeof(d));
	fl_fmt_ns(f->max, e, sizeof(e));
	fprintf(out, "  %s: p50 %s  p90 %s  p99 %s  p99.9 %s  max %s\n", w->latency,
	       a, b, c, d, e);
	if (!w->ops_by_one_thread)
		fprintf(out, "  fairness: jain %.3f, per-thread %s min %llu "
			"max %llu\n", f->jain, w->ops_unit,
			(unsigned long long)f->thread_ops_min,
			(unsigned long long)f->thread_ops_max);
	for (unsigned int i = 0; i < w->ncounters; i++)
		fprintf(out, "%s%s %.0f", i ? ", " : "  ", w->counters[i].name,
			f->counters[i]);
	if (w->ncounters)
		fprintf(out, "\n");
}

json_t *fl_cell_json(const struct fl_cell *cell,
		     const struct fl_cell_result *res,
		     const struct fl_cell_figures *f)
{
	const struct fl_workload *w = cell->workload;
	json_t *counters = json_object();

	for (unsigned int i = 0; i < w->ncounters; i++)
		json_object_set_new(counters, w->counters[i].name,
				    json_real(f->counters[i]));
	return json_pack("{s:s, s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:i,"
			 " s:f, s:f, s:f, s:b,"
			 " s:{s:I, s:I, s:I, s:I, s:I}, s:f, s:I, s:I, s:o}",
			 "workload", w->name, "backend", cell->backend->name,
			 "threads", (json_int_t)cell->threads,
			 "placement", cell->placement,
			 "options", cell->options,
			 "status", fl_status_name(res->status),
			 "reason", res->reason, "note", res->note,
			 "reps_ok", (json_int_t)f->nreps,
			 "ops_per_sec", f->ops_per_sec,
			 "ops_spread", f->ops_spread,
			 "ops_per_sec_per_thread", f->ops_per_sec_per_thread,
			 "noisy", f->noisy,
			 "latency_ns", "p50", (json_int_t)f->p50,
			 "p90", (json_int_t)f->p90, "p99", (json_int_t)f->p99,
			 "p999", (json_int_t)f->p999,
			 "max", (json_int_t)f->max,
			 "jain", f->jain,
			 "thread_ops_min", (json_int_t)f->thread_ops_min,
			 "thread_ops_max", (json_int_t)f->thread_ops_max,
			 "counters", counters);
}
