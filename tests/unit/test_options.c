// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of option parsing (spec/options.c): every option type,
 * the k/M and ns/us/ms/s suffixes, ranges, sweep lists, enum errors that
 * name the bad value, and seconds parsing (negative and non-numeric text
 * rejected), and an enum whose hooks code values a list cannot name;
 * the forms of value every workload's options describe (futexlab list)
 * say what the option takes: each example parses and prints back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "spec/options.h"
#include "spec/workload.h"

static const char *const colours[] = { "red", "green", "blue", NULL };

static const struct fl_option opt_int =
	FL_OPTION_INT("futexes", "1024", 1, 1000000, "futexes per thread");
static const struct fl_option opt_int_sweep =
	FL_SWEEP_INT("nwakes", "1", 0, 0, "waiters woken per call");
static const struct fl_option opt_ns =
	FL_SWEEP_NS("critical", "100", 0, 1000000000, "busy ns");
static const struct fl_option opt_bool =
	FL_OPTION_BOOL("shared", "shared futexes");
static const struct fl_option opt_enum =
	FL_SWEEP_ENUM("colour", "red", colours, "a colour");

static int no_x(const char *text, char *err, size_t errlen)
{
	if (!strchr(text, 'x'))
		return 0;
	snprintf(err, errlen, "--cmd: no x");
	return -1;
}

static const struct fl_option opt_text =
	FL_OPTION_TEXT("cmd", "true", no_x, "a command");

/* a coded enum: "even" or any multiple of 10, held as the number */
static int parse_tens(const struct fl_option *opt, const char *text,
		      int64_t *out, char *err, size_t errlen)
{
	char *end;
	long v;

	if (strcmp(text, "even") == 0) {
		*out = 2;
		return 0;
	}
	v = strtol(text, &end, 10);
	if (*text && !*end && v > 0 && v % 10 == 0) {
		*out = v;
		return 0;
	}
	snprintf(err, errlen, "--%s: '%s' is not even or tens", opt->name,
		 text);
	return -1;
}

static void format_tens(int64_t v, char *buf, size_t len)
{
	snprintf(buf, len, v == 2 ? "even" : "%lld", (long long)v);
}

static const char *const tens_named[] = { "even", NULL };
static const struct fl_option_form tens_forms[] = {
	{ "tens", "N0", "30", "a multiple of ten" },
	{ .name = NULL },
};
static const struct fl_option opt_coded =
	FL_SWEEP_CODED("tens", "even", tens_named, tens_forms, parse_tens,
		       format_tens, "even or tens");

static int64_t parse_one(const struct fl_option *o, const char *text)
{
	char err[256] = "";
	int64_t v = -12345;

	if (fl_opt_parse_one(o, text, &v, err, sizeof(err)))
		fail_msg("'%s' rejected: %s", text, err);
	return v;
}

/* Rejected, and the message names the option and the bad text. */
static void assert_bad(const struct fl_option *o, const char *text)
{
	char err[256] = "";
	int64_t v = -12345;

	if (fl_opt_parse_one(o, text, &v, err, sizeof(err)) != -1)
		fail_msg("--%s '%s' accepted as %lld", o->name, text,
			 (long long)v);
	assert_int_equal(v, -12345);
	assert_non_null(strstr(err, o->name));
	if (!strstr(err, text))
		fail_msg("message '%s' does not name '%s'", err, text);
}

static void test_int(void **state)
{
	(void)state;
	assert_int_equal(parse_one(&opt_int, "1"), 1);
	assert_int_equal(parse_one(&opt_int, "1024"), 1024);
	assert_int_equal(parse_one(&opt_int, "4k"), 4000);
	assert_int_equal(parse_one(&opt_int, "4K"), 4000);
	assert_int_equal(parse_one(&opt_int, "1M"), 1000000);
	assert_bad(&opt_int, "0");		/* below min */
	assert_bad(&opt_int, "1000001");	/* above max */
	assert_bad(&opt_int, "2M");
	assert_bad(&opt_int, "-5");
	assert_bad(&opt_int, "abc");
	assert_bad(&opt_int, "12x");
	assert_bad(&opt_int, "1.5");
	assert_bad(&opt_int, "+3");
	assert_bad(&opt_int, "4m");		/* M only, for mega */
	/* max 0 means no upper bound */
	assert_int_equal(parse_one(&opt_int_sweep, "123456789012"),
			 123456789012LL);
	assert_bad(&opt_int_sweep, "99999999999999999999999");
}

