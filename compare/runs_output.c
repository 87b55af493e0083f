// SPDX-License-Identifier: GPL-2.0
/* The comparison over runs: its table, compare.csv, compare.md and the
 * summaries with the run as the unit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/internal.h"
#include "compare/runs_internal.h"
#include "rundir/csv.h"
#include "stats/cost.h"
#include "stats/format.h"
#include "stats/maxt.h"
#include "stats/stats.h"

/* the median over runs of a side's medians, or NaN */
static double side_median(const struct runs_cell *x, int s)
{
	return x->nok[s] ? fl_median(x->ok[s], x->nok[s]) : NAN;
}

/* What the comparison's verdicts are about */
static const char *figure_name(const struct runs_cmp *c,
			       const struct runs_cell *x)
{
	if (c->cost)
		return fl_cost_name[FL_COST_CPU];
	return x->lower_is_better ? "p50 latency" : "throughput";
}

static void value_text(const struct runs_cmp *c, const struct runs_cell *x,
		       int s, char *buf, size_t len)
{
	double v = side_median(x, s);

	if (isnan(v))
		snprintf(buf, len, "-");
	else if (c->cost)
		fl_fmt_ns_frac(v, buf, len);
	else if (x->lower_is_better)
		fl_fmt_ns((uint64_t)v, buf, len);
	else
		fl_fmt_rate(v, buf, len);
}

static void reason(const struct runs_cmp *c, const struct runs_cell *x,
		   char *why, size_t len)
{
	size_t used = 0;

	why[0] = '\0';
	for (int s = 0; s < 2; s++) {
		if (x->nok[s] == c->side[s].n)
			continue;
		used += (size_t)snprintf(why + used, len - used, "%sok in %u "
					 "of %u runs of %s", used ? "; " : "",
					 x->nok[s], c->side[s].n,
					 c->side[s].name);
	}
	if (used >= len)
		return;
	if (x->v == FL_V_MORE_RUNS && x->needed >= FL_RUNS_NEEDED_CAP)
		snprintf(why + used, len - used, "%sthe ratio sits on the "
			 "margin: %u runs per side would not settle it",
			 used ? "; " : "", FL_RUNS_NEEDED_CAP);
	else if (x->v == FL_V_MORE_RUNS && x->needed)
		snprintf(why + used, len - used, "%sabout %u runs per side",
			 used ? "; " : "", x->needed);
}

void runs_csv_header(FILE *f)
{
	fprintf(f, "workload,backend,threads,placement,options,figure,"
		"runs_a,runs_b,median_a,median_b,ratio,ratio_lo,ratio_hi,p,"
		"p_adjusted,delta,verdict,runs_needed,reason\n");
}

static void csv_row(FILE *f, const struct runs_cmp *c,
		    const struct runs_cell *x)
{
	const struct fl_rd_cell *y = x->first;
	char why[600];

	fl_csv_field(f, y->workload, 0);
	fl_csv_field(f, y->backend, 0);
	fprintf(f, "%u,", y->threads);
	fl_csv_field(f, y->placement, 0);
	fl_csv_field(f, y->options, 0);
	fprintf(f, "%s,%u,%u,", c->cost ? "cpu_ns_per_op" :
		x->lower_is_better ? "latency_p50_ns" : "ops_per_sec",
		x->nok[0], x->nok[1]);
	for (int s = 0; s < 2; s++)
		fprintf(f, x->nok[s] ? "%.6g," : ",", side_median(x, s));
	if (x->v == FL_V_NONE)
		fprintf(f, ",,,,,");
	else if (!x->s.ok)
		fprintf(f, "%.5f,,,%.4g,,", x->s.ratio, x->s.p);
	else
		fprintf(f, "%.5f,%.5f,%.5f,%.4g,%.4g,", x->s.ratio, x->s.lo,
			x->s.hi, x->s.p, x->p_adjusted);
	fprintf(f, "%.4g,", c->delta);
	fl_csv_field(f, fl_verdict_name(x->v), 0);
	fprintf(f, "%u,", x->needed);
	reason(c, x, why, sizeof(why));
	fl_csv_field(f, why, 1);
}

