// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of placement (spec/placement.c): CPU lists parse and
 * format back, malformed lists are rejected, and the compact and scatter
 * policies return only CPUs this process may use, each once, wrapping
 * around when threads outnumber them. A planned cell's table of CPUs has
 * one entry a thread it starts, at 1 thread and at FL_MAX_THREADS, with
 * the policy's CPUs (or numa's), reused when the description is planned
 * again, read alike by a forked child and freed with the cell.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "spec/placement.h"
#include "spec/spec.h"

#define MAXC 4096

static void test_cpulist_parse(void **state)
{
	int cpus[16];
	char buf[128];

	(void)state;
	assert_int_equal(fl_cpulist_parse("0", cpus, 16), 1);
	assert_int_equal(cpus[0], 0);
	assert_int_equal(fl_cpulist_parse("0,2,4-7", cpus, 16), 6);
	fl_cpulist_format(cpus, 6, buf, sizeof(buf));
	assert_string_equal(buf, "0,2,4,5,6,7");
	/* order and repeats are kept: thread i runs on the i-th CPU */
	assert_int_equal(fl_cpulist_parse("3,1,1", cpus, 16), 3);
	fl_cpulist_format(cpus, 3, buf, sizeof(buf));
	assert_string_equal(buf, "3,1,1");
	assert_int_equal(fl_cpulist_parse("5-5", cpus, 16), 1);
	assert_int_equal(cpus[0], 5);
	fl_cpulist_format(cpus, 0, buf, sizeof(buf));
	assert_string_equal(buf, "");
}

static void test_cpulist_bad(void **state)
{
	static const char *const bad[] = {
		"", ",", "1,", ",1", "1,,2", "a", "1-", "-1", "3-1", "1-2-3",
		"1 2", " 1", "1.5", "99999", "4096", "0x1", "1;2",
	};
	int cpus[8];

	(void)state;
	assert_int_equal(fl_cpulist_parse(NULL, cpus, 8), -1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (fl_cpulist_parse(bad[i], cpus, 8) != -1)
			fail_msg("accepted the CPU list '%s'", bad[i]);
	/* more CPUs than room */
	assert_int_equal(fl_cpulist_parse("0-8", cpus, 8), -1);
	assert_int_equal(fl_cpulist_parse("0-7", cpus, 8), 8);
}

static void assert_allowed_once(const int *cpus, int n)
{
	cpu_set_t mask;

	assert_int_equal(sched_getaffinity(0, sizeof(mask), &mask), 0);
	assert_true(n >= 1);
	assert_int_equal(n, CPU_COUNT(&mask));
	for (int i = 0; i < n; i++) {
		assert_in_range(cpus[i], 0, CPU_SETSIZE - 1);
		assert_true(CPU_ISSET(cpus[i], &mask));
		for (int j = 0; j < i; j++)
			assert_int_not_equal(cpus[i], cpus[j]);
	}
}

static void test_policies(void **state)
{
	static int cpus[MAXC];
	char err[256];
	int n;

	(void)state;
	n = fl_placement_order("compact", cpus, MAXC, err, sizeof(err));
	assert_allowed_once(cpus, n);
	n = fl_placement_order("scatter", cpus, MAXC, err, sizeof(err));
	assert_allowed_once(cpus, n);
}

static void test_place_threads_wraps(void **state)
{
	static int order[MAXC];
	int cpus[64];
	char err[256];
	int n = fl_placement_order("compact", order, MAXC, err, sizeof(err));

	(void)state;
	assert_true(n >= 1);
	assert_int_equal(fl_place_threads("compact", 64, cpus, err,
					  sizeof(err)), 0);
	for (int i = 0; i < 64; i++)
		assert_int_equal(cpus[i], order[i % n]);
}

static void test_explicit_list(void **state)
{
	cpu_set_t mask;
	int cpus[4], first = -1;
	char list[32], err[256];

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(mask), &mask), 0);
	for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
		if (CPU_ISSET(c, &mask))
			first = c;
	snprintf(list, sizeof(list), "%d", first);
	assert_int_equal(fl_place_threads(list, 3, cpus, err, sizeof(err)),
			 0);
	assert_int_equal(cpus[0], first);
	assert_int_equal(cpus[2], first);
	assert_int_equal(fl_placement_check(list, err, sizeof(err)), 0);
}

