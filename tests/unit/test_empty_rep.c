// SPDX-License-Identifier: GPL-2.0
/*
 * An empty repetition (nothing done in it) through waitv's verify(): a
 * failure, "nothing was measured", on a backend that sleeps or when the
 * spinners fit the CPUs; a measurement of zero wakes on a spin backend
 * with more threads than CPUs, where the waker may never have run
 * (fl_cell_spin_oversubscribed). Uses the real registry's descriptors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "spec/workload.h"

#define WAITERS 4

/* waitv's --threads waiters and its waker, all with nothing done */
static struct fl_thread threads[WAITERS + 1];

/* waitv's verify() on a repetition with no wakes and `wrong` returns
 * that named a futex nobody signalled */
static int verify_empty(const char *backend, unsigned int ncpus,
			uint64_t wrong, char *why, size_t len)
{
	static struct fl_cell cell;
	static struct fl_rep rep;

	memset(&cell, 0, sizeof(cell));
	memset(&rep, 0, sizeof(rep));
	memset(threads, 0, sizeof(threads));
	cell.workload = fl_workload_find("waitv");
	cell.backend = fl_backend_find(backend);
	assert_non_null(cell.workload);
	assert_non_null(cell.backend);
	assert_non_null(cell.workload->verify);
	/* counters[0] is the one verify() reads for wrong indices */
	assert_string_equal(cell.workload->counters[0].name, "index_wrong");
	cell.threads = WAITERS;
	cell.ncpus_online = ncpus;
	rep.cell = &cell;
	rep.nthreads = fl_cell_nthreads(&cell);
	assert_int_equal(rep.nthreads, WAITERS + 1);
	rep.threads = threads;
	threads[1].counters[0] = wrong;
	why[0] = '\0';
	return cell.workload->verify(&rep, why, len);
}

static void test_sleeping_backend_fails(void **state)
{
	char why[256];

	(void)state;
	assert_int_equal(verify_empty("futex2", 2, 0, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "nothing was measured"));
}

static void test_spinners_that_fit_fail(void **state)
{
	char why[256];

	(void)state;
	assert_int_equal(verify_empty("spin", WAITERS + 1, 0, why,
				      sizeof(why)), -1);
	assert_non_null(strstr(why, "nothing was measured"));
}

static void test_oversubscribed_spinners_measure_zero(void **state)
{
	char why[256];

	(void)state;
	assert_int_equal(verify_empty("spin", 2, 0, why, sizeof(why)), 0);
	assert_string_equal(why, "");
}

/* An empty repetition is no excuse for a wrong index. */
static void test_wrong_index_still_fails(void **state)
{
	char why[256];

	(void)state;
	assert_int_equal(verify_empty("spin", 2, 1, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "nobody signalled"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sleeping_backend_fails),
		cmocka_unit_test(test_spinners_that_fit_fail),
		cmocka_unit_test(test_oversubscribed_spinners_measure_zero),
		cmocka_unit_test(test_wrong_index_still_fails),
	};

	return cmocka_run_group_tests_name("empty_rep", tests, NULL, NULL);
}
