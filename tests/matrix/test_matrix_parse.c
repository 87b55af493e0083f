// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the matrix file parser (sweep/parse.c), linked with the
 * real registry of workloads and backends: cell expansion and order, the
 * thread-list syntax, FILE:LINE errors, and what a resume reports as
 * changed. The end-to-end tests (a killed run resumed, compare, plots)
 * are in tests/matrix/test_matrix.py.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "measure/cell.h"
#include "spec/common_keys.h"
#include "sweep/matrix.h"
#include "sweep/passes.h"

static int parse(const char *text, struct fl_matrix *m, char *err,
		 size_t len)
{
	return fl_matrix_parse("t.ini", text, strlen(text), m, err, len);
}

static void expands_in_spec_order(void **state)
{
	static struct fl_matrix m;
	static struct fl_cell c;
	const struct fl_matrix_exp *e;
	char err[512];

	(void)state;
	assert_int_equal(parse("[defaults]\nreps = 2\nthreads = 1,2\n"
			       "[experiment a]\nworkload = mutex\n"
			       "backend = futex-private,spin\n"
			       "algo = mutex3,pi\n"
			       "[experiment b]\nworkload = hash\n"
			       "backend = futex2\nthreads = 3\nreps = 4\n",
			       &m, err, sizeof(err)), 0);
	assert_int_equal(m.nexps, 2);
	assert_int_equal(m.ncells, 2 * 2 * 2 + 1);
	assert_int_equal(m.exps[1].first_cell, 8);
	/* backends outermost, then options, then threads */
	assert_int_equal(fl_matrix_cell(&m, 0, &c, &e, err, sizeof(err)), 0);
	assert_string_equal(c.backend->name, "futex-private");
	assert_int_equal(c.threads, 1);
	assert_int_equal(c.reps, 2);
	fl_matrix_cell(&m, 1, &c, &e, err, sizeof(err));
	assert_int_equal(c.threads, 2);
	fl_matrix_cell(&m, 2, &c, &e, err, sizeof(err));
	assert_non_null(strstr(c.options, "algo=pi"));
	fl_matrix_cell(&m, 4, &c, &e, err, sizeof(err));
	assert_string_equal(c.backend->name, "spin");
	fl_matrix_cell(&m, 8, &c, &e, err, sizeof(err));
	assert_string_equal(e->name, "b");
	assert_string_equal(c.workload->name, "hash");
	assert_int_equal(c.threads, 3);
	assert_int_equal(c.reps, 4);	/* the experiment's value wins */
	assert_int_equal(fl_matrix_cell(&m, 9, &c, &e, err, sizeof(err)), -1);
	/* visits are planned pass by pass while the matrix runs: none
	 * yet; each added visit is its cell's next repetition */
	assert_int_equal(m.nvisits, 0);
	const unsigned long plan[] = { 0, 8, 0 };

	assert_int_equal(fl_matrix_add_visits(&m, plan, 3), 0);
	assert_int_equal(m.nvisits, 3);
	assert_int_equal(m.visits[1].cell, 8);
	assert_int_equal(m.visits[1].rep, 0);
	assert_int_equal(m.visits[2].rep, 1);
	assert_int_equal(fl_matrix_visit_cell(&m, 2, &c, &e, err,
					      sizeof(err)), 0);
	assert_int_equal(c.reps, 1);
	assert_int_equal(c.seed, 2);	/* seed 1, moved on by rep 1 */
	assert_int_equal(fl_matrix_visit_cell(&m, 3, &c, &e, err,
					      sizeof(err)), -1);
	fl_matrix_free(&m);
}

static char thread_err[256];

/* A thread list as a matrix file's key on a machine of ncpus CPUs. */

static int file_threads(const char *text, unsigned int ncpus,
			unsigned int *v)
{
	const struct fl_key_ctx ctx = { .ncpus = ncpus, .in_file = 1 };

	return fl_parse_thread_list(text, &ctx, v, 16, thread_err,
				    sizeof(thread_err));
}

