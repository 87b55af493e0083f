/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stopping rule over paired blocks that arrive one by one (issue
 * 44): after each block the caller asks whether the cell is decided.
 *
 * Asking again and again and stopping at the first answer that pleases
 * makes any fixed-sample interval lie: the chance that one of many looks
 * strays grows with the looks. So the rule looks only at sample sizes
 * spaced geometrically, min_blocks * 1.25^k (rounded up, and max_blocks
 * itself), and splits alpha over those looks in proportion to the
 * squares of their sizes (a weighted Bonferroni split): the look at n
 * blocks judges by the signed-rank interval (stats/paired.h) at
 * confidence 1 - alpha * n^2 / (the sum of every look's n^2). Whatever
 * the dependence
 * between looks, the chance that any look's interval misses the true
 * shift is then at most alpha, so every call the rule makes is wrong
 * with chance at most alpha / 2 per direction, however the caller
 * stops. It needs nothing of the noise but the signed-rank test's
 * assumption (independent blocks, symmetric about the shift), which
 * random order within a block gives on identical sides.
 *
 * Why these choices: geometric spacing keeps the looks few (23 from 16
 * to 2000 blocks), so the split costs little width, and still looks
 * again soon after any sample size: at most 25% more blocks than a rule
 * that looked after every block. Alpha goes where it buys decisions: a
 * look at n blocks resolves shifts of about 1 / sqrt(n), so the small
 * shifts near the margin are decided late, while a large one is decided
 * early even at a tiny alpha (the interval widens only as the normal
 * quantile, about sqrt(2 log(1 / alpha))). With looks spaced
 * geometrically, weights of n^2 spend alpha as alpha * t^2 over the
 * share t of the horizon reached (Kim and DeMets' power family, rho 2,
 * between Pocock's even spending and O'Brien and Fleming's late one):
 * the last look keeps 1.5% of the 5% at 2000 blocks, against 0.9% with
 * weights of n. In the simulation (tests/unit/test_sequential_sim.c,
 * the visits noise), a 2% shift at a 1% margin is found within a
 * ten-minute horizon of 1220 blocks 82.0% of the time with n^2, 78.3%
 * with n^1.5, 77.0% with n and 83.0% with n^3; identical sides are
 * called the same at a 2% margin after a median of 594 blocks with n
 * or n^2, 743 with n^3. A confidence sequence valid at every block
 * would need a bound on the noise or a coarser test (the sign test's),
 * and pays more width for looks nobody acts on.
 *
 * max_blocks is part of the rule: fix it before the first block (from
 * the time budget and the blocks a minute expected), since the split
 * depends on it.
 *
 * The calls, on the ratio interval [exp(lo), exp(hi)] as
 * compare/verdict.c's fl_verdict_of() judges a run's: SAME when it lies
 * within [1 - delta, 1 + delta]; HIGHER when it lies above 1 + delta and
 * the signed-rank p is below the look's alpha; LOWER below 1 - delta
 * likewise. The first call other than MORE is the cell's: a caller that
 * keeps adding blocks for other cells must keep it, not ask again, or
 * the error bound no longer holds.
 */
#ifndef FUTEXLAB_SEQUENTIAL_H
#define FUTEXLAB_SEQUENTIAL_H

#include "stats/paired.h"

enum fl_seq_call { FL_SEQ_MORE, FL_SEQ_HIGHER, FL_SEQ_LOWER, FL_SEQ_SAME };

struct fl_seq_rule {
	double delta;		/* the margin, as a ratio: 0.02 for 2% */
	unsigned int min_blocks;
	unsigned int max_blocks; /* the rule's horizon: past it, MORE is
				  * final ("undecided") */
	double alpha;		/* the chance a call is wrong, over
				 * every look: 0.05, shared by a family
				 * (fl_seq_rule_family) */
};

/* min_blocks, max_blocks and alpha as the simulation chose them
 * (tests/unit/test_sequential_sim.c, docs/statistics.md), the margin
 * delta as given. */
void fl_seq_rule_default(struct fl_seq_rule *r, double delta);

/*
 * The rule of one of a family of calls made at once (a matrix's cells,
 * against each side but the first): its alpha divided evenly among them
 * (Bonferroni), so the chance that any call of the family is wrong
 * stays at most the rule's alpha, whatever the dependence between the
 * calls and whenever each stops. calls 0 counts as 1.
 */
void fl_seq_rule_family(struct fl_seq_rule *r, unsigned int calls);

/* The first look at n blocks or more: n itself when the rule looks
 * there, 0 past the horizon. */
unsigned int fl_seq_next_look(const struct fl_seq_rule *r, unsigned int n);

/* The confidence of the look at n blocks' interval: 1 - alpha * n^2 /
 * (the sum of every look's n^2). */
double fl_seq_look_conf(const struct fl_seq_rule *r, unsigned int n);

/*
 * The call after the first n blocks (x: log ratios in arrival order); ci
 * set to the interval the call was made on (at the look's adjusted
 * confidence; between looks, the interval the next look would judge,
 * and the call MORE). HIGHER: B's figure above A's by more than the
 * margin, with the rule's error control; LOWER: below; SAME: within the
 * margin (equivalence); MORE: not yet.
 */
enum fl_seq_call fl_seq_decide(const struct fl_seq_rule *r, const double *x,
			       unsigned int n, struct fl_paired_ci *ci);

#endif
