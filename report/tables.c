// SPDX-License-Identifier: GPL-2.0
/*
 * The report's tables: one per workload (primary figure with its
 * interval, percentiles of the merged histogram), its plots, and the
 * cells that did not run ok.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/internal.h"
#include "stats/figures.h"
#include "stats/format.h"
#include "stats/drift.h"
#include "stats/percentile.h"
#include "stats/stats.h"

static const char *const plot_kinds[][2] = {
	{ "throughput", "throughput against threads" },
	{ "latency", "latency percentiles against threads" },
	{ "cdf", "latency distribution" },
	{ "fairness", "fairness against threads" },
	{ "cost", "CPU time per operation against threads" },
};

static void plots(FILE *f, const struct fl_rd_run *r, const char *w)
{
	char path[PATH_MAX + 128];
	int any = 0;

	for (size_t k = 0; k < sizeof(plot_kinds) / sizeof(plot_kinds[0]);
	     k++) {
		snprintf(path, sizeof(path), "%s/plots/%s-%s.png", r->dir, w,
			 plot_kinds[k][0]);
		if (access(path, R_OK))
			continue;
		fprintf(f, "![%s: %s](plots/%s-%s.png)\n\n", w,
			plot_kinds[k][1], w, plot_kinds[k][0]);
		any = 1;
	}
	/* the workload's own plots, as the run describes them */
	static struct fl_rd_plots own;

	fl_rd_plots(r, w, &own);
	for (unsigned int i = 0; i < own.n; i++) {
		const struct fl_rd_special *sp = &own.special[i];

		snprintf(path, sizeof(path), "%s/plots/%s.png", r->dir,
			 sp->name);
		if (access(path, R_OK))
			continue;
		fprintf(f, "![%s: ", w);
		report_md(f, sp->caption);
		fprintf(f, "](plots/%s.png)\n\n", sp->name);
		any = 1;
	}
	if (!any) {
		fprintf(f, "(No plots: run `futexlab plot ");
		report_md(f, r->dir);
		fprintf(f, "` first.)\n\n");
	}
}

/* The primary figure's column: its name and each cell's text. */
static void primary_header(FILE *f, const struct fl_rd_run *r, const char *w,
			   int latency)
{
	/* the units are meta.json's text: a newline in one would end the
	 * table's header */
	fprintf(f, "| cell | backend | threads | placement | options | "
		"reps | ");
	if (latency) {
		report_md(f, fl_rd_latency_what(r, w));
		fprintf(f, " p50 (median [95%% CI]) | +- | ");
		report_md(f, fl_rd_ops_unit(r, w));
		fprintf(f, "/s |");
	} else {
		report_md(f, fl_rd_ops_unit(r, w));
		fprintf(f, "/s (median [95%% CI]) | +- | p50 |");
	}
	fprintf(f, " p99 | p99.9 | samples | Jain |\n"
		"|---:|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|"
		"---:|\n");
}