static void thread_lists(void **state)
{
	unsigned int v[16];

	(void)state;
	assert_int_equal(file_threads("1..8", 2, v), 4);
	assert_int_equal(v[3], 8);
	assert_int_equal(file_threads("1..2*cpus", 2, v), 3);
	assert_int_equal(v[2], 4);
	assert_int_equal(file_threads("1..2*cpus", 6, v), 5);
	assert_int_equal(v[3], 8);
	assert_int_equal(v[4], 12);	/* B itself closes the range */
	assert_int_equal(file_threads("cpus, 1, cpus/2, 2", 4, v), 3);
	assert_int_equal(v[0], 4);
	assert_int_equal(v[2], 2);
	assert_int_equal(file_threads("0", 2, v), -1);
	assert_non_null(strstr(thread_err, "'0' is not a thread count"));
	assert_int_equal(file_threads("4..2", 2, v), -1);
	assert_int_equal(file_threads("1..65536", 2, v), -1);
	assert_int_equal(file_threads("", 2, v), -1);
	assert_non_null(strstr(thread_err, "empty list"));
}

/* Every common key [defaults] sets reaches the experiments, as the same
 * flag reaches every cell of a run. */
static void defaults_reach_experiments(void **state)
{
	static struct fl_matrix m;
	const struct fl_spec *s;
	char err[512];

	(void)state;
	assert_int_equal(parse("[defaults]\nsample = 4\nbin = 20ms\n"
			       "hash-slots = 16\nseed = 7\n"
			       "[experiment a]\nworkload = mutex\n",
			       &m, err, sizeof(err)), 0);
	s = &m.exps[0].spec;
	assert_int_equal(s->sample_every, 4);
	assert_int_equal(s->bin_ns, 20000000);
	assert_int_equal(s->hash_slots, 16);
	assert_int_equal(s->seed, 7);
	fl_matrix_free(&m);
}

static void errors_name_file_and_line(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "[experiment x]\nworkload = mutex\nreps = -1\n",
		  "t.ini:3: reps: '-1' is not auto or a whole number from 1 to "
		  "100" },
		{ "[nonsense]\n",
		  "t.ini:1: unknown section [nonsense]: expected [defaults] "
		  "or [experiment NAME]" },
		{ "[experiment x]\nworkload = mutex\nbackend = nope\n",
		  "t.ini:3: backend: unknown backend 'nope' (known:" },
		{ "[experiment x]\nworkload = mutex\n\nthreads =\n",
		  "t.ini:4: threads: empty list" },
		{ "[experiment x]\nworkload = hash\nfutexes = many\n",
		  "t.ini:3: futexes: 'many'" },
		{ "[experiment x]\nworkload = hash\nbogus = 1\n",
		  "t.ini:3: unknown key 'bogus' in [experiment x]" },
	};
	static struct fl_matrix m;
	char err[512];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse(cases[i].text, &m, err, sizeof(err)),
				 -1);
		if (strncmp(err, cases[i].want, strlen(cases[i].want)) != 0)
			fail_msg("case %zu:\n got  %s\n want %s", i, err,
				 cases[i].want);
		fl_matrix_free(&m);
	}
}

