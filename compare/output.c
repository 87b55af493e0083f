// SPDX-License-Identifier: GPL-2.0
/* A pair's table (stdout, compare.csv, compare.md) and its summaries. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/internal.h"
#include "compare/runs.h"
#include "rundir/csv.h"
#include "stats/cost.h"
#include "stats/format.h"
#include "stats/stats.h"

/* the bootstrap of the summaries: fixed, so a comparison repeats */
#define SUMMARY_SEED 1

const struct fl_rd_cell **cmp_pair_cells(const struct cmp_pair *p)
{
	const struct fl_rd_cell **all = calloc(p->n + 1, sizeof(*all));

	for (unsigned long i = 0; all && i < p->n; i++)
		all[i] = p->cells[i].a ? p->cells[i].a : p->cells[i].b;
	return all;
}

void cmp_csv_header(FILE *f)
{
	fprintf(f, "run_a,run_b,workload,backend,threads,placement,options,"
		"status_a,status_b,figure,reps_a,reps_b,median_a,median_b,"
		"ratio,ratio_lo,ratio_hi,p,p_adjusted,delta,verdict,reason\n");
}

const char *cmp_figure_name(const struct cmp_cell *c)
{
	const struct fl_rd_cell *x = c->a ? c->a : c->b;

	if (c->cost)
		return fl_cost_name[FL_COST_CPU];
	return x->lower_is_better ? "p50 latency" : "throughput";
}

/* Is side x NOISY in the figure c is about? */
static int noisy(const struct cmp_cell *c, const struct fl_rd_cell *x)
{
	return c->cost ? x->cost.fig[FL_COST_CPU].noisy : x->noisy;
}

/* The median c compares of side x. */
static double median(const struct cmp_cell *c, const struct fl_rd_cell *x)
{
	return c->cost ? x->cost.fig[FL_COST_CPU].ci.mid : x->ci.mid;
}

/* Has side x the figure c compares? */
static int has(const struct cmp_cell *c, const struct fl_rd_cell *x)
{
	return x && x->nok && (!c->cost || x->cost.ncpu);
}

/* Why a cell has no verdict, or what its interval is when not the
 * shift interval; or "". */
static void reason(const struct cmp_pair *p, const struct cmp_cell *c,
		   char *why, size_t len)
{
	why[0] = '\0';
	if (!c->a || !c->b)
		snprintf(why, len, "only in %s", c->a ? p->a->name :
			 p->b->name);
	else if (strcmp(c->a->status, "ok"))
		snprintf(why, len, "%s: %s", p->a->name, c->a->reason);
	else if (strcmp(c->b->status, "ok"))
		snprintf(why, len, "%s: %s", p->b->name, c->b->reason);
	else if (c->v == FL_V_UNDECIDED)
		snprintf(why, len, "%u and %u ok repetitions: too few for an "
			 "interval (%d a side give one)", c->a->nok,
			 c->b->nok, FL_RUNS_MIN_INTERVAL);
	else if (c->cost && c->v == FL_V_NONE)
		snprintf(why, len, "not counted in %s", c->a->cost.ncpu ?
			 p->b->name : p->a->name);
	else if (c->s.by_reps)
		snprintf(why, len, "NOISY in %s: interval of repetition "
			 "against repetition", noisy(c, c->a) &&
			 noisy(c, c->b) ? "both" : noisy(c, c->a) ?
			 p->a->name : p->b->name);
	/* the cost is neither adjusted nor widened, and what decides it
	 * is not estimated (decide.c works on the primary figure) */
	if (c->cost)
		return;
	if (c->v != FL_V_NONE && cmp_adjust_of(p, c->a->workload,
						   c->a->backend)) {
		size_t used = strlen(why);

		snprintf(why + used, len - used, "%sadjusted for the machine's "
			 "state", used ? "; " : "");
	}
	if (c->v != FL_V_NONE && c->s.ok && c->widened > 0) {
		size_t used = strlen(why);

		snprintf(why + used, len - used, "%s%s: widened by %.0f%%",
			 used ? "; " : "", c->widened_busy ? "busy host" :
			 "drift over time", (exp(c->widened) - 1) * 100);
	}
	char decide[200];

	cmp_what_decides(p, c, decide, sizeof(decide));
	if (*decide) {
		size_t used = strlen(why);

		snprintf(why + used, len - used, "%s%s", used ? "; " : "",
			 decide);
	}
}

