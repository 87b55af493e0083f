// SPDX-License-Identifier: GPL-2.0
/* Joining finished runs into a new one (join.h). */
#include "rundir/join.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rundir/columns.h"
#include "rundir/regular.h"
#include "rundir/write_at.h"

int fl_join_check_header(const struct fl_rd_run *r, char *err, size_t errlen)
{
	size_t hl = strlen(FL_CELLS_COLUMNS);

	if (r->cells_len <= hl || memcmp(r->cells_text, FL_CELLS_COLUMNS, hl) ||
	    r->cells_text[hl] != '\n') {
		snprintf(err, errlen, "%s/cells.csv: its header is not this "
			 "futexlab's: merge with the futexlab that wrote it",
			 r->dir);
		return -1;
	}
	return 0;
}

struct row {
	unsigned long cell;
	unsigned long order;		/* its place among all rows read */
	const char *text;
	size_t len;
};

static int by_cell(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->cell != y->cell)
		return x->cell < y->cell ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The cell column leads each row (FL_CELLS_COLUMNS). */
int fl_join_rows(struct fl_run *run, const char *const *texts, const size_t *lens,
		 unsigned int n)
{
	unsigned long nrows = 0, at = 0;
	struct row *rows;
	int rc = 0;

	for (unsigned int i = 0; i < n; i++)
		for (size_t b = 0; b < lens[i]; b++)
			nrows += texts[i][b] == '\n';
	rows = calloc(nrows + 1, sizeof(*rows));
	if (!rows)
		return -1;
	for (unsigned int i = 0; i < n; i++) {
		const char *t = texts[i], *end = t + lens[i];
		const char *p = memchr(t, '\n', lens[i]);

		for (p = p ? p + 1 : end; p < end;) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));

			if (!nl)
				break;
			rows[at] = (struct row){ strtoul(p, NULL, 10), at, p,
						 (size_t)(nl - p) + 1 };
			at++;
			p = nl + 1;
		}
	}
	qsort(rows, at, sizeof(*rows), by_cell);
	for (unsigned long r = 0; r < at && !rc; r++)
		if (fwrite(rows[r].text, 1, rows[r].len, run->cells) !=
		    rows[r].len)
			rc = -1;
	free(rows);
	return rc || fflush(run->cells) ? -1 : 0;
}

/* Where a cell's files go: the merged run and its folders, or nothing
 * while they are only checked. */
struct dest {
	struct fl_run *run;
	int hist, bins;
};

/*
 * folder/name of r read (a regular file below r, no link followed, at
 * most FL_MAX_INPUT_BYTES) and, with a dest, written under the same name
 * there. 0, also when a bins file is not there; -1 with err.
 */
static int take_file(const struct fl_rd_run *r, const char *folder,
		     const char *name, const struct dest *to, char *err,
		     size_t errlen)
{
	char from[320], shown[PATH_MAX + 320];
	char *text;
	size_t len;
	int rc = 0;

	snprintf(from, sizeof(from), "%s/%s", folder, name);
	snprintf(shown, sizeof(shown), "%s/%s", r->dir, from);
	if (fl_read_regular(r->dirfd, from, shown, FL_NOFOLLOW,
			    FL_MAX_INPUT_BYTES, &text, &len, err, errlen))
		return errno == ENOENT && !strcmp(folder, "bins") ? 0 : -1;
	if (to) {
		snprintf(shown, sizeof(shown), "%s/%s", to->run->tmp, from);
		rc = fl_write_at(!strcmp(folder, "hist") ? to->hist : to->bins,
				 name, shown, text, len, err, errlen);
	}
	free(text);
	return rc;
}

/* Each cell's histogram and its repetitions' bins files of r taken. */
static int take_cell_files(const struct fl_rd_run *r, const struct dest *to,
			   char *err, size_t errlen)
{
	char name[64];
	int rc = 0;

	for (unsigned long c = 0; !rc && c < r->ncells; c++) {
		const struct fl_rd_cell *cell = &r->cells[c];

		/* the reader's name is hist/NAME: taken as NAME */
		if (*cell->hist)
			rc = take_file(r, "hist", cell->hist + 5, to, err,
				       errlen);
		for (unsigned int k = 0; !rc && k < FL_RD_MAX_REPS; k++) {
			snprintf(name, sizeof(name), "cell-%04lu-rep-%03u.csv",
				 cell->index, k);
			rc = take_file(r, "bins", name, to, err, errlen);
		}
	}
	return rc;
}

int fl_join_check_cell_files(const struct fl_rd_run *r, char *err,
			     size_t errlen)
{
	return take_cell_files(r, NULL, err, errlen);
}

int fl_join_cell_files(struct fl_run *run, const struct fl_rd_run *r,
		       char *err, size_t errlen)
{
	char shown[PATH_MAX + 16];
	struct dest to = { run, -1, -1 };
	int rc = -1;

	snprintf(shown, sizeof(shown), "%s/hist", run->tmp);
	to.hist = fl_folder_at(run->fd, "hist", shown, err, errlen);
	snprintf(shown, sizeof(shown), "%s/bins", run->tmp);
	to.bins = to.hist < 0 ? -1 : fl_folder_at(run->fd, "bins", shown, err,
						  errlen);
	if (to.bins >= 0)
		rc = take_cell_files(r, &to, err, errlen);
	if (to.hist >= 0)
		close(to.hist);
	if (to.bins >= 0)
		close(to.bins);
	return rc;
}
