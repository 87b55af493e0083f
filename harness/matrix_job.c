// SPDX-License-Identifier: GPL-2.0
/* Starting and resuming a matrix run's partial directory. */
#include "matrix_job.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <dirent.h>
#include <unistd.h>

#include "commands.h"
#include "csv.h"
#include "hist.h"
#include "meta.h"

#define MAX_COLUMNS 64

static int write_file_synced(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	size_t off = 0;

	if (fd < 0)
		return -1;
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return -1;
		}
		off += (size_t)n;
	}
	if (fsync(fd)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int save_state(struct fl_matrix_job *j)
{
	char path[PATH_MAX + 32];
	char *text = json_dumps(j->state, JSON_INDENT(2) | JSON_SORT_KEYS);
	int rc;

	if (!text)
		return -1;
	snprintf(path, sizeof(path), "%s/matrix.json", j->run.tmp);
	rc = write_file_synced(path, text, strlen(text));
	free(text);
	return rc;
}

static json_t *argv_json(void)
{
	json_t *a = json_array();

	for (int i = 0; i < fl_main_argc; i++)
		json_array_append_new(a, json_string(fl_main_argv[i]));
	return a;
}

static int lock_dir(struct fl_matrix_job *j, const char *dir, char *err,
		    size_t errlen)
{
	j->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (j->dirfd < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (flock(j->dirfd, LOCK_EX | LOCK_NB)) {
		snprintf(err, errlen, "%s is being written by another "
			 "futexlab process", dir);
		return -1;
	}
	return 0;
}

int fl_matrix_job_start(struct fl_matrix_job *j, const char *file,
			const char *results, char *err, size_t errlen)
{
	char path[PATH_MAX + 32], abs[PATH_MAX], hash[32], start[32];
	struct utsname u;

	memset(j, 0, sizeof(*j));
	j->dirfd = -1;
	if (fl_matrix_load(file, &j->m, err, errlen))
		return 2;
	j->done = calloc(j->m.nvisits ? j->m.nvisits : 1, 1);
	if (!j->done) {
		snprintf(err, errlen, "out of memory");
		return 2;
	}
	uname(&u);
	if (fl_run_open(&j->run, results, u.nodename, err, errlen))
		return 2;
	if (lock_dir(j, j->run.tmp, err, errlen))
		return 2;
	snprintf(path, sizeof(path), "%s/matrix.ini", j->run.tmp);
	if (write_file_synced(path, j->m.text, j->m.len)) {
		snprintf(err, errlen, "cannot write %s: %s", path,
			 strerror(errno));
		return 2;
	}
	if (!realpath(file, abs))
		snprintf(abs, sizeof(abs), "%s", file);
	snprintf(hash, sizeof(hash), "%016" PRIx64, j->m.hash);
	fl_utc_now(start, sizeof(start));
	j->state = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:o, s:[],"
			     " s:b}",
			     "source", abs, "fnv1a64", hash,
			     "name", j->run.name, "results", results,
			     "start_time", start, "cells",
			     (json_int_t)j->m.ncells, "visits",
			     (json_int_t)j->m.nvisits, "argv", argv_json(),
			     "resumed", "finalizing", 0);
	if (!j->state || save_state(j)) {
		snprintf(err, errlen, "cannot write %s/matrix.json",
			 j->run.tmp);
		return 2;
	}
	return 0;
}

static int column(char **names, int n, const char *want)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], want) == 0)
			return i;
	return -1;
}

static int hist_ok(const char *dir, unsigned long cell)
{
	static struct fl_hist h;
	char path[PATH_MAX + 64];
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/hist/cell-%04lu.csv", dir, cell);
	f = fopen(path, "r");
	if (!f)
		return 0;
	rc = fl_hist_read_csv(&h, f);
	fclose(f);
	return rc == 0;
}

static enum fl_status status_of(const char *s)
{
	for (int st = FL_STATUS_OK; st <= FL_STATUS_ABORTED; st++)
		if (strcmp(s, fl_status_name((enum fl_status)st)) == 0)
			return (enum fl_status)st;
	return FL_STATUS_FAILED;
}

