// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the run directory's writer (rundir/write.c), in a temporary
 * directory: cells.csv starts with FL_CELLS_COLUMNS and its rows read
 * back field for field, the histogram file parses, meta.json parses with
 * jansson, a run is written under .partial-* and renamed into place, two
 * runs finishing in the same second get distinct names (-2), a run never
 * replaces an existing directory, and an unwritable results directory is
 * an error that names it; the header is the readers' column table. A
 * cell's cpus column holds one CPU a thread, at 1 thread and at
 * FL_MAX_THREADS, and reads back; the readers refuse a row that lists
 * more CPUs than a cell may have threads, or fewer than its threads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rundir/columns.h"
#include "rundir/csv.h"
#include "rundir/hist_file.h"
#include "rundir/read.h"
#include "rundir/write.h"
#include "spec/spec.h"
#include "stats/stats.h"

static const struct fl_counter_desc counters[] = {
	FL_COUNTER_SUM("violations"),
	FL_COUNTER_SUM("wait_calls"),
};

static const struct fl_workload workload = {
	.name = "fake",
	.summary = "a workload for the results test",
	.counters = counters,
	.ncounters = 2,
};

static const struct fl_backend backend = { .name = "fake-backend" };

static char tmpdir[256];

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/fl-test-results-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Entries of dir other than . and ..; those starting with prefix. */
static int count_entries(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!strncmp(e->d_name, prefix, strlen(prefix)))
			n++;
	}
	closedir(d);
	return n;
}

static json_t *small_meta(void)
{
	return json_pack("{s:s, s:i}", "command", "futexlab run fake",
			 "seed", 7);
}

static void make_cell(struct fl_cell *cell)
{
	memset(cell, 0, sizeof(*cell));
	cell->workload = &workload;
	cell->backend = &backend;
	cell->threads = 2;
	snprintf(cell->placement, sizeof(cell->placement), "0,1");
	assert_int_equal(fl_cell_size_cpus(cell, 2), 0);
	cell->cpus[0] = 0;
	cell->cpus[1] = 1;
	snprintf(cell->options, sizeof(cell->options), "algo=mutex3;x=1");
	cell->duration_ns = 100000000;
	cell->reps = 2;
}

/* Two repetitions: one ok with latencies, one failed with a reason that
 * needs quoting. */
static void make_result(struct fl_cell_result *res)
{
	memset(res, 0, sizeof(*res));
	res->nreps = 2;
	res->reps = calloc(2, sizeof(*res->reps));
	assert_non_null(res->reps);
	res->status = FL_STATUS_FAILED;
	snprintf(res->reason, sizeof(res->reason), "one rep failed");
	fl_hist_init(&res->merged);
	for (unsigned int r = 0; r < 2; r++) {
		struct fl_rep_result *rr = &res->reps[r];

		rr->done = 1;
		rr->elapsed_ns = 100000000;
		rr->nthreads = 2;
		fl_thread_ops_add(&rr->thread_ops, 600 + r);
		fl_thread_ops_add(&rr->thread_ops, 400);
		rr->ops = 600 + r + 400;
		rr->counters[1] = 33;
		fl_hist_init(&rr->hist);
		for (uint64_t v = 100; v < 1100; v++)
			fl_hist_record(&rr->hist, v);
		fl_hist_merge(&res->merged, &rr->hist);
	}
	res->reps[1].status = FL_STATUS_FAILED;
	snprintf(res->reps[1].reason, sizeof(res->reps[1].reason),
		 "mutual exclusion violated: \"2\" owners, at once");
}

/*
 * Long on purpose: it writes one run directory and then checks every file
 * of the layout in turn; each check reads the state the writer left, so
 * the steps belong in one place.
 */
