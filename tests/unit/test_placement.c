// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of placement (spec/placement.c): CPU lists parse and
 * format back, malformed lists are rejected, and the compact and scatter
 * policies return only CPUs this process may use, each once, wrapping
 * around when threads outnumber them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "spec/placement.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist_parse),
		cmocka_unit_test(test_cpulist_bad),
		cmocka_unit_test(test_policies),
		cmocka_unit_test(test_place_threads_wraps),
		cmocka_unit_test(test_explicit_list),
		cmocka_unit_test(test_bad_policies),
	};

	return cmocka_run_group_tests_name("placement", tests, NULL, NULL);
}