/* One cell's row; returns 1 when it is NOISY. */
static int cell_row(FILE *f, const struct fl_rd_run *r,
		    const struct fl_rd_cell *c, int fair)
{
	static struct fl_hist h;
	struct fl_pct pct[FL_NPCT];
	char prim[128], other[96], hw[32] = "n/a", p99[96], p999[96];
	char p50[96];

	fl_hist_init(&h);
	fl_rd_hist(r, c, &h);	/* an unreadable histogram: no samples */
	for (int i = 0; i < FL_NPCT; i++)
		fl_hist_percentile(&h, fl_pct_q[i], &pct[i]);
	fl_fmt_ci(&c->ci, c->lower_is_better, prim, sizeof(prim));
	/* the interval's text has the half-width in a column of its own */
	prim[strcspn(prim, "+(")] = '\0';
	if (c->ci.ok && isinf(fl_ci_rel_halfwidth(&c->ci)))
		snprintf(hw, sizeof(hw), "none about 0");
	else if (c->ci.ok)
		snprintf(hw, sizeof(hw), "%.1f%%",
			 fl_ci_rel_halfwidth(&c->ci) * 100);
	fl_pct_format(&pct[0], p50, sizeof(p50));
	fl_pct_format(&pct[2], p99, sizeof(p99));
	fl_pct_format(&pct[3], p999, sizeof(p999));
	if (c->lower_is_better)
		fl_fmt_rate(c->ops_per_sec.med, other, sizeof(other));
	else
		snprintf(other, sizeof(other), "%s", p50);
	fprintf(f, "| %lu | %s | %u | ", c->index, c->backend, c->threads);
	report_md(f, c->placement);
	fprintf(f, " | ");
	report_md(f, c->options);
	fprintf(f, " | %u/%u%s | %s | %s%s | %s | %s | %s | %llu | ", c->nok,
		c->nrows, c->ci.ok && !c->noisy ? " converged" : "", prim,
		hw, c->noisy ? " **NOISY**" : "", other, p99, p999,
		(unsigned long long)h.count);
	if (fair)
		fprintf(f, "%.3f |\n", c->jain.med);
	else
		fprintf(f, "n/a |\n");
	return c->noisy;
}

/* Whether the workload's figures moved together over the run's time:
 * what a comparison with another run must allow for (compare widens by
 * it; docs/statistics.md). */
static void drift_line(FILE *f, const struct fl_rd_run *r, const char *w)
{
	struct fl_drift d;

	if (fl_rd_drift(r, w, NULL, &d))
		fprintf(f, "Drift over time: not judged (%zu timed "
			"repetitions, %d needed).\n\n", d.n, FL_DRIFT_MIN_N);
	else if (d.drifted)
		fprintf(f, "**Drift over time**: the repetitions of all these "
			"cells moved together over the run (Kruskal-Wallis p "
			"%.2g across %d blocks by start time; block medians up "
			"to %.0f%% apart). The machine changed while the run "
			"ran; a run that caught its states in other shares "
			"differs by up to that much, and compare widens its "
			"intervals by it.\n\n", d.p, FL_DRIFT_BLOCKS,
			(exp(d.spread) - 1) * 100);
	else
		fprintf(f, "Drift over time: none found (Kruskal-Wallis p "
			"%.2g across %d blocks of %zu repetitions by start "
			"time).\n\n", d.p, FL_DRIFT_BLOCKS, d.n);
}

void report_workload(FILE *f, const struct fl_rd_run *r, const char *w)
{
	unsigned int n = 0, noisy = 0, na = 0;
	/* round workloads: one thread counts, Jain's index means nothing */
	int fair = fl_rd_has_fairness(r, w), latency = 0;
	const struct fl_rd_cell *first = fl_rd_first_of(r, w);

	fprintf(f, "## %s\n\n", w);
	json_t *summary = json_object_get(json_object_get(json_object_get(
		r->meta, "workloads"), w), "summary");

	if (json_is_string(summary)) {
		/* one paragraph: a blank line in the text would start more */
		report_md(f, json_string_value(summary));
		fprintf(f, ". Throughput in ");
		report_md(f, fl_rd_ops_unit(r, w));
		fprintf(f, " per second; latency: ");
		report_md(f, fl_rd_latency_what(r, w));
		if (fl_rd_latency_is(r, w)) {
			fprintf(f, ", ");
			report_md(f, fl_rd_latency_is(r, w));
		}
		fprintf(f, ".\n\n");
	}
	if (fl_rd_threads_are(r, w)) {
		/* app: the column's 1 is not the program's threads */
		fprintf(f, "*threads*: ");
		report_md(f, fl_rd_threads_are(r, w));
		fprintf(f, ".\n\n");
	}
	latency = first && first->lower_is_better;
	if (latency)
		fprintf(f, "A round workload: its rate is its own schedule's, "
			"so its primary figure is the p50 latency (lower is "
			"better).\n\n");
	primary_header(f, r, w, latency);
	for (unsigned long i = 0; i < r->ncells; i++) {
		const struct fl_rd_cell *c = &r->cells[i];

		if (strcmp(c->workload, w) || strcmp(c->status, "ok") ||
		    !c->nok)
			continue;
		n++;
		noisy += (unsigned int)cell_row(f, r, c, fair);
		na += !c->ci.ok;
	}
	if (!n)
		fprintf(f, "| | no cell of %s ran ok | | | | | | | | | | | |\n",
			w);
	fprintf(f, "\n%u cell%s: %u NOISY (95%% interval of the median wider "
		"than +-%.0f%%), %u without an interval (fewer than %d ok "
		"repetitions).\n\n", n, n == 1 ? "" : "s", noisy,
		FL_NOISY_HALFWIDTH * 100, na, FL_CI_MIN_N);
	report_cost(f, r, w);
	drift_line(f, r, w);
	plots(f, r, w);
}