static void test_run_layout(void **state)
{
	static struct fl_cell cell;
	struct fl_cell_result res;
	struct fl_run run;
	char results[300], path[PATH_MAX + 64], line[4096], err[512];
	char *f[64], *h[64];
	json_error_t jerr;
	FILE *csv;

	(void)state;
	/* the results directory is created, parents included */
	snprintf(results, sizeof(results), "%s/a/b", tmpdir);
	assert_int_equal(fl_run_open(&run, results, "lab host!", err,
				     sizeof(err)), 0);
	/* the name is <UTC time>-<host>, the host made safe */
	assert_non_null(strstr(run.name, "-lab_host_"));
	assert_true(is_dir(run.tmp));
	assert_int_equal(count_entries(results, ".partial-"), 1);
	assert_int_equal(count_entries(results, ""), 1);

	make_cell(&cell);
	make_result(&res);
	assert_int_equal(fl_run_write_cell(&run, &cell, &res, err,
					   sizeof(err)), 0);
	/* nothing under a final name until the run finishes */
	assert_int_equal(count_entries(results, ""), 1);
	json_t *meta = small_meta();

	assert_int_equal(fl_run_finish(&run, meta, err, sizeof(err)), 0);
	json_decref(meta);
	assert_false(is_dir(run.tmp));
	assert_true(is_dir(run.final));
	snprintf(path, sizeof(path), "%s/%s", results, run.name);
	assert_string_equal(run.final, path);
	assert_int_equal(count_entries(results, ".partial-"), 0);

	/* cells.csv: the header, then one row per repetition */
	snprintf(path, sizeof(path), "%s/cells.csv", run.final);
	csv = fopen(path, "r");
	assert_non_null(csv);
	assert_non_null(fgets(line, sizeof(line), csv));
	assert_int_equal(line[strlen(line) - 1], '\n');
	line[strlen(line) - 1] = '\0';
	assert_string_equal(line, FL_CELLS_COLUMNS);
	static char header[4096];

	snprintf(header, sizeof(header), "%s", FL_CELLS_COLUMNS);
	int ncols = fl_csv_split(header, h, 64);

	assert_true(ncols > 10);
	for (unsigned int r = 0; r < 2; r++) {
		char want[64];

		assert_non_null(fgets(line, sizeof(line), csv));
		assert_int_equal(fl_csv_split(line, f, 64), ncols);
		for (int c = 0; c < ncols; c++) {
			const char *v = f[c];

			if (!strcmp(h[c], "workload"))
				assert_string_equal(v, "fake");
			else if (!strcmp(h[c], "backend"))
				assert_string_equal(v, "fake-backend");
			else if (!strcmp(h[c], "threads"))
				assert_string_equal(v, "2");
			else if (!strcmp(h[c], "placement"))
				assert_string_equal(v, "0,1");
			else if (!strcmp(h[c], "cpus"))
				assert_string_equal(v, "0,1");
			else if (!strcmp(h[c], "options"))
				assert_string_equal(v, "algo=mutex3;x=1");
			else if (!strcmp(h[c], "rep")) {
				snprintf(want, sizeof(want), "%u", r);
				assert_string_equal(v, want);
			} else if (!strcmp(h[c], "status"))
				assert_string_equal(v, r ? "failed" : "ok");
			else if (!strcmp(h[c], "reason") && r)
				assert_string_equal(v, "mutual exclusion "
					"violated: \"2\" owners, at once");
			else if (!strcmp(h[c], "ops")) {
				snprintf(want, sizeof(want), "%u", 1000 + r);
				assert_string_equal(v, want);
			} else if (!strcmp(h[c], "lat_count"))
				assert_string_equal(v, "1000");
			else if (!strcmp(h[c], "thread_ops_min"))
				assert_string_equal(v, "400");
			else if (!strcmp(h[c], "extra"))
				assert_string_equal(v, "violations=0;"
						    "wait_calls=33");
			else if (!strcmp(h[c], "hist"))
				snprintf(path, sizeof(path), "%s/%s",
					 run.final, v);
		}
	}
	assert_null(fgets(line, sizeof(line), csv));
	fclose(csv);

	/* the cell's histogram parses and holds both repetitions */
	static struct fl_hist back;
	FILE *hf = fopen(path, "r");

	assert_non_null(hf);
	assert_int_equal(fl_hist_read_csv(&back, hf), 0);
	fclose(hf);
	assert_int_equal(back.count, 2000);
	assert_int_equal(back.min, 100);
	assert_int_equal(back.max, 1099);

	/* meta.json parses */
	snprintf(path, sizeof(path), "%s/meta.json", run.final);
	json_t *m = json_load_file(path, 0, &jerr);

	if (!m)
		fail_msg("meta.json: %s", jerr.text);
	assert_int_equal(json_integer_value(json_object_get(m, "seed")), 7);
	json_decref(m);
	free(res.reps);
	fl_cell_free(&cell);
}

