// SPDX-License-Identifier: GPL-2.0
/*
 * A repetition's threads merged into its result (measure/rep_merge.c)
 * and its fairness figures (stats/figures.c): every thread counts, the
 * ones that did nothing too, at every thread count up to FL_MAX_THREADS;
 * a thread that did nothing is the minimum and pulls Jain's index down.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "measure/cell.h"
#include "stats/figures.h"

/* A joined repetition of n threads whose first `busy` did `ops` each
 * and the rest nothing; its result merged and figured. */
static void merge_idle(unsigned int n, unsigned int busy, uint64_t ops,
		       struct fl_rep_figures *f, struct fl_rep_result *out)
{
	static struct fl_cell cell;
	static struct fl_rep rep;
	static struct fl_hist hist;
	struct fl_thread *threads = calloc(n, sizeof(*threads));

	assert_non_null(threads);
	memset(&cell, 0, sizeof(cell));
	memset(&rep, 0, sizeof(rep));
	cell.workload = fl_workload_find("mutex");
	assert_non_null(cell.workload);
	fl_hist_init(&hist);
	rep.cell = &cell;
	rep.nthreads = n;
	rep.threads = threads;
	for (unsigned int i = 0; i < n; i++) {
		threads[i].hist = &hist;
		threads[i].ops = i < busy ? ops : 0;
	}
	memset(out, 0, sizeof(*out));
	fl_rep_merge(out, &rep);
	out->elapsed_ns = 1000000000;
	fl_rep_figures(out, f);
	free(threads);
}

static void test_idle_threads_count(void **state)
{
	static struct fl_rep_result out;
	struct fl_rep_figures f;

	(void)state;
	merge_idle(8, 6, 100, &f, &out);
	assert_int_equal(out.nthreads, 8);
	assert_int_equal(out.ops, 600);
	assert_int_equal(f.thread_ops_min, 0);
	assert_int_equal(f.thread_ops_max, 100);
	/* (6 * 100)^2 / (8 * 6 * 100^2) */
	assert_true(f.jain > 0.7499 && f.jain < 0.7501);
}

/* The idle threads are the last ones of the largest count: none of
 * them may fall off the end of a table. */
static void test_idle_threads_count_at_the_maximum(void **state)
{
	static struct fl_rep_result out;
	struct fl_rep_figures f;

	(void)state;
	assert_true(FL_MAX_THREADS >= 4096);
	merge_idle(4096, 1024, 10, &f, &out);
	assert_int_equal(out.nthreads, 4096);
	assert_int_equal(out.ops, 10240);
	assert_int_equal(f.thread_ops_min, 0);
	assert_int_equal(f.thread_ops_max, 10);
	assert_true(f.jain > 0.2499 && f.jain < 0.2501);
	assert_true(f.ops_per_sec_per_thread > 2.4999 &&
		    f.ops_per_sec_per_thread < 2.5001);
}

static void test_nothing_done_is_zero(void **state)
{
	static struct fl_rep_result out;
	struct fl_rep_figures f;

	(void)state;
	merge_idle(3, 0, 0, &f, &out);
	assert_int_equal(f.thread_ops_min, 0);
	assert_int_equal(f.thread_ops_max, 0);
	assert_true(f.jain == 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_threads_count),
		cmocka_unit_test(test_idle_threads_count_at_the_maximum),
		cmocka_unit_test(test_nothing_done_is_zero),
	};

	return cmocka_run_group_tests_name("rep_merge", tests, NULL, NULL);
}