void report_not_ok(FILE *f, const struct fl_rd_run *r, int skipped)
{
	unsigned int n = 0;

	for (unsigned long i = 0; i < r->ncells; i++) {
		const struct fl_rd_cell *c = &r->cells[i];
		int is_skip = strcmp(c->status, "skipped") == 0;

		if (!strcmp(c->status, "ok") || is_skip != skipped)
			continue;
		if (!n++)
			fprintf(f, "## %s\n\n| cell | workload | backend | "
				"threads | options | status | reason |\n"
				"|---:|---|---|---:|---|---|---|\n",
				skipped ? "Skipped cells" :
				"Failed and aborted cells");
		fprintf(f, "| %lu | %s | %s | %u | ", c->index, c->workload,
			c->backend, c->threads);
		report_md(f, c->options);
		fprintf(f, " | %s | ", c->status);
		report_md(f, c->reason);
		fprintf(f, " |\n");
	}
	if (n)
		fprintf(f, "\n");
}

/*
 * A note is said once per run with the cells it is about: a one-node
 * machine notes every numa cell the same way. A cell's note is parts
 * joined by "; " (measure/cell.c); the busy loop's drift is one part
 * whose figures differ from cell to cell, so its parts are one line
 * with the range of the drifts.
 */
#define DRIFT_PREFIX "busy-loop speed drifted "

struct note_part {
	const char *text;		/* in the cell's note */
	size_t len;
	const char *key;		/* what makes two parts the same */
	size_t keylen;
	double drift;			/* a drift part's percentage */
	const struct fl_rd_cell *cell;
};

/* The length of the part p starts: up to a "; " outside parentheses
 * (pi's verdict, "(... > 5 ms; max 9.81 ms)", is one part). */
static size_t part_len(const char *p)
{
	int depth = 0;
	size_t i;

	for (i = 0; p[i]; i++) {
		depth += p[i] == '(' ? 1 : p[i] == ')' && depth ? -1 : 0;
		if (!depth && p[i] == ';' && p[i + 1] == ' ')
			break;
	}
	return i;
}

/* The parts of every cell's note, in cell order; *n out; NULL: none. */
/* measure/counters.c's note of the contaminated repetitions */
#define CONTAMINATED_MARK " repetitions contaminated: "

static int contamination_part(const char *p, size_t len)
{
	const char *m = strstr(p, CONTAMINATED_MARK);

	return m && m < p + len;
}

static struct note_part *note_parts(const struct fl_rd_run *r, size_t *n)
{
	struct note_part *v = NULL, *grown;
	size_t cap = 0;

