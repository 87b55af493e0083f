// SPDX-License-Identifier: GPL-2.0
/*
 * How the busy loop of --critical and --think is sized (measure/busy_loop.c):
 * by the fastest speed the run has seen, here or in a cell's process
 * before, never by a slower reading of its own; the speed it returns is
 * the one it measured now, which cells.csv records. No timing is
 * asserted: only which of the readings sizes the loop.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "measure/busy_loop.h"
#include "measure/cell.h"

/* A drifted loop's note names the options of the workload's own that
 * the loop sizes, and no other. */
static void test_drift_note_names_own_options(void **state)
{
	char buf[256];

	(void)state;
	fl_busy_drift_note(fl_workload_find("mutex"), 1000, 1500, buf,
			   sizeof(buf));
	assert_non_null(strstr(buf, "drifted +50%"));
	assert_non_null(strstr(buf, "--critical/--think were not"));
	/* app runs a program: no critical section or think time */
	fl_busy_drift_note(fl_workload_find("app"), 1000, 1500, buf,
			   sizeof(buf));
	assert_non_null(strstr(buf, "drifted +50%"));
	assert_null(strstr(buf, "--critical"));
	assert_null(strstr(buf, "--think"));
	/* within the bound: nothing to say */
	fl_busy_drift_note(fl_workload_find("mutex"), 1000, 1050, buf,
			   sizeof(buf));
	assert_string_equal(buf, "");
}

static void test_first_reading_sizes(void **state)
{
	uint64_t now;

	(void)state;
	fl_busy_fastest = 0;
	now = fl_calibrate_busy();
	assert_true(now > 0);
	assert_int_equal(fl_busy_fastest, now);
	assert_int_equal(fl_busy_loops_per_us, now);
}

/* A cell's process slowed by another guest still runs the run's work. */
static void test_faster_reading_before_sizes(void **state)
{
	uint64_t before = fl_busy_speed() * 4, now;

	(void)state;
	fl_busy_fastest = 0;
	fl_busy_seen(before);
	now = fl_calibrate_busy();
	assert_true(now > 0);
	assert_int_equal(fl_busy_fastest, now > before ? now : before);
	assert_int_equal(fl_busy_loops_per_us, fl_busy_fastest);
}

/* A slower reading never lowers it: not here, not reported back. */
static void test_slower_reading_kept_out(void **state)
{
	(void)state;
	fl_busy_fastest = 0;
	fl_busy_seen(3000);
	fl_busy_seen(1900);
	fl_busy_seen(0);
	assert_int_equal(fl_busy_fastest, 3000);
	fl_busy_seen(3500);
	assert_int_equal(fl_busy_fastest, 3500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drift_note_names_own_options),
		cmocka_unit_test(test_first_reading_sizes),
		cmocka_unit_test(test_faster_reading_before_sizes),
		cmocka_unit_test(test_slower_reading_kept_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
