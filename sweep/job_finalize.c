// SPDX-License-Identifier: GPL-2.0
/*
 * Finalizing a matrix run once every visit ran: the rows renumbered to
 * cell and repetition in cell order, each cell's histogram merged over
 * its visits, and the cells counted by status. Each step can be redone
 * by a resume after a kill.
 */
#include "sweep/job.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rundir/csv.h"
#include "measure/hist.h"
#include "sweep/job_internal.h"

static enum fl_status status_of(const char *s)
{
	for (int st = FL_STATUS_OK; st <= FL_STATUS_ABORTED; st++)
		if (strcmp(s, fl_status_name((enum fl_status)st)) == 0)
			return (enum fl_status)st;
	return FL_STATUS_FAILED;
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
		if (matrix_job_save_state(j)) {
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
