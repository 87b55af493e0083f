// SPDX-License-Identifier: GPL-2.0
/*
 * A visit campaign compared: each side's finished runs against the
 * first's, round by round (a run holds a cell's reps-max visits, then
 * the campaign begins a new round of runs), cell by cell, block k of a
 * round pairing the k-th ok visit of each side's run of that round (the
 * visits of a block ran back to back: the machine's state, which drifts
 * between blocks, moves both), no more of them than the manifest
 * recorded blocks of the cell in that round. A cell's ratio is the
 * Hodges-Lehmann location of its blocks' log ratios with the signed-rank
 * interval, its verdict the campaign's call on them (blocks.c: each
 * call at its share of the rule's alpha over the cells and sides),
 * naming the figure it is about; the summary is the geometric mean over
 * the cells with its interval (fl_paired_family: one cell's own, more
 * cells' a bootstrap widened by the cells' own intervals); then how long
 * the blocks took.
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

/* A block's pair of visits as the runs hold them. */
struct pair {
	unsigned int cell;
	double fig[2], cpu[2];	/* side 0's and side k's */
	int contaminated;	/* either visit's */
};

/* What a cell is, from the first round's runs that hold it. */
struct cell_name {
	int seen;
	char label[300];	/* "WORKLOAD BACKEND threads=N PLACEMENT" */
	int lower_is_better;	/* the primary figure's */
};

/* The blocks read from the runs, every round's, in the order they ran;
 * never more than the campaign's blocks (the manifest bounds each
 * round's cell) */
static struct pair pairs[FL_CAMPAIGN_MAX_BLOCKS];
static unsigned int npairs;
static struct cell_name names[FL_CAMPAIGN_MAX_CELLS];

/* blocks of cell the manifest recorded in round run */
static unsigned int recorded(const struct fl_campaign *c, unsigned int cell,
			     unsigned int run)
{
	unsigned int n = 0;

	for (unsigned int b = 0; b < c->nblocks; b++)
		n += c->block[b].cell == cell && c->block[b].run == run;
	return n;
}

/* round run's pairs of visits appended, from side 0's run ra and side
 * k's rb */
