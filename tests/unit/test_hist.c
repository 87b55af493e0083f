// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the log-linear histogram (base/hist.c, and its file,
 * rundir/hist_file.c): the bucket geometry tiles the values without
 * gaps, every value from 1 ns to 100 s is reported within 1% by its
 * bucket's midpoint, quantiles of known distributions, merging, and the
 * CSV round trip with rejection of malformed files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/hist.h"
#include "rundir/hist_file.h"

#define NS_PER_S 1000000000ull

static struct fl_hist *new_hist(void)
{
	struct fl_hist *h = malloc(sizeof(*h));

	assert_non_null(h);
	fl_hist_init(h);
	return h;
}

static uint64_t midpoint(unsigned int i)
{
	return fl_hist_bucket_low(i) + fl_hist_bucket_width(i) / 2;
}

/* Buckets are in increasing order and each starts where the last ended. */
static void test_buckets_contiguous(void **state)
{
	(void)state;
	assert_int_equal(fl_hist_bucket_low(0), 0);
	for (unsigned int i = 1; i < FL_HIST_BUCKETS; i++) {
		uint64_t prev_end = fl_hist_bucket_low(i - 1) +
				    fl_hist_bucket_width(i - 1);

		assert_true(fl_hist_bucket_width(i) >= 1);
		assert_true(fl_hist_bucket_low(i) > fl_hist_bucket_low(i - 1));
		assert_int_equal(fl_hist_bucket_low(i), prev_end);
		assert_true(fl_hist_bucket_width(i) >=
			    fl_hist_bucket_width(i - 1));
	}
}

/* A bucket's first and last values map back to that bucket. */
static void test_index_inverts_low(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < FL_HIST_BUCKETS; i++) {
		uint64_t lo = fl_hist_bucket_low(i);
		uint64_t hi = lo + fl_hist_bucket_width(i) - 1;

		assert_int_equal(fl_hist_index(lo), i);
		if (i < FL_HIST_BUCKETS - 1)
			assert_int_equal(fl_hist_index(hi), i);
	}
}

/* The index never decreases as the value grows. */
static void test_index_monotonic(void **state)
{
	unsigned int last = 0;

	(void)state;
	for (uint64_t v = 0; v < 100000; v++) {
		unsigned int i = fl_hist_index(v);

		assert_true(i >= last);
		assert_true(i <= last + 1);
		last = i;
	}
	/* and, sampled, far beyond: up to the top and past it */
	for (uint64_t v = 100000; v < (1ull << 40); v += v / 97 + 1) {
		unsigned int i = fl_hist_index(v);

		assert_true(i >= last);
		assert_true(i < FL_HIST_BUCKETS);
		last = i;
	}
	assert_int_equal(fl_hist_index(UINT64_MAX), FL_HIST_BUCKETS - 1);
}

static void assert_within_1pct(uint64_t v)
{
	uint64_t mid = midpoint(fl_hist_index(v));
	uint64_t diff = mid > v ? mid - v : v - mid;

	if (diff * 100 > v)
		fail_msg("value %llu reported as %llu (more than 1%% off)",
			 (unsigned long long)v, (unsigned long long)mid);
}

/* 1 ns to 100 s: every value below 100000 ns, then a dense geometric
 * sample, plus each bucket's edges and their neighbours. */
static void test_relative_error(void **state)
{
	(void)state;
	for (uint64_t v = 1; v < 100000; v++)
		assert_within_1pct(v);
	for (uint64_t v = 100000; v <= 100 * NS_PER_S; v += v / 4099 + 1)
		assert_within_1pct(v);
	for (unsigned int i = 1; i < FL_HIST_BUCKETS; i++) {
		uint64_t lo = fl_hist_bucket_low(i);

		if (lo > 100 * NS_PER_S)
			break;
		assert_within_1pct(lo - 1);
		assert_within_1pct(lo);
		assert_within_1pct(lo + 1);
		assert_within_1pct(lo + fl_hist_bucket_width(i) - 1);
	}
	assert_within_1pct(100 * NS_PER_S);
}

static void test_record_counts(void **state)
{
	struct fl_hist *h = new_hist();

	(void)state;
	assert_int_equal(fl_hist_quantile(h, 0.5), 0);	/* empty */
	fl_hist_record(h, 7);
	fl_hist_record(h, 3);
	fl_hist_record(h, 1000);
	assert_int_equal(h->count, 3);
	assert_int_equal(h->sum, 1010);
	assert_int_equal(h->min, 3);
	assert_int_equal(h->max, 1000);
	assert_int_equal(h->buckets[fl_hist_index(7)], 1);
	assert_int_equal(fl_hist_quantile(h, 0.0), 3);
	assert_int_equal(fl_hist_quantile(h, 1.0), 1000);
	free(h);
}

