// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the statistics across repetitions (harness/stats.c):
 * median of odd and even counts, the relative spread, Jain's fairness
 * index on known inputs, and the noisy-cell threshold.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "stats/stats.h"

/* Doubles compared as doubles (cmocka's float check rounds to float). */
#define assert_close(a, b) do { \
	double a_ = (a), b_ = (b); \
	if (a_ - b_ > 1e-9 || b_ - a_ > 1e-9) \
		fail_msg("%s is %.12g, expected %.12g", #a, a_, b_); \
} while (0)

static void test_median_odd(void **state)
{
	const double v[] = { 9.0, 1.0, 5.0 };
	const double one[] = { 42.0 };

	(void)state;
	assert_close(fl_median(v, 3), 5.0);
	assert_close(fl_median(one, 1), 42.0);
}

static void test_median_even(void **state)
{
	const double v[] = { 4.0, 1.0, 3.0, 10.0 };

	(void)state;
	assert_close(fl_median(v, 4), 3.5);
	assert_close(fl_median(v, 2), 2.5);
	assert_close(fl_median(v, 0), 0.0);
}

/* The input is left as it was: the median sorts a copy. */
static void test_median_keeps_input(void **state)
{
	double v[] = { 3.0, 2.0, 1.0 };

	(void)state;
	fl_median(v, 3);
	assert_close(v[0], 3.0);
	assert_close(v[1], 2.0);
	assert_close(v[2], 1.0);
}

static void test_spread(void **state)
{
	const double v[] = { 90.0, 100.0, 110.0 };
	const double same[] = { 7.0, 7.0, 7.0, 7.0 };
	const double zero[] = { 0.0, 0.0, 1.0 };

	(void)state;
	assert_close(fl_spread(v, 3), 0.2);
	assert_close(fl_spread(same, 4), 0.0);
	assert_close(fl_spread(v, 1), 0.0);	/* one value */
	assert_close(fl_spread(zero, 3), 0.0); /* zero median */
}

static void test_jain(void **state)
{
	const uint64_t fair[] = { 5, 5, 5, 5 };
	const uint64_t one_hog[] = { 10, 0, 0, 0 };
	const uint64_t half[] = { 1, 1, 0, 0 };
	const uint64_t skew[] = { 1, 2, 3 };
	const uint64_t none[] = { 0, 0 };

	(void)state;
	assert_close(fl_jain(fair, 4), 1.0);
	assert_close(fl_jain(one_hog, 4), 0.25);	/* 1/n */
	assert_close(fl_jain(half, 4), 0.5);
	/* 36 / (3 * 14) */
	assert_close(fl_jain(skew, 3), 36.0 / 42.0);
	assert_close(fl_jain(none, 2), 0.0);
	assert_close(fl_jain(fair, 0), 0.0);
}

static void test_noisy(void **state)
{
	const double quiet[] = { 100.0, 101.0, 99.0 };
	const double loud[] = { 100.0, 120.0, 95.0 };

	(void)state;
	assert_false(fl_is_noisy(0.0));
	assert_false(fl_is_noisy(FL_NOISY_SPREAD));
	assert_true(fl_is_noisy(FL_NOISY_SPREAD + 0.001));
	assert_false(fl_is_noisy(fl_spread(quiet, 3)));
	assert_true(fl_is_noisy(fl_spread(loud, 3)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_odd),
		cmocka_unit_test(test_median_even),
		cmocka_unit_test(test_median_keeps_input),
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_jain),
		cmocka_unit_test(test_noisy),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