static void ratio_text(const struct runs_cell *x, char *buf, size_t len)
{
	if (x->v == FL_V_NONE)
		snprintf(buf, len, "-");
	else if (!x->s.ok)
		snprintf(buf, len, "%.3f", x->s.ratio);
	else
		snprintf(buf, len, "%.3f [%.3f, %.3f]", x->s.ratio, x->s.lo,
			 x->s.hi);
}

const struct fl_rd_cell **runs_firsts(const struct runs_cmp *c)
{
	const struct fl_rd_cell **all = calloc(c->n + 1, sizeof(*all));

	for (unsigned long i = 0; all && i < c->n; i++)
		all[i] = c->cells[i].first;
	return all;
}

static void table(const struct runs_cmp *c, FILE *out, FILE *md)
{
	const struct fl_rd_cell **all = runs_firsts(c);

	if (!all)
		return;
	cmp_preamble(all, c->n, CMP_LEGEND_RUNS, out, md);
	fprintf(md, "\n| cell | A | B | B/A [95%% CI] | p (BH) | runs | "
		"verdict | note |\n|---|---:|---:|---:|---:|---:|---|---|\n");
	fprintf(out, "  %-46s %9s %9s %-23s %8s %5s  %s\n", "cell", "A", "B",
		"B/A [95% CI]", "p(BH)", "runs", "verdict");
	for (unsigned long i = 0; i < c->n; i++) {
		const struct runs_cell *x = &c->cells[i];
		char lab[256], va[32], vb[32], r[64], pa[32] = "-", why[600];
		char runs[32];

		cmp_label(x->first, all, c->n, lab, sizeof(lab));
		if (c->cost && x->v == FL_V_NONE)
			continue;	/* not counted: no cost to compare */
		value_text(c, x, 0, va, sizeof(va));
		value_text(c, x, 1, vb, sizeof(vb));
		ratio_text(x, r, sizeof(r));
		if (x->s.ok && x->v != FL_V_NONE)
			snprintf(pa, sizeof(pa), "%.3g", x->p_adjusted);
		snprintf(runs, sizeof(runs), "%u/%u", x->nok[0], x->nok[1]);
		reason(c, x, why, sizeof(why));
		/* a verdict names its figure (the runs' medians of it) */
		fprintf(out, "  %-46s %9s %9s %-23s %8s %5s  %s %s%s%s\n", lab,
			va, vb, r, pa, runs, figure_name(c, x),
			fl_verdict_name(x->v),
			*why ? ": " : "", why);
		fprintf(md, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", lab,
			va, vb, r, pa, runs, fl_verdict_name(x->v), why);
	}
	free(all);
}

/* In the summary of workload w (NULL: overall): ok in every run. */
static int in_summary(const struct runs_cmp *c, const struct runs_cell *x,
		      const char *w)
{
	return x->v != FL_V_NONE && x->nok[0] == c->side[0].n &&
	       x->nok[1] == c->side[1].n &&
	       (!w || !strcmp(x->first->workload, w));
}

/* The summaries of one comparison: each workload's, then overall's. */
struct family {
	size_t k;
	const char *name[FL_MAXT_MAX_FAMILY];	/* NULL: overall */
	unsigned long cells[FL_MAXT_MAX_FAMILY];
	double obs[2][FL_MAXT_MAX_FAMILY * FL_RUNS_MAX_SIDE];
	struct fl_shift s[FL_MAXT_MAX_FAMILY];
};

/*
 * Summary w's observations: each run's mean log of its medians of the
 * summary's cells (overall, a latency negated: above 1 is faster).
 */
static void observe(const struct runs_cmp *c, struct family *f, size_t w)
{
	const char *name = f->name[w];

	for (int t = 0; t < 2; t++)
		for (unsigned int k = 0; k < c->side[t].n; k++) {
			double sum = 0.0;
			unsigned long cells = 0;

			for (unsigned long i = 0; i < c->n; i++) {
				const struct runs_cell *x = &c->cells[i];
				double l;

				if (!in_summary(c, x, name))
					continue;
				l = log(x->med[t][k]);
				sum += !name && x->lower_is_better ? -l : l;
				cells++;
			}
			f->obs[t][w * c->side[t].n + k] =
				cells ? exp(sum / (double)cells) : 1.0;
			f->cells[w] = cells;
		}
}