/* Values 1..1000 ns, each once: exact buckets, so exact quantiles. */
static void test_quantiles_uniform(void **state)
{
	struct fl_hist *h = new_hist();

	(void)state;
	for (uint64_t v = 1; v <= 1000; v++)
		fl_hist_record(h, v);
	/* below 256 the buckets are exact */
	assert_int_equal(fl_hist_quantile(h, 0.1), 100);
	assert_int_equal(fl_hist_quantile(h, 0.2), 200);
	/* above, within the bucket's resolution */
	uint64_t p50 = fl_hist_quantile(h, 0.5);
	uint64_t p99 = fl_hist_quantile(h, 0.99);

	assert_in_range(p50, 495, 505);
	assert_in_range(p99, 980, 1000);
	assert_int_equal(fl_hist_quantile(h, 1.0), 1000);
	assert_int_equal(fl_hist_quantile(h, 0.0), 1);
	free(h);
}

/* 990 fast values and 10 slow ones: the tail shows only past p99. */
static void test_quantiles_bimodal(void **state)
{
	struct fl_hist *h = new_hist();

	(void)state;
	for (int i = 0; i < 990; i++)
		fl_hist_record(h, 100);
	for (int i = 0; i < 10; i++)
		fl_hist_record(h, 5 * NS_PER_S);
	assert_int_equal(fl_hist_quantile(h, 0.5), 100);
	assert_int_equal(fl_hist_quantile(h, 0.99), 100);
	uint64_t p999 = fl_hist_quantile(h, 0.999);

	assert_true(p999 >= 5 * NS_PER_S * 99 / 100);
	assert_true(p999 <= 5 * NS_PER_S);
	assert_int_equal(fl_hist_quantile(h, 1.0), 5 * NS_PER_S);
	free(h);
}

/* Values beyond the resolved range keep an exact maximum. */
static void test_overflow_keeps_max(void **state)
{
	struct fl_hist *h = new_hist();
	uint64_t huge = 1ull << 45;

	(void)state;
	fl_hist_record(h, huge);
	assert_int_equal(h->buckets[FL_HIST_BUCKETS - 1], 1);
	assert_int_equal(fl_hist_quantile(h, 0.5), huge);
	assert_int_equal(h->max, huge);
	free(h);
}

static void test_merge(void **state)
{
	struct fl_hist *a = new_hist(), *b = new_hist(), *all = new_hist();
	struct fl_hist *empty = new_hist();

	(void)state;
	for (uint64_t v = 1; v <= 500; v++) {
		fl_hist_record(a, v * 3);
		fl_hist_record(all, v * 3);
	}
	for (uint64_t v = 1; v <= 300; v++) {
		fl_hist_record(b, v * 1000 + 17);
		fl_hist_record(all, v * 1000 + 17);
	}
	fl_hist_merge(a, b);
	fl_hist_merge(a, empty);
	assert_int_equal(a->count, 800);
	assert_int_equal(a->count, all->count);
	assert_int_equal(a->sum, all->sum);
	assert_int_equal(a->min, 3);
	assert_int_equal(a->max, 300017);
	assert_memory_equal(a->buckets, all->buckets, sizeof(a->buckets));
	/* merging into an empty histogram copies min as well */
	fl_hist_merge(empty, b);
	assert_int_equal(empty->min, 1017);
	assert_int_equal(empty->count, 300);
	free(a);
	free(b);
	free(all);
	free(empty);
}

static FILE *file_of(const char *text)
{
	FILE *f = tmpfile();

	assert_non_null(f);
	fputs(text, f);
	rewind(f);
	return f;
}

static void test_csv_round_trip(void **state)
{
	struct fl_hist *h = new_hist(), *back = new_hist();
	FILE *f = tmpfile();

	(void)state;
	assert_non_null(f);
	for (uint64_t v = 1; v < 50 * NS_PER_S; v = v * 3 + 1)
		fl_hist_record(h, v);
	fl_hist_record(h, 12345);
	fl_hist_record(h, 12345);
	assert_int_equal(fl_hist_write_csv(h, f), 0);
	rewind(f);
	assert_int_equal(fl_hist_read_csv(back, f), 0);
	assert_int_equal(back->count, h->count);
	assert_int_equal(back->sum, h->sum);
	assert_int_equal(back->min, h->min);
	assert_int_equal(back->max, h->max);
	assert_memory_equal(back->buckets, h->buckets, sizeof(h->buckets));
	fclose(f);

	/* an empty histogram round-trips too */
	fl_hist_init(h);
	f = tmpfile();
	assert_non_null(f);
	assert_int_equal(fl_hist_write_csv(h, f), 0);
	rewind(f);
	assert_int_equal(fl_hist_read_csv(back, f), 0);
	assert_int_equal(back->count, 0);
	assert_int_equal(fl_hist_quantile(back, 0.5), 0);
	fclose(f);
	free(h);
	free(back);
}

