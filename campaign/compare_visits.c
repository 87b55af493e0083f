// SPDX-License-Identifier: GPL-2.0
/*
 * A visit campaign compared: each side's finished run against the
 * first's, cell by cell, block k pairing the k-th ok visit of each (the
 * visits of a block ran back to back: the machine's state, which drifts
 * between blocks, moves both). A cell's ratio is the Hodges-Lehmann
 * location of its blocks' log ratios with the signed-rank interval, its
 * verdict the campaign's call on them (blocks.c), naming the figure it
 * is about; the summary is the geometric mean over the cells with its
 * interval (fl_paired_family: one cell's own, more cells' a bootstrap
 * widened by the cells' own intervals); then how long the blocks took.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign/internal.h"
#include "rundir/read.h"

/* the cell of r with index i, or NULL */
static const struct fl_rd_cell *cell_of(const struct fl_rd_run *r,
					unsigned long i)
{
	for (unsigned long k = 0; k < r->ncells; k++)
		if (r->cells[k].index == i)
			return &r->cells[k];
	return NULL;
}

/* The ok visits of a cell in the order they ran (their rep column). */
struct visits {
	double fig[FL_RD_MAX_REPS];	/* the primary figure */
	double cpu[FL_RD_MAX_REPS];	/* CPU ns/op; NAN: not counted */
	int contaminated[FL_RD_MAX_REPS];
	unsigned int n;
};

static void in_order(const struct fl_rd_cell *c, struct visits *v)
{
	v->n = 0;
	for (unsigned int rep = 0; rep < FL_RD_MAX_REPS; rep++)
		for (unsigned int i = 0; i < c->nok; i++) {
			const struct fl_rep_counts *k = &c->counts[i];
			uint64_t ops = c->rep_ops[rep];

			if (c->ok_rep[i] != rep)
				continue;
			v->fig[v->n] = c->primary[i];
			v->cpu[v->n] = k->have & FL_HAVE_CPU && ops &&
				       ops != UINT64_MAX && k->cpu_ns ?
				       (double)k->cpu_ns / (double)ops : NAN;
			v->contaminated[v->n++] = k->have &
						  FL_HAVE_CONTAMINATION &&
						  k->contaminated == 1;
		}
}

/*
 * The figure cell i is judged by, its n blocks' log ratios into x:
 * CPU ns/op (the kernel's count of the threads' CPU time over the
 * operations) when the machine denied a paired visit its CPU
 * (contaminated) and every paired visit was counted, as throughput
 * then measures the CPU share the visit got as much as the lock; else
 * the cell's primary figure. 1 when it is CPU ns/op (lower is better).
 */
static int figure(const struct visits *a, const struct visits *b,
		  unsigned int n, double *x)
{
	int dirty = 0, counted = 1;

	for (unsigned int j = 0; j < n; j++) {
		dirty |= a->contaminated[j] || b->contaminated[j];
		counted &= !isnan(a->cpu[j]) && !isnan(b->cpu[j]);
	}
	for (unsigned int j = 0; j < n; j++)
		x[j] = dirty && counted ? log(b->cpu[j] / a->cpu[j]) :
		       log(b->fig[j] / a->fig[j]);
	return dirty && counted;
}

static const char *verdict(enum fl_seq_call call, int lower_is_better)
{
	switch (call) {
	case FL_SEQ_SAME:
		return "equivalent";
	case FL_SEQ_HIGHER:
		return lower_is_better ? "slower" : "faster";
	case FL_SEQ_LOWER:
		return lower_is_better ? "faster" : "slower";
	default:
		return "needs more blocks";
	}
}