/* Does cell i open a workload (the first cell of its workload)? */
static int first_of_workload(const struct runs_cmp *c, unsigned long i)
{
	const char *w = c->cells[i].first->workload;

	for (unsigned long j = 0; j < i; j++)
		if (!strcmp(c->cells[j].first->workload, w))
			return 0;
	return 1;
}

/* The family: each workload with a cell in every run, and overall when
 * there are several; their observations and simultaneous intervals. */
static void gather(const struct runs_cmp *c, struct family *f)
{
	f->k = 0;
	for (unsigned long i = 0; i < c->n && f->k + 1 < FL_MAXT_MAX_FAMILY;
	     i++) {
		const char *w = c->cells[i].first->workload;
		int any = 0;

		if (!first_of_workload(c, i))
			continue;
		for (unsigned long j = i; j < c->n && !any; j++)
			any = in_summary(c, &c->cells[j], w);
		if (any)
			f->name[f->k++] = w;
	}
	if (f->k > 1)
		f->name[f->k++] = NULL;
	for (size_t w = 0; w < f->k; w++)
		observe(c, f, w);
	if (f->k)
		fl_runs_summaries(f->obs[0], c->side[0].n, f->obs[1],
				  c->side[1].n, f->k, f->s);
}

static void summary(const struct runs_cmp *c, const struct family *f,
		    size_t w, FILE *out, FILE *md)
{
	const struct fl_shift *s = &f->s[w];
	const char *name = f->name[w];
	char line[512];
	int len;

	len = snprintf(line, sizeof(line), "%s: %s over %lu cell%s, runs as "
		       "the unit, %.4f", name ? name : "overall",
		       name ? "B/A of the sides' geometric means of their "
		       "runs' medians" : "B's speed relative to A, the "
		       "sides' geometric means of their runs' medians",
		       f->cells[w], f->cells[w] == 1 ? "" : "s", s->ratio);
	if (s->ok)
		snprintf(line + len, sizeof(line) - len, " [%.4f, %.4f]",
			 s->lo, s->hi);
	else
		snprintf(line + len, sizeof(line) - len, " (no interval: %u "
			 "and %u runs; %d a side give one)", c->side[0].n,
			 c->side[1].n, FL_RUNS_MIN_SUMMARY);
	fprintf(out, "  %s\n", line);
	fprintf(md, "- %s\n", line);
}

void runs_write(const struct runs_cmp *c, FILE *out, FILE *csv, FILE *md)
{
	static struct family f;
	const unsigned int *k = c->count;
	char line[512];

	for (unsigned long i = 0; i < c->n; i++)
		if (!c->cost || c->cells[i].v != FL_V_NONE)
			csv_row(csv, c, &c->cells[i]);
	table(c, out, md);
	snprintf(line, sizeof(line), "%s%u cells compared over %u runs of A "
		 "and %u of B (delta %.1f%%): %u faster, %u slower, %u "
		 "equivalent, %u need more runs, %u not comparable",
		 c->cost ? "CPU ns/op: " : "", k[FL_V_FASTER] + k[FL_V_SLOWER] + k[FL_V_EQUIVALENT] +
		 k[FL_V_MORE_RUNS], c->side[0].n, c->side[1].n,
		 c->delta * 100, k[FL_V_FASTER], k[FL_V_SLOWER],
		 k[FL_V_EQUIVALENT], k[FL_V_MORE_RUNS], k[FL_V_NONE]);
	fprintf(out, "  %s\n", line);
	fprintf(md, "\n%s.\n\n", line);
	if (c->cost)
		return;		/* the summaries are the primary figure's */
	gather(c, &f);
	if (f.k > 1)
		fprintf(out, "  summaries: intervals that hold together at "
			"%.0f%% (permutation max-t over the runs, "
			"docs/statistics.md)\n", 100.0 * FL_CONFIDENCE);
	for (size_t w = 0; w < f.k; w++)
		summary(c, &f, w, out, md);
	fprintf(md, "\n");
}