static void assert_rejected(const char *text)
{
	struct fl_hist *h = new_hist();
	FILE *f = file_of(text);

	if (fl_hist_read_csv(h, f) != -1)
		fail_msg("accepted a malformed histogram:\n%s", text);
	fclose(f);
	free(h);
}

static void test_csv_malformed(void **state)
{
	(void)state;
	/* the well-formed reference, to show the rejections are specific */
	{
		struct fl_hist *h = new_hist();
		FILE *f = file_of("# count=3 sum=10 min=2 max=5\n"
				  "low_ns,high_ns,count\n2,2,1\n3,3,1\n"
				  "5,5,1\n");

		assert_int_equal(fl_hist_read_csv(h, f), 0);
		assert_int_equal(h->count, 3);
		fclose(f);
		free(h);
	}
	assert_rejected("");
	assert_rejected("low_ns,high_ns,count\n2,2,1\n");
	assert_rejected("# count=1 sum=2 min=2 max=2\n2,2,1\n");
	assert_rejected("# count=1 sum=2 min=2 max=2\nlow,high,n\n2,2,1\n");
	/* counts that do not add up */
	assert_rejected("# count=5 sum=10 min=2 max=5\n"
			"low_ns,high_ns,count\n2,2,1\n");
	/* a bucket edge that is not one of ours (257 is inside 256..257) */
	assert_rejected("# count=1 sum=300 min=300 max=300\n"
			"low_ns,high_ns,count\n257,257,1\n");
	/* garbage rows */
	assert_rejected("# count=1 sum=2 min=2 max=2\n"
			"low_ns,high_ns,count\n2;2;1\n");
	assert_rejected("# count=1 sum=2 min=2 max=2\n"
			"low_ns,high_ns,count\nabc\n");
	assert_rejected("# count=x sum=2 min=2 max=2\n"
			"low_ns,high_ns,count\n2,2,1\n");
	/* rows the writer never writes: high not the bucket's, out of
	 * order, twice, empty, signed or with trailing text */
	assert_rejected("# count=2 sum=5 min=2 max=3\n"
			"low_ns,high_ns,count\n2,1,1\n3,3,1\n");
	assert_rejected("# count=2 sum=5 min=2 max=3\n"
			"low_ns,high_ns,count\n3,3,1\n2,2,1\n");
	assert_rejected("# count=2 sum=4 min=2 max=2\n"
			"low_ns,high_ns,count\n2,2,1\n2,2,1\n");
	assert_rejected("# count=1 sum=2 min=2 max=2\n"
			"low_ns,high_ns,count\n2,2,1\n3,3,0\n");
	assert_rejected("# count=1 sum=2 min=2 max=2\n"
			"low_ns,high_ns,count\n2,2,+1\n");
	assert_rejected("# count=1 sum=2 min=2 max=2\n"
			"low_ns,high_ns,count\n2,2,1x\n");
	/* min, max and sum that the buckets cannot have */
	assert_rejected("# count=1 sum=2 min=1 max=2\n"
			"low_ns,high_ns,count\n2,2,1\n");
	assert_rejected("# count=1 sum=2 min=2 max=9\n"
			"low_ns,high_ns,count\n2,2,1\n");
	assert_rejected("# count=2 sum=9 min=2 max=3\n"
			"low_ns,high_ns,count\n2,2,1\n3,3,1\n");
	/* the last line without its newline */
	assert_rejected("# count=1 sum=2 min=2 max=2\n"
			"low_ns,high_ns,count\n2,2,1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets_contiguous),
		cmocka_unit_test(test_index_inverts_low),
		cmocka_unit_test(test_index_monotonic),
		cmocka_unit_test(test_relative_error),
		cmocka_unit_test(test_record_counts),
		cmocka_unit_test(test_quantiles_uniform),
		cmocka_unit_test(test_quantiles_bimodal),
		cmocka_unit_test(test_overflow_keeps_max),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_csv_round_trip),
		cmocka_unit_test(test_csv_malformed),
	};

	return cmocka_run_group_tests_name("hist", tests, NULL, NULL);
}