static void test_ns(void **state)
{
	(void)state;
	assert_int_equal(parse_one(&opt_ns, "100"), 100);
	assert_int_equal(parse_one(&opt_ns, "100ns"), 100);
	assert_int_equal(parse_one(&opt_ns, "5us"), 5000);
	assert_int_equal(parse_one(&opt_ns, "2ms"), 2000000);
	assert_int_equal(parse_one(&opt_ns, "1s"), 1000000000);
	assert_int_equal(parse_one(&opt_ns, "0"), 0);
	assert_bad(&opt_ns, "2s");		/* above max */
	assert_bad(&opt_ns, "5 us");
	assert_bad(&opt_ns, "5min");
	assert_bad(&opt_ns, "-1");
	assert_bad(&opt_ns, "us");
}

static void test_bool(void **state)
{
	(void)state;
	assert_int_equal(parse_one(&opt_bool, "yes"), 1);
	assert_int_equal(parse_one(&opt_bool, "1"), 1);
	assert_int_equal(parse_one(&opt_bool, "no"), 0);
	assert_int_equal(parse_one(&opt_bool, "0"), 0);
	assert_bad(&opt_bool, "maybe");
}

static void test_enum(void **state)
{
	char err[256] = "";
	int64_t v;

	(void)state;
	assert_int_equal(parse_one(&opt_enum, "red"), 0);
	assert_int_equal(parse_one(&opt_enum, "blue"), 2);
	assert_bad(&opt_enum, "purple");
	assert_bad(&opt_enum, "Red");
	assert_bad(&opt_enum, "");
	/* the message lists the choices */
	assert_int_equal(fl_opt_parse_one(&opt_enum, "purple", &v, err,
					  sizeof(err)), -1);
	assert_non_null(strstr(err, "green"));
}

static void test_list(void **state)
{
	struct fl_opt_values vals;
	char err[256];

	(void)state;
	memset(&vals, 0, sizeof(vals));
	assert_int_equal(fl_opt_parse(&opt_int_sweep, "1,2,4k", &vals, err,
				      sizeof(err)), 0);
	assert_int_equal(vals.n, 3);
	assert_int_equal(vals.v[0], 1);
	assert_int_equal(vals.v[1], 2);
	assert_int_equal(vals.v[2], 4000);
	assert_true(vals.given);

	assert_int_equal(fl_opt_parse(&opt_enum, "blue,red", &vals, err,
				      sizeof(err)), 0);
	assert_int_equal(vals.n, 2);
	assert_int_equal(vals.v[0], 2);
	assert_int_equal(vals.v[1], 0);

	/* a bad element is named */
	assert_int_equal(fl_opt_parse(&opt_enum, "blue,mauve", &vals, err,
				      sizeof(err)), -1);
	assert_non_null(strstr(err, "mauve"));
	/* empty elements */
	assert_int_equal(fl_opt_parse(&opt_int_sweep, "1,,2", &vals, err,
				      sizeof(err)), -1);
	assert_int_equal(fl_opt_parse(&opt_int_sweep, "1,", &vals, err,
				      sizeof(err)), -1);
	assert_int_equal(fl_opt_parse(&opt_int_sweep, ",1", &vals, err,
				      sizeof(err)), -1);
	assert_int_equal(fl_opt_parse(&opt_int_sweep, "", &vals, err,
				      sizeof(err)), -1);
	/* a list where one value is expected */
	assert_int_equal(fl_opt_parse(&opt_int, "1,2", &vals, err,
				      sizeof(err)), -1);
	assert_non_null(strstr(err, "1,2"));
	/* too many values */
	assert_int_equal(fl_opt_parse(&opt_int_sweep,
				      "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16",
				      &vals, err, sizeof(err)), 0);
	assert_int_equal(vals.n, FL_MAX_SWEEP);
	assert_int_equal(fl_opt_parse(&opt_int_sweep,
				      "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,"
				      "17", &vals, err, sizeof(err)), -1);
}

