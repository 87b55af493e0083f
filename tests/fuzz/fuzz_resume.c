// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: resuming a partial matrix run that an adversary made
 * (sweep/job.h, rundir/partial.c, rundir/rewrite.h). Each input starts
 * from a whole partial directory, as a matrix killed after its last
 * visit leaves it, in a scratch folder:
 *
 *   SCRATCH/m.ini                    the matrix file matrix.json names
 *   SCRATCH/outside/                 what must never change: a file, a
 *                                    folder with a file, a FIFO
 *   SCRATCH/results/.partial-NAME-1-0/  matrix.ini, matrix.json,
 *                                    cells.csv (4 visits), hist/, bins/
 *
 * and the input's bytes are a list of spoils: a name of the directory
 * replaced by a link out, a FIFO, a folder or nothing, or moved out and
 * linked to where it went; bytes appended,
 * cut or overwritten; a field of a row set to a hostile value; a row
 * doubled or dropped; a key of matrix.json set to a hostile value;
 * leftovers of a finalizing. Then the resume runs, and when every visit
 * is there (no visit can run here: the fuzz build has no workloads) the
 * finalizing and the rename into place too. It must not crash, wait on
 * anything (seconds for what takes milliseconds), change anything under
 * outside/ (compared after the spoils, so links the spoils followed do
 * not count), leave anything in SCRATCH but those three, or leave
 * results/ holding other than the partial directory or the run under
 * NAME, one of them; and a run renamed into place must be whole: the
 * readers accept it and it has a row for every visit it planned.
 */
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rundir/read.h"
#include "rundir/write.h"
#include "sweep/job.h"

#define NAME "20261206T000000Z-fuzz"
#define PARTIAL ".partial-" NAME "-1-0"

static const char matrix_text[] =
	"[defaults]\nduration = 0.02\nwarmup = 0\nreps = 2\nseed = 1\n"
	"backend = futex-private\n\n[experiment m]\nworkload = mutex\n"
	"threads = 1,2\n";
/* the visits of the two passes: cell 1, cell 0, then cell 0, cell 1 */
static const unsigned long pass_cells[4] = { 1, 0, 0, 1 };

static char scratch[64];
static char partial[200];

/* ------------------------------------------------------ building it */

static void put(const char *dir, const char *name, const char *text,
		size_t len)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return;
	if (write(fd, text, len) < 0)
		abort();
	close(fd);
}