/*
 * While a matrix runs, cells.csv is in visit layout: the cell column is
 * the visit's index, each visit has one row (rep 0) and its own
 * histogram. Keep the rows of every complete visit and drop the rest,
 * checking that each kept row is the cell the matrix puts at that visit.
 */
static int filter_cells(struct fl_matrix_job *j, char *err, size_t errlen)
{
	char path[PATH_MAX + 32], tmp[PATH_MAX + 32];
	char *hdr_fields[MAX_COLUMNS], *f[MAX_COLUMNS];
	char *data = NULL, *line = NULL;
	size_t cap = 0;
	unsigned long ncells = j->m.nvisits, dropped = 0;
	unsigned int *rows = calloc(ncells ? ncells : 1, sizeof(*rows));
	unsigned char *seen = calloc(ncells ? ncells : 1, 13);	/* rep bits */
	int rc = -1, ncol, col[9];
	static struct fl_cell cell;
	FILE *in, *out = NULL;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/cells.csv", j->run.tmp);
	snprintf(tmp, sizeof(tmp), "%s/cells.csv.tmp", j->run.tmp);
	in = fopen(path, "r");
	if (!in || !rows || !seen) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	/* pass 1: count the rows of each cell */
	n = getline(&line, &cap, in);
	if (n <= 0 || strcmp(line, FL_CELLS_COLUMNS "\n") != 0) {
		snprintf(err, errlen, "%s: the header is not this futexlab's "
			 "(%s)", path, FL_CELLS_COLUMNS);
		goto out;
	}
	char header[] = FL_CELLS_COLUMNS;

	ncol = fl_csv_split(header, hdr_fields, MAX_COLUMNS);
	static const char *const want[9] = { "cell", "workload", "backend",
		"threads", "placement", "options", "rep", "status", "hist" };
	for (int i = 0; i < 9; i++)
		col[i] = column(hdr_fields, ncol, want[i]);
	long rows_start = ftell(in);

	while ((n = getline(&line, &cap, in)) > 0) {
		if (line[n - 1] != '\n') {
			dropped++;	/* torn by the kill */
			continue;
		}
		free(data);
		data = strdup(line);
		if (!data || fl_csv_split(data, f, MAX_COLUMNS) != ncol) {
			dropped++;
			continue;
		}
		unsigned long c = strtoul(f[col[0]], NULL, 10);
		unsigned long r = strtoul(f[col[6]], NULL, 10);

		if (c >= ncells || r >= 100) {
			snprintf(err, errlen, "%s: row for visit %s, rep %s: "
				 "the matrix has %lu visits", path, f[col[0]],
				 f[col[6]], ncells);
			goto out;
		}
		if (fl_matrix_visit_cell(&j->m, c, &cell, NULL, err, errlen))
			goto out;
		char th[16];

		snprintf(th, sizeof(th), "%u", cell.threads);
		if (strcmp(f[col[1]], cell.workload->name) ||
		    strcmp(f[col[2]], cell.backend->name) ||
		    strcmp(f[col[3]], th) ||
		    strcmp(f[col[4]], cell.placement) ||
		    strcmp(f[col[5]], cell.options)) {
			snprintf(err, errlen, "visit %lu in cells.csv is %s %s "
				 "threads=%s %s %s, but the matrix now gives "
				 "%s %s threads=%u %s %s here: start a new run",
				 c, f[col[1]], f[col[2]], f[col[3]], f[col[4]],
				 f[col[5]], cell.workload->name,
				 cell.backend->name, cell.threads,
				 cell.placement, cell.options);
			goto out;
		}
		if (seen[c * 13 + r / 8] & (1u << (r % 8)))
			rows[c] = 1000;	/* doubled: redo the cell */
		seen[c * 13 + r / 8] |= (unsigned char)(1u << (r % 8));
		rows[c]++;
	}
	for (unsigned long c = 0; c < ncells; c++) {
		if (fl_matrix_visit_cell(&j->m, c, &cell, NULL, err, errlen))
			goto out;
		if (rows[c] == cell.reps && hist_ok(j->run.tmp, c)) {
			j->done[c] = 1;
			j->ndone++;
		} else if (rows[c]) {
			dropped += rows[c] % 1000;
		}
	}
	/* pass 2: rewrite with the complete cells only */
	out = fopen(tmp, "w");
	if (!out) {
		snprintf(err, errlen, "cannot write %s: %s", tmp,
			 strerror(errno));
		goto out;
	}
	fprintf(out, "%s\n", FL_CELLS_COLUMNS);
	fseek(in, rows_start, SEEK_SET);
	while ((n = getline(&line, &cap, in)) > 0) {
		if (line[n - 1] != '\n')
			continue;
		unsigned long c = strtoul(line, NULL, 10);

		if (c < ncells && j->done[c])
			fputs(line, out);
	}
	if (fflush(out) || fsync(fileno(out)) || fclose(out)) {
		out = NULL;
		snprintf(err, errlen, "cannot write %s: %s", tmp,
			 strerror(errno));
		goto out;
	}
	out = NULL;
	if (rename(tmp, path)) {
		snprintf(err, errlen, "cannot replace %s: %s", path,
			 strerror(errno));
		goto out;
	}
	fsync(j->dirfd);
	if (dropped)
		fprintf(stderr, "futexlab matrix: dropped %lu row%s of "
			"unfinished cells; they run again\n", dropped,
			dropped == 1 ? "" : "s");
	rc = 0;
out:
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	free(line);
	free(data);
	free(rows);
	free(seen);
	return rc;
}

