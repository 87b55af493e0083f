// SPDX-License-Identifier: GPL-2.0
/*
 * Comparing like with like when the machine's state moved: the cost of
 * waking an idle CPU (measure/idle_wake.h), or the CPU's speed.
 *
 * On a shared host that cost switches between levels for tens of seconds
 * at a time, and every workload whose threads sleep moves with it: two
 * runs that caught the levels in different shares differ in every such
 * cell at once, which the cells' own repetitions cannot show. Each
 * repetition records the probe just before it, so within each run the
 * workload's figure can be set against it. Where the two move together
 * (Spearman's rank correlation of the figures and the probe, each centred
 * on its cell's median, pooled over the cells of both runs that share a
 * workload and a backend: a spinning backend's waiters never sleep, and
 * the backends that sleep follow the probe each by their own slope), a
 * robust slope of log figure on log probe (stats/covary.h) says by how
 * much, and each repetition is compared as if the probe had read the
 * runs' common median: value * (median / probe)^slope. This is analysis
 * of covariance with a robust slope, the standard way to remove a
 * measured nuisance from a comparison (Montgomery, "Design and Analysis
 * of Experiments", 2017, chapter 15). The slope comes from how the
 * figure moves within each run, so a change of the code, which moves a
 * cell's figure in every repetition of one run, does not enter it, and
 * is not removed.
 *
 * The same holds for the busy loop's speed, measured before each
 * repetition too, which a host that shares the core with another guest
 * moves (covariates[] below); each group uses the one it follows most
 * surely.
 *
 * Not done when the kernels or the hosts differ (a kernel changes the
 * probe too, and the probe would then carry part of the change being
 * measured), nor for a workload with too few probed repetitions.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/internal.h"
#include "stats/stats.h"

/*
 * What each repetition measured of the machine just before it ran: the
 * idle-wake probe after each idle length, and the busy loop's speed
 * (measure/busy_loop.h), which a core shared with another guest slows and
 * which moves the lock workloads (a slower CPU convoys less, and
 * priority inheritance's round trips take longer). A figure may follow
 * any of them; the one it follows most surely is used.
 */
static const struct {
	const char *what, *unit;
	double scale;		/* the value in the unit, from the column's */
} covariates[FL_ADJUST_COVARIATES] = {
	{ "the cost of waking an idle CPU after 30 us", "us", 1e-3 },
	{ "the cost of waking an idle CPU after 200 us", "us", 1e-3 },
	{ "the busy loop's speed", "loops/us", 1.0 },
};

/* repetition j's covariate k, or NaN */
static double covariate(const struct fl_rd_cell *c, unsigned int j, int k)
{
	return k < 2 ? c->idle_wake[j][k] : c->busy[j][0];
}

/* an ok cell of the group: its workload and backend */
static int in_group(const struct fl_rd_cell *c, const struct cmp_adjust *a)
{
	return !strcmp(c->workload, a->workload) &&
	       !strcmp(c->backend, a->backend) && !strcmp(c->status, "ok");
}

/* the log probe k of each ok repetition of run r's cells of the group,
 * appended to out from *n on; the count of repetitions seen (probed or
 * not) in *reps */
static void probes_of(const struct fl_rd_run *r, const struct cmp_adjust *a,
		      int k, double *out, size_t *n, size_t *reps)
{
	for (unsigned long i = 0; i < r->ncells; i++) {
		const struct fl_rd_cell *c = &r->cells[i];

		if (!in_group(c, a))
			continue;
		for (unsigned int j = 0; j < c->nok; j++)
			if (isfinite(covariate(c, j, k)))
				out[(*n)++] = log(covariate(c, j, k));
		*reps += c->nok;
	}
}

static size_t reps_of(const struct fl_rd_run *r)
{
	size_t n = 0;

	for (unsigned long i = 0; i < r->ncells; i++)
		n += r->cells[i].nok;
	return n;
}

/* The group's cells of run r: their primary figures and probe k, from
 * *n on (xs: one array of FL_RD_MAX_REPS per cell) */