/* cells.csv of a run holding the one cell, as written (malloc'd). */
static char *written_cells(const struct fl_cell *cell, size_t *len)
{
	struct fl_cell_result res;
	struct fl_run run;
	char results[300], path[PATH_MAX + 64], err[512], *text;
	json_t *meta = small_meta();
	FILE *f;

	snprintf(results, sizeof(results), "%s/cpus", tmpdir);
	make_result(&res);
	/* as the harness gives a repetition that ran: the readers' rule */
	for (unsigned int r = 0; r < res.nreps; r++)
		res.reps[r].bins.bin_ns = 10000000;
	assert_int_equal(fl_run_open(&run, results, "h", err, sizeof(err)),
			 0);
	assert_int_equal(fl_run_write_cell(&run, cell, &res, err,
					   sizeof(err)), 0);
	assert_int_equal(fl_run_finish(&run, meta, err, sizeof(err)), 0);
	json_decref(meta);
	free(res.reps);
	snprintf(path, sizeof(path), "%s/cells.csv", run.final);
	f = fopen(path, "r");
	assert_non_null(f);
	text = calloc(1, 1 << 20);
	assert_non_null(text);
	*len = fread(text, 1, (1 << 20) - 1, f);
	fclose(f);
	return text;
}

/* The readers' verdict on cells.csv's text (left as it was): 0, or -1
 * with err. */
static int read_cells(const char *text, size_t len, char *err,
		      size_t errlen)
{
	struct fl_rd_run r;
	char *copy = malloc(len + 1);
	int rc;

	assert_non_null(copy);
	memcpy(copy, text, len + 1);
	memset(&r, 0, sizeof(r));
	r.dirfd = -1;
	rc = fl_rd_parse_cells(&r, "cells.csv", copy, len, err, errlen);
	fl_rd_close(&r);
	free(copy);
	return rc;
}

/* The first row's cpus field: its CPUs, checked against thread i's CPU
 * i % 3; their count. */
static unsigned int first_row_cpus(const char *text)
{
	static char line[1 << 16];
	char *f[64], *h[64], *p;
	int cpus = -1, nf, nh;
	unsigned int n = 0;

	snprintf(line, sizeof(line), "%s", text);
	p = strchr(line, '\n');
	assert_non_null(p);
	*p++ = '\0';
	nh = fl_csv_split(line, h, 64);
	for (int c = 0; c < nh; c++)
		if (!strcmp(h[c], "cpus"))
			cpus = c;
	assert_true(cpus >= 0);
	*strchr(p, '\n') = '\0';
	nf = fl_csv_split(p, f, 64);
	assert_int_equal(nf, nh);
	for (p = f[cpus]; *p; n++) {
		char *end;

		assert_int_equal(strtol(p, &end, 10), n % 3);
		p = *end == ',' ? end + 1 : end;
	}
	return n;
}

/* A cell of FL_MAX_THREADS threads, thread i on CPU i % 3. */
static void make_wide_cell(struct fl_cell *cell)
{
	make_cell(cell);
	snprintf(cell->placement, sizeof(cell->placement), "compact");
	cell->sample_every = 1;
	cell->threads = FL_MAX_THREADS;
	assert_int_equal(fl_cell_size_cpus(cell, FL_MAX_THREADS), 0);
	for (unsigned int i = 0; i < cell->nplaced; i++)
		cell->cpus[i] = (int)(i % 3);
}