	*n = 0;
	for (unsigned long i = 0; i < r->ncells; i++) {
		for (const char *p = r->cells[i].note; *p;) {
			size_t len = part_len(p);
			struct note_part *np;

			/* a row's own count of contaminated repetitions (1
			 * of 1): the cost table says the cell's (cost.c) */
			if (contamination_part(p, len)) {
				p += len;
				p += *p ? 2 : 0;
				continue;
			}

			if (*n == cap) {
				cap = cap ? 2 * cap : 16;
				grown = realloc(v, cap * sizeof(*v));
				if (!grown) {
					free(v);
					*n = 0;
					return NULL;
				}
				v = grown;
			}
			np = &v[(*n)++];
			*np = (struct note_part){ p, len, p, len, 0,
						  &r->cells[i] };
			if (!strncmp(p, DRIFT_PREFIX, strlen(DRIFT_PREFIX))) {
				const char *close = memchr(p, ')', len);

				np->drift = strtod(p + strlen(DRIFT_PREFIX),
						   NULL);
				np->key = close ? close + 1 : p + len;
				np->keylen = (size_t)(p + len - np->key);
			}
			p += len;
			if (*p)
				p += 2;
		}
	}
	return v;
}

static int same_part(const struct note_part *a, const struct note_part *b)
{
	return (a->key == a->text) == (b->key == b->text) &&
	       a->keylen == b->keylen && !memcmp(a->key, b->key, a->keylen);
}

static void note_text(FILE *f, const char *s, size_t len)
{
	char buf[sizeof(((struct fl_rd_cell *)0)->note)];

	snprintf(buf, sizeof(buf), "%.*s", (int)len, s);
	report_md(f, buf);
}

/* Part i's line: its text (a drift's range), then its cells. */
static void note_line(FILE *f, const struct note_part *v, size_t n, size_t i)
{
	double lo = v[i].drift, hi = v[i].drift;
	unsigned int k = 0;
	long prev = -2, run = -1;

	for (size_t j = i; j < n; j++)
		if (same_part(&v[i], &v[j])) {
			k++;
			lo = v[j].drift < lo ? v[j].drift : lo;
			hi = v[j].drift > hi ? v[j].drift : hi;
		}
	fprintf(f, "- ");
	if (v[i].key == v[i].text)
		note_text(f, v[i].text, v[i].len);
	else if (lo == hi)
		fprintf(f, DRIFT_PREFIX "%+.0f%%", lo);
	else
		fprintf(f, DRIFT_PREFIX "%+.0f%% to %+.0f%%", lo, hi);
	if (v[i].key != v[i].text)
		note_text(f, v[i].key, v[i].keylen);
	if (k == 1) {
		fprintf(f, " (cell %lu: %s %s, %u thread%s)\n",
			v[i].cell->index, v[i].cell->workload,
			v[i].cell->backend, v[i].cell->threads,
			v[i].cell->threads == 1 ? "" : "s");
		return;
	}
	/* the cells as ranges of consecutive indexes: 0-79, not 80 */
	fprintf(f, " (cells");
	k = 0;
	for (size_t j = i; j <= n; j++) {
		long c = j < n && same_part(&v[i], &v[j]) ?
			 (long)v[j].cell->index : -1;

		if (j < n && c < 0)
			continue;
		if (c == prev + 1 && c >= 0) {
			prev = c;
			continue;
		}
		if (run >= 0 && prev > run)
			fprintf(f, "%s %ld-%ld", k++ ? "," : "", run, prev);
		else if (run >= 0)
			fprintf(f, "%s %ld", k++ ? "," : "", run);
		run = prev = c;
	}
	fprintf(f, ")\n");
}

void report_notes(FILE *f, const struct fl_rd_run *r)
{
	size_t n, shown = 0;
	struct note_part *v = note_parts(r, &n);

	for (size_t i = 0; i < n; i++) {
		size_t j;

		for (j = 0; j < i && !same_part(&v[i], &v[j]); j++)
			;
		if (j < i)
			continue;	/* listed with its first cell */
		if (!shown++)
			fprintf(f, "## Notes\n\n");
		note_line(f, v, n, i);
	}
	if (shown)
		fprintf(f, "\n");
	free(v);
}
