// SPDX-License-Identifier: GPL-2.0
/*
 * The stopping rule's error rates under optional stopping, by simulation
 * (deterministic: fixed seeds). A campaign draws one cell's blocks one by
 * one, asks fl_seq_decide() at every look, and stops at the first call;
 * many campaigns give the rate of each call. The blocks' noise:
 *   - cost: this machine's measured blocks of the cost figure's
 *     stand-in with a busy loop on each CPU (seq_sim_noise.c), drawn
 *     with a random sign (identical sides in random order are
 *     exchangeable, so a block's log ratio is symmetric) and jittered
 *     by 0.2% so draws do not tie;
 *   - throughput: the same blocks' throughput, 4 times as wide;
 *   - flip: a model of the vCPU: two speed levels 15% apart that flip in
 *     runs of 0.1 to 36 ms, so a 0.1 s visit is wholly in one level half
 *     of the time and spends a uniform share in the slow one otherwise;
 *     Student-t noise (3 degrees of freedom, scale 1%); a burst (another
 *     tenant on the vCPU) in one visit of 10%, costing Exp(15%); and a
 *     visit 3% faster when it runs second in its block;
 *   - visits: futexlab's own blocks of CPU ns/op, identical sides
 *     visited by a campaign with a busy loop on each CPU
 *     (seq_sim_noise.c), drawn as the cost ones;
 *   - matrix: the default matrix's blocks on a quiet machine, identical
 *     sides, of the figure each cell was judged by (throughput or a
 *     p50 latency; seq_sim_noise.c), drawn likewise.
 * Asserted, at the default rule (fl_seq_rule_default):
 *   - identical sides: HIGHER or LOWER in at most 5% of campaigns, on
 *     every noise, at the 2% and the 1% margin; the summary
 *     (fl_paired_family, on the interval the campaign stopped on)
 *     excluding 1 in at most 5%;
 *   - a true shift exactly at the margin: HIGHER (a claim that B is
 *     beyond it) in at most 5%;
 *   - B 2% lower at a 1% margin, cost and visits noise: LOWER in at
 *     least 80% of campaigns within the rule's horizon, and on the
 *     visits noise within ten minutes of blocks at this machine's pace
 *     (1220);
 *   - a shift of twice the margin: SAME (false equivalence) in at most
 *     5%;
 *   - identical sides at the 2% margin, cost noise: SAME in at least
 *     80% within the horizon;
 *   - a family of cells judged at once (a matrix of 104 cells, each
 *     cell's rule at the alpha its share of the family, horizon 42 as
 *     30 minutes held, matrix and visits noise): a campaign with any
 *     cell called HIGHER or LOWER in at most 5%, and the geometric
 *     mean over the cells excluding 1 in at most 5%.
 * Every rate is printed with its Wilson 95% interval and the median
 * blocks to a call; docs/statistics.md quotes them.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "seq_sim.h"
#include "stats/sequential.h"
#include "stats/shift.h"
#include "stats/stats.h"

/* campaigns for the rates asserted most closely, and for the others: the
 * whole program within about 5 s of CPU */
#define CAMPAIGNS	500
#define FEWER		300
#define FEWEST		150
#define JITTER		0.002
/* blocks in 10 minutes with a futexlab run per visit (0.2 s warm-up,
 * 0.1 s visits, busy loops pinned: 38.8 blocks a minute measured) */
#define PROCESS_PER_VISIT_10MIN	390
/* and with one busy-loop speed for every visit, the idle-wake probe on a
 * cell's first visit alone: 122 blocks a minute measured (0.49 s a
 * block; 72 to 84 a minute before, with the probe in every visit) */
#define VISITS_10MIN		1220

enum noise { COST, THROUGHPUT, FLIP, VISITS, MATRIX };

static const char *const noise_names[] = {
	[COST] = "cost", [THROUGHPUT] = "throughput", [FLIP] = "flip",
	[VISITS] = "visits", [MATRIX] = "matrix",
};

static double normal(uint64_t *rng)
{
	double u = fl_uniform(rng), v = fl_uniform(rng);

	return sqrt(-2.0 * log(1.0 - u)) * cos(2.0 * M_PI * v);
}

/* Student's t with 3 degrees of freedom */
static double t3(uint64_t *rng)
{
	double z = normal(rng), chi2 = 0.0;

	for (int i = 0; i < 3; i++) {
		double g = normal(rng);

		chi2 += g * g;
	}
	return z / sqrt(chi2 / 3.0);
}