int fl_matrix_job_resume(struct fl_matrix_job *j, const char *dir_arg,
			 const char *file, char *err, size_t errlen)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], base[PATH_MAX], what[1024];
	char hash[32], now_s[32];
	struct fl_matrix now;
	json_error_t jerr;
	struct stat st;

	memset(j, 0, sizeof(*j));
	j->dirfd = -1;
	snprintf(dir, sizeof(dir), "%s", dir_arg);
	for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--)
		dir[n - 1] = '\0';
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--resume: '%s' is not a directory",
			 dir_arg);
		return 2;
	}
	snprintf(base, sizeof(base), "%s", dir);
	const char *b = basename(base);

	snprintf(path, sizeof(path), "%s/matrix.json", dir);
	if (strncmp(b, ".partial-", 9) != 0) {
		snprintf(path, sizeof(path), "%s/meta.json", dir);
		if (access(path, F_OK) == 0)
			snprintf(err, errlen, "--resume: '%s' is a finished "
				 "run: finished runs are never modified",
				 dir_arg);
		else
			snprintf(err, errlen, "--resume: '%s' is not a "
				 "partial run directory (results/.partial-*)",
				 dir_arg);
		return 2;
	}
	if (lock_dir(j, dir, err, errlen))
		return 2;
	j->state = json_load_file(path, 0, &jerr);
	const char *source = json_string_value(json_object_get(j->state,
							       "source"));
	const char *name = json_string_value(json_object_get(j->state,
							     "name"));
	const char *saved = json_string_value(json_object_get(j->state,
							      "fnv1a64"));

	if (!source || !name || !saved) {
		snprintf(err, errlen, "--resume: %s has no valid matrix.json: "
			 "only a matrix run can be resumed", dir_arg);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/matrix.ini", dir);
	if (fl_matrix_load(path, &j->m, err, errlen))
		return 2;
	snprintf(hash, sizeof(hash), "%016" PRIx64, j->m.hash);
	if (strcmp(hash, saved) != 0) {
		snprintf(err, errlen, "--resume: %s was modified after the "
			 "run started: start a new run", path);
		return 2;
	}
	int given = file != NULL;

	if (!file)
		file = source;
	if (given || access(file, F_OK) == 0) {
		if (fl_matrix_load(file, &now, err, errlen)) {
			fl_matrix_free(&now);
			return 2;
		}
		int differs = fl_matrix_diff(&j->m, &now, what, sizeof(what));

		fl_matrix_free(&now);
		if (differs) {
			snprintf(err, errlen, "--resume: %s changed since the "
				 "run started: %s. Restore it, or start a new "
				 "run", file, what);
			return 2;
		}
	} else {
		fprintf(stderr, "futexlab matrix: %s is gone; resuming with "
			"the copy in %s/matrix.ini\n", file, dir);
	}
	j->done = calloc(j->m.nvisits ? j->m.nvisits : 1, 1);
	if (!j->done) {
		snprintf(err, errlen, "out of memory");
		return 2;
	}
	snprintf(base, sizeof(base), "%s", dir);
	snprintf(j->run.dir, sizeof(j->run.dir), "%s", dirname(base));
	snprintf(j->run.name, sizeof(j->run.name), "%s", name);
	snprintf(j->run.tmp, sizeof(j->run.tmp), "%s", dir);
	if (json_is_true(json_object_get(j->state, "finalizing"))) {
		/* killed while putting the rows in cell order: every visit
		 * ran; fl_matrix_job_finalize() completes what it began */
		memset(j->done, 1, j->m.nvisits);
		j->ndone = j->m.nvisits;
	} else if (filter_cells(j, err, errlen)) {
		return 2;
	}
	snprintf(path, sizeof(path), "%s/cells.csv", dir);
	j->run.cells = fopen(path, "a");
	if (!j->run.cells) {
		snprintf(err, errlen, "cannot write %s: %s", path,
			 strerror(errno));
		return 2;
	}
	fl_utc_now(now_s, sizeof(now_s));
	json_array_append_new(json_object_get(j->state, "resumed"),
			      json_pack("{s:s, s:o, s:I}", "time", now_s,
					"argv", argv_json(), "cells_done",
					(json_int_t)j->ndone));
	if (save_state(j)) {
		snprintf(err, errlen, "cannot write %s/matrix.json", dir);
		return 2;
	}
	return 0;
}

