// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the escape of text a terminal would act on (base/text.c):
 * the bytes below 0x20 but newline and tab as \xNN, DEL and the UTF-8
 * C1 controls as \u00NN, other UTF-8 as it is; a string cut only at a
 * whole escape; a sink stream that escapes what passes through it, even
 * a C1 control split between two writes, passes the program's own
 * sequence through fl_text_control() and shows a failed write; a file
 * written through one (fl_text_file) is closed with it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/text.h"

static void test_controls_as_hex(void **state)
{
	char out[128];

	(void)state;
	fl_text_escape("a\033]0;T\007\033[31m\r\b\001z", out, sizeof(out));
	assert_string_equal(out, "a\\x1b]0;T\\x07\\x1b[31m\\x0d\\x08\\x01z");
	fl_text_escape("two\tcolumns\nand lines", out, sizeof(out));
	assert_string_equal(out, "two\tcolumns\nand lines");
}

static void test_del_and_c1_as_json_does(void **state)
{
	char out[128];

	(void)state;
	/* DEL, CSI (U+009B) and OSC (U+009D) in UTF-8 */
	fl_text_escape("x\177y\302\233z\302\235", out, sizeof(out));
	assert_string_equal(out, "x\\u007fy\\u009bz\\u009d");
	/* é, ā (its tail byte 0x81 is no C1 control), a no-break space */
	fl_text_escape("\303\251 \304\201 \302\240", out, sizeof(out));
	assert_string_equal(out, "\303\251 \304\201 \302\240");
}

static void test_cut_at_a_whole_escape(void **state)
{
	char out[6];

	(void)state;
	fl_text_escape("ab\033c", out, sizeof(out));
	assert_string_equal(out, "ab");
	fl_text_escape("abcdefgh", out, sizeof(out));
	assert_string_equal(out, "abcde");
	fl_text_escape("x", out, 1);
	assert_string_equal(out, "");
}

/* A sink over a memory stream, its text after f is closed. */
struct mem {
	FILE *under, *sink;
	char *text;
	size_t len;
};

static void mem_open(struct mem *m, int mode)
{
	m->under = open_memstream(&m->text, &m->len);
	assert_non_null(m->under);
	m->sink = fl_text_sink(m->under, mode);
	assert_non_null(m->sink);
}

static const char *mem_close(struct mem *m)
{
	assert_int_equal(fclose(m->sink), 0);
	assert_int_equal(fclose(m->under), 0);
	return m->text;
}

static void test_sink_escapes(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m, _IOFBF);
	fprintf(m.sink, "unknown value '%s'\n", "\033[2J\302\233");
	assert_string_equal(mem_close(&m),
			    "unknown value '\\x1b[2J\\u009b'\n");
	free(m.text);
}

static void test_sink_c1_split_between_writes(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m, _IONBF);
	fputc(0xc2, m.sink);
	fputc(0x9b, m.sink);
	/* the lead went out alone: its tail follows escaped, no CSI */
	assert_string_equal(mem_close(&m), "\302\\u009b");
	free(m.text);
}

static void test_control_passes_as_it_is(void **state)
{
	struct mem m;

	(void)state;
	mem_open(&m, _IOLBF);
	fprintf(m.sink, "[1/2] a");
	fl_text_control(m.sink, "\r\033[K");
	fprintf(m.sink, "[2/2] \033");
	assert_ptr_equal(fl_text_under(m.sink), m.under);
	assert_string_equal(mem_close(&m), "[1/2] a\r\033[K[2/2] \\x1b");
	free(m.text);
	/* not a sink: the stream itself */
	assert_ptr_equal(fl_text_under(stdin), stdin);
}

static void test_sink_shows_a_failed_write(void **state)
{
	FILE *full = fopen("/dev/full", "w"), *sink;

	(void)state;
	if (!full)
		skip();
	sink = fl_text_sink(full, _IOFBF);
	assert_non_null(sink);
	fprintf(sink, "lost\n");
	assert_int_not_equal(fflush(sink), 0);
	assert_true(ferror(sink));
	assert_int_not_equal(fclose(sink), 0);
	fclose(full);
}

static void test_file_escapes_and_closes(void **state)
{
	char path[] = "/tmp/fl-test-text-XXXXXX", got[64] = "";
	int fd = mkstemp(path);
	FILE *f, *back;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	f = fl_text_file(path);
	assert_non_null(f);
	fprintf(f, "k\033[31m\r\n");
	assert_int_equal(fclose(f), 0);
	back = fopen(path, "r");
	assert_non_null(back);
	assert_non_null(fgets(got, sizeof(got), back));
	fclose(back);
	unlink(path);
	assert_string_equal(got, "k\\x1b[31m\\x0d\n");
	assert_null(fl_text_file("/nonexistent-dir/x"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_controls_as_hex),
		cmocka_unit_test(test_del_and_c1_as_json_does),
		cmocka_unit_test(test_cut_at_a_whole_escape),
		cmocka_unit_test(test_sink_escapes),
		cmocka_unit_test(test_sink_c1_split_between_writes),
		cmocka_unit_test(test_control_passes_as_it_is),
		cmocka_unit_test(test_sink_shows_a_failed_write),
		cmocka_unit_test(test_file_escapes_and_closes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