/* one visit's log speed on the flip model */
static double flip_visit(uint64_t *rng)
{
	double share = fl_uniform(rng), v;

	if (fl_uniform(rng) < 0.5)
		share = share < 0.5 ? 0.0 : 1.0;
	v = log(1.0 - 0.15 * share) + 0.01 * t3(rng);
	if (fl_uniform(rng) < 0.1)
		v += 0.15 * log(1.0 - fl_uniform(rng));
	return v;
}

static double measured(const double *table, size_t n, uint64_t *rng)
{
	double d = table[(size_t)(fl_uniform(rng) * n)];

	return (fl_uniform(rng) < 0.5 ? d : -d) + JITTER * normal(rng);
}

/* one block's log(B/A) when B's figure is A's times exp(shift) */
static double block(enum noise noise, double shift, uint64_t *rng)
{
	double a, b;

	switch (noise) {
	case COST:
		return shift + measured(seq_sim_cost_busy, SEQ_SIM_MEASURED,
					rng);
	case THROUGHPUT:
		return shift + measured(seq_sim_throughput_busy,
					SEQ_SIM_MEASURED, rng);
	case VISITS:
		return shift + measured(seq_sim_cost_visits, SEQ_SIM_VISITS,
					rng);
	case MATRIX:
		return shift + measured(seq_sim_matrix_quiet, SEQ_SIM_MATRIX,
					rng);
	case FLIP:
		a = flip_visit(rng);
		b = flip_visit(rng) + shift;
		/* whichever ran second is faster */
		if (fl_uniform(rng) < 0.5)
			b += 0.03;
		else
			a += 0.03;
		return b - a;
	}
	return 0.0;
}

struct rates {
	unsigned int call[4];		/* by enum fl_seq_call */
	unsigned int summary_off;	/* summaries excluding 1 */
	unsigned int campaigns;
	unsigned int median_blocks;	/* of the campaigns decided */
};

/* blocks a campaign's time ends at, beyond its rule's horizon; 0: none */
static unsigned int time_ends_at;

/* one campaign: blocks drawn into x until the rule's first call, its
 * horizon or limit blocks (0: none); the call, *n its blocks, ci the
 * interval of its last look */
static enum fl_seq_call campaign(const struct fl_seq_rule *r,
				 enum noise noise, double shift,
				 unsigned int limit, uint64_t *rng, double *x,
				 unsigned int *n, struct fl_paired_ci *ci)
{
	enum fl_seq_call call = FL_SEQ_MORE;

	*n = 0;
	while (call == FL_SEQ_MORE && *n < r->max_blocks &&
	       (!limit || *n < limit)) {
		x[*n] = block(noise, shift, rng);
		(*n)++;
		if (fl_seq_next_look(r, *n) == *n)
			call = fl_seq_decide(r, x, *n, ci);
	}
	return call;
}

/* campaigns of at most r->max_blocks blocks, seeded by seed */
static void simulate(const struct fl_seq_rule *r, enum noise noise,
		     double shift, int campaigns, uint64_t seed,
		     struct rates *out)
{
	double *x = malloc(r->max_blocks * sizeof(double));
	double *used = malloc(campaigns * sizeof(double));
	unsigned int decided = 0;
	uint64_t rng = seed;

	assert_non_null(x);
	assert_non_null(used);
	memset(out, 0, sizeof(*out));
	out->campaigns = campaigns;
	for (int c = 0; c < campaigns; c++) {
		struct fl_paired_ci ci = { 0 };
		struct fl_geomean g;
		unsigned int n;
		double adj;
		enum fl_seq_call call = campaign(r, noise, shift, time_ends_at,
						 &rng, x, &n, &ci);

		out->call[call]++;
		/* the summary of the one cell, on the interval it stopped
		 * on */
		fl_paired_family(&ci, 1, fl_seq_look_conf(r, n), 1, &adj, &g);
		out->summary_off += g.ok && (g.lo > 1.0 || g.hi < 1.0);
		if (call != FL_SEQ_MORE)
			used[decided++] = n;
	}
	out->median_blocks = decided ?
			     (unsigned int)fl_median_sort(used, decided) : 0;
	free(x);
	free(used);
}

/* the rate of call k and its Wilson 95% interval, printed */
static double rate(const char *what, const struct rates *s,
		   enum fl_seq_call k)
{
	double n = s->campaigns, p = s->call[k] / n, z = 1.959964;
	double mid = (p + z * z / (2 * n)) / (1 + z * z / n);
	double half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) /
		      (1 + z * z / n);

	printf("# %-52s %5.1f%% [%4.1f%%, %4.1f%%] (%u of %u", what,
	       100 * p, 100 * (mid - half), 100 * (mid + half), s->call[k],
	       s->campaigns);
	if (s->median_blocks)
		printf("; median %u blocks to a call", s->median_blocks);
	printf(")\n");
	return p;
}

