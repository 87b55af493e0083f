// SPDX-License-Identifier: GPL-2.0
/* The stopping rule over paired blocks (stats/sequential.h). */
#include "stats/sequential.h"

#include <math.h>

/* The defaults, chosen by tests/unit/test_sequential_sim.c: looks from
 * 16 blocks to 2000, ten minutes of blocks of two 0.1 s visits with 0.1
 * s between them (200 a minute). At the whole horizon the first looks'
 * alpha (0.05 * 16^2 / 13155811 at 16) is too small for an interval
 * before 21 blocks; at a campaign's shorter horizon it is not (at 41
 * blocks, 0.05 * 16^2 / 5586: 10 would do). */
#define DEFAULT_MIN_BLOCKS	16
#define DEFAULT_MAX_BLOCKS	2000
#define DEFAULT_ALPHA		0.05

void fl_seq_rule_default(struct fl_seq_rule *r, double delta)
{
	r->delta = delta;
	r->min_blocks = DEFAULT_MIN_BLOCKS;
	r->max_blocks = DEFAULT_MAX_BLOCKS;
	r->alpha = DEFAULT_ALPHA;
}

void fl_seq_rule_family(struct fl_seq_rule *r, unsigned int calls)
{
	if (calls > 1)
		r->alpha /= calls;
}

/* the look after look n: 25% more blocks, rounded up */
static unsigned int after(unsigned int n)
{
	return n + (n + 3) / 4;
}

static unsigned int first_look(const struct fl_seq_rule *r)
{
	return r->min_blocks ? r->min_blocks : 1;
}

unsigned int fl_seq_next_look(const struct fl_seq_rule *r, unsigned int n)
{
	unsigned int look = first_look(r);

	if (n > r->max_blocks)
		return 0;
	while (look < n && look < r->max_blocks)
		look = after(look);
	return look < r->max_blocks ? look : r->max_blocks;
}

/* a look's weight in the split of alpha (sequential.h: why n^2) */
static double weight(unsigned int n)
{
	return (double)n * (double)n;
}

static double looks_total(const struct fl_seq_rule *r)
{
	double total = weight(r->max_blocks);

	for (unsigned int look = first_look(r); look < r->max_blocks;
	     look = after(look))
		total += weight(look);
	return total;
}

double fl_seq_look_conf(const struct fl_seq_rule *r, unsigned int n)
{
	return 1.0 - r->alpha * weight(n) / looks_total(r);
}

enum fl_seq_call fl_seq_decide(const struct fl_seq_rule *r, const double *x,
			       unsigned int n, struct fl_paired_ci *ci)
{
	double conf = fl_seq_look_conf(r, n);
	double top = log(1.0 + r->delta), bottom = log(1.0 - r->delta);

	if (fl_paired_hl(x, n, conf, ci) || n < first_look(r) ||
	    fl_seq_next_look(r, n) != n)
		return FL_SEQ_MORE;
	if (ci->lo >= bottom && ci->hi <= top)
		return FL_SEQ_SAME;
	if (ci->p < 1.0 - conf && ci->lo > top)
		return FL_SEQ_HIGHER;
	if (ci->p < 1.0 - conf && ci->hi < bottom)
		return FL_SEQ_LOWER;
	return FL_SEQ_MORE;
}
