// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the cost figures (stats/cost.h): CPU time, switches and
 * the PMU's counts per operation and the CPU share, each a median with
 * its order-statistic interval, from repetitions whose counts are known;
 * what a repetition lacks leaves it out of that figure alone; the
 * contaminated ones are counted with how much they were denied; and the
 * rule by which the cost holds where the throughput does not.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "stats/cost.h"
#include "stats/format.h"
#include "sweep/passes.h"

#define assert_close(a, b) do { \
	double a_ = (a), b_ = (b); \
	if (a_ - b_ > 1e-9 || b_ - a_ > 1e-9) \
		fail_msg("%s is %.12g, expected %.12g", #a, a_, b_); \
} while (0)

#define N 6

/* six repetitions of 1000 operations, 1000..1005 ns of CPU each, the
 * last two waiting as long as they ran */
static void six(struct fl_rep_counts *k, uint64_t *ops)
{
	memset(k, 0, N * sizeof(*k));
	for (int i = 0; i < N; i++) {
		k[i].have = FL_HAVE_CPU | FL_HAVE_RUN_DELAY | FL_HAVE_CTX |
			    FL_HAVE_CONTAMINATION;
		k[i].cpu_ns = 1000000 + 1000 * (uint64_t)i;
		k[i].ctx_switches = 500;
		k[i].run_delay_ns = i >= 4 ? k[i].cpu_ns : 0;
		k[i].contaminated = i >= 4;
		ops[i] = 1000;
	}
}

/* six()'s cost figures */
static const struct fl_cost *six_cost(void)
{
	static struct fl_rep_counts k[N];
	static uint64_t ops[N];
	static struct fl_cost c;

	six(k, ops);
	fl_cost_of(k, ops, N, &c);
	return &c;
}

static void test_cpu_per_op(void **state)
{
	struct fl_rep_counts k[N];
	uint64_t ops[N];
	static struct fl_cost c;

	(void)state;
	six(k, ops);
	fl_cost_of(k, ops, N, &c);
	assert_int_equal(c.ncpu, N);
	assert_close(c.cpu_per_op[5], 1005.0);
	assert_int_equal(c.fig[FL_COST_CPU].ci.ok, 1);
	assert_close(c.fig[FL_COST_CPU].ci.mid, 1002.5);
	/* n = 6: the interval is the extremes */
	assert_close(c.fig[FL_COST_CPU].ci.lo, 1000.0);
	assert_close(c.fig[FL_COST_CPU].ci.hi, 1005.0);
	assert_int_equal(c.fig[FL_COST_CPU].noisy, 0);
	assert_close(c.fig[FL_COST_CTX].ci.mid, 0.5);
	/* four got all of their runnable time, two half of it */
	assert_close(c.fig[FL_COST_SHARE].ci.mid, 1.0);
	assert_close(c.fig[FL_COST_SHARE].ci.lo, 0.5);
	/* no PMU: no cycles, no instructions */
	assert_int_equal(c.fig[FL_COST_CYCLES].ci.n, 0);
	assert_int_equal(c.fig[FL_COST_INSNS].ci.n, 0);
}

static void test_contamination(void **state)
{
	const struct fl_cost *c = six_cost();
	char text[200];

	(void)state;
	assert_int_equal(c->njudged, N);
	assert_int_equal(c->ncontaminated, 2);
	assert_close(c->denied_max, 0.5);
	fl_fmt_contamination(c, text, sizeof(text));
	assert_string_equal(text, "2 of 6 repetitions contaminated (threads "
			    "denied up to 50% of their runnable time)");
	/* the cost holds only where the throughput is NOISY */
	assert_int_equal(fl_cost_holds(c, 1), 1);
	assert_int_equal(fl_cost_holds(c, 0), 0);
}

/* A repetition without operations or without CPU time is left out of
 * the CPU figure only; none counted is "not counted". */
static void test_missing(void **state)
{
	struct fl_rep_counts k[N];
	uint64_t ops[N];
	static struct fl_cost c;
	char text[600];

	(void)state;
	six(k, ops);
	ops[0] = 0;
	k[1].have &= ~(unsigned int)FL_HAVE_CPU;
	fl_cost_of(k, ops, N, &c);
	assert_int_equal(c.ncpu, 4);
	assert_int_equal(c.nhave_cpu, 5);
	assert_int_equal(c.fig[FL_COST_CPU].ci.ok, 0);
	assert_int_equal(c.fig[FL_COST_CTX].ci.n, 5);
	memset(k, 0, sizeof(k));
	fl_cost_of(k, ops, N, &c);
	assert_int_equal(c.fig[FL_COST_CPU].ci.n, 0);
	assert_int_equal(c.njudged, 0);
	assert_int_equal(fl_cost_holds(&c, 1), 0);
	fl_fmt_cost(&c, "op", text, sizeof(text));
	assert_true(strncmp(text, "not counted", 11) == 0);
}

static void test_format(void **state)
{
	const struct fl_cost *c = six_cost();
	char text[600];

	(void)state;
	fl_fmt_cost_fig(c, FL_COST_CPU, "op", text, sizeof(text));
	assert_string_equal(text, "1.002 us/op [1 us, 1.005 us] +-0.2%");
}

/* The adaptive repetitions stop on the cost where the machine
 * contaminated a visit and the throughput's interval is still wide; not
 * on a clean machine, where the throughput is the lock's. */
static void test_track_converges_on_cost(void **state)
{
	static struct fl_cell_track t;

	(void)state;
	memset(&t, 0, sizeof(t));
	for (int i = 0; i < 8; i++)
		fl_track_add(&t, FL_STATUS_OK, i % 2 ? 1e6 : 3e6,
			     1000.0 + i, 0);
	assert_int_equal(fl_track_converged(&t), 0);
	fl_track_add(&t, FL_STATUS_OK, 2e6, 1003.0, 1);
	assert_int_equal(fl_track_converged(&t), 1);
	/* a cost as wide as the throughput holds nothing */
	memset(&t, 0, sizeof(t));
	for (int i = 0; i < 8; i++)
		fl_track_add(&t, FL_STATUS_OK, i % 2 ? 1e6 : 3e6,
			     i % 2 ? 1000.0 : 3000.0, 1);
	assert_int_equal(fl_track_converged(&t), 0);
	/* not counted (NaN): the primary figure alone */
	memset(&t, 0, sizeof(t));
	for (int i = 0; i < 8; i++)
		fl_track_add(&t, FL_STATUS_OK, i % 2 ? 1e6 : 3e6, NAN, 1);
	assert_int_equal(t.ncost, 0);
	assert_int_equal(fl_track_converged(&t), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_per_op),
		cmocka_unit_test(test_contamination),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_track_converges_on_cost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
