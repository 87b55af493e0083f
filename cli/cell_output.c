// SPDX-License-Identifier: GPL-2.0
/* A cell's summary lines and its JSON object, as `futexlab run` prints
 * them. */
#include "cli/cell_output.h"

#include <math.h>
#include <string.h>

#include "stats/format.h"

/*
 * A workload whose one thread of its own makes one operation a
 * repetition (app: one run of a program, with the program's threads):
 * its thread count and its rate say nothing of what ran.
 */
static int one_run_a_rep(const struct fl_workload *w)
{
	return w->fixed_threads == 1;
}

/* What the figure is: the workload's words, and for a cell whose
 * --metric chooses it, which one this cell's is. */
static void figure_name(const struct fl_cell *cell, char *buf, size_t len)
{
	const struct fl_workload *w = cell->workload;

	for (unsigned int i = 0; i < w->noptions; i++) {
		const char *text;

		if (strcmp(w->options[i].name, "metric") ||
		    w->options[i].type != FL_OPT_TEXT)
			continue;
		text = fl_opt_text(cell->opt[i]);
		if (*text)
			snprintf(buf, len, "%s (--metric '%s')", w->latency,
				 text);
		else
			snprintf(buf, len, "%s (wall time)",
				 w->latency);
		return;
	}
	snprintf(buf, len, "%s", w->latency);
}

/* The percentiles of the merged histogram, or that there are too few
 * samples for any. */
static void print_percentiles(FILE *out, const struct fl_cell_figures *f,
			      const char *what)
{
	char a[96];
	int any = 0;

	for (int i = 0; i < FL_NPCT; i++)
		any |= f->pct[i].enough;
	fprintf(out, "  %s (%llu sample%s", what,
		(unsigned long long)f->lat_count, f->lat_count == 1 ? "" : "s");
	if (!any) {
		fl_fmt_ns(f->max, a, sizeof(a));
		fprintf(out, ", too few for percentiles): max %s\n", a);
		return;
	}
	fprintf(out, "):");
	for (int i = 0; i < FL_NPCT; i++) {
		fl_pct_format(&f->pct[i], a, sizeof(a));
		fprintf(out, " %s %s;", fl_pct_name[i], a);
	}
	fl_fmt_ns(f->max, a, sizeof(a));
	fprintf(out, " max %s\n", a);
}

/* The cost of an operation (stats/cost.h), and whether it holds where
 * the throughput is the machine's: a round workload's cost is per
 * round; a program's run has none of its own (its CPU is the
 * program's process, not the cell's threads). */
static void print_cost(FILE *out, const struct fl_workload *w,
		       const struct fl_cell_figures *f)
{
	char text[600];

	if (one_run_a_rep(w)) {
		fprintf(out, "  cost: not counted for a program's run (its CPU "
			"time is the program's, not the cell's threads')\n");
		return;
	}
	fl_fmt_cost(&f->cost, f->latency_primary ? "round" : "op", text,
		    sizeof(text));
	fprintf(out, "  cost: %s\n", text);
	/* how many repetitions were contaminated, and how much: from each
	 * row's mark, as report.md's cost table says it (a row's note is
	 * its own; the cell's count is not a note of any one row) */
	fl_fmt_contamination(&f->cost, text, sizeof(text));
	if (f->cost.ncontaminated)
		fprintf(out, "  contamination: %s\n", text);
	if (fl_cost_holds(&f->cost, f->noisy))
		fprintf(out, "  the throughput is NOISY on a contaminated "
			"machine; the cost holds (within +-%.0f%%)\n",
			FL_NOISY_HALFWIDTH * 100);
}

void fl_cell_print(FILE *out, const struct fl_cell *cell,
		   const struct fl_cell_result *res,
		   const struct fl_cell_figures *f)
{
	const struct fl_workload *w = cell->workload;
	char rate[32], per[32], prim[128], what[512], threads[32] = "";

	if (!one_run_a_rep(w))
		snprintf(threads, sizeof(threads), " threads=%u",
			 cell->threads);
	fprintf(out, "%s %s%s placement=%s %s\n", w->name,
	       cell->backend->name, threads, cell->placement,
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
	figure_name(cell, what, sizeof(what));
	if (f->latency_primary && one_run_a_rep(w))
		fprintf(out, "  %s p50 %s%s, %u rep%s\n", what, prim,
			f->noisy ? " NOISY" : "", f->nreps,
			f->nreps == 1 ? "" : "s");
	else if (f->latency_primary)
		fprintf(out, "  %s p50 %s%s, %u reps; %s/s %s\n", what,
			prim, f->noisy ? " NOISY" : "", f->nreps, w->ops_unit,
			rate);
	else
		fprintf(out, "  %s/s %s%s, %u reps%s%s%s\n", w->ops_unit,
			prim, f->noisy ? " NOISY" : "", f->nreps,
			w->ops_by_one_thread ? "" : "; per thread ",
			w->ops_by_one_thread ? "" : per,
			w->ops_by_one_thread ? "" : "/s");
	print_percentiles(out, f, what);
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
	print_cost(out, w, f);
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

/* one cost figure: median, interval (null when n/a), NOISY; null when
 * not counted */
static json_t *cost_fig_json(const struct fl_cost_fig *f)
{
	if (!f->ci.n)
		return json_null();
	return json_pack("{s:f, s:o, s:o, s:b}", "median", f->ci.mid,
			 "lo", f->ci.ok ? json_real(f->ci.lo) : json_null(),
			 "hi", f->ci.ok ? json_real(f->ci.hi) : json_null(),
			 "noisy", f->noisy);
}

static json_t *cost_json(const struct fl_cost *c)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:i, s:i}",
			 "cpu_ns_per_op", cost_fig_json(&c->fig[FL_COST_CPU]),
			 "ctx_switches_per_op",
			 cost_fig_json(&c->fig[FL_COST_CTX]),
			 "cpu_share", cost_fig_json(&c->fig[FL_COST_SHARE]),
			 "cycles_per_op",
			 cost_fig_json(&c->fig[FL_COST_CYCLES]),
			 "instructions_per_op",
			 cost_fig_json(&c->fig[FL_COST_INSNS]),
			 "reps_judged", (json_int_t)c->njudged,
			 "reps_contaminated", (json_int_t)c->ncontaminated);
}

/* The harness's own cost over the repetitions that ran: the longest
 * start of the threads (creation to the gate's opening), the longest
 * merge of their counts and histograms, and the largest peak resident
 * set of a cell's process (docs/measurement.md). */
static json_t *harness_json(const struct fl_cell_result *res)
{
	uint64_t start = 0, merge = 0;

	for (unsigned int r = 0; r < res->nreps; r++) {
		if (!res->reps[r].done)
			continue;
		if (res->reps[r].start_ns > start)
			start = res->reps[r].start_ns;
		if (res->reps[r].merge_ns > merge)
			merge = res->reps[r].merge_ns;
	}
	return json_pack("{s:I, s:I, s:I}", "start_ns_max", (json_int_t)start,
			 "merge_ns_max", (json_int_t)merge, "cell_maxrss_kb",
			 (json_int_t)res->cell_maxrss_kb);
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
			 " s:o, s:f, s:f, s:b, s:o, s:f, s:I, s:I, s:o, s:o,"
			 " s:o}",
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
			 "counters", counters, "harness", harness_json(res),
			 "cost", cost_json(&f->cost));
}