static void csv_row(FILE *f, const struct cmp_pair *p,
		    const struct cmp_cell *c)
{
	const struct fl_rd_cell *x = c->a ? c->a : c->b;
	char why[600];

	fl_csv_field(f, p->a->name, 0);
	fl_csv_field(f, p->b->name, 0);
	fl_csv_field(f, x->workload, 0);
	fl_csv_field(f, x->backend, 0);
	fprintf(f, "%u,", x->threads);
	fl_csv_field(f, x->placement, 0);
	fl_csv_field(f, x->options, 0);
	fl_csv_field(f, c->a ? c->a->status : "absent", 0);
	fl_csv_field(f, c->b ? c->b->status : "absent", 0);
	fprintf(f, "%s,%u,%u,", c->cost ? "cpu_ns_per_op" :
		x->lower_is_better ? "latency_p50_ns" : "ops_per_sec",
		c->a ? c->a->nok : 0, c->b ? c->b->nok : 0);
	fprintf(f, has(c, c->a) ? "%.6g," : ",", has(c, c->a) ?
		median(c, c->a) : 0);
	fprintf(f, has(c, c->b) ? "%.6g," : ",", has(c, c->b) ?
		median(c, c->b) : 0);
	if (c->v == FL_V_NONE)
		fprintf(f, ",,,,,");
	else if (!c->s.ok)
		fprintf(f, "%.5f,,,,,", c->s.ratio);
	else
		fprintf(f, "%.5f,%.5f,%.5f,%.4g,%.4g,", c->s.ratio, c->s.lo,
			c->s.hi, c->s.p, c->p_adjusted);
	fprintf(f, "%.4g,", p->delta);
	fl_csv_field(f, fl_verdict_name(c->v), 0);
	reason(p, c, why, sizeof(why));
	fl_csv_field(f, why, 1);
}

/* "1.032 [0.998, 1.061]" or "-" */
static void ratio_text(const struct cmp_cell *c, char *buf, size_t len)
{
	if (c->v == FL_V_NONE)
		snprintf(buf, len, "-");
	else if (!c->s.ok)
		snprintf(buf, len, "%.3f", c->s.ratio);
	else
		snprintf(buf, len, "%.3f [%.3f, %.3f]", c->s.ratio, c->s.lo,
			 c->s.hi);
}

static void value_text(const struct cmp_cell *c, const struct fl_rd_cell *x,
		       char *buf, size_t len)
{
	if (!has(c, x))
		snprintf(buf, len, "-");
	else if (c->cost)
		fl_fmt_ns_frac(median(c, x), buf, len);
	else if (x->lower_is_better)
		fl_fmt_ns((uint64_t)x->ci.mid, buf, len);
	else
		fl_fmt_rate(x->ci.mid, buf, len);
}

/* The table of the cells' verdicts on one figure (cells: the primary
 * figure's or the cost's), each verdict named by its figure. */