static void test_format(void **state)
{
	char buf[64];

	(void)state;
	fl_opt_format(&opt_enum, 1, buf, sizeof(buf));
	assert_string_equal(buf, "green");
	fl_opt_format(&opt_bool, 1, buf, sizeof(buf));
	assert_string_equal(buf, "yes");
	fl_opt_format(&opt_bool, 0, buf, sizeof(buf));
	assert_string_equal(buf, "no");
	fl_opt_format(&opt_ns, 5000, buf, sizeof(buf));
	assert_string_equal(buf, "5000");
	/* what is formatted parses back to the same value */
	assert_int_equal(parse_one(&opt_ns, buf), 5000);
}

static void test_u64(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_int_equal(fl_parse_u64("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(fl_parse_u64("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	v = 7;
	assert_int_equal(fl_parse_u64("18446744073709551616", &v), -1);
	assert_int_equal(fl_parse_u64("", &v), -1);
	assert_int_equal(fl_parse_u64(NULL, &v), -1);
	assert_int_equal(fl_parse_u64(" 1", &v), -1);
	assert_int_equal(fl_parse_u64("-1", &v), -1);
	assert_int_equal(fl_parse_u64("20000000000000000k", &v), -1);
	assert_int_equal(v, 7);
}

static void test_seconds(void **state)
{
	uint64_t ns = 7;

	(void)state;
	assert_int_equal(fl_parse_seconds_ns("1", &ns), 0);
	assert_int_equal(ns, 1000000000);
	assert_int_equal(fl_parse_seconds_ns("0.5", &ns), 0);
	assert_int_equal(ns, 500000000);
	assert_int_equal(fl_parse_seconds_ns(".25", &ns), 0);
	assert_int_equal(ns, 250000000);
	assert_int_equal(fl_parse_seconds_ns("2.000000001", &ns), 0);
	assert_int_equal(ns, 2000000001);
	assert_int_equal(fl_parse_seconds_ns("0", &ns), 0);
	assert_int_equal(ns, 0);
	ns = 7;
	assert_int_equal(fl_parse_seconds_ns("-1", &ns), -1);
	assert_int_equal(fl_parse_seconds_ns("-0.5", &ns), -1);
	assert_int_equal(fl_parse_seconds_ns("abc", &ns), -1);
	assert_int_equal(fl_parse_seconds_ns("1s", &ns), -1);
	assert_int_equal(fl_parse_seconds_ns("1.", &ns), -1);
	assert_int_equal(fl_parse_seconds_ns(".", &ns), -1);
	assert_int_equal(fl_parse_seconds_ns("", &ns), -1);
	assert_int_equal(fl_parse_seconds_ns("1e3", &ns), -1);
	assert_int_equal(fl_parse_seconds_ns(" 1", &ns), -1);
	assert_int_equal(fl_parse_seconds_ns("99999999999999999999", &ns),
			 -1);
	assert_int_equal(ns, 7);
}

static void test_duration(void **state)
{
	uint64_t ns = 7;

	(void)state;
	assert_int_equal(fl_parse_duration_ns("250", &ns), 0);
	assert_int_equal(ns, 250);
	assert_int_equal(fl_parse_duration_ns("3ms", &ns), 0);
	assert_int_equal(ns, 3000000);
	ns = 7;
	assert_int_equal(fl_parse_duration_ns("-3ms", &ns), -1);
	assert_int_equal(fl_parse_duration_ns("ms", &ns), -1);
	assert_int_equal(fl_parse_duration_ns("3h", &ns), -1);
	assert_int_equal(fl_parse_duration_ns("99999999999999999999s", &ns),
			 -1);
	assert_int_equal(ns, 7);
}

/* Text: one value whatever its commas, its checker's refusal passed on,
 * the same text the same value and name, a name of hex digits only. */
static void test_text(void **state)
{
	struct fl_opt_values v;
	char err[256] = "", a[32], b[32];
	int64_t one, two;

	(void)state;
	assert_int_equal(fl_opt_parse(&opt_text, "sh -c 'a, b'", &v, err,
				      sizeof(err)), 0);
	assert_int_equal(v.n, 1);
	assert_string_equal(fl_opt_text(v.v[0]), "sh -c 'a, b'");
	assert_int_equal(fl_opt_parse(&opt_text, "xyz", &v, err,
				      sizeof(err)), -1);
	assert_string_equal(err, "--cmd: no x");
	assert_int_equal(fl_opt_parse_one(&opt_text, "tab\there", &one, err,
					  sizeof(err)), -1);
	assert_int_equal(fl_opt_parse_one(&opt_text, "sleep 1", &one, err,
					  sizeof(err)), 0);
	assert_int_equal(fl_opt_parse_one(&opt_text, "sleep 1", &two, err,
					  sizeof(err)), 0);
	assert_int_equal(one, two);
	fl_opt_format(&opt_text, one, a, sizeof(a));
	assert_int_equal(fl_opt_parse_one(&opt_text, "sleep 2", &two, err,
					  sizeof(err)), 0);
	fl_opt_format(&opt_text, two, b, sizeof(b));
	assert_int_equal(strlen(a), 8);
	assert_int_equal(strspn(a, "0123456789abcdef"), 8);
	assert_string_not_equal(a, b);
}

/* A coded enum's hooks read and print every value, named or not; a
 * sweep of it is a list, and a value given twice is refused. */
static void test_coded(void **state)
{
	struct fl_opt_values vals;
	char err[256], buf[32];

	(void)state;
	assert_int_equal(parse_one(&opt_coded, "even"), 2);
	assert_int_equal(parse_one(&opt_coded, "30"), 30);
	assert_bad(&opt_coded, "31");
	assert_bad(&opt_coded, "red");
	assert_int_equal(fl_opt_parse(&opt_coded, "even,10,70", &vals, err,
				      sizeof(err)), 0);
	assert_int_equal(vals.n, 3);
	assert_int_equal(vals.v[2], 70);
	fl_opt_format(&opt_coded, vals.v[0], buf, sizeof(buf));
	assert_string_equal(buf, "even");
	fl_opt_format(&opt_coded, vals.v[1], buf, sizeof(buf));
	assert_string_equal(buf, "10");
	assert_int_equal(fl_opt_parse(&opt_coded, "10,even,10", &vals, err,
				      sizeof(err)), -1);
	assert_non_null(strstr(err, "repeats"));
}

/* Each of the option's forms is whole, and its example is a value the
 * option takes, printed back as it was typed; the count of forms. */
static unsigned int check_forms(const struct fl_option *o)
{
	unsigned int n = 0;

	for (const struct fl_option_form *f = o->forms; f && f->name; f++) {
		char buf[64];
		int64_t v = parse_one(o, f->example);

		assert_true(*f->name && f->syntax && *f->syntax && f->help &&
			    *f->help);
		fl_opt_format(o, v, buf, sizeof(buf));
		if (strcmp(buf, f->example))
			fail_msg("--%s: form %s's example '%s' prints back as "
				 "'%s'", o->name, f->name, f->example, buf);
		n++;
	}
	return n;
}

/* The form names of the option `name` of workload w, "a|b|". */
static void form_names(const struct fl_workload *w, const char *name,
		       char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < w->noptions; i++) {
		const struct fl_option_form *f = w->options[i].forms;

		if (strcmp(w->options[i].name, name))
			continue;
		for (; f && f->name && used < len; f++)
			used += (size_t)snprintf(buf + used, len - used, "%s|",
						 f->name);
	}
}

static void test_forms(void **state)
{
	const struct fl_workload *numa = fl_workload_find("numa");
	char names[256];

	(void)state;
	assert_int_equal(check_forms(&opt_coded), 1);
	assert_int_equal(check_forms(&opt_enum), 0);
	for (unsigned int i = 0; i < fl_nworkloads; i++)
		for (unsigned int o = 0; o < fl_workloads[i]->noptions; o++)
			check_forms(&fl_workloads[i]->options[o]);
	/* numa's grammar beyond its named values */
	assert_non_null(numa);
	form_names(numa, "cpu-nodes", names, sizeof(names));
	assert_string_equal(names, "node|node set|");
	form_names(numa, "mem-node", names, sizeof(names));
	assert_string_equal(names, "node|distance|");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_int),
		cmocka_unit_test(test_ns),
		cmocka_unit_test(test_bool),
		cmocka_unit_test(test_enum),
		cmocka_unit_test(test_coded),
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_duration),
	};

	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
