// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the stopping rule (stats/sequential.h): where it looks,
 * the confidence each look's interval is at, and its calls on blocks
 * whose answer is plain. Its error rates under optional stopping are
 * test_sequential_sim.c's.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "stats/sequential.h"
#include "stats/shift.h"

#define assert_close(a, b) do { \
	double a_ = (a), b_ = (b); \
	if (a_ - b_ > 1e-9 || b_ - a_ > 1e-9) \
		fail_msg("%s is %.12g, expected %.12g", #a, a_, b_); \
} while (0)

/* 16 blocks, then 25% more each time (rounded up), then the horizon:
 * 17 looks to 500 blocks, their squares summing to 874943; the look at
 * n blocks at 1 - 0.05 * n^2 / 874943. */
static void test_looks(void **state)
{
	static const unsigned int want[] = { 16, 20, 25, 32, 40, 50, 63, 79,
					     99, 124, 155, 194, 243, 304,
					     380, 475, 500 };
	struct fl_seq_rule r = { .delta = 0.02, .min_blocks = 16,
				 .max_blocks = 500, .alpha = 0.05 };
	unsigned int n = 0;

	(void)state;
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		n = fl_seq_next_look(&r, n);
		assert_int_equal(n, want[k]);
		assert_int_equal(fl_seq_next_look(&r, n), n);
		n++;
	}
	assert_int_equal(fl_seq_next_look(&r, 501), 0);
	assert_int_equal(fl_seq_next_look(&r, 0), 16);
	assert_int_equal(fl_seq_next_look(&r, 21), 25);
	assert_close(fl_seq_look_conf(&r, 16),
		     1.0 - 0.05 * 16 * 16 / 874943.0);
	assert_close(fl_seq_look_conf(&r, 500),
		     1.0 - 0.05 * 500 * 500 / 874943.0);
}

/* A family of calls shares alpha evenly; none or one is the rule. */
static void test_family(void **state)
{
	struct fl_seq_rule r;

	(void)state;
	fl_seq_rule_default(&r, 0.02);
	fl_seq_rule_family(&r, 0);
	assert_close(r.alpha, 0.05);
	fl_seq_rule_family(&r, 1);
	assert_close(r.alpha, 0.05);
	fl_seq_rule_family(&r, 104);
	assert_close(r.alpha, 0.05 / 104);
}

/* n blocks of shift + a small spread, in a fixed order */
static void blocks(double *x, unsigned int n, double shift, double spread)
{
	uint64_t rng = 3;

	for (unsigned int i = 0; i < n; i++)
		x[i] = shift + spread * (fl_uniform(&rng) - 0.5);
}

/* At a horizon of 100 blocks (a campaign's of a few minutes): 10% up at
 * 2% spread: HIGHER at the first look, and at the looks only; 10% down:
 * LOWER; no change: SAME; 2% up at a 2% margin: never decided. */
static void test_calls(void **state)
{
	struct fl_seq_rule r;
	struct fl_paired_ci ci;
	double x[600];

	(void)state;
	fl_seq_rule_default(&r, 0.02);
	assert_true(r.min_blocks >= 10 && r.max_blocks > r.min_blocks);
	assert_close(r.alpha, 0.05);
	r.max_blocks = 100;
	blocks(x, 600, log(1.10), 0.02);
	assert_int_equal(fl_seq_decide(&r, x, r.min_blocks - 1, &ci),
			 FL_SEQ_MORE);
	assert_int_equal(fl_seq_decide(&r, x, r.min_blocks, &ci),
			 FL_SEQ_HIGHER);
	assert_true(ci.has_ci && exp(ci.lo) > 1.02);
	assert_true(ci.p < 1.0 - fl_seq_look_conf(&r, r.min_blocks));
	/* between looks: not decided, the interval still shown */
	assert_int_equal(fl_seq_decide(&r, x, r.min_blocks + 1, &ci),
			 FL_SEQ_MORE);
	assert_true(ci.has_ci);
	blocks(x, 600, log(0.90), 0.02);
	assert_int_equal(fl_seq_decide(&r, x, r.min_blocks, &ci),
			 FL_SEQ_LOWER);
	blocks(x, 600, 0.0, 0.02);
	assert_int_equal(fl_seq_decide(&r, x, r.min_blocks, &ci),
			 FL_SEQ_SAME);
	assert_true(exp(ci.lo) >= 0.98 && exp(ci.hi) <= 1.02);
	blocks(x, 600, log(1.02), 0.02);
	r.max_blocks = 600;
	for (unsigned int n = 1; n <= 600; n++)
		assert_int_equal(fl_seq_decide(&r, x, n, &ci), FL_SEQ_MORE);
	/* past the horizon, nothing more is decided */
	blocks(x, 600, log(1.10), 0.02);
	r.max_blocks = 100;
	assert_int_equal(fl_seq_decide(&r, x, 100, &ci), FL_SEQ_HIGHER);
	assert_int_equal(fl_seq_decide(&r, x, 124, &ci), FL_SEQ_MORE);
}

/* The look's interval is wider than a lone 95% one: the split of alpha
 * over the looks is paid in width. */
static void test_look_interval_wider(void **state)
{
	struct fl_seq_rule r;
	struct fl_paired_ci look, lone;
	double x[100];
	uint64_t rng = 9;

	(void)state;
	fl_seq_rule_default(&r, 0.02);
	for (int i = 0; i < 100; i++)
		x[i] = 0.05 * (fl_uniform(&rng) - 0.5);
	fl_seq_decide(&r, x, 99, &look);
	fl_paired_hl(x, 99, 0.95, &lone);
	assert_true(look.lo < lone.lo && look.hi > lone.hi);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_looks),
		cmocka_unit_test(test_family),
		cmocka_unit_test(test_calls),
		cmocka_unit_test(test_look_interval_wider),
	};

	return cmocka_run_group_tests_name("sequential", tests, NULL, NULL);
}