static void cells_of(const struct fl_rd_run *r, const struct cmp_adjust *a,
		     int k, const double **v, double (*xs)[FL_RD_MAX_REPS],
		     unsigned int *nv, size_t *n)
{
	for (unsigned long i = 0; i < r->ncells; i++) {
		const struct fl_rd_cell *c = &r->cells[i];

		if (!in_group(c, a))
			continue;
		for (unsigned int j = 0; j < c->nok; j++)
			xs[*n][j] = covariate(c, j, k);
		v[*n] = c->primary;
		nv[(*n)++] = c->nok;
	}
}

/* How the group follows probe k in the two runs; 0 or -1 (memory). */
static int fit(const struct cmp_pair *p, int k, struct cmp_adjust *a,
	       struct fl_covary *cv)
{
	size_t cap = reps_of(p->a) + reps_of(p->b) + 1;
	size_t cells = p->a->ncells + p->b->ncells + 1;
	double *x = malloc(cap * sizeof(double));
	double (*xs)[FL_RD_MAX_REPS] = malloc(cells * sizeof(*xs));
	const double **v = malloc(cells * sizeof(*v));
	const double **xp = malloc(cells * sizeof(*xp));
	unsigned int *nv = malloc(cells * sizeof(*nv));
	size_t n = 0, na = 0, nb = 0, ra = 0, rb = 0;
	int rc = -1;

	*cv = (struct fl_covary){ .p = 1.0 };
	if (!x || !xs || !v || !xp || !nv)
		goto out;
	rc = 0;
	probes_of(p->a, a, k, x, &na, &ra);
	a->med[0] = exp(fl_median_sort(x, na));
	probes_of(p->b, a, k, x + na, &nb, &rb);
	a->med[1] = exp(fl_median_sort(x + na, nb));
	/* both runs probed nearly every repetition, or the adjusted values
	 * of one would stand against the raw values of the other */
	if ((double)na < FL_ADJUST_PROBED * (double)ra ||
	    (double)nb < FL_ADJUST_PROBED * (double)rb ||
	    na + nb < FL_DRIFT_MIN_N)
		goto out;
	/* x holds both runs' values still, each run's sorted */
	a->ref = fl_median_sort(x, na + nb);
	cells_of(p->a, a, k, v, xs, nv, &n);
	cells_of(p->b, a, k, v, xs, nv, &n);
	for (size_t i = 0; i < n; i++)
		xp[i] = xs[i];
	if (fl_covary_cells(v, xp, nv, n, cv) == 0 &&
	    cv->n < FL_DRIFT_MIN_N)
		*cv = (struct fl_covary){ .p = 1.0 };
out:
	free(x);
	free(xs);
	free(v);
	free(xp);
	free(nv);
	return rc;
}

/* Run r's cells of the group, adjusted, into vals (one array each). */
static int apply(const struct fl_rd_run *r, const struct cmp_adjust *a,
		 double median, double **vals)
{
	for (unsigned long i = 0; i < r->ncells; i++) {
		const struct fl_rd_cell *c = &r->cells[i];

		if (!in_group(c, a))
			continue;
		double x[FL_RD_MAX_REPS];

		vals[i] = malloc((c->nok + 1) * sizeof(double));
		if (!vals[i])
			return -1;
		for (unsigned int j = 0; j < c->nok; j++)
			x[j] = covariate(c, j, a->probe);
		/* an unprobed repetition: the run's usual state */
		fl_covary_adjust(c->primary, x, c->nok, a->cv.slope, a->ref,
				 log(median), vals[i]);
	}
	return 0;
}

static void note(const struct cmp_adjust *a, const struct fl_say *say,
		 FILE *md)
{
	double f = covariates[a->probe].scale;
	const char *u = covariates[a->probe].unit;

	fl_say(say, "futexlab compare: %s on %s follows %s (Spearman rho "
	       "%.2f, p %.2g, over %zu repetitions; slope %.2f): each "
	       "repetition is compared as if it had read %.1f %s, the runs' "
	       "common median (A's median %.1f, B's %.1f)", a->workload,
	       a->backend, covariates[a->probe].what, a->cv.rho, a->cv.p,
	       a->cv.n, a->cv.slope, exp(a->ref) * f, u, a->med[0] * f,
	       a->med[1] * f);
	if (md)
		fprintf(md, "- %s on %s follows %s (rho %.2f, p %.2g, slope "
			"%.2f): compared at the runs' common %.1f %s (A %.1f, "
			"B %.1f)\n", a->workload, a->backend,
			covariates[a->probe].what, a->cv.rho, a->cv.p,
			a->cv.slope, exp(a->ref) * f, u, a->med[0] * f,
			a->med[1] * f);
}