/* Identical sides: no call beyond the margin and no summary that
 * excludes 1, on any noise; at the 2% margin, on the cost figure, the
 * same. */
static void test_identical(void **state)
{
	static const double margins[] = { 0.02, 0.01 };
	struct fl_seq_rule r;
	struct rates s;
	char what[80];

	(void)state;
	for (int m = 0; m < 2; m++)
		for (int k = COST; k <= VISITS; k++) {
			/* throughput and the 1% margin are decided late or
			 * never: their campaigns draw many blocks */
			int n = m == 0 ? (k == THROUGHPUT ? FEWEST :
					  k == VISITS ? FEWER : CAMPAIGNS) :
				(k == COST ? FEWER : FEWEST);

			fl_seq_rule_default(&r, margins[m]);
			simulate(&r, k, 0.0, n, 100 + 10 * m + k, &s);
			snprintf(what, sizeof(what),
				 "identical, %s, %g%% margin: HIGHER or LOWER",
				 noise_names[k], 100 * margins[m]);
			s.call[FL_SEQ_HIGHER] += s.call[FL_SEQ_LOWER];
			assert_true(rate(what, &s, FL_SEQ_HIGHER) <= 0.05);
			snprintf(what, sizeof(what),
				 "identical, %s, %g%% margin: summary not 1",
				 noise_names[k], 100 * margins[m]);
			s.call[FL_SEQ_HIGHER] = s.summary_off;
			assert_true(rate(what, &s, FL_SEQ_HIGHER) <= 0.05);
			snprintf(what, sizeof(what),
				 "identical, %s, %g%% margin: SAME",
				 noise_names[k], 100 * margins[m]);
			if (m == 0 && k == COST)
				assert_true(rate(what, &s, FL_SEQ_SAME) >=
					    0.80);
			else
				rate(what, &s, FL_SEQ_SAME);
		}
}

/* B exactly at the margin: HIGHER claims more than is true. */
static void test_at_margin(void **state)
{
	struct fl_seq_rule r;
	struct rates s;

	(void)state;
	fl_seq_rule_default(&r, 0.01);
	simulate(&r, COST, log(1.01), FEWER, 200, &s);
	assert_true(rate("B 1% higher, cost, 1% margin: HIGHER", &s,
			 FL_SEQ_HIGHER) <= 0.05);
	rate("B 1% higher, cost, 1% margin: SAME", &s, FL_SEQ_SAME);
}

/* B 2% lower at a 1% margin: found within the horizon; printed, what
 * 10 minutes of a futexlab run per visit would find. */
static void test_power(void **state)
{
	struct fl_seq_rule r;
	struct rates s;

	(void)state;
	fl_seq_rule_default(&r, 0.01);
	simulate(&r, COST, log(0.98), CAMPAIGNS, 300, &s);
	assert_true(rate("B 2% lower, cost, 1% margin: LOWER", &s,
			 FL_SEQ_LOWER) >= 0.80);
	assert_int_equal(s.call[FL_SEQ_HIGHER], 0);
	simulate(&r, FLIP, log(0.98), FEWEST, 301, &s);
	rate("B 2% lower, flip, 1% margin: LOWER", &s, FL_SEQ_LOWER);
	simulate(&r, VISITS, log(0.98), FEWER, 303, &s);
	assert_true(rate("B 2% lower, visits, 1% margin: LOWER", &s,
			 FL_SEQ_LOWER) >= 0.80);
	assert_int_equal(s.call[FL_SEQ_HIGHER], 0);
	r.max_blocks = PROCESS_PER_VISIT_10MIN;
	simulate(&r, COST, log(0.98), FEWER, 302, &s);
	rate("B 2% lower, cost, 1% margin, 390 blocks: LOWER", &s,
	     FL_SEQ_LOWER);
	/* ten minutes of futexlab's own visits: what a campaign's horizon
	 * is at this machine's pace */
	r.max_blocks = VISITS_10MIN;
	simulate(&r, VISITS, log(0.98), FEWER, 304, &s);
	assert_true(rate("B 2% lower, visits, 1% margin, 1220 blocks: LOWER",
			 &s, FL_SEQ_LOWER) >= 0.80);
	/* the horizon left at 2000 and the time ending at 1220 blocks: why
	 * a campaign fixes its horizon from its budget (campaign/blocks.c) */
	fl_seq_rule_default(&r, 0.01);
	time_ends_at = VISITS_10MIN;
	simulate(&r, VISITS, log(0.98), FEWER, 304, &s);
	time_ends_at = 0;
	rate("B 2% lower, visits, 1% margin, horizon 2000, time at 1220: "
	     "LOWER", &s, FL_SEQ_LOWER);
}

