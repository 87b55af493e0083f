// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of CSV quoting (rundir/csv.c): what fl_csv_field writes,
 * fl_csv_split reads back field for field, commas and quotes included;
 * newlines become spaces (a record is one line); an unterminated quote
 * or too many fields is an error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rundir/csv.h"

/* Write fields as one record, read the line back. */
static void write_record(const char *const *fields, int n, char *line,
			 size_t len)
{
	FILE *f = tmpfile();

	assert_non_null(f);
	for (int i = 0; i < n; i++)
		fl_csv_field(f, fields[i], i == n - 1);
	rewind(f);
	assert_non_null(fgets(line, (int)len, f));
	/* exactly one line */
	assert_int_equal(fgetc(f), EOF);
	fclose(f);
}

static void round_trip(const char *const *fields, int n)
{
	char line[1024];
	char *back[16];

	write_record(fields, n, line, sizeof(line));
	assert_int_equal(fl_csv_split(line, back, 16), n);
	for (int i = 0; i < n; i++)
		assert_string_equal(back[i], fields[i]);
}

static void test_plain(void **state)
{
	const char *const f[] = { "mutex", "futex-private", "2", "ok" };
	char line[256];

	(void)state;
	write_record(f, 4, line, sizeof(line));
	assert_string_equal(line, "mutex,futex-private,2,ok\n");
	round_trip(f, 4);
}

static void test_quoting(void **state)
{
	const char *const f[] = {
		"algo=mutex3;critical=100",
		"0,1,2",			/* a CPU list */
		"say \"hi\"",
		"\"",
		",",
		"",
		"a,\"b\",c",
		"trailing\"",
	};
	char line[256];

	(void)state;
	round_trip(f, 8);
	write_record(f, 3, line, sizeof(line));
	assert_string_equal(line,
			    "algo=mutex3;critical=100,\"0,1,2\","
			    "\"say \"\"hi\"\"\"\n");
}

static void test_empty_fields(void **state)
{
	const char *const f[] = { "", "", "" };
	char line[64] = ",,";
	char *back[4];

	(void)state;
	round_trip(f, 3);
	assert_int_equal(fl_csv_split(line, back, 4), 3);
	assert_string_equal(back[2], "");
}

/* A newline inside a field would split the record: it becomes a space. */
static void test_newline_flattened(void **state)
{
	const char *const f[] = { "two\nlines", "x" };
	char line[64];
	char *back[4];

	(void)state;
	write_record(f, 2, line, sizeof(line));
	assert_int_equal(fl_csv_split(line, back, 4), 2);
	assert_string_equal(back[0], "two lines");
	assert_string_equal(back[1], "x");
}

static void test_split_errors(void **state)
{
	char unterminated[] = "a,\"b,c\n";
	char junk_after_quote[] = "\"a\"b,c";
	char too_many[] = "1,2,3,4,5";
	char crlf[] = "a,b\r\n";
	char *back[4];

	(void)state;
	assert_int_equal(fl_csv_split(unterminated, back, 4), -1);
	assert_int_equal(fl_csv_split(junk_after_quote, back, 4), -1);
	assert_int_equal(fl_csv_split(too_many, back, 4), -1);
	assert_int_equal(fl_csv_split(crlf, back, 4), 2);
	assert_string_equal(back[1], "b");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_quoting),
		cmocka_unit_test(test_empty_fields),
		cmocka_unit_test(test_newline_flattened),
		cmocka_unit_test(test_split_errors),
	};

	return cmocka_run_group_tests_name("csv", tests, NULL, NULL);
}