struct final_row {
	unsigned long cell;
	unsigned int rep;
	char *text;
};

static int cmp_final(const void *a, const void *b)
{
	const struct final_row *x = a, *y = b;

	if (x->cell != y->cell)
		return x->cell < y->cell ? -1 : 1;
	return (x->rep > y->rep) - (x->rep < y->rep);
}

static int cmp_visit(const void *a, const void *b)
{
	const struct fl_matrix_visit *x = *(const struct fl_matrix_visit *
					    const *)a;
	const struct fl_matrix_visit *y = *(const struct fl_matrix_visit *
					    const *)b;

	if (x->cell != y->cell)
		return x->cell < y->cell ? -1 : 1;
	return (x->rep > y->rep) - (x->rep < y->rep);
}

/* cells.csv.final: the visit rows renumbered to cell and repetition, in
 * cell order, as `futexlab run` writes them. */
static int final_rows(struct fl_matrix_job *j, char *err, size_t errlen)
{
	char path[PATH_MAX + 32], fin[PATH_MAX + 32], *f[MAX_COLUMNS];
	char header[] = FL_CELLS_COLUMNS, *hdr[MAX_COLUMNS];
	int ncol = fl_csv_split(header, hdr, MAX_COLUMNS);
	int ccell = column(hdr, ncol, "cell"), crep = column(hdr, ncol, "rep");
	int chist = column(hdr, ncol, "hist");
	struct final_row *rows = calloc(j->m.nvisits + 1, sizeof(*rows));
	unsigned long n = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = -1;
	FILE *in, *out = NULL;

	snprintf(path, sizeof(path), "%s/cells.csv", j->run.tmp);
	snprintf(fin, sizeof(fin), "%s/cells.csv.final", j->run.tmp);
	in = fopen(path, "r");
	if (!in || !rows || getline(&line, &cap, in) <= 0) {
		snprintf(err, errlen, "cannot read %s", path);
		goto out;
	}
	while ((len = getline(&line, &cap, in)) > 0 && n < j->m.nvisits) {
		char val[3][64], *buf = NULL;
		size_t bsize = 0;
		unsigned long k;

		if (line[len - 1] != '\n' ||
		    fl_csv_split(line, f, MAX_COLUMNS) != ncol)
			continue;
		k = strtoul(f[ccell], NULL, 10);
		if (k >= j->m.nvisits)
			continue;
		rows[n].cell = j->m.visits[k].cell;
		rows[n].rep = j->m.visits[k].rep;
		snprintf(val[0], sizeof(val[0]), "%lu", rows[n].cell);
		snprintf(val[1], sizeof(val[1]), "%u", rows[n].rep);
		snprintf(val[2], sizeof(val[2]), "hist/cell-%04lu.csv",
			 rows[n].cell);
		f[ccell] = val[0];
		f[crep] = val[1];
		f[chist] = val[2];
		FILE *m = open_memstream(&buf, &bsize);

		if (!m)
			goto oom;
		for (int i = 0; i < ncol; i++)
			fl_csv_field(m, f[i], i == ncol - 1);
		fclose(m);
		rows[n++].text = buf;
	}
	qsort(rows, n, sizeof(*rows), cmp_final);
	out = fopen(fin, "w");
	if (!out) {
		snprintf(err, errlen, "cannot write %s: %s", fin,
			 strerror(errno));
		goto out;
	}
	fprintf(out, "%s\n", FL_CELLS_COLUMNS);
	for (unsigned long i = 0; i < n; i++)
		fputs(rows[i].text, out);
	if (fflush(out) || fsync(fileno(out)) || fclose(out)) {
		out = NULL;
		snprintf(err, errlen, "cannot write %s", fin);
		goto out;
	}
	out = NULL;
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	for (unsigned long i = 0; rows && i < n; i++)
		free(rows[i].text);
	free(rows);
	free(line);
	return rc;
}

