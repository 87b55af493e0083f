// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the paired analysis (stats/paired.h): the signed-rank
 * interval's C against published critical values, the Hodges-Lehmann
 * estimate on differences worked by hand, its interval against every
 * Walsh average formed and sorted, and the signed-rank p-value, exact and
 * approximate.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "stats/paired.h"
#include "stats/shift.h"
#include "stats/stats.h"

#define assert_close(a, b) do { \
	double a_ = (a), b_ = (b); \
	if (a_ - b_ > 1e-9 || b_ - a_ > 1e-9) \
		fail_msg("%s is %.12g, expected %.12g", #a, a_, b_); \
} while (0)

/*
 * C = 1 + the lower-tail critical value of T+. Two-sided 5%: n = 10
 * rejects for T+ <= 8 (P = 25/1024 = 0.0244; T+ <= 9 has 33/1024), so C
 * = 9, as Hollander, Wolfe and Chicco's Table A.4 gives (P0(T+ >= 47) =
 * .024 at n = 10: C = 55 + 1 - 47). The usual tables' critical values
 * for n = 20, 30 and 50 at 5% are 52, 137 and 434; at 1%, n = 10: 3.
 * n = 100 and 200 were counted exactly (Python, fractions): 1955 and
 * 8444 at 5%; 200 is past the exact range, and the normal
 * approximation may differ by one.
 */
static void test_critical_values(void **state)
{
	unsigned long c200 = fl_paired_c(200, 0.95);

	(void)state;
	assert_int_equal(fl_paired_c(10, 0.95), 9);
	assert_int_equal(fl_paired_c(10, 0.99), 4);
	assert_int_equal(fl_paired_c(20, 0.95), 53);
	assert_int_equal(fl_paired_c(30, 0.95), 138);
	assert_int_equal(fl_paired_c(50, 0.95), 435);
	assert_int_equal(fl_paired_c(100, 0.95), 1956);
	assert_true(c200 >= 8444 && c200 <= 8446);
	/* 6 values: P(T+ = 0) = 1/64 is below 2.5%; 5: 1/32 is not */
	assert_int_equal(fl_paired_c(6, 0.95), 1);
	assert_int_equal(fl_paired_c(5, 0.95), 0);
	assert_int_equal(fl_paired_c(0, 0.95), 0);
}

/* Walsh averages of {0, 1, 10}: 0, 0.5, 1, 5, 5.5, 10; the median is 3,
 * neither the mean (3.67) nor the median (1). */
static void test_estimate_by_hand(void **state)
{
	const double x[] = { 10.0, 0.0, 1.0 }, y[] = { 3.0, 1.0, 2.0 };
	struct fl_paired_ci ci;

	(void)state;
	assert_int_equal(fl_paired_hl(x, 3, 0.95, &ci), -1);
	assert_close(ci.est, 3.0);
	assert_false(ci.has_ci);
	assert_true(isnan(ci.lo) && isnan(ci.hi));
	assert_int_equal(ci.n, 3);
	assert_close(x[0], 10.0);	/* the input is left as it was */
	/* 1, 1.5, 2, 2, 2.5, 3 */
	fl_paired_hl(y, 3, 0.95, &ci);
	assert_close(ci.est, 2.0);
	assert_int_equal(fl_paired_hl(y, 0, 0.95, &ci), -1);
	assert_true(isnan(ci.est));
	assert_close(ci.p, 1.0);
}

/* Every block the same: the estimate and both ends are that value, and
 * no evidence against 0 beyond the signs (all ties, ranks 8: the
 * normal approximation, T+ = 120, z = (120 - 60 - 0.5) / sqrt(15 * 16 *
 * 31 / 24 - (15^3 - 15) / 48) = 59.5 / sqrt(310 - 70) = 3.841). */
static void test_all_equal(void **state)
{
	double x[15];
	struct fl_paired_ci ci;

	(void)state;
	for (int i = 0; i < 15; i++)
		x[i] = 0.05;
	assert_int_equal(fl_paired_hl(x, 15, 0.95, &ci), 0);
	assert_close(ci.est, 0.05);
	assert_close(ci.lo, 0.05);
	assert_close(ci.hi, 0.05);
	assert_close(ci.p, erfc(59.5 / sqrt(310.0 - 70.0) / M_SQRT2));
}