static void table(const struct cmp_pair *p, const struct cmp_cell *cells,
		  FILE *out, FILE *md)
{
	const struct fl_rd_cell **all = cmp_pair_cells(p);

	if (!all)
		return;
	cmp_preamble(all, p->n, CMP_LEGEND_REPS, out, md);
	fprintf(md, "\n| cell | A | B | B/A [95%% CI] | p (BH) | figure | "
		"verdict | note |\n|---|---:|---:|---:|---:|---|---|---|\n");
	fprintf(out, "  %-46s %9s %9s %-23s %8s  %s\n", "cell", "A", "B",
		"B/A [95% CI]", "p(BH)", "verdict");
	for (unsigned long i = 0; i < p->n; i++) {
		const struct cmp_cell *c = &cells[i];
		char lab[256], va[32], vb[32], r[64], pa[32] = "-", why[600];

		/* a cost table lists the cells both runs have */
		if (c->cost && (!c->a || !c->b))
			continue;
		cmp_label(all[i], all, p->n, lab, sizeof(lab));
		value_text(c, c->a, va, sizeof(va));
		value_text(c, c->b, vb, sizeof(vb));
		ratio_text(c, r, sizeof(r));
		if (c->s.ok && c->v != FL_V_NONE)
			snprintf(pa, sizeof(pa), "%.3g", c->p_adjusted);
		reason(p, c, why, sizeof(why));
		fprintf(out, "  %-46s %9s %9s %-23s %8s  %s %s%s%s\n", lab, va,
			vb, r, pa, cmp_figure_name(c), fl_verdict_name(c->v),
			*why ? ": " : "", why);
		fprintf(md, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", lab,
			va, vb, r, pa, cmp_figure_name(c),
			fl_verdict_name(c->v), why);
	}
	free(all);
}

/* "3 cells compared (delta 2.0%): 1 faster, ..." of one figure */
static void count_line(const struct cmp_pair *p, const unsigned int *k,
		       const char *figure, FILE *out, FILE *md)
{
	char line[512];

	snprintf(line, sizeof(line), "%s%u cells compared (delta %.1f%%): "
		 "%u faster, %u slower, %u equivalent, %u inconclusive, %u "
		 "undecided, %u not comparable or in one run only", figure,
		 k[FL_V_FASTER] + k[FL_V_SLOWER] + k[FL_V_EQUIVALENT] +
		 k[FL_V_INCONCLUSIVE] + k[FL_V_UNDECIDED], p->delta * 100,
		 k[FL_V_FASTER], k[FL_V_SLOWER], k[FL_V_EQUIVALENT],
		 k[FL_V_INCONCLUSIVE], k[FL_V_UNDECIDED], k[FL_V_NONE]);
	fprintf(out, "  %s\n", line);
	fprintf(md, "\n%s.\n\n", line);
}

/* The cost's table and count, where any cell has it in both runs. */
static void cost_table(const struct cmp_pair *p, FILE *out, FILE *md)
{
	char head[64];

	if (!p->ncost)
		return;
	fprintf(out, "  %s (the CPU time of the cell's threads per "
		"operation, as the kernel counted it; lower is faster):\n",
		fl_cost_name[FL_COST_CPU]);
	fprintf(md, "%s: the CPU time of the cell's threads per operation, "
		"as the kernel counted it (lower is faster).\n\n",
		fl_cost_name[FL_COST_CPU]);
	table(p, p->cost, out, md);
	snprintf(head, sizeof(head), "%s: ", fl_cost_name[FL_COST_CPU]);
	count_line(p, p->cost_count, head, out, md);
}

/*
 * One summary: the geometric mean of the ratios of the cells of workload
 * w (NULL: every cell, latencies as A/B so that above 1 is faster).
 */