/* A shift of twice the margin is not called the same. */
static void test_false_equivalence(void **state)
{
	static const double margins[] = { 0.02, 0.01 };
	struct fl_seq_rule r;
	struct rates s;
	char what[80];

	(void)state;
	for (int m = 0; m < 2; m++) {
		fl_seq_rule_default(&r, margins[m]);
		simulate(&r, COST, log(1.0 + 2 * margins[m]), FEWER, 400 + m,
			 &s);
		snprintf(what, sizeof(what),
			 "B %g%% higher, cost, %g%% margin: SAME",
			 200 * margins[m], 100 * margins[m]);
		assert_true(rate(what, &s, FL_SEQ_SAME) <= 0.05);
	}
}

/*
 * Identical sides over a matrix: every cell a campaign of its own
 * blocks (independent noise), stopped at its first call or the horizon.
 * Any false call in the family is the error a matrix's user meets: each
 * cell at the whole alpha makes one likely (printed, not asserted),
 * each at its share of the family keeps it rare. The summary is
 * compare's: each cell's 95% interval of every block, into
 * fl_paired_family().
 */
#define FAMILY_CELLS	104
#define FAMILY_HORIZON	42
#define FAMILIES	100

static void family(enum noise noise, unsigned int calls, uint64_t seed,
		   struct rates *out)
{
	static struct fl_paired_ci each[FAMILY_CELLS];
	static double p_adj[FAMILY_CELLS];
	double x[FAMILY_HORIZON];
	struct fl_seq_rule r;
	uint64_t rng = seed;

	fl_seq_rule_default(&r, 0.02);
	r.max_blocks = FAMILY_HORIZON;
	fl_seq_rule_family(&r, calls);
	memset(out, 0, sizeof(*out));
	out->campaigns = FAMILIES;
	for (int f = 0; f < FAMILIES; f++) {
		unsigned int wrong = 0, same = 0;
		struct fl_geomean g;

		for (unsigned int c = 0; c < FAMILY_CELLS; c++) {
			struct fl_paired_ci ci;
			unsigned int n;
			enum fl_seq_call call = campaign(&r, noise, 0.0, 0,
							 &rng, x, &n, &ci);

			wrong += call == FL_SEQ_HIGHER ||
				 call == FL_SEQ_LOWER;
			same += call == FL_SEQ_SAME;
			fl_paired_hl(x, n, 0.95, &each[c]);
		}
		fl_paired_family(each, FAMILY_CELLS, 0.95, seed + f, p_adj,
				 &g);
		out->call[FL_SEQ_HIGHER] += wrong > 0;
		out->call[FL_SEQ_SAME] += same;
		out->summary_off += g.ok && (g.lo > 1.0 || g.hi < 1.0);
	}
}

static void test_family(void **state)
{
	static const enum noise noises[] = { MATRIX, VISITS };
	struct rates s;
	char what[80];

	(void)state;
	for (int k = 0; k < 2; k++) {
		enum noise noise = noises[k];

		family(noise, 1, 500 + k, &s);
		snprintf(what, sizeof(what), "%u cells, %s, each at alpha: "
			 "any call", FAMILY_CELLS, noise_names[noise]);
		rate(what, &s, FL_SEQ_HIGHER);
		family(noise, FAMILY_CELLS, 500 + k, &s);
		snprintf(what, sizeof(what), "%u cells, %s, alpha / %u: any "
			 "call", FAMILY_CELLS, noise_names[noise],
			 FAMILY_CELLS);
		assert_true(rate(what, &s, FL_SEQ_HIGHER) <= 0.05);
		snprintf(what, sizeof(what), "%u cells, %s, alpha / %u: "
			 "summary not 1", FAMILY_CELLS, noise_names[noise],
			 FAMILY_CELLS);
		s.call[FL_SEQ_HIGHER] = s.summary_off;
		assert_true(rate(what, &s, FL_SEQ_HIGHER) <= 0.05);
		printf("# %u cells, %s, alpha / %u: %.1f cells equivalent "
		       "a campaign\n", FAMILY_CELLS, noise_names[noise],
		       FAMILY_CELLS, s.call[FL_SEQ_SAME] / (double)FAMILIES);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identical),
		cmocka_unit_test(test_at_margin),
		cmocka_unit_test(test_power),
		cmocka_unit_test(test_false_equivalence),
		cmocka_unit_test(test_family),
	};

	return cmocka_run_group_tests_name("sequential_sim", tests, NULL,
					   NULL);
}