static int by_value(const void *a, const void *b)
{
	return fl_cmp_double(a, b);
}

/* Every Walsh average formed and sorted, the interval read off by C:
 * what fl_paired_hl() must give without forming them. */
static void brute_force(const double *x, unsigned int n, double conf,
			double *est, double *lo, double *hi)
{
	unsigned long m = (unsigned long)n * (n + 1) / 2, k = 0;
	unsigned long c = fl_paired_c(n, conf);
	double *w = malloc(m * sizeof(double)), *s = malloc(n * sizeof(double));

	assert_non_null(w);
	assert_non_null(s);
	for (unsigned int i = 0; i < n; i++)
		s[i] = x[i];
	qsort(s, n, sizeof(double), by_value);
	for (unsigned int i = 0; i < n; i++)
		for (unsigned int j = i; j < n; j++)
			w[k++] = (s[i] + s[j]) / 2.0;
	qsort(w, m, sizeof(double), by_value);
	*est = m % 2 ? w[m / 2] : (w[m / 2 - 1] + w[m / 2]) / 2.0;
	*lo = w[c - 1];
	*hi = w[m - c];
	free(w);
	free(s);
}

/* Heavy-tailed differences, some rounded so values tie, at sizes on
 * both sides of the exact range: the same order statistics, to the bit. */
static void test_interval_brute_force(void **state)
{
	static const unsigned int sizes[] = { 6, 7, 10, 41, 100, 101, 333 };
	uint64_t rng = 44;

	(void)state;
	for (size_t t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++) {
		unsigned int n = sizes[t];
		double *x = malloc(n * sizeof(double)), est, lo, hi;
		struct fl_paired_ci ci;

		assert_non_null(x);
		for (unsigned int i = 0; i < n; i++) {
			double u = fl_uniform(&rng) - 0.5;

			/* Cauchy-like tails; every third value on a grid */
			x[i] = 0.01 + 0.02 * tan(3.0 * u);
			if (i % 3 == 0)
				x[i] = round(x[i] * 100.0) / 100.0;
		}
		assert_int_equal(fl_paired_hl(x, n, 0.95, &ci), 0);
		brute_force(x, n, 0.95, &est, &lo, &hi);
		assert_true(ci.has_ci);
		assert_true(ci.est == est);
		assert_true(ci.lo == lo);
		assert_true(ci.hi == hi);
		assert_true(ci.lo <= ci.est && ci.est <= ci.hi);
		free(x);
	}
}

/*
 * The p-value: all 10 positive, T+ = 55, exactly 2/1024. With ties
 * (|x| 1, 1, 2, 2, 3: mean ranks 1.5, 1.5, 3.5, 3.5, 5; T+ = 13.5)
 * the normal approximation: mean 7.5, variance 5*6*11/24 - 2*6/48 =
 * 13.5, z = (6 - 0.5) / sqrt(13.5) = 1.4969, p = 0.13440. Zeros are
 * dropped: adding two leaves it.
 */