/* Each data row's cpus field given one more CPU, in place. */
static size_t add_cpu(char *text, size_t len)
{
	for (char *nl = strchr(text, '\n'); nl && nl[1]; nl = strchr(nl + 1,
								    '\n')) {
		char *q = strchr(nl, '"') + 1;

		memmove(q + 2, q, len - (size_t)(q - text) + 1);
		memcpy(q, "0,", 2);
		len += 2;
	}
	return len;
}

/* The readers refuse the text, at the first row, with want. */
static void assert_refused(char *text, size_t len, const char *want)
{
	char err[512];

	assert_int_equal(read_cells(text, len, err, sizeof(err)), -1);
	if (!strstr(err, "cells.csv:2:") || !strstr(err, "cpus '") ||
	    !strstr(err, want))
		fail_msg("'%s', not '%s'", err, want);
	free(text);
}

static void test_cpus_column(void **state)
{
	struct fl_cell cell;
	char err[512], *text;
	size_t len;

	(void)state;
	make_wide_cell(&cell);
	assert_int_equal(fl_cell_size_cpus(&cell, FL_MAX_THREADS + 1), -1);
	assert_int_equal(cell.nplaced, FL_MAX_THREADS);
	text = written_cells(&cell, &len);
	assert_int_equal(first_row_cpus(text), FL_MAX_THREADS);
	if (read_cells(text, len, err, sizeof(err)))
		fail_msg("a cell of %d threads read back: %s", FL_MAX_THREADS,
			 err);
	len = add_cpu(text, len);
	assert_refused(text, len, "lists 4097 CPUs: a cell has at most "
		       "4096 threads");
	/* one thread: one CPU */
	cell.threads = 1;
	assert_int_equal(fl_cell_size_cpus(&cell, 1), 0);
	text = written_cells(&cell, &len);
	assert_int_equal(first_row_cpus(text), 1);
	assert_int_equal(read_cells(text, len, err, sizeof(err)), 0);
	free(text);
	/* two threads, one CPU written: a thread without its CPU */
	cell.threads = 2;
	text = written_cells(&cell, &len);
	assert_refused(text, len, "cpus '0' lists 1 CPU for 2 threads");
	fl_cell_free(&cell);
}

static void open_and_finish(const char *results, struct fl_run *run)
{
	char err[512];
	json_t *meta = small_meta();

	assert_int_equal(fl_run_finish(run, meta, err, sizeof(err)), 0);
	json_decref(meta);
	(void)results;
}

/*
 * Two runs (two processes, as two futexlab commands would be) that start
 * and finish in the same second: the second to finish is named -2.
 */
static int child_run(const char *results, int to_parent, int from_parent)
{
	struct fl_run run;
	char err[512], go;

	if (fl_run_open(&run, results, "h", err, sizeof(err)))
		return 1;
	if (write(to_parent, run.name, sizeof(run.name)) !=
	    (ssize_t)sizeof(run.name) || read(from_parent, &go, 1) != 1)
		return 2;
	json_t *meta = small_meta();

	return fl_run_finish(&run, meta, err, sizeof(err)) ? 3 : 0;
}

static void test_same_second(void **state)
{
	struct fl_run run;
	char results[300], want[PATH_MAX + 8], err[512];
	char child_name[sizeof(run.name)];
	int up[2], down[2], status;
	pid_t pid;

	(void)state;
	snprintf(results, sizeof(results), "%s/same", tmpdir);
	/* both opened within one second (again if a second ticked) */
	for (int tries = 0;; tries++) {
		assert_int_equal(pipe(up), 0);
		assert_int_equal(pipe(down), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0)
			_exit(child_run(results, up[1], down[0]));
		assert_int_equal(read(up[0], child_name, sizeof(child_name)),
				 sizeof(child_name));
		assert_int_equal(fl_run_open(&run, results, "h", err,
					     sizeof(err)), 0);
		/* the child finishes first, under the plain name */
		assert_int_equal(write(down[1], "g", 1), 1);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
		for (int i = 0; i < 2; i++) {
			close(up[i]);
			close(down[i]);
		}
		open_and_finish(results, &run);
		if (!strcmp(run.name, child_name))
			break;
		assert_true(tries < 3);
	}
	snprintf(want, sizeof(want), "%s/%s", results, run.name);
	assert_true(is_dir(want));
	snprintf(want, sizeof(want), "%s/%s-2", results, run.name);
	assert_string_equal(run.final, want);
	assert_true(is_dir(run.final));
	assert_int_equal(count_entries(results, ".partial-"), 0);
}