static void read_round(const struct fl_campaign *c, unsigned int run,
		       const struct fl_rd_run *ra, const struct fl_rd_run *rb)
{
	static struct visits a, b;

	for (unsigned int i = 0; i < c->ncells; i++) {
		const struct fl_rd_cell *ca = cell_of(ra, i);
		const struct fl_rd_cell *cb = cell_of(rb, i);
		unsigned int n = recorded(c, i, run);

		if (!ca || !cb || !ca->nok || !cb->nok)
			continue;
		if (!names[i].seen) {
			names[i].seen = 1;
			snprintf(names[i].label, sizeof(names[i].label),
				 "%s %s threads=%u %s", ca->workload,
				 ca->backend, ca->threads, ca->placement);
			names[i].lower_is_better = ca->lower_is_better;
		}
		in_order(ca, &a);
		in_order(cb, &b);
		n = n < a.n ? n : a.n;
		n = n < b.n ? n : b.n;
		for (unsigned int j = 0; j < n &&
		     npairs < FL_CAMPAIGN_MAX_BLOCKS; j++)
			pairs[npairs++] = (struct pair){
				.cell = i,
				.fig = { a.fig[j], b.fig[j] },
				.cpu = { a.cpu[j], b.cpu[j] },
				.contaminated = a.contaminated[j] ||
						b.contaminated[j] };
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
static int figure(unsigned int cell, double *x, unsigned int *n)
{
	int dirty = 0, counted = 1;

	for (unsigned int j = 0; j < npairs; j++) {
		const struct pair *p = &pairs[j];

		if (p->cell != cell)
			continue;
		dirty |= p->contaminated;
		counted &= !isnan(p->cpu[0]) && !isnan(p->cpu[1]);
	}
	*n = 0;
	for (unsigned int j = 0; j < npairs; j++) {
		const struct pair *p = &pairs[j];

		if (p->cell == cell)
			x[(*n)++] = dirty && counted ?
				    log(p->cpu[1] / p->cpu[0]) :
				    log(p->fig[1] / p->fig[0]);
	}
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

/* side k's runs against side 0's (read into pairs): a line a cell,
 * then the summary */
static void judge(const struct fl_campaign *c, unsigned int k, FILE *out)
{
	/* every cell's log ratios, one after another */
	static double xs[FL_CAMPAIGN_MAX_BLOCKS];
	static double *x[FL_CAMPAIGN_MAX_CELLS];
	static const char *name[FL_CAMPAIGN_MAX_CELLS];
	static int lower_of[FL_CAMPAIGN_MAX_CELLS];
	static struct fl_paired_ci each[FL_CAMPAIGN_MAX_CELLS];
	static double p_adj[FL_CAMPAIGN_MAX_CELLS];
	static unsigned int nblocks[FL_CAMPAIGN_MAX_CELLS];
	unsigned int cells = 0, mixed = 0, used = 0;
	struct fl_paired_ci ci;
	struct fl_geomean g;
	unsigned long i;

	for (i = 0; i < c->ncells; i++) {
		enum fl_seq_call call;
		unsigned int n, at;
		int cpu, lower;

		x[cells] = xs + used;
		cpu = figure((unsigned int)i, x[cells], &n);
		if (!names[i].seen || !n) {
			fprintf(out, "  cell %lu: no ok visit on both sides\n",
				i);
			continue;
		}
		used += n;
		lower = cpu || names[i].lower_is_better;
		call = campaign_call_of(c, x[cells], n, &ci, &at);
		/* undecided: the plain 95% interval of every block */
		if (call == FL_SEQ_MORE)
			fl_paired_hl(x[cells], n, 0.95, &ci);
		name[cells] = cpu ? "CPU ns/op" : names[i].lower_is_better ?
			      "p50 latency" : "throughput";
		lower_of[cells] = lower;
		mixed |= cells && strcmp(name[cells], name[0]);
		fprintf(out, "  cell %lu %s: %s %s/%s ", i, names[i].label,
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
		fprintf(out, " [%.3f, %.3f]", g.lo, g.hi);
	else
		fprintf(out, " [no interval]");
	/* a figure where lower is better read as a speed too, which a
	 * slower B puts below 1 whatever the figure */
	if (!mixed && lower_of[0] && g.ok && g.lo > 0)
		fprintf(out, "; as a speed %.3f [%.3f, %.3f]", 1.0 / g.mean,
			1.0 / g.hi, 1.0 / g.lo);
	fputc('\n', out);
}

/* side k's finished runs read against side 0's, round by round, into
 * pairs; the rounds read into *rounds; 0, or -1 with err */
static int read_side(int fd, const char *dir, const struct fl_campaign *c,
		     unsigned int k, unsigned int *rounds, char *err,
		     size_t errlen)
{
	static char pa[FL_CAMPAIGN_MAX_ROUNDS][4200];
	static char pb[FL_CAMPAIGN_MAX_ROUNDS][4200];
	static struct fl_rd_run ra, rb;
	unsigned int na, nb;

	npairs = 0;
	memset(names, 0, sizeof(names));
	/* a round's runs are all finished before the next begins: the
	 * finished runs are the first rounds' (a side's in slot order) */
	if (fl_campaign_side_runs(fd, dir, c, 0, pa, FL_CAMPAIGN_MAX_ROUNDS,
				  &na, err, errlen) ||
	    fl_campaign_side_runs(fd, dir, c, k, pb, FL_CAMPAIGN_MAX_ROUNDS,
				  &nb, err, errlen))
		return -1;
	if (!na && !nb && campaign_no_block(c)) {
		snprintf(err, errlen, "%s: " CAMPAIGN_NO_BLOCK, dir, dir);
		return -1;
	}
	if (!na || !nb) {
		snprintf(err, errlen, "%s: side %s has no finished run yet: "
			 "the campaign's blocks go on (futexlab campaign %s)",
			 dir, c->side[na ? k : 0].name, dir);
		return -1;
	}
	*rounds = na < nb ? na : nb;
	for (unsigned int r = 0; r < *rounds; r++) {
		if (fl_rd_open(pa[r], &ra, err, errlen))
			return -1;
		if (fl_rd_open(pb[r], &rb, err, errlen)) {
			fl_rd_close(&ra);
			return -1;
		}
		read_round(c, r, &ra, &rb);
		fl_rd_close(&rb);
		fl_rd_close(&ra);
	}
	return 0;
}

int campaign_compare_visits(int fd, const char *dir,
			    const struct fl_campaign *c, FILE *out, char *err,
			    size_t errlen)
{
	unsigned int rounds, family = campaign_family(c);
	struct fl_seq_rule r;
	char shared[160] = "";

	/* a matrix's calls share the rule's chance of a wrong one */
	campaign_rule(c, &r);
	if (family > 1)
		snprintf(shared, sizeof(shared), "; %u calls, each at alpha "
			 "%.2g%%, any wrong with a chance of %g%% at most",
			 family, 100 * r.alpha, 100 * r.alpha * family);
	for (unsigned int k = 1; k < c->nsides; k++) {
		if (read_side(fd, dir, c, k, &rounds, err, errlen))
			return -1;
		fprintf(out, "side %s (%s) against side %s (%s), visit by "
			"visit, paired by block (margin %g%%%s), %u run%s a "
			"side:\n", c->side[k].name, c->side[k].why,
			c->side[0].name, c->side[0].why, c->delta * 100,
			shared, rounds, rounds == 1 ? "" : "s");
		judge(c, k, out);
	}
	fprintf(out, "the campaign's blocks took %.0f s: %u blocks of %u "
		"sides\n", c->seconds, c->nblocks, c->nsides);
	return 0;
}