static void diff_names_the_change(void **state)
{
	static struct fl_matrix a, b;
	char err[512], what[1024];

	(void)state;
	assert_int_equal(parse("[experiment x]\nworkload = mutex\n"
			       "threads = 1,2\n", &a, err, sizeof(err)), 0);
	/* comments and layout are not changes */
	assert_int_equal(parse("; hello\n[experiment x]\n\nworkload=mutex\n"
			       "threads   =   1,2 ; same\n", &b, err,
			       sizeof(err)), 0);
	assert_int_equal(fl_matrix_diff(&a, &b, what, sizeof(what)), 0);
	fl_matrix_free(&b);
	assert_int_equal(parse("[experiment x]\nworkload = mutex\n"
			       "threads = 1,4\nreps = 2\n[experiment y]\n"
			       "workload = hash\n", &b, err, sizeof(err)), 0);
	assert_int_equal(fl_matrix_diff(&a, &b, what, sizeof(what)), 1);
	assert_non_null(strstr(what, "[experiment x] threads: '1,2' is now "
			       "'1,4' (line 3)"));
	assert_non_null(strstr(what, "[experiment x] reps = 2 was added"));
	assert_non_null(strstr(what, "section [experiment y] was added"));
	fl_matrix_free(&a);
	/* the other way round: a section and a key gone */
	assert_int_equal(parse("[experiment x]\nworkload = mutex\n"
			       "threads = 1,4\n", &a, err, sizeof(err)), 0);
	assert_int_equal(fl_matrix_diff(&b, &a, what, sizeof(what)), 1);
	assert_non_null(strstr(what, "section [experiment y] was removed"));
	assert_non_null(strstr(what, "[experiment x] reps was removed (it "
			       "was '2')"));
	fl_matrix_free(&a);
	fl_matrix_free(&b);
}

/*
 * The pass planner: every cell owes its minimum whatever the budget;
 * after it, the unconverged cells get a visit, the widest first, while
 * the budget lasts; stopped and converged cells get none; the order is
 * shuffled, the same for the same seed and pass.
 */
static void test_plan_pass(void **state)
{
	static struct fl_spec spec;
	struct fl_cell_track t[4];
	unsigned long out[4], again[4];
	static const double narrow[] = { 100, 101, 99, 100, 100.5, 99.5 };
	static const double wide[] = { 100, 130, 70, 100, 110, 90 };
	static const double wider[] = { 100, 160, 40, 100, 120, 80 };

	(void)state;
	fl_spec_init(&spec, fl_workload_find("mutex"));
	for (int i = 0; i < 4; i++)
		fl_track_init(&t[i], &spec);
	/* the minimum: all four, even with no budget at all */
	assert_int_equal(fl_plan_pass(t, 4, 0, -1.0, 1, out), 4);
	for (int k = 0; k < 6; k++) {
		fl_track_add(&t[0], FL_STATUS_OK, narrow[k], NAN, 0);
		fl_track_add(&t[1], FL_STATUS_OK, wide[k], NAN, 0);
		fl_track_add(&t[2], FL_STATUS_OK, wider[k], NAN, 0);
	}
	fl_track_add(&t[3], FL_STATUS_SKIPPED, 0, NAN, 0);
	assert_true(fl_track_converged(&t[0]));
	/* budget for one extra visit: the widest cell gets it */
	assert_int_equal(fl_plan_pass(t, 4, 6, t[2].cost_s * 1.5, 1, out), 1);
	assert_int_equal(out[0], 2);
	/* budget for both: cells 1 and 2, shuffled the same way twice */
	assert_int_equal(fl_plan_pass(t, 4, 6, 100, 1, out), 2);
	assert_int_equal(fl_plan_pass(t, 4, 6, 100, 1, again), 2);
	assert_int_equal(out[0], again[0]);
	assert_int_equal(out[0] + out[1], 3);
	/* fixed repetitions: no extra visit however wide */
	spec.reps_auto = 0;
	fl_track_init(&t[1], &spec);
	for (int k = 0; k < 6; k++)
		fl_track_add(&t[1], FL_STATUS_OK, wide[k], NAN, 0);
	assert_int_equal(fl_plan_pass(t, 2, 6, 100, 1, out), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_pass),
		cmocka_unit_test(expands_in_spec_order),
		cmocka_unit_test(thread_lists),
		cmocka_unit_test(defaults_reach_experiments),
		cmocka_unit_test(errors_name_file_and_line),
		cmocka_unit_test(diff_names_the_change),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