static void put_str(const char *dir, const char *name, const char *text)
{
	put(dir, name, text, strlen(text));
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

static void remove_tree(const char *path)
{
	nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The rows of the four visits, each the matrix's cell at that visit. */
static void write_rows(const struct fl_matrix *m)
{
	static struct fl_cell cell;
	char *text = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	fprintf(f, "%s\n", FL_CELLS_COLUMNS);
	for (unsigned long k = 0; k < 4; k++) {
		if (fl_matrix_cell(m, pass_cells[k], &cell, NULL, err,
				   sizeof(err)))
			abort();	/* a good matrix places its cells */
		fprintf(f, "%lu,%s,%s,%u,%s,0,%s,0,ok,,,%llu,20000000,100,"
			"5000.0,5000.0,2,100,100,100,100,100,100,1.0000,100,"
			"100,violations=0,hist/cell-%04lu.csv,16,512,10000000,"
			"3000,3000,30000,30000,3000\n", k, cell.workload->name,
			cell.backend->name, cell.threads, cell.placement,
			cell.options, (unsigned long long)cell.duration_ns, k);
	}
	fclose(f);
	put(partial, "cells.csv", text, len);
	free(text);
}

static void build(void)
{
	static struct fl_matrix m;
	char path[512], err[512], *state;

	remove_tree(scratch);
	mkdir(scratch, 0755);
	snprintf(path, sizeof(path), "%s/outside", scratch);
	mkdir(path, 0755);
	put_str(path, "victim.txt", "precious\n");
	snprintf(path, sizeof(path), "%s/outside/dir", scratch);
	mkdir(path, 0755);
	put_str(path, "cell-0000.csv", "precious too\n");
	snprintf(path, sizeof(path), "%s/outside/fifo", scratch);
	mkfifo(path, 0644);
	put_str(scratch, "m.ini", matrix_text);
	snprintf(path, sizeof(path), "%s/results", scratch);
	mkdir(path, 0755);
	mkdir(partial, 0755);
	put_str(partial, "matrix.ini", matrix_text);
	if (fl_matrix_parse("m.ini", matrix_text, strlen(matrix_text), &m, err,
			    sizeof(err)))
		abort();
	write_rows(&m);
	if (asprintf(&state, "{\"source\": \"%s/m.ini\", \"fnv1a64\": "
		     "\"%016llx\", \"name\": \"" NAME "\", \"results\": "
		     "\"%s/results\", \"start_time\": \"2026-12-06T00:00:00Z\", "
		     "\"cells\": 2, \"argv\": [], \"resumed\": [], \"passes\": "
		     "[[1, 0], [0, 1]], \"visit_start\": {}, \"seconds_spent\": "
		     "0.5, \"budget_s\": 1}", scratch,
		     (unsigned long long)m.hash, scratch) < 0)
		abort();
	put_str(partial, "matrix.json", state);
	free(state);
	fl_matrix_free(&m);
	snprintf(path, sizeof(path), "%s/hist", partial);
	mkdir(path, 0755);
	for (int k = 0; k < 4; k++) {
		char name[32];

		snprintf(name, sizeof(name), "cell-%04d.csv", k);
		put_str(path, name, "# count=2 sum=200 min=100 max=100\n"
			"low_ns,high_ns,count\n100,100,2\n");
	}
	snprintf(path, sizeof(path), "%s/bins", partial);
	mkdir(path, 0755);
	put_str(path, "cell-0000-rep-000.csv", "# bin_ns=10000000\n"
		"end_ns,ops\n20000000,100\n");
}

/* --------------------------------------------------------- the spoils */

struct input {
	const uint8_t *p;
	size_t n;
};

static unsigned int take(struct input *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

/* the names of the partial directory a spoil may pick */
static const char *const names[] = {
	"cells.csv", "matrix.json", "matrix.ini", "hist", "bins",
	"hist/cell-0000.csv", "hist/cell-0003.csv", "hist.final",
	"hist.visits", ".cells.csv.tmp", ".matrix.json.tmp", "meta.json",
	"hist/.cell-0000.csv.tmp", "bins/cell-0000-rep-000.csv",
	"hist.final/cell-0000.csv", "cells.csv.final",
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

/* values a field of a row or a key of matrix.json may be set to */
static const char *const hostile[] = {
	"", "nan", "inf", "-1", "1e300", "0x10", "18446744073709551616",
	"../../ESCAPED", "/etc/passwd", "a;b", "x`touch CANARY`",
	"hist/cell-0007.csv", "hist/../../x.csv", "99999999999", "0",
	"4", "1", "mutex", "ok", "skipped", "\"quoted, comma\"",
};
#define NHOSTILE (sizeof(hostile) / sizeof(hostile[0]))

static const char *const json_values[] = {
	"\"../../ESCAPED_RUN\"", "\"/\"", "\"relative.ini\"", "true", "null",
	"[]", "{}", "[[0, 1, 2, 3, 99]]", "[[1, 0], [0, 1], [1]]",
	"[[-1]]", "[[\"0\"]]", "[[1.5]]", "1e400", "-5", "\"\"",
	"\"0000000000000000\"", "[[1, 0]]", "\"OUT/fifo\"",
	"\"OUT/victim.txt\"", "[[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]",
};
#define NJSON (sizeof(json_values) / sizeof(json_values[0]))

static const char *const state_keys[] = {
	"source", "fnv1a64", "name", "results", "passes", "seconds_spent",
	"finalizing", "visit_start", "resumed", "start_time",
};
#define NKEYS (sizeof(state_keys) / sizeof(state_keys[0]))

static void name_path(const char *name, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", partial, name);
}

static void replace_with(const char *name, int how)
{
	char path[512], target[512];

	name_path(name, path, sizeof(path));
	remove_tree(path);
	unlink(path);
	switch (how) {
	case 0:
		snprintf(target, sizeof(target), "%s/outside/victim.txt",
			 scratch);
		symlink(target, path);
		break;
	case 1:
		snprintf(target, sizeof(target), "%s/outside/dir", scratch);
		symlink(target, path);
		break;
	case 2:
		mkfifo(path, 0644);
		break;
	case 3:
		mkdir(path, 0755);
		break;
	default:
		break;		/* removed */
	}
}

/* The file's bytes, edited by fn, written back (never through a link:
 * the spoils work on the directory as they find it). */
static char *slurp(const char *name, size_t *len)
{
	char path[512];
	int fd;
	struct stat st;
	char *buf;

	name_path(name, path, sizeof(path));
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > 1 << 20) {
		close(fd);
		return NULL;
	}
	buf = calloc(1, (size_t)st.st_size + 1);
	*len = buf ? (size_t)read(fd, buf, (size_t)st.st_size) : 0;
	close(fd);
	return buf;
}

static void spit(const char *name, const char *text, size_t len)
{
	char path[512];
	int fd;

	name_path(name, path, sizeof(path));
	fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return;
	if (write(fd, text, len) < 0) {
		/* a spoil that cannot be made is no spoil */
	}
	close(fd);
}

/* cells.csv rewritten line by line: edit() writes what becomes of line
 * n (0: the header) to out. */
static void edit_lines(void (*edit)(FILE *out, const char *l, size_t len,
				    unsigned int n, const void *ctx),
		       const void *ctx)
{
	size_t len, olen = 0;
	char *text = slurp("cells.csv", &len), *out = NULL;
	unsigned int n = 0;
	FILE *f;

	if (!text)
		return;
	f = open_memstream(&out, &olen);
	for (char *l = text, *nl; *l; l = nl) {
		nl = strchr(l, '\n');
		nl = nl ? nl + 1 : l + strlen(l);
		edit(f, l, (size_t)(nl - l), n++, ctx);
	}
	fclose(f);
	spit("cells.csv", out, olen);
	free(out);
	free(text);
}

struct field_edit {
	unsigned int row, col;
	const char *value;
};

/* field col of data row `row` set to value */
static void set_field_line(FILE *f, const char *l, size_t len,
			   unsigned int n, const void *ctx)
{
	const struct field_edit *fe = ctx;
	unsigned int c = 0;

	if (n != fe->row + 1) {
		fwrite(l, 1, len, f);
		return;
	}
	for (const char *p = l; p < l + len; p++) {
		if (c == fe->col && (*p == ',' || *p == '\n')) {
			fputs(fe->value, f);
			c++;
		}
		if (c != fe->col)
			fputc(*p, f);
		if (*p == ',')
			c++;
	}
}

static void set_field(unsigned int row, unsigned int col, const char *v)
{
	struct field_edit fe = { row, col, v };

	edit_lines(set_field_line, &fe);
}

/* data row `row` doubled (dup) or dropped */
static void row_line(FILE *f, const char *l, size_t len, unsigned int n,
		     const void *ctx)
{
	const unsigned int *row_dup = ctx;

	if (n != row_dup[0] + 1 || row_dup[1])
		fwrite(l, 1, len, f);
	if (n == row_dup[0] + 1 && row_dup[1])
		fwrite(l, 1, len, f);
}

static void row_edit(unsigned int row, int dup)
{
	unsigned int row_dup[2] = { row, dup != 0 };

	edit_lines(row_line, row_dup);
}

/* "key": VALUE put first in matrix.json (the parse rejects duplicates,
 * so a key there already makes it a duplicate; or replace it) */
static void set_key(const char *key, const char *value, int replace)
{
	size_t len;
	char *text = slurp("matrix.json", &len), *out, outside[128];
	const char *v = value;

	if (!text || text[0] != '{')
		goto out;
	snprintf(outside, sizeof(outside), "\"%s/outside/%s", scratch,
		 strncmp(value, "\"OUT/", 5) == 0 ? value + 5 : "");
	if (strncmp(value, "\"OUT/", 5) == 0)
		v = outside;
	if (replace) {
		char pat[64], *at;

		snprintf(pat, sizeof(pat), "\"%s\":", key);
		at = strstr(text, pat);
		if (at)
			memcpy(at + 1, "zz", 2);	/* renamed away */
	}
	if (asprintf(&out, "{\"%s\": %s, %s", key, v, text + 1) < 0)
		goto out;
	spit("matrix.json", out, strlen(out));
	free(out);
out:
	free(text);
}

/* name moved out of the directory, a link to it left in its place: what
 * the resume finds there reads as the real thing, wherever it writes */
static void move_out(const char *name, unsigned int n)
{
	char path[512], target[512];

	name_path(name, path, sizeof(path));
	snprintf(target, sizeof(target), "%s/outside/moved-%u", scratch, n);
	if (rename(path, target) == 0)
		symlink(target, path);
}

static void spoil(struct input *in)
{
	unsigned int op = take(in) % 13;
	const char *name = names[take(in) % NNAMES];
	size_t len;
	char *text;

	switch (op) {
	case 0: case 1: case 2: case 3: case 4:
		replace_with(name, (int)op);
		break;
	case 5: {		/* bytes appended */
		unsigned int n = take(in) % 64;
		char buf[64];

		text = slurp(name, &len);
		for (unsigned int i = 0; i < n; i++)
			buf[i] = (char)take(in);
		if (text) {
			char *all = malloc(len + n + 1);

			memcpy(all, text, len);
			memcpy(all + len, buf, n);
			spit(name, all, len + n);
			free(all);
		}
		free(text);
		break;
	}
	case 6:			/* cut short, as a kill while writing */
		text = slurp(name, &len);
		if (text && len)
			spit(name, text, len - 1 - take(in) % len);
		free(text);
		break;
	case 7: {		/* bytes overwritten */
		text = slurp(name, &len);
		if (text && len) {
			size_t at = take(in) * len / 256;

			for (size_t i = at; i < len && in->n; i++)
				if (take(in) & 1)
					text[i] = (char)take(in);
			spit(name, text, len);
		}
		free(text);
		break;
	}
	case 8: {
		unsigned int row = take(in) % 5, col = take(in) % 36;

		set_field(row, col, hostile[take(in) % NHOSTILE]);
		break;
	}
	case 9: {
		unsigned int row = take(in) % 5;

		row_edit(row, take(in) & 1);
		break;
	}
	case 10: {
		unsigned int k = take(in) % NKEYS, v = take(in);

		set_key(state_keys[k], json_values[v % NJSON], v & 128);
		break;
	}
	case 12:
		move_out(name, (unsigned int)(in->n % 1000));
		break;
	default: {		/* what a killed finalizing leaves */
		char path[512];

		snprintf(path, sizeof(path), "%s/hist.final", partial);
		mkdir(path, 0755);
		put_str(path, "cell-0000.csv", "# count=2 sum=200 min=100 "
			"max=100\nlow_ns,high_ns,count\n100,100,2\n");
		snprintf(path, sizeof(path), "%s/hist.visits", partial);
		mkdir(path, 0755);
		break;
	}
	}
}

/* ------------------------------------------------------- the checks */

/* Everything under path, as "name kind content" lines, links unfollowed */
static void describe(const char *path, const char *rel, FILE *out)
{
	struct dirent **e;
	int n = scandir(path, &e, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		char p[1024], r[1024], buf[256];
		struct stat st;

		if (!strcmp(e[i]->d_name, ".") || !strcmp(e[i]->d_name, "..")) {
			free(e[i]);
			continue;
		}
		snprintf(p, sizeof(p), "%s/%s", path, e[i]->d_name);
		snprintf(r, sizeof(r), "%s/%s", rel, e[i]->d_name);
		free(e[i]);
		if (lstat(p, &st))
			continue;
		fprintf(out, "%s %o %lld\n", r, st.st_mode,
			(long long)st.st_size);
		if (S_ISLNK(st.st_mode)) {
			ssize_t l = readlink(p, buf, sizeof(buf) - 1);

			fprintf(out, " -> %.*s\n", (int)(l > 0 ? l : 0), buf);
		} else if (S_ISREG(st.st_mode)) {
			int fd = open(p, O_RDONLY | O_NOFOLLOW);
			ssize_t l = fd < 0 ? 0 : read(fd, buf, sizeof(buf));

			fwrite(buf, 1, l > 0 ? (size_t)l : 0, out);
			if (fd >= 0)
				close(fd);
		} else if (S_ISDIR(st.st_mode)) {
			describe(p, r, out);
		}
	}
	free(e);
}

static char *snapshot(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	describe(path, "", f);
	fclose(f);
	return text;
}

/* How many entries dir has, or -1 when one is not among allowed. */
static int only(const char *dir, const char *const *allowed, size_t n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int count = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		size_t i;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		for (i = 0; i < n && strcmp(e->d_name, allowed[i]); i++)
			;
		if (i == n)
			count = -1;
		if (count >= 0)
			count++;
	}
	closedir(d);
	return count;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/*
 * A run renamed into place is whole: the readers accept it (every row
 * checked, every histogram adds up) and it holds one row for every visit
 * its matrix.json planned. -1 otherwise.
 */
static int finished_run_ok(const char *results)
{
	static struct fl_rd_run r;
	char dir[256], path[300], err[1024];
	json_t *state, *pass;
	size_t planned = 0, rows = 0, i;

	snprintf(dir, sizeof(dir), "%s/" NAME, results);
	if (access(dir, F_OK))
		return 0;	/* not finished: nothing to check */
	if (fl_rd_open(dir, &r, err, sizeof(err)))
		return -1;
	for (unsigned long c = 0; c < r.ncells; c++)
		rows += r.cells[c].nrows;
	fl_rd_close(&r);
	snprintf(path, sizeof(path), "%s/matrix.json", dir);
	state = json_load_file(path, 0, NULL);
	json_array_foreach(json_object_get(state, "passes"), i, pass)
		planned += json_array_size(pass);
	json_decref(state);
	return rows == planned ? 0 : -1;
}

static void remove_scratch(void)
{
	remove_tree(scratch);
}

static void resume(void)
{
	static struct fl_matrix_job job;
	static char *argv[] = { "futexlab", "matrix", "--resume", NULL };
	char err[2048];

	if (fl_matrix_job_resume(&job, 3, argv, partial, NULL, err,
				 sizeof(err)) == 0 &&
	    (job.cell_layout || (job.ndone == job.m.nvisits &&
				 fl_matrix_job_next_pass(&job, 0, err,
							 sizeof(err)) == 0)) &&
	    fl_matrix_job_finalize(&job, err, sizeof(err)) == 0) {
		json_t *meta = json_object();

		fl_matrix_job_finish(&job, meta, err, sizeof(err));
		json_decref(meta);
	}
	fl_matrix_job_free(&job);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const top[] = { "outside", "results", "m.ini" };
	static const char *const runs[] = { PARTIAL, NAME };
	struct input in = { data, size };
	char outside[128], results[128], *before, *after;

	if (!*scratch) {
		/* in memory where there is a tmpfs: a resume syncs every
		 * file it writes, which on a disk is most of an input's time */
		snprintf(scratch, sizeof(scratch), "%s/fuzz_resume.XXXXXX",
			 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
		if (!mkdtemp(scratch))
			abort();
		atexit(remove_scratch);
		snprintf(partial, sizeof(partial), "%s/results/" PARTIAL,
			 scratch);
	}
	build();
	for (int i = 0; i < 8 && in.n; i++)
		spoil(&in);
	snprintf(outside, sizeof(outside), "%s/outside", scratch);
	snprintf(results, sizeof(results), "%s/results", scratch);
	before = snapshot(outside);
	double t0 = now_s();

	resume();
	/* a blocking open of a FIFO waits for ever, but libFuzzer's own
	 * alarm interrupts it (EINTR) before -timeout can call it a hang:
	 * a resume of this directory takes milliseconds, so seconds are a
	 * wait on something */
	if (now_s() - t0 > 5)
		abort();
	after = snapshot(outside);
	if (strcmp(before, after))
		abort();	/* written, renamed or removed outside */
	if (only(scratch, top, 3) < 0 || only(results, runs, 2) != 1)
		abort();	/* the run went where it must not */
	if (finished_run_ok(results))
		abort();	/* renamed into place, but not whole */
	free(before);
	free(after);
	return 0;
}