static void test_bad_policies(void **state)
{
	char err[256] = "";

	(void)state;
	assert_int_equal(fl_placement_check("spread", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "spread"));
	/* a CPU that exists in no mask we could have */
	assert_int_equal(fl_placement_check("4095", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "4095"));
	assert_int_equal(fl_placement_check("99999", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "99999"));
}

/* A spec of workload name on futex-private at the given thread counts. */
static void spec_of(struct fl_spec *s, const char *name,
		    const unsigned int *threads, unsigned int n)
{
	fl_spec_init(s, fl_workload_find(name));
	assert_non_null(s->workload);
	s->backends[0] = fl_backend_find("futex-private");
	assert_non_null(s->backends[0]);
	s->nbackends = 1;
	for (s->nthreads = 0; s->nthreads < n; s->nthreads++)
		s->threads[s->nthreads] = threads[s->nthreads];
}

/* The cell's process, forked as a repetition's is, reads the table the
 * parent planned. */
static void assert_child_reads(const struct fl_cell *cell, const int *want)
{
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(memcmp(cell->cpus, want, cell->nplaced *
			     sizeof(*want)) ? 1 : 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_cell_cpus_by_threads(void **state)
{
	static const unsigned int counts[] = { FL_MAX_THREADS, 1 };
	static int want[FL_MAX_THREADS];
	struct fl_cell cell = { 0 };
	struct fl_spec s;
	char err[256];

	(void)state;
	assert_int_equal(fl_place_threads("compact", FL_MAX_THREADS, want, err,
					  sizeof(err)), 0);
	spec_of(&s, "mutex", counts, 2);
	/* cell 0: every thread a cell may have, each with its CPU */
	assert_int_equal(fl_spec_cell(&s, 0, &cell, err, sizeof(err)), 0);
	assert_int_equal(cell.threads, FL_MAX_THREADS);
	assert_int_equal(cell.nplaced, FL_MAX_THREADS);
	assert_memory_equal(cell.cpus, want, sizeof(want));
	assert_child_reads(&cell, want);
	/* cell 1, planned into the same description: one entry */
	assert_int_equal(fl_spec_cell(&s, 1, &cell, err, sizeof(err)), 0);
	assert_int_equal(cell.threads, 1);
	assert_int_equal(cell.nplaced, 1);
	assert_int_equal(cell.cpus[0], want[0]);
	assert_child_reads(&cell, want);
	fl_cell_free(&cell);
	assert_null(cell.cpus);
	assert_int_equal(cell.nplaced, 0);
}

/* A workload's own threads count (condvar's broadcaster), and numa puts
 * every thread on its node's CPUs in the same table. */
static void test_cell_cpus_workload_threads(void **state)
{
	static const unsigned int four = 4, all = FL_MAX_THREADS;
	struct fl_cell cell = { 0 };
	struct fl_spec s;
	char err[256];

	(void)state;
	spec_of(&s, "condvar", &four, 1);
	assert_int_equal(fl_spec_cell(&s, 0, &cell, err, sizeof(err)), 0);
	assert_int_equal(cell.nplaced, 5);
	/* one beyond FL_MAX_THREADS in all: refused, not placed */
	spec_of(&s, "condvar", &all, 1);
	assert_int_equal(fl_spec_cell(&s, 0, &cell, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "4097 in all"));
	spec_of(&s, "numa", &all, 1);
	assert_int_equal(fl_spec_cell(&s, 0, &cell, err, sizeof(err)), 0);
	assert_string_equal(cell.placement, "node0");
	assert_int_equal(cell.nplaced, FL_MAX_THREADS);
	for (unsigned int i = 0; i < cell.nplaced; i++)
		assert_true(cell.cpus[i] >= 0);
	fl_cell_free(&cell);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist_parse),
		cmocka_unit_test(test_cpulist_bad),
		cmocka_unit_test(test_policies),
		cmocka_unit_test(test_place_threads_wraps),
		cmocka_unit_test(test_explicit_list),
		cmocka_unit_test(test_bad_policies),
		cmocka_unit_test(test_cell_cpus_by_threads),
		cmocka_unit_test(test_cell_cpus_workload_threads),
	};

	return cmocka_run_group_tests_name("placement", tests, NULL, NULL);
}