/* hist.final/cell-<i>.csv: each cell's histogram merged over its visits. */
static int final_hists(struct fl_matrix_job *j, char *err, size_t errlen)
{
	static struct fl_hist acc, h;
	const struct fl_matrix_visit **v = calloc(j->m.nvisits + 1,
						  sizeof(*v));
	char path[PATH_MAX + 64];
	int rc = -1;

	if (!v) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (unsigned long k = 0; k < j->m.nvisits; k++)
		v[k] = &j->m.visits[k];
	qsort(v, j->m.nvisits, sizeof(*v), cmp_visit);
	snprintf(path, sizeof(path), "%s/hist.final", j->run.tmp);
	if (mkdir(path, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", path,
			 strerror(errno));
		goto out;
	}
	for (unsigned long a = 0; a < j->m.nvisits;) {
		unsigned long cell = v[a]->cell;

		fl_hist_init(&acc);
		for (; a < j->m.nvisits && v[a]->cell == cell; a++) {
			FILE *f;

			snprintf(path, sizeof(path), "%s/hist/cell-%04lu.csv",
				 j->run.tmp, (unsigned long)(v[a] -
							     j->m.visits));
			f = fopen(path, "r");
			if (!f || fl_hist_read_csv(&h, f)) {
				snprintf(err, errlen, "cannot read %s", path);
				if (f)
					fclose(f);
				goto out;
			}
			fclose(f);
			fl_hist_merge(&acc, &h);
		}
		snprintf(path, sizeof(path), "%s/hist.final/cell-%04lu.csv",
			 j->run.tmp, cell);
		FILE *f = fopen(path, "w");

		if (!f || fl_hist_write_csv(&acc, f) || fflush(f) ||
		    fsync(fileno(f)) || fclose(f)) {
			snprintf(err, errlen, "cannot write %s", path);
			goto out;
		}
	}
	rc = 0;
out:
	free(v);
	return rc;
}

