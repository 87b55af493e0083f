// SPDX-License-Identifier: GPL-2.0
/*
 * Throughput over time of one chosen cell (futexlab plot --timeline):
 * each repetition's operations per second bin by bin against the time
 * since its start barrier, a line per repetition, so a stall, a slow
 * start or a thread that stopped early shows instead of being averaged
 * into one figure. From the run's bins/ files (rundir/read_bins.c),
 * which fl_plot_check() reads first, so a bad one stops the command
 * before any plot is written.
 */
#include "plot/plot.h"

#include "plot/internal.h"

#include <stdlib.h>
#include <string.h>

/* The cell of r whose index the list item at p gives, or NULL. */
static const struct fl_rd_cell *listed_cell(const struct fl_rd_run *r,
					    const char *p)
{
	char *end;
	unsigned long idx = strtoul(p, &end, 10);

	if (end == p)
		return NULL;
	for (unsigned long i = 0; i < r->ncells; i++)
		if (r->cells[i].index == idx)
			return &r->cells[i];
	return NULL;
}

int fl_plot_check(const struct fl_rd_run *r, const struct fl_plot_opts *o,
		  char *err, size_t errlen)
{
	static struct fl_rd_bins b;

	for (const char *p = o->timeline_cells; p && *p;
	     p += strcspn(p, ","), p += *p == ',') {
		const struct fl_rd_cell *c = listed_cell(r, p);
		unsigned int found = 0;

		if (!c) {
			snprintf(err, errlen, "--timeline: %s has no cell "
				 "%.*s (it has %lu)", r->name,
				 (int)strcspn(p, ","), p, r->ncells);
			return -1;
		}
		for (unsigned int rep = 0; rep < FL_RD_MAX_REPS; rep++) {
			int rc = fl_rd_bins(r, c, rep, &b, err, errlen);

			if (rc < 0)
				return -1;
			found += rc == 0;
		}
		if (!found && c->nok) {
			snprintf(err, errlen, "--timeline: %s/bins has no file "
				 "of cell %lu (bins/cell-%04lu-rep-*.csv): the "
				 "run kept no throughput over time for it",
				 r->dir, c->index, c->index);
			return -1;
		}
	}
	return 0;
}

/* Write repetition rep's bins as the datablock $r<rep>: the start of
 * each bin in ns and its rate, the last rate repeated at the end so
 * that `steps` draws the last bin too. */
static void rep_block(struct fl_gp *g, unsigned int rep,
		      const struct fl_rd_bins *b)
{
	char name[32];
	unsigned long long start = 0;
	double rate = 0;

	snprintf(name, sizeof(name), "r%u", rep);
	fl_gp_block(g, name);
	for (unsigned int k = 0; k < b->n; k++) {
		unsigned long long len = b->end_ns[k] - start;

		rate = len ? (double)b->ops[k] * 1e9 / (double)len : 0;
		fprintf(g->f, "%llu %.6g\n", start, rate);
		start = b->end_ns[k];
	}
	fprintf(g->f, "%llu %.6g\n", start, rate);
	fl_gp_end_block(g);
}

int plot_timeline(const struct fl_rd_run *r, const struct fl_rd_cell *c,
		  const struct fl_gp_dir *dir, const struct fl_plot_opts *o,
		  FILE *log,
		  char *err, size_t errlen)
{
	static struct fl_rd_bins b;
	char name[128], title[1024], sub[512], yl[128];
	unsigned int reps[FL_RD_MAX_REPS], nreps = 0;
	unsigned long long bin_ns = 0;
	double end_ns = 0, div;
	struct fl_gp g;
	char x[32];

	snprintf(name, sizeof(name), "%s-timeline-cell-%lu", c->workload,
		 c->index);
	fl_plot_subtitle(r, sub, sizeof(sub));
	for (unsigned int rep = 0; rep < FL_RD_MAX_REPS; rep++) {
		int rc = fl_rd_bins(r, c, rep, &b, err, errlen);

		if (rc < 0)
			return -1;
		if (rc > 0 || !b.n)
			continue;
		if (!nreps) {
			bin_ns = b.bin_ns;
			snprintf(title, sizeof(title), "%s on %s, %u threads, "
				 "%s (cell %lu): throughput over time, bins "
				 "of %.3g ms\n%s", c->workload, c->backend,
				 c->threads, c->options, c->index,
				 (double)bin_ns / 1e6, sub);
			if (fl_gp_open_at(&g, dir, name, title, err, errlen))
				return -1;
		}
		rep_block(&g, rep, &b);
		reps[nreps++] = rep;
		if (b.end_ns[b.n - 1] > end_ns)
			end_ns = (double)b.end_ns[b.n - 1];
	}
	if (!nreps) {
		if (log)
			fprintf(log, "cell %lu: no bins recorded; no "
				"timeline\n", c->index);
		return 0;
	}
	snprintf(yl, sizeof(yl), "%s/s", fl_rd_ops_unit(r, c->workload));
	fl_gp_begin_draw(&g, 1100, 600);
	fprintf(g.f, "set title ");
	fl_gp_dstr(g.f, title);
	fprintf(g.f, "\n");
	div = plot_time_axis(g.f, 'x', "time since the start", 0, end_ns, 0);
	plot_scaled(x, sizeof(x), 1, div);
	fprintf(g.f, "set ylabel ");
	fl_gp_str(g.f, yl);
	fprintf(g.f, "\nset yrange [0:*]\nset format y '%%.1s%%c'\nplot ");
	for (unsigned int i = 0; i < nreps; i++)
		fprintf(g.f, "%s$r%u using %s:2 with steps lt %u title "
			"'repetition %u'", i ? ", \\\n\t" : "", reps[i], x,
			i + 1, reps[i] + 1);
	fprintf(g.f, "\n");
	return plot_finish(&g, o, log, err, errlen);
}