static void test_p_value(void **state)
{
	const double pos[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	const double tied[] = { 1, 2, 2, 3, -1 }, zeros[] = { 0, 1, 2, 0, 2,
							       3, -1 };
	struct fl_paired_ci ci;

	(void)state;
	fl_paired_hl(pos, 10, 0.95, &ci);
	assert_close(ci.p, 2.0 / 1024.0);
	assert_true(ci.lo > 0.0);
	fl_paired_hl(tied, 5, 0.95, &ci);
	assert_close(ci.p, erfc(5.5 / sqrt(13.5) / M_SQRT2));
	assert_true(fabs(ci.p - 0.13440) < 5e-5);
	fl_paired_hl(zeros, 7, 0.95, &ci);
	assert_close(ci.p, erfc(5.5 / sqrt(13.5) / M_SQRT2));
}

/* Without ties the interval leaves out 0 exactly when the test rejects
 * at 1 - conf: the two are one procedure (section 3.2). */
static void test_interval_matches_test(void **state)
{
	uint64_t rng = 7;
	int rejected = 0;

	(void)state;
	for (int r = 0; r < 400; r++) {
		unsigned int n = 6 + r % 40;
		double x[45];
		struct fl_paired_ci ci;

		for (unsigned int i = 0; i < n; i++)
			x[i] = fl_uniform(&rng) - 0.35;
		assert_int_equal(fl_paired_hl(x, n, 0.95, &ci), 0);
		assert_int_equal(ci.lo > 0.0 || ci.hi < 0.0, ci.p <= 0.05);
		rejected += ci.p <= 0.05;
	}
	/* both ways were seen */
	assert_true(rejected > 20 && rejected < 380);
}

/* A value that is not finite is refused. */
static void test_refuses_nonfinite(void **state)
{
	double x[] = { 1, 2, 3, 4, 5, 6, 7 };
	struct fl_paired_ci ci;

	(void)state;
	x[3] = NAN;
	assert_int_equal(fl_paired_hl(x, 7, 0.95, &ci), -1);
	assert_false(ci.has_ci);
	x[3] = INFINITY;
	assert_int_equal(fl_paired_hl(x, 7, 0.95, &ci), -1);
}

static struct fl_paired_ci cell_of(double est, double half, double p)
{
	struct fl_paired_ci c = { .n = 20, .est = log(est), .p = p,
				  .has_ci = 1 };

	c.lo = c.est - half;
	c.hi = c.est + half;
	return c;
}

/*
 * Three cells agreeing on 1.10 with half-widths 0.03, 0.04 and 0.12:
 * the bootstrap over cells has no spread to show, so the interval is
 * the cells' own, exp(log 1.1 -+ sqrt(0.03^2 + 0.04^2 + 0.12^2) / 3) =
 * exp(log 1.1 -+ 0.13 / 3). Their p 0.01, 0.04, 0.03 adjusted by
 * Benjamini-Hochberg: 0.03, 0.04, 0.04. A cell without blocks has p 1
 * and no say in the mean. One cell: its own interval.
 */
static void test_family(void **state)
{
	struct fl_paired_ci cells[4] = {
		cell_of(1.10, 0.03, 0.01), cell_of(1.10, 0.04, 0.04),
		cell_of(1.10, 0.12, 0.03),
	};
	double adj[4];
	struct fl_geomean g;

	(void)state;
	fl_paired_family(cells, 3, 0.95, 1, adj, &g);
	assert_true(g.ok);
	assert_close(g.mean, 1.10);
	assert_close(g.lo, exp(log(1.10) - 0.13 / 3.0));
	assert_close(g.hi, exp(log(1.10) + 0.13 / 3.0));
	assert_close(adj[0], 0.03);
	assert_close(adj[1], 0.04);
	assert_close(adj[2], 0.04);
	/* a fourth cell without blocks: p 1, not in the mean */
	fl_paired_hl(NULL, 0, 0.95, &cells[3]);
	fl_paired_family(cells, 4, 0.95, 1, adj, &g);
	assert_close(g.mean, 1.10);
	assert_close(adj[3], 1.0);
	assert_close(adj[0], 0.04);
	/* cells that disagree: the bootstrap's spread shows */
	cells[0] = cell_of(1.50, 0.01, 0.001);
	cells[1] = cell_of(0.80, 0.01, 0.001);
	cells[2] = cell_of(1.00, 0.01, 0.9);
	fl_paired_family(cells, 3, 0.95, 1, adj, &g);
	assert_true(g.lo < 0.95 && g.hi > 1.15);
	/* one cell: its interval as it is */
	cells[0] = cell_of(1.05, 0.02, 0.001);
	fl_paired_family(cells, 1, 0.95, 1, adj, &g);
	assert_true(g.ok);
	assert_close(g.lo, exp(log(1.05) - 0.02));
	assert_close(g.hi, exp(log(1.05) + 0.02));
	assert_close(adj[0], 0.001);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_critical_values),
		cmocka_unit_test(test_estimate_by_hand),
		cmocka_unit_test(test_all_equal),
		cmocka_unit_test(test_interval_brute_force),
		cmocka_unit_test(test_p_value),
		cmocka_unit_test(test_interval_matches_test),
		cmocka_unit_test(test_refuses_nonfinite),
		cmocka_unit_test(test_family),
	};

	return cmocka_run_group_tests_name("paired", tests, NULL, NULL);
}