static void remove_dir(const char *dir)
{
	char path[PATH_MAX + 300];
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

/* The cells by their worst repetition's status, from cells.csv. */
static void count_status(struct fl_matrix_job *j)
{
	char path[PATH_MAX + 32], *line = NULL, *f[MAX_COLUMNS];
	char header[] = FL_CELLS_COLUMNS, *hdr[MAX_COLUMNS];
	int ncol = fl_csv_split(header, hdr, MAX_COLUMNS);
	int ccell = column(hdr, ncol, "cell");
	int cstat = column(hdr, ncol, "status");
	signed char *worst = malloc(j->m.ncells + 1);
	size_t cap = 0;
	FILE *in;

	memset(j->by_status, 0, sizeof(j->by_status));
	snprintf(path, sizeof(path), "%s/cells.csv", j->run.tmp);
	in = fopen(path, "r");
	if (!in || !worst)
		goto out;
	memset(worst, -1, j->m.ncells + 1);
	while (getline(&line, &cap, in) > 0) {
		if (fl_csv_split(line, f, MAX_COLUMNS) != ncol ||
		    !strcmp(f[ccell], "cell"))
			continue;
		unsigned long c = strtoul(f[ccell], NULL, 10);
		int st = status_of(f[cstat]);

		if (c < j->m.ncells && st > worst[c])
			worst[c] = (signed char)st;
	}
	for (unsigned long c = 0; c < j->m.ncells; c++)
		if (worst[c] >= 0)
			j->by_status[worst[c]]++;
out:
	if (in)
		fclose(in);
	free(worst);
	free(line);
}

int fl_matrix_job_finalize(struct fl_matrix_job *j, char *err, size_t errlen)
{
	char a[PATH_MAX + 32], b[PATH_MAX + 32];

	if (j->run.cells)
		fclose(j->run.cells);
	j->run.cells = NULL;
	if (!json_is_true(json_object_get(j->state, "finalizing"))) {
		if (final_rows(j, err, errlen) || final_hists(j, err, errlen))
			return -1;
		fsync(j->dirfd);
		json_object_set_new(j->state, "finalizing", json_true());
		if (save_state(j)) {
			snprintf(err, errlen, "cannot write %s/matrix.json",
				 j->run.tmp);
			return -1;
		}
	}
	/* from here every step can be redone by a resume */
	snprintf(a, sizeof(a), "%s/cells.csv.final", j->run.tmp);
	snprintf(b, sizeof(b), "%s/cells.csv", j->run.tmp);
	if (access(a, F_OK) == 0 && rename(a, b))
		goto fail;
	snprintf(a, sizeof(a), "%s/hist.final", j->run.tmp);
	if (access(a, F_OK) == 0) {
		snprintf(b, sizeof(b), "%s/hist.visits", j->run.tmp);
		char h[PATH_MAX + 32];

		snprintf(h, sizeof(h), "%s/hist", j->run.tmp);
		if (access(h, F_OK) == 0 && access(b, F_OK) != 0 &&
		    rename(h, b))
			goto fail;
		if (rename(a, h))
			goto fail;
	}
	snprintf(b, sizeof(b), "%s/hist.visits", j->run.tmp);
	remove_dir(b);
	fsync(j->dirfd);
	count_status(j);
	snprintf(b, sizeof(b), "%s/cells.csv", j->run.tmp);
	j->run.cells = fopen(b, "a");	/* fl_run_finish() closes it */
	if (!j->run.cells)
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "cannot put the rows of %s in cell order: %s",
		 j->run.tmp, strerror(errno));
	return -1;
}

int fl_matrix_job_finish(struct fl_matrix_job *j, json_t *meta, char *err,
			 size_t errlen)
{
	/* the run's start is when its first cell could start, not the
	 * resume's; the resumes are listed */
	json_object_set(meta, "start_time",
			json_object_get(j->state, "start_time"));
	json_object_set(meta, "resumed", json_object_get(j->state,
							 "resumed"));
	json_object_set_new(meta, "matrix", json_pack("{s:O, s:O, s:s, s:s}",
		"source", json_object_get(j->state, "source"),
		"fnv1a64", json_object_get(j->state, "fnv1a64"),
		"copy", "matrix.ini", "state", "matrix.json"));
	json_t *exps = json_array();

	for (unsigned int x = 0; x < j->m.nexps; x++) {
		const struct fl_matrix_exp *e = &j->m.exps[x];

		json_array_append_new(exps, json_pack("{s:s, s:s, s:I, s:I}",
			"name", e->name, "workload", e->spec.workload->name,
			"first_cell", (json_int_t)e->first_cell,
			"cells", (json_int_t)e->ncells));
	}
	json_object_set_new(json_object_get(meta, "matrix"), "experiments",
			    exps);
	return fl_run_finish(&j->run, meta, err, errlen);
}

void fl_matrix_job_free(struct fl_matrix_job *j)
{
	if (j->run.cells)
		fclose(j->run.cells);
	j->run.cells = NULL;
	if (j->dirfd >= 0)
		close(j->dirfd);
	j->dirfd = -1;
	json_decref(j->state);
	j->state = NULL;
	free(j->done);
	j->done = NULL;
	fl_matrix_free(&j->m);
}
