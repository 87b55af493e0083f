// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's counts read back from cells.csv (rundir/read_cells.c):
 * each ok repetition's columns into fl_rd_cell.counts[] in ops[]'s
 * order, a have bit for each field that is there and none for an empty
 * one, the contaminated ones counted; a failed repetition's counts are
 * not among them. What costfig's figures are computed from.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rundir/read.h"
#include "rundir/write.h"

/* a row of cell 0 up to busy_loops_per_us_used, then its counts */
#define ROW(rep, status) \
	"0,mutex,futex-private,1,compact,0,algo=mutex3," rep "," status \
	",,,100000000,100000000,1000,10000.0,10000.0,10,30,30,30,30,100," \
	"40,1.0000,1000,1000,,hist/cell-0000.csv,-1,512,10000000,3000," \
	"3000,0,0,3000,"

static const char cells[] =
	FL_CELLS_COLUMNS "\n"
	ROW("0", "ok") "900,400,500,100,60,7,1,2,11,12,13,0,1\n"
	ROW("1", "failed") "5,5,5,5,5,5,5,5,5,5,5,5,1\n"
	ROW("2", "ok") "800,800,800,,,3,0,0,,,,,0\n"
	ROW("3", "ok") ",,,,,,,,,,,,\n";

/* cells.csv's text parsed into r; the copy parsed, for the caller to
 * free after fl_rd_close (the cells point into it) */
static char *parse(const char *cells_text, struct fl_rd_run *r)
{
	char *text = strdup(cells_text), err[512];

	assert_non_null(text);
	memset(r, 0, sizeof(*r));
	r->dirfd = -1;
	if (fl_rd_parse_cells(r, "cells.csv", text, strlen(text), err,
			      sizeof(err)))
		fail_msg("%s", err);
	return text;
}

static void test_counts_read_back(void **state)
{
	struct fl_rd_run r;
	char *text = parse(cells, &r);
	const struct fl_rd_cell *c;

	(void)state;
	assert_int_equal(r.ncells, 1);
	c = &r.cells[0];
	assert_int_equal(c->nok, 3);
	assert_int_equal(c->ok_rep[1], 2);
	assert_int_equal(c->ncontaminated, 1);

	/* everything counted */
	assert_int_equal(c->counts[0].have, FL_HAVE_CPU | FL_HAVE_RUN_DELAY |
			 FL_HAVE_CTX | FL_HAVE_MIGRATIONS | FL_HAVE_FAULTS |
			 FL_HAVE_CYCLES | FL_HAVE_INSTRUCTIONS |
			 FL_HAVE_REF_CYCLES | FL_HAVE_STEAL |
			 FL_HAVE_CONTAMINATION);
	assert_int_equal(c->counts[0].cpu_ns, 900);
	assert_int_equal(c->counts[0].cpu_ns_min, 400);
	assert_int_equal(c->counts[0].cpu_ns_max, 500);
	assert_int_equal(c->counts[0].run_delay_ns, 100);
	assert_int_equal(c->counts[0].run_delay_ns_max, 60);
	assert_int_equal(c->counts[0].ctx_switches, 7);
	assert_int_equal(c->counts[0].migrations, 1);
	assert_int_equal(c->counts[0].faults, 2);
	assert_int_equal(c->counts[0].cycles, 11);
	assert_int_equal(c->counts[0].instructions, 12);
	assert_int_equal(c->counts[0].ref_cycles, 13);
	assert_int_equal(c->counts[0].steal_ns, 0);
	assert_int_equal(c->counts[0].contaminated, 1);

	/* the failed row's are not the second ok one's */
	assert_int_equal(c->counts[1].cpu_ns, 800);
	assert_int_equal(c->counts[1].have, FL_HAVE_CPU | FL_HAVE_CTX |
			 FL_HAVE_MIGRATIONS | FL_HAVE_FAULTS |
			 FL_HAVE_CONTAMINATION);
	assert_int_equal(c->counts[1].contaminated, 0);

	/* nothing counted: nothing claimed */
	assert_int_equal(c->counts[2].have, 0);
	fl_rd_close(&r);
	free(text);
}

/* A run written before the columns: every repetition has have 0. */
static void test_old_run(void **state)
{
	static const char old[] =
		"cell,workload,backend,threads,placement,cpus,options,rep,"
		"status,reason,note,ops_per_sec,lat_p50_ns,lat_p90_ns,"
		"lat_p99_ns,lat_p999_ns,jain,extra,hist\n"
		"0,mutex,futex-private,1,compact,0,algo=mutex3,0,ok,,,10000.0,"
		"30,30,30,30,1.0000,,hist/cell-0000.csv\n";
	struct fl_rd_run r;
	char *text = parse(old, &r);

	(void)state;
	assert_int_equal(r.cells[0].nok, 1);
	assert_int_equal(r.cells[0].counts[0].have, 0);
	assert_int_equal(r.cells[0].ncontaminated, 0);
	fl_rd_close(&r);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_read_back),
		cmocka_unit_test(test_old_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