/* A directory already under the run's name (or -2) is left alone. */
static void test_never_replaces(void **state)
{
	struct fl_run run;
	char results[300], taken[PATH_MAX + 64], want[PATH_MAX + 8];
	char err[512];
	FILE *keep;

	(void)state;
	snprintf(results, sizeof(results), "%s/keep", tmpdir);
	assert_int_equal(fl_run_open(&run, results, "h", err, sizeof(err)),
			 0);
	/* an empty directory (rename could replace it) and a full one */
	snprintf(taken, sizeof(taken), "%s/%s", results, run.name);
	assert_int_equal(mkdir(taken, 0755), 0);
	snprintf(taken, sizeof(taken), "%s/%s-2", results, run.name);
	assert_int_equal(mkdir(taken, 0755), 0);
	snprintf(taken, sizeof(taken), "%s/%s-2/precious", results, run.name);
	keep = fopen(taken, "w");
	assert_non_null(keep);
	fclose(keep);

	open_and_finish(results, &run);
	snprintf(want, sizeof(want), "%s/%s-3", results, run.name);
	assert_string_equal(run.final, want);
	snprintf(taken, sizeof(taken), "%s/%s", results, run.name);
	assert_int_equal(count_entries(taken, ""), 0);
	snprintf(taken, sizeof(taken), "%s/%s-2/precious", results, run.name);
	assert_int_equal(access(taken, F_OK), 0);
}

static void assert_open_fails(const char *results)
{
	struct fl_run run;
	char err[512] = "";

	if (fl_run_open(&run, results, "h", err, sizeof(err)) != -1)
		fail_msg("a run opened in '%s'", results);
	if (!strstr(err, results))
		fail_msg("the error '%s' does not name '%s'", err, results);
}

static void test_unwritable(void **state)
{
	char file[300], below[320];
	FILE *f;

	(void)state;
	/* /proc takes no new directories, even from root */
	assert_open_fails("/proc/futexlab-results");
	/* a regular file where the directory should be, and below one
	 * (permission bits would not stop root) */
	snprintf(file, sizeof(file), "%s/plain-file", tmpdir);
	f = fopen(file, "w");
	assert_non_null(f);
	fclose(f);
	assert_open_fails(file);
	snprintf(below, sizeof(below), "%s/sub", file);
	assert_open_fails(below);
	/* and nothing was left behind */
	assert_int_equal(count_entries(tmpdir, ".partial-"), 0);
}

/* The header the writer prints is the readers' column table, column for
 * column: a column added to one and not the other fails here. */
static void test_columns_are_the_readers(void **state)
{
	char header[] = FL_CELLS_COLUMNS, *names[64];
	int n = fl_csv_split(header, names, 64);

	(void)state;
	assert_int_equal(n, FL_NCOLS);
	for (int c = 0; c < FL_NCOLS; c++) {
		assert_string_equal(names[c], fl_col_name((enum fl_col)c));
		assert_int_equal(fl_col_find(names[c]), c);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_run_layout, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_same_second, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_never_replaces, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_unwritable, setup,
						teardown),
		cmocka_unit_test(test_columns_are_the_readers),
		cmocka_unit_test_setup_teardown(test_cpus_column, setup,
						teardown),
	};

	return cmocka_run_group_tests_name("results", tests, NULL, NULL);
}
