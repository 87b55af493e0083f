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

/*
 * A joined repetition of n threads whose first `busy` did `ops` each and
 * the rest nothing, merged and figured: every thread is in the figures,
 * the idle ones as zeros. Jain's index of `busy` equal counts among n is
 * busy / n.
 */
static void check_idle(unsigned int n, unsigned int busy, uint64_t ops)
{
	static struct fl_cell cell;
	static struct fl_rep rep;
	static struct fl_hist hist;
	static struct fl_rep_result out;
	struct fl_thread *threads = calloc(n, sizeof(*threads));
	struct fl_rep_figures f;
	double jain = ops ? (double)busy / n : 0.0;
	double per = (double)busy * (double)ops / n;

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
	memset(&out, 0, sizeof(out));
	fl_rep_merge(&out, &rep);
	out.elapsed_ns = 1000000000;
	fl_rep_figures(&out, &f);
	free(threads);
	assert_int_equal(out.nthreads, n);
	assert_int_equal(out.ops, busy * ops);
	assert_int_equal(f.thread_ops_min, busy < n ? 0 : ops);
	assert_int_equal(f.thread_ops_max, busy ? ops : 0);
	assert_true(f.jain > jain - 1e-4 && f.jain < jain + 1e-4);
	assert_true(f.ops_per_sec_per_thread > per - 1e-4 &&
		    f.ops_per_sec_per_thread < per + 1e-4);
}

static void test_idle_threads_count(void **state)
{
	(void)state;
	check_idle(8, 6, 100);
}

/* The idle threads are the last ones of the largest count: none of
 * them may fall off the end of a table. */
static void test_idle_threads_count_at_the_maximum(void **state)
{
	(void)state;
	assert_true(FL_MAX_THREADS >= 4096);
	check_idle(4096, 1024, 10);
}

static void test_nothing_done_is_zero(void **state)
{
	(void)state;
	check_idle(3, 0, 0);
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
