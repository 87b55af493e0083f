// SPDX-License-Identifier: GPL-2.0
/* A partial matrix run's rows and histograms rewritten: rewrite.h. */
#include "rundir/rewrite.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rundir/csv.h"
#include "rundir/hist_file.h"
#include "rundir/regular.h"
#include "rundir/visits.h"
#include "rundir/write_at.h"

/* "RUN/name" for messages */
static const char *shown_in(const struct fl_run *run, const char *name,
			    char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", run->tmp, name);
	return buf;
}

int fl_rw_scan(struct fl_run *run, int flags, int *torn_line,
	       fl_rd_row_fn fn, void *ctx, char *err, size_t errlen)
{
	static const char header[] = FL_CELLS_COLUMNS "\n";
	struct fl_rd_run r = { .dirfd = -1 };
	char shown[PATH_MAX + 32], *text;
	size_t len;
	int rc;

	shown_in(run, "cells.csv", shown, sizeof(shown));
	if (fl_read_regular(run->fd, "cells.csv", shown, FL_NOFOLLOW,
			    FL_MAX_INPUT_BYTES, &text, &len, err, errlen))
		return -1;
	/* rows are kept and renumbered field for field: they must be this
	 * futexlab's columns, in its order */
	if (len < sizeof(header) - 1 ||
	    memcmp(text, header, sizeof(header) - 1) != 0) {
		snprintf(err, errlen, "%s:1: the header is not this futexlab's "
			 "(%s): resume it with the futexlab that started it",
			 shown, FL_CELLS_COLUMNS);
		free(text);
		return -1;
	}
	rc = fl_rd_scan_cells(&r, shown, text, len, flags, torn_line, fn, ctx,
			      err, errlen);
	fl_rd_close(&r);
	free(text);
	return rc;
}

struct keeping {
	fl_rw_keep_fn keep;
	void *ctx;
	FILE *out;
};

static int keep_row(void *ctx, const struct fl_rd_row *row, char *err,
		    size_t errlen)
{
	struct keeping *k = ctx;
	int rc = k->keep(k->ctx, row, err, errlen);

	if (rc > 0)
		fwrite(row->text, 1, row->text_len, k->out);
	return rc < 0 ? -1 : 0;
}

int fl_rw_keep_rows(struct fl_run *run, int flags, int *torn_line,
		    fl_rw_keep_fn keep, void *ctx, char *err, size_t errlen)
{
	struct keeping k = { keep, ctx, NULL };
	char shown[PATH_MAX + 32], *text = NULL;
	size_t len = 0;
	int rc;

	k.out = open_memstream(&text, &len);
	if (!k.out) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	fprintf(k.out, "%s\n", FL_CELLS_COLUMNS);
	rc = fl_rw_scan(run, flags, torn_line, keep_row, &k, err, errlen);
	if (fclose(k.out) && !rc) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
	}
	/* every row kept: the file stays as it is */
	if (!rc)
		rc = fl_write_at_changed(run->fd, "cells.csv",
					 shown_in(run, "cells.csv", shown,
						  sizeof(shown)), text, len,
					 err, errlen);
	free(text);
	return rc;
}

/* ------------------------------------------------------ the cell layout */

struct final_row {
	unsigned long cell;
	unsigned int rep;
	char *text;
};

struct gathering {
	struct final_row *rows;
	unsigned long n, cap;
};

static int cmp_final(const void *a, const void *b)
{
	const struct final_row *x = a, *y = b;

	if (x->cell != y->cell)
		return x->cell < y->cell ? -1 : 1;
	return (x->rep > y->rep) - (x->rep < y->rep);
}

/* One row, kept as it is: a journalled run's rows are its cells' (the
 * readers refused one that is not its own cell's and repetition's). */
