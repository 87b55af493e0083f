// SPDX-License-Identifier: GPL-2.0
/*
 * What would decide a cell that has no verdict yet: a reader of an
 * "inconclusive" row wants to know whether more repetitions would help,
 * about how many, or whether nothing on this machine can. The estimate
 * is the one compare makes for campaigns (fl_runs_needed, compare/runs.h)
 * on the cell's repetitions instead of its runs' medians, with the two
 * things more repetitions cannot shrink taken out first: a NOISY side's
 * interval of repetition against repetition (more repetitions narrow it
 * only once the side's own median is within +-FL_NOISY_HALFWIDTH), and a
 * widening for drift or a busy host, which is a fixed factor.
 */
#include <math.h>
#include <string.h>

#include "compare/internal.h"
#include "compare/runs.h"
#include "stats/stats.h"

/* The repetitions a NOISY side needs for its median's interval to reach
 * the target: the half-width shrinks about as 1 / sqrt(n). */
static unsigned int quiet_after(const struct fl_rd_cell *x)
{
	double hw = fl_ci_rel_halfwidth(&x->ci);

	if (!x->noisy)
		return 0;
	if (!x->ci.ok || !isfinite(hw) || hw <= 0)
		return FL_CI_MIN_N > x->nok ? FL_CI_MIN_N : x->nok + 1;
	return (unsigned int)ceil(x->nok * pow(hw / FL_NOISY_HALFWIDTH, 2));
}

void cmp_what_decides(const struct cmp_pair *p, const struct cmp_cell *c,
		      char *buf, size_t len)
{
	double d = fabs(log(c->s.ratio)), w = c->widened, r;
	double margin = log1p(p->delta);
	unsigned int n, quiet;

	buf[0] = '\0';
	if (c->v != FL_V_INCONCLUSIVE || !(c->s.ratio > 0))
		return;
	/* a widened interval stays at least e^w either side of the ratio */
	if (w > 0 && d - w <= margin && d + w >= -log1p(-p->delta)) {
		snprintf(buf, len, "more repetitions cannot decide it (the "
			 "widening spans the margin): compare several runs "
			 "a side");
		return;
	}
	/* the gap left once the widening is taken out */
	r = d > margin ? d - w : d + w;
	r = exp(c->s.ratio < 1 ? -r : r);
	n = fl_runs_needed(cmp_values(p, c->a), c->a->nok,
			   cmp_values(p, c->b), c->b->nok, r, p->delta);
	quiet = fmax(quiet_after(c->a), quiet_after(c->b));
	if (n >= FL_RUNS_NEEDED_CAP || quiet >= FL_RUNS_NEEDED_CAP)
		snprintf(buf, len, "the ratio sits too near the margin for "
			 "any number of repetitions to settle it");
	else if (n || quiet)
		snprintf(buf, len, "needs about %u repetitions a side",
			 n > quiet ? n : quiet);
}
