// SPDX-License-Identifier: GPL-2.0
/* Per-repetition and per-cell figures, and their printed and JSON forms. */
#include "stats/figures.h"

#include <math.h>
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

const double fl_pct_q[FL_NPCT] = { 0.50, 0.90, 0.99, 0.999 };
const char *const fl_pct_name[FL_NPCT] = { "p50", "p90", "p99", "p99.9" };

#define MAX_REPS 256

void fl_cell_figures(const struct fl_cell *cell,
		     const struct fl_cell_result *res,
		     struct fl_cell_figures *f)
{
	double ops[MAX_REPS], per[MAX_REPS], p50[MAX_REPS], jain[MAX_REPS];
	double tmin[MAX_REPS], tmax[MAX_REPS], cnt[FL_NCOUNTERS][MAX_REPS];
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
	f->ops_per_sec_per_thread = fl_median(per, n);
	f->jain = fl_median(jain, n);
	f->thread_ops_min = (uint64_t)fl_median(tmin, n);
	f->thread_ops_max = (uint64_t)fl_median(tmax, n);
	for (unsigned int c = 0; c < cell->workload->ncounters; c++)
		f->counters[c] = fl_median(cnt[c], n);
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

static void fmt_value(double v, int latency, char *buf, size_t len)
{
	if (latency)
		fl_fmt_ns((uint64_t)v, buf, len);
	else
		fl_fmt_rate(v, buf, len);
}

void fl_fmt_ci(const struct fl_ci *ci, int latency, char *buf, size_t len)
{
	char mid[32], lo[32], hi[32];

	fmt_value(ci->mid, latency, mid, sizeof(mid));
	if (!ci->ok) {
		snprintf(buf, len, "%s (interval n/a: %u rep%s)", mid, ci->n,
			 ci->n == 1 ? "" : "s");
		return;
	}
	fmt_value(ci->lo, latency, lo, sizeof(lo));
	fmt_value(ci->hi, latency, hi, sizeof(hi));
	if (isinf(fl_ci_rel_halfwidth(ci)))
		snprintf(buf, len, "%s [%s, %s] (no relative width about 0)",
			 mid, lo, hi);
	else
		snprintf(buf, len, "%s [%s, %s] +-%.1f%%", mid, lo, hi,
			 fl_ci_rel_halfwidth(ci) * 100);
}

void fl_cell_print(FILE *out, const struct fl_cell *cell,
		   const struct fl_cell_result *res,
		   const struct fl_cell_figures *f)
{
	const struct fl_workload *w = cell->workload;
	char rate[32], per[32], prim[128], a[96];

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
	fl_fmt_ci(&f->primary, f->latency_primary, prim, sizeof(prim));
	if (f->latency_primary)
		fprintf(out, "  %s p50 %s%s, %u reps; %s/s %s\n", w->latency,
			prim, f->noisy ? " NOISY" : "", f->nreps, w->ops_unit,
			rate);
	else
		fprintf(out, "  %s/s %s%s, %u reps%s%s%s\n", w->ops_unit,
			prim, f->noisy ? " NOISY" : "", f->nreps,
			w->ops_by_one_thread ? "" : "; per thread ",
			w->ops_by_one_thread ? "" : per,
			w->ops_by_one_thread ? "" : "/s");
	fprintf(out, "  %s (%llu samples):", w->latency,
		(unsigned long long)f->lat_count);
	for (int i = 0; i < FL_NPCT; i++) {
		fl_pct_format(&f->pct[i], a, sizeof(a));
		fprintf(out, " %s %s;", fl_pct_name[i], a);
	}
	fl_fmt_ns(f->max, a, sizeof(a));
	fprintf(out, " max %s\n", a);
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

/* {"ns", "lo", "hi"} of a percentile, or null when withheld */
static json_t *pct_json(const struct fl_pct *p)
{
	if (!p->enough)
		return json_null();
	return json_pack("{s:I, s:I, s:I}", "ns", (json_int_t)p->value,
			 "lo", (json_int_t)p->lo, "hi", (json_int_t)p->hi);
}

/* the primary figure: median, interval (null when n/a), half-width */
static json_t *primary_json(const struct fl_cell_figures *f)
{
	const struct fl_ci *ci = &f->primary;

	return json_pack("{s:s, s:f, s:o, s:o, s:o, s:b}",
			 "figure", f->latency_primary ? "latency_p50_ns" :
			 "ops_per_sec", "median", ci->mid,
			 "lo", ci->ok ? json_real(ci->lo) : json_null(),
			 "hi", ci->ok ? json_real(ci->hi) : json_null(),
			 "rel_halfwidth", ci->ok &&
			 isfinite(fl_ci_rel_halfwidth(ci)) ?
			 json_real(fl_ci_rel_halfwidth(ci)) : json_null(),
			 "converged", ci->ok && !f->noisy);
}

json_t *fl_cell_json(const struct fl_cell *cell,
		     const struct fl_cell_result *res,
		     const struct fl_cell_figures *f)
{
	const struct fl_workload *w = cell->workload;
	json_t *counters = json_object(), *lat = json_object();

	for (unsigned int i = 0; i < w->ncounters; i++)
		json_object_set_new(counters, w->counters[i].name,
				    json_real(f->counters[i]));
	/* "p99.9" reads badly as a key: p999 as in cells.csv */
	static const char *const keys[FL_NPCT] = { "p50", "p90", "p99",
						   "p999" };
	for (int i = 0; i < FL_NPCT; i++)
		json_object_set_new(lat, keys[i], pct_json(&f->pct[i]));
	json_object_set_new(lat, "max", json_integer((json_int_t)f->max));
	json_object_set_new(lat, "count",
			    json_integer((json_int_t)f->lat_count));
	return json_pack("{s:s, s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:i,"
			 " s:o, s:f, s:f, s:b, s:o, s:f, s:I, s:I, s:o}",
			 "workload", w->name, "backend", cell->backend->name,
			 "threads", (json_int_t)cell->threads,
			 "placement", cell->placement,
			 "options", cell->options,
			 "status", fl_status_name(res->status),
			 "reason", res->reason, "note", res->note,
			 "reps_ok", (json_int_t)f->nreps,
			 "primary", primary_json(f),
			 "ops_per_sec", f->ops_per_sec,
			 "ops_per_sec_per_thread", f->ops_per_sec_per_thread,
			 "noisy", f->noisy,
			 "latency_ns", lat,
			 "jain", f->jain,
			 "thread_ops_min", (json_int_t)f->thread_ops_min,
			 "thread_ops_max", (json_int_t)f->thread_ops_max,
			 "counters", counters);
}