static void summary(const struct cmp_pair *p, const char *w, FILE *out,
		    FILE *md)
{
	double *r = calloc(p->n + 1, sizeof(double));
	const struct cmp_cell *one = NULL;
	struct fl_geomean g;
	double widened = 0.0;
	size_t n = 0, none = 0;

	if (!r)
		return;
	for (unsigned long i = 0; i < p->n; i++) {
		const struct cmp_cell *c = &p->cells[i];

		if (c->v == FL_V_NONE || !(c->s.ratio > 0) ||
		    (w && strcmp(c->a->workload, w)))
			continue;
		r[n++] = !w && c->a->lower_is_better ? 1.0 / c->s.ratio :
			 c->s.ratio;
		widened += c->widened;
		none += !c->s.ok;
		one = c;
	}
	fl_geomean_ci(r, n, FL_CONFIDENCE, SUMMARY_SEED, &g);
	free(r);
	/* one cell: no cells to resample, its own interval is the one */
	if (n == 1 && one->s.ok) {
		int flip = !w && one->a->lower_is_better;

		g.lo = flip ? 1.0 / one->s.hi : one->s.lo;
		g.hi = flip ? 1.0 / one->s.lo : one->s.hi;
		g.ok = 1;
	}
	if (!n)
		return;
	/*
	 * Cells without an interval of their own (too few repetitions) give
	 * a summary none: an interval over them would claim what no cell
	 * can, their bootstrap only how far their estimates spread.
	 */
	if (none == n)
		g.ok = 0;
	/*
	 * A drifting workload can move all its cells at once: the interval
	 * is widened by the mean of its cells' widening, which for one
	 * workload is its own and overall weighs each by its cells (the
	 * worst case of every drift pointing the same way). A single cell's
	 * own interval is widened already.
	 */
	widened /= (double)n;
	if (g.ok && !(n == 1 && one->s.ok)) {
		g.lo *= exp(-widened);
		g.hi *= exp(widened);
	}
	char line[512];
	int len = snprintf(line, sizeof(line), "%s: geometric mean of %s "
			   "over %zu cell%s %.4f", w ? w : "overall",
			   w ? "the cells' B/A" : "B's speed relative to A",
			   n, n == 1 ? "" : "s", g.mean);

	if (g.ok && widened > 0)
		snprintf(line + len, sizeof(line) - len, " [%.4f, %.4f], "
			 "widened by %.0f%% for %s", g.lo, g.hi,
			 (exp(widened) - 1) * 100, p->busy_widen > 0 ?
			 "a busy host" : "drift over time");
	else if (g.ok)
		snprintf(line + len, sizeof(line) - len, " [%.4f, %.4f]",
			 g.lo, g.hi);
	else if (none == n)
		snprintf(line + len, sizeof(line) - len, " (no interval: no "
			 "cell has one; %d ok repetitions a side give one)",
			 FL_RUNS_MIN_INTERVAL);
	else
		snprintf(line + len, sizeof(line) - len, " (no interval)");
	len = (int)strlen(line);
	if (g.ok && none)
		snprintf(line + len, sizeof(line) - len, ", %zu of the cells "
			 "without an interval of their own", none);
	len = (int)strlen(line);
	if (w && cmp_adjust_of(p, w, NULL))
		snprintf(line + len, sizeof(line) - len, ", adjusted for the "
			 "machine's state");
	fprintf(out, "  %s\n", line);
	fprintf(md, "- %s\n", line);
}

void cmp_write_pair(const struct cmp_pair *p, FILE *out, FILE *csv,
		    FILE *md)
{
	int lead_cost = p->ncost && (p->contaminated[0] ||
				     p->contaminated[1]);

	for (unsigned long i = 0; i < p->n; i++) {
		csv_row(csv, p, &p->cells[i]);
		if (p->cost && p->cost[i].v != FL_V_NONE)
			csv_row(csv, p, &p->cost[i]);
	}
	if (lead_cost) {
		char line[512];

		snprintf(line, sizeof(line), "the machine contaminated %u of "
			 "%u repetitions of %s and %u of %u of %s: the "
			 "throughput verdicts are about the machine; the "
			 "cost (%s) leads", p->contaminated[0], p->judged[0],
			 p->a->name, p->contaminated[1], p->judged[1],
			 p->b->name, fl_cost_name[FL_COST_CPU]);
		fprintf(out, "  %s\n", line);
		fprintf(md, "**Contaminated**: %s.\n\n", line);
		cost_table(p, out, md);
	}
	table(p, p->cells, out, md);
	count_line(p, p->count, "", out, md);
	if (!lead_cost)
		cost_table(p, out, md);
	for (unsigned long i = 0; i < p->a->ncells; i++)
		if (fl_rd_first_of(p->a, p->a->cells[i].workload) ==
		    &p->a->cells[i])
			summary(p, p->a->cells[i].workload, out, md);
	summary(p, NULL, out, md);
	fprintf(md, "\n");
}