static int gather(void *ctx, const struct fl_rd_row *row, char *err,
		  size_t errlen)
{
	struct gathering *g = ctx;
	char *text;

	if (g->n == g->cap) {
		unsigned long cap = g->cap ? 2 * g->cap : 64;
		struct final_row *rows = realloc(g->rows, cap * sizeof(*rows));

		if (!rows)
			goto oom;
		g->rows = rows;
		g->cap = cap;
	}
	text = strndup(row->text, row->text_len);
	if (!text)
		goto oom;
	g->rows[g->n++] = (struct final_row){ row->cell, row->rep, text };
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* hist.final/cell-<c>.csv: each cell's visits' histograms merged. */
static int merge_hists(struct fl_run *run, const struct gathering *g,
		       char *err, size_t errlen)
{
	static struct fl_hist acc, h;
	char name[64], shown[PATH_MAX + 64];
	int to, rc = -1;

	to = fl_folder_at(run->fd, "hist.final", shown_in(run, "hist.final",
							  shown,
							  sizeof(shown)),
			  err, errlen);
	if (to < 0)
		return -1;
	for (unsigned long a = 0; a < g->n;) {
		unsigned long cell = g->rows[a].cell;

		fl_hist_init(&acc);
		for (; a < g->n && g->rows[a].cell == cell; a++) {
			fl_visit_hist_name(name, sizeof(name), cell,
					   g->rows[a].rep);
			if (fl_hist_load_at(run->fd, name,
					    shown_in(run, name, shown,
						     sizeof(shown)),
					    &h, err, errlen))
				goto out;
			fl_hist_merge(&acc, &h);
		}
		snprintf(name, sizeof(name), "cell-%04lu.csv", cell);
		snprintf(shown, sizeof(shown), "%s/hist.final/%s", run->tmp,
			 name);
		if (fl_hist_save_at(to, name, shown, &acc, err, errlen))
			goto out;
	}
	fsync(to);
	rc = 0;
out:
	close(to);
	return rc;
}

/* cells.csv replaced by the rows in cell order */
static int commit_rows(struct fl_run *run, const struct gathering *g,
		       char *err, size_t errlen)
{
	char shown[PATH_MAX + 32], *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int rc;

	if (!m) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	fprintf(m, "%s\n", FL_CELLS_COLUMNS);
	for (unsigned long i = 0; i < g->n; i++)
		fputs(g->rows[i].text, m);
	if (fclose(m)) {
		free(text);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rc = fl_write_at(run->fd, "cells.csv", shown_in(run, "cells.csv",
							 shown, sizeof(shown)),
			 text, len, err, errlen);
	free(text);
	return rc;
}

int fl_rw_cell_layout(struct fl_run *run, char *err, size_t errlen)
{
	struct gathering g = { NULL, 0, 0 };
	int rc = -1;

	if (fl_rw_drop_staged(run, err, errlen) ||
	    fl_rw_scan(run, 0, NULL, gather, &g, err, errlen))
		goto out;
	qsort(g.rows, g.n, sizeof(*g.rows), cmp_final);
	if (merge_hists(run, &g, err, errlen))
		goto out;
	fsync(run->fd);
	/* the journal goes once the rows are in cell order: the commit */
	if (commit_rows(run, &g, err, errlen) ||
	    fl_visits_remove(run, err, errlen))
		goto out;
	rc = fl_rw_swap_hist(run, err, errlen);
out:
	for (unsigned long i = 0; i < g.n; i++)
		free(g.rows[i].text);
	free(g.rows);
	return rc;
}

/* renameat inside the run, the names' own entries (a link is moved as
 * a link, never followed) */
static int move_in(struct fl_run *run, const char *from, const char *to,
		   char *err, size_t errlen)
{
	char shown[PATH_MAX + 32];

	if (renameat(run->fd, from, run->fd, to) == 0)
		return 0;
	snprintf(err, errlen, "%s: cannot rename to %s: %s",
		 shown_in(run, from, shown, sizeof(shown)), to,
		 strerror(errno));
	return -1;
}

int fl_rw_swap_hist(struct fl_run *run, char *err, size_t errlen)
{
	char shown[PATH_MAX + 32];

	if (fl_exists_at(run->fd, "hist.final")) {
		if (fl_exists_at(run->fd, "hist")) {
			/* hist.visits/ comes only from hist/: one left over
			 * beside both is a stale copy */
			if (fl_remove_at(run->fd, "hist.visits",
					 shown_in(run, "hist.visits", shown,
						  sizeof(shown)), err, errlen) ||
			    move_in(run, "hist", "hist.visits", err, errlen))
				return -1;
		}
		if (move_in(run, "hist.final", "hist", err, errlen))
			return -1;
	}
	if (fl_remove_at(run->fd, "hist.visits", shown_in(run, "hist.visits",
							  shown,
							  sizeof(shown)),
			 err, errlen))
		return -1;
	fsync(run->fd);
	return 0;
}

int fl_rw_drop_staged(struct fl_run *run, char *err, size_t errlen)
{
	/* cells.csv.final: what a futexlab before this one staged the rows
	 * in, before its commit renamed it over cells.csv */
	static const char *const staged[] = { "hist.final", "hist.visits",
					      "cells.csv.final" };
	char shown[PATH_MAX + 32];

	for (size_t i = 0; i < sizeof(staged) / sizeof(*staged); i++)
		if (fl_remove_at(run->fd, staged[i], shown_in(run, staged[i],
							      shown,
							      sizeof(shown)),
				 err, errlen))
			return -1;
	return 0;
}

static const char *const folders[] = { "hist", "bins" };

int fl_rw_check_folders(struct fl_run *run, char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof(folders) / sizeof(*folders); i++) {
		int fd = fl_open_folder(run->fd, folders[i], run->tmp, err,
					errlen);

		if (fd < 0 && errno != ENOENT)
			return -1;
		if (fd >= 0)
			close(fd);
	}
	return 0;
}

int fl_rw_make_folders(struct fl_run *run, char *err, size_t errlen)
{
	char shown[PATH_MAX + 32];

	for (size_t i = 0; i < sizeof(folders) / sizeof(*folders); i++) {
		int fd = fl_folder_at(run->fd, folders[i],
				      shown_in(run, folders[i], shown,
					       sizeof(shown)), err, errlen);

		if (fd < 0)
			return -1;
		close(fd);
	}
	return 0;
}

/* folder/cell-<i>.csv of the run read as a histogram; 0, or -1 with err
 * and errno (ENOENT: no such file or folder) */
static int load_cell_hist(struct fl_run *run, const char *folder,
			  unsigned long i, char *err, size_t errlen)
{
	static struct fl_hist h;
	char name[96], shown[PATH_MAX + 96];

	snprintf(name, sizeof(name), "%s/cell-%04lu.csv", folder, i);
	return fl_hist_load_at(run->fd, name, shown_in(run, name, shown,
							sizeof(shown)),
			       &h, err, errlen);
}

int fl_rw_visit_hist(struct fl_run *run, unsigned long cell, unsigned int rep,
		     char *err, size_t errlen)
{
	static struct fl_hist h;
	char name[64], shown[PATH_MAX + 64];

	fl_visit_hist_name(name, sizeof(name), cell, rep);
	if (fl_hist_load_at(run->fd, name, shown_in(run, name, shown,
						     sizeof(shown)),
			    &h, err, errlen) == 0)
		return 0;
	return errno == ENOENT ? 1 : -1;
}

int fl_rw_cell_hist(struct fl_run *run, unsigned long c, char *err,
		    size_t errlen)
{
	return load_cell_hist(run, fl_exists_at(run->fd, "hist.final") ?
			      "hist.final" : "hist", c, err, errlen);
}

int fl_rw_append_rows(struct fl_run *run, char *err, size_t errlen)
{
	char shown[PATH_MAX + 32];

	run->cells = fl_append_at(run->fd, "cells.csv",
				  shown_in(run, "cells.csv", shown,
					   sizeof(shown)), err, errlen);
	return run->cells ? 0 : -1;
}