/* the same kernel on the same host: what the probe's meaning rests on */
static int same_machine(const struct fl_rd_run *a, const struct fl_rd_run *b)
{
	static const char *const keys[] = { "machine.kernel",
					    "machine.hostname" };
	char va[256], vb[256];

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		fl_rd_meta(a, keys[i], va, sizeof(va));
		fl_rd_meta(b, keys[i], vb, sizeof(vb));
		if (strcmp(va, vb))
			return 0;
	}
	return 1;
}

/* One group: fit each covariate, keep the one it follows most surely. */
static int adjust_group(struct cmp_pair *p, const struct fl_rd_cell *c,
			FILE *md)
{
	struct cmp_adjust *a = &p->adjust[p->nadjust++], t;
	struct fl_covary cv;

	*a = (struct cmp_adjust){ .probe = -1 };
	snprintf(a->workload, sizeof(a->workload), "%s", c->workload);
	snprintf(a->backend, sizeof(a->backend), "%s", c->backend);
	for (int k = 0; k < FL_ADJUST_COVARIATES; k++) {
		t = *a;
		if (fit(p, k, &t, &cv))
			return -1;
		if (cv.p < FL_ADJUST_ALPHA &&
		    (a->probe < 0 || cv.p < a->cv.p)) {
			*a = t;
			a->probe = k;
			a->cv = cv;
		}
	}
	if (a->probe < 0)
		return 0;
	note(a, p->say, md);
	if (apply(p->a, a, a->med[0], p->vals_a) ||
	    apply(p->b, a, a->med[1], p->vals_b))
		return -1;
	return 0;
}

int cmp_adjust(struct cmp_pair *p, FILE *md)
{
	p->nadjust = 0;
	p->adjust = calloc(p->n + 1, sizeof(*p->adjust));
	p->vals_a = calloc(p->a->ncells + 1, sizeof(double *));
	p->vals_b = calloc(p->b->ncells + 1, sizeof(double *));
	if (!p->adjust || !p->vals_a || !p->vals_b)
		return -1;
	if (!p->use_adjust || !same_machine(p->a, p->b))
		return 0;
	for (unsigned long i = 0; i < p->n; i++) {
		const struct fl_rd_cell *c = p->cells[i].a ? p->cells[i].a :
					     p->cells[i].b;
		int seen = 0;

		for (unsigned int j = 0; j < p->nadjust; j++)
			seen |= !strcmp(p->adjust[j].workload, c->workload) &&
				!strcmp(p->adjust[j].backend, c->backend);
		if (!seen && adjust_group(p, c, md))
			return -1;
	}
	return 0;
}

const double *cmp_values(const struct cmp_pair *p,
			 const struct fl_rd_cell *c)
{
	const struct fl_rd_run *r = c >= p->a->cells &&
				    c < p->a->cells + p->a->ncells ? p->a :
				    p->b;
	double *const *vals = r == p->a ? p->vals_a : p->vals_b;
	double *v = vals ? vals[c - r->cells] : NULL;

	return v ? v : c->primary;
}

const struct cmp_adjust *cmp_adjust_of(const struct cmp_pair *p,
				       const char *workload,
				       const char *backend)
{
	for (unsigned int i = 0; i < p->nadjust; i++)
		if (p->adjust[i].probe >= 0 &&
		    !strcmp(p->adjust[i].workload, workload) &&
		    (!backend || !strcmp(p->adjust[i].backend, backend)))
			return &p->adjust[i];
	return NULL;
}

void cmp_adjust_free(struct cmp_pair *p)
{
	for (unsigned long i = 0; p->vals_a && i < p->a->ncells; i++)
		free(p->vals_a[i]);
	for (unsigned long i = 0; p->vals_b && i < p->b->ncells; i++)
		free(p->vals_b[i]);
	free(p->vals_a);
	free(p->vals_b);
	free(p->adjust);
}