/* side k's run against side 0's: a line a cell, then the summary */
static void judge(const struct fl_campaign *c, unsigned int k,
		 const struct fl_rd_run *ra, const struct fl_rd_run *rb,
		 FILE *out)
{
	static struct visits a, b;
	static double x[FL_CAMPAIGN_MAX_CELLS][FL_RD_MAX_REPS];
	static const char *name[FL_CAMPAIGN_MAX_CELLS];
	static int lower_of[FL_CAMPAIGN_MAX_CELLS];
	static struct fl_paired_ci each[FL_CAMPAIGN_MAX_CELLS];
	static double p_adj[FL_CAMPAIGN_MAX_CELLS];
	static unsigned int nblocks[FL_CAMPAIGN_MAX_CELLS];
	unsigned int cells = 0, mixed = 0;
	struct fl_paired_ci ci;
	struct fl_geomean g;
	unsigned long i;

	for (i = 0; i < c->ncells; i++) {
		const struct fl_rd_cell *ca = cell_of(ra, i);
		const struct fl_rd_cell *cb = cell_of(rb, i);
		enum fl_seq_call call;
		unsigned int n, at;
		int cpu, lower;

		if (!ca || !cb || !ca->nok || !cb->nok) {
			fprintf(out, "  cell %lu: no ok visit on both sides\n",
				i);
			continue;
		}
		in_order(ca, &a);
		in_order(cb, &b);
		n = a.n < b.n ? a.n : b.n;
		cpu = figure(&a, &b, n, x[cells]);
		lower = cpu || ca->lower_is_better;
		call = campaign_call_of(c, x[cells], n, &ci, &at);
		/* undecided: the plain 95% interval of every block */
		if (call == FL_SEQ_MORE)
			fl_paired_hl(x[cells], n, 0.95, &ci);
		name[cells] = cpu ? "CPU ns/op" : ca->lower_is_better ?
			      "p50 latency" : "throughput";
		lower_of[cells] = lower;
		mixed |= cells && strcmp(name[cells], name[0]);
		fprintf(out, "  cell %lu %s %s threads=%u %s: %s %s/%s ", i,
			ca->workload, ca->backend, ca->threads, ca->placement,
			name[cells], c->side[k].name, c->side[0].name);
		if (ci.has_ci)
			fprintf(out, "%.3f [%.3f, %.3f]", exp(ci.est),
				exp(ci.lo), exp(ci.hi));
		else
			fprintf(out, "%.3f [no interval]", exp(ci.est));
		fprintf(out, ", %u blocks: %s", n, verdict(call, lower));
		if (call != FL_SEQ_MORE)
			fprintf(out, " (called at block %u, the interval at "
				"that look's confidence)", at);
		fputc('\n', out);
		nblocks[cells] = n;
		cells++;
	}
	if (!cells)
		return;
	/* the family over the cells (stats/paired.h): each cell's 95%
	 * interval of every block, figures of both kinds turned into
	 * speeds (higher is better) to be averaged */
	for (unsigned int j = 0; j < cells; j++) {
		fl_paired_hl(x[j], nblocks[j], 0.95, &each[j]);
		if (mixed && lower_of[j]) {
			double lo = each[j].lo;

			each[j].est = -each[j].est;
			each[j].lo = -each[j].hi;
			each[j].hi = -lo;
		}
	}
	fl_paired_family(each, cells, 0.95, c->seed, p_adj, &g);
	fprintf(out, "  geometric mean over %u cell%s, %s %s/%s: %.3f", cells,
		cells == 1 ? "" : "s", mixed ? "speed (throughput, 1/latency, "
		"1/CPU ns per op)" : name[0], c->side[k].name,
		c->side[0].name, g.mean);
	if (g.ok)
		fprintf(out, " [%.3f, %.3f]\n", g.lo, g.hi);
	else
		fprintf(out, " [no interval]\n");
}

int campaign_compare_visits(int fd, const char *dir,
			    const struct fl_campaign *c, FILE *out, char *err,
			    size_t errlen)
{
	static char pa[1][4200], pb[1][4200];
	static struct fl_rd_run ra, rb;
	unsigned int na, nb;
	int rc = -1;

	if (fl_campaign_side_runs(fd, dir, c, 0, pa, 1, &na, err, errlen))
		return -1;
	if (!na) {
		snprintf(err, errlen, "%s: the campaign has no finished run "
			 "yet: its blocks go on (futexlab campaign %s)", dir,
			 dir);
		return -1;
	}
	if (fl_rd_open(pa[0], &ra, err, errlen))
		return -1;
	for (unsigned int k = 1; k < c->nsides; k++) {
		if (fl_campaign_side_runs(fd, dir, c, k, pb, 1, &nb, err,
					  errlen))
			goto out;
		if (!nb || fl_rd_open(pb[0], &rb, err, errlen)) {
			if (!nb)
				snprintf(err, errlen, "%s: side %s has no "
					 "finished run yet", dir,
					 c->side[k].name);
			goto out;
		}
		fprintf(out, "side %s (%s) against side %s (%s), visit by "
			"visit, paired by block (margin %g%%):\n",
			c->side[k].name, c->side[k].why, c->side[0].name,
			c->side[0].why, c->delta * 100);
		judge(c, k, &ra, &rb, out);
		fl_rd_close(&rb);
	}
	fprintf(out, "the campaign's blocks took %.0f s: %u blocks of %u "
		"sides\n", c->seconds, c->nblocks, c->nsides);
	rc = 0;
out:
	fl_rd_close(&ra);
	return rc;
}
