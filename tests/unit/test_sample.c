// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of latency sampling (base/sample.c): a rate of 1 times
 * every operation; otherwise the gaps between timed operations are at
 * least 1, average the rate, spread like a geometric distribution (so no
 * period can line up with the data), follow the seed, and differ between
 * seeds. Fixed seeds make every figure here exact and repeatable.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "base/sample.h"

#define DRAWS 200000

static void test_every_one_times_all(void **state)
{
	struct fl_sampler s;

	(void)state;
	fl_sampler_init(&s, 7, 1);
	uint64_t next = s.first;

	for (uint64_t op = 1; op <= 1000; op++)
		assert_int_equal(fl_sample_due(op, &next, &s), 1);
}

/* Mean and variance of DRAWS gaps at rate every. */
static void gap_moments(uint64_t seed, unsigned int every, double *mean,
			double *var)
{
	struct fl_sampler s;
	double sum = 0, sq = 0;

	fl_sampler_init(&s, seed, every);
	for (int i = 0; i < DRAWS; i++) {
		uint64_t g = fl_sampler_gap(&s);

		assert_true(g >= 1);
		sum += (double)g;
		sq += (double)g * (double)g;
	}
	*mean = sum / DRAWS;
	*var = sq / DRAWS - *mean * *mean;
}

static void test_gaps_are_geometric(void **state)
{
	static const unsigned int rates[] = { 2, 64, 512 };

	(void)state;
	for (unsigned int i = 0; i < 3; i++) {
		double p = 1.0 / rates[i], mean, var;
		double want_var = (1 - p) / (p * p);

		gap_moments(1 + i, rates[i], &mean, &var);
		assert_true(mean > rates[i] * 0.98 && mean < rates[i] * 1.02);
		assert_true(var > want_var * 0.95 && var < want_var * 1.05);
	}
}

/* How many of n operations sampler s times. */
static unsigned int timed_of(struct fl_sampler *s, unsigned int n)
{
	unsigned int timed = 0;
	uint64_t next = s->first;

	for (uint64_t op = 1; op <= n; op++)
		timed += (unsigned int)fl_sample_due(op, &next, s);
	return timed;
}

static void test_rate_over_operations(void **state)
{
	struct fl_sampler s;

	(void)state;
	fl_sampler_init(&s, 3, 64);
	unsigned int timed = timed_of(&s, 64 * 20000);

	assert_true(timed > 20000 * 0.97 && timed < 20000 * 1.03);
}

/* A sampler at rate 64 over a 1024-word array: every word is timed
 * sometimes (a fixed period of 64 would time only 16 of them). */
static void test_no_period_aliases(void **state)
{
	static unsigned int hits[1024];
	struct fl_sampler s;
	unsigned int words_hit = 0;

	(void)state;
	fl_sampler_init(&s, 1, 64);
	uint64_t next = s.first;

	for (uint64_t op = 1; op <= 1024 * 640; op++)
		if (fl_sample_due(op, &next, &s))
			hits[op % 1024]++;
	for (unsigned int w = 0; w < 1024; w++)
		words_hit += hits[w] > 0;
	assert_true(words_hit > 1000);
}

static void test_seed_decides(void **state)
{
	struct fl_sampler a, b, c;
	int same_ab = 1, same_ac = 1;

	(void)state;
	fl_sampler_init(&a, 42, 16);
	fl_sampler_init(&b, 42, 16);
	fl_sampler_init(&c, 43, 16);
	for (int i = 0; i < 100; i++) {
		uint64_t ga = fl_sampler_gap(&a);

		same_ab &= ga == fl_sampler_gap(&b);
		same_ac &= ga == fl_sampler_gap(&c);
	}
	assert_true(same_ab);
	assert_false(same_ac);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_one_times_all),
		cmocka_unit_test(test_gaps_are_geometric),
		cmocka_unit_test(test_rate_over_operations),
		cmocka_unit_test(test_no_period_aliases),
		cmocka_unit_test(test_seed_decides),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
