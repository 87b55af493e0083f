// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of plot/time_axis.c: a time axis reads in the largest of ns,
 * us, ms and s that its top value is at least one of, its values divided
 * by that unit; a logarithmic one labels each tic in its own unit; only
 * latency percentiles and counters named *_ns are times.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot/internal.h"

static void test_unit_by_range(void **state)
{
	static const struct {
		double ns;
		const char *unit;
	} cases[] = {
		{ 0, "ns" }, { 999, "ns" }, { 1000, "us" }, { 9e6, "ms" },
		{ 999999999, "ms" }, { 1e9, "s" }, { 3.6e12, "s" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		assert_string_equal(plot_time_unit(cases[i].ns)->name,
				    cases[i].unit);
}

/* What plot_time_axis writes for lo..hi, and the divisor it returns. */
static double axis(double lo, double hi, int logscale, char *buf,
		   size_t len)
{
	FILE *f = fmemopen(buf, len, "w");
	double div;

	assert_non_null(f);
	div = plot_time_axis(f, 'y', "blocked time", lo, hi, logscale);
	fclose(f);
	return div;
}

static void test_linear(void **state)
{
	char buf[1024], col[32];

	(void)state;
	assert_true(axis(0, 9e6, 0, buf, sizeof(buf)) == 1e6);
	assert_non_null(strstr(buf, "set ylabel 'blocked time (ms)'\n"));
	assert_null(strstr(buf, "%c"));	/* no SI prefix: 9 ms, not 9M */
	plot_scaled(col, sizeof(col), 2, 1e6);
	assert_string_equal(col, "($2/1e+06)");
	assert_true(axis(0, 500, 0, buf, sizeof(buf)) == 1);
	assert_non_null(strstr(buf, "'blocked time (ns)'"));
	plot_scaled(col, sizeof(col), 3, 1);
	assert_string_equal(col, "3");
}

static void test_log(void **state)
{
	char buf[1024];

	(void)state;
	/* four decades: a tic a decade, each in its unit */
	assert_true(axis(80, 720000, 1, buf, sizeof(buf)) == 1);
	assert_non_null(strstr(buf, "set ytics ('10 ns' 10, '100 ns' 100, "
				    "'1 us' 1000, '10 us' 10000, '100 us' "
				    "100000, '1 ms' 1e+06)\n"));
	assert_non_null(strstr(buf, "set ylabel 'blocked time'\n"));
	/* one decade: 1, 2 and 5 of each */
	axis(130, 330, 1, buf, sizeof(buf));
	assert_non_null(strstr(buf, "'100 ns' 100, '200 ns' 200, "
				    "'500 ns' 500, '1 us' 1000, '2 us' 2000"));
}

static void test_which_are_times(void **state)
{
	struct panel p = { .fig = F_P99 };

	(void)state;
	assert_true(plot_is_time(&p));
	p.fig = F_OPS;
	assert_false(plot_is_time(&p));
	p.fig = F_JAIN;
	assert_false(plot_is_time(&p));
	p.fig = F_EXTRA;
	p.extra = "max_blocked_ns";
	assert_true(plot_is_time(&p));
	p.extra = "wake_calls";
	assert_false(plot_is_time(&p));
	p.extra = "_ns";
	assert_false(plot_is_time(&p));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unit_by_range),
		cmocka_unit_test(test_linear),
		cmocka_unit_test(test_log),
		cmocka_unit_test(test_which_are_times),
	};

	return cmocka_run_group_tests_name("time_axis", tests, NULL, NULL);
}
