// SPDX-License-Identifier: GPL-2.0
/*
 * cells.csv read as untrusted data: every field is checked against its
 * column (columns.h) before it is kept; a cell index and a repetition
 * appear once; rows of one cell have its first row's setup (setup_cols,
 * duration and sampling rate included); the header names
 * no column twice; the last line ends with a newline (a torn one is an
 * error, except in a partial run being resumed, which drops it). The
 * first bad field is reported as FILE:LINE:COLUMN (COLUMN counts
 * characters from 1) with its column's name and value. Columns are found
 * by their header names, so rows from a later futexlab with more columns
 * still read.
 */
#include "rundir/read.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/result.h"
#include "rundir/columns.h"
#include "rundir/csv.h"
#include "stats/stats.h"

#define MAX_FIELDS 64

/* The figures kept per ok repetition, in the order of struct acc's v. */
static const enum fl_col figure_cols[] = { FL_COL_OPS_PER_SEC, FL_COL_P50,
					   FL_COL_P90, FL_COL_P99,
					   FL_COL_P999, FL_COL_JAIN };
#define NFIGS (sizeof(figure_cols) / sizeof(figure_cols[0]))

/* The columns that say which cell a row is of, as compare matches cells
 * (setup_key) and the histogram it adds to: every row of a cell has its
 * first row's, byte for byte, as the writer writes them. */
static const enum fl_col setup_cols[] = {
	FL_COL_WORKLOAD, FL_COL_BACKEND, FL_COL_THREADS, FL_COL_PLACEMENT,
	FL_COL_OPTIONS, FL_COL_DURATION, FL_COL_SAMPLE_EVERY, FL_COL_HIST,
};
#define NSETUP (sizeof(setup_cols) / sizeof(setup_cols[0]))

/* the ok repetitions' values while rows are read */
struct acc {
	double v[NFIGS][FL_RD_MAX_REPS];
	double extra[FL_RD_MAX_EXTRA][FL_RD_MAX_REPS];
	unsigned int nextra[FL_RD_MAX_EXTRA];
	uint64_t reps_seen[(FL_RD_MAX_REPS + 63) / 64];
	double note_moved;	/* the busy loop's move in the note's row */
	/* the first row's setup fields, in the text being parsed (which
	 * outlives the parse) */
	const char *setup[NSETUP];
};

/* One data line being read: where, and its fields. */
struct row {
	const char *file;
	int line;
	char *f[MAX_FIELDS];
	int at[MAX_FIELDS];		/* each field's first character */
	int col[FL_NCOLS];		/* field index of each column, -1 for
					 * an optional one absent */
	char *err;
	size_t errlen;
};

static const char *field(const struct row *w, enum fl_col c)
{
	return w->col[c] < 0 ? "" : w->f[w->col[c]];
}

/* "FILE:LINE:COLUMN: NAME 'VALUE' <why>"; always -1 */
static int __attribute__((format(printf, 3, 4)))
bad(struct row *w, enum fl_col c, const char *why, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, why);
	vsnprintf(what, sizeof(what), why, ap);
	va_end(ap);
	snprintf(w->err, w->errlen, "%s:%d:%d: %s '%.80s' %s", w->file,
		 w->line, w->at[w->col[c]], fl_col_name(c), field(w, c), what);
	return -1;
}

/* Every field the header names, checked by its column's rule; the cell
 * index, the repetition and the figures into idx, rep and v. */
static int check_row(struct row *w, unsigned long *idx, unsigned long *rep,
		     double v[NFIGS])
{
	int ok = strcmp(field(w, FL_COL_STATUS), "ok") == 0;
	char why[160];

	for (int c = 0; c < FL_NCOLS; c++)
		if (w->col[c] >= 0 &&
		    fl_col_check((enum fl_col)c, field(w, c), ok, why,
				 sizeof(why)))
			return bad(w, (enum fl_col)c, "%s", why);
	/* each thread's CPU: a thread without one is a cut or edited row */
	unsigned long threads = strtoul(field(w, FL_COL_THREADS), NULL, 10);
	unsigned long cpus = fl_col_cpus_count(field(w, FL_COL_CPUS));

	if (w->col[FL_COL_CPUS] >= 0 && cpus < threads)
		return bad(w, FL_COL_CPUS, "lists %lu CPU%s for %lu threads: "
			   "each thread has one", cpus, cpus == 1 ? "" : "s",
			   threads);
	*idx = strtoul(field(w, FL_COL_CELL), NULL, 10);
	*rep = strtoul(field(w, FL_COL_REP), NULL, 10);
	for (size_t i = 0; i < NFIGS; i++)
		v[i] = strtod(field(w, figure_cols[i]), NULL);
	return 0;
}

static void fig_of(const double *v, unsigned int n, struct fl_rd_fig *f)
{
	memset(f, 0, sizeof(*f));
	if (!n)
		return;
	struct fl_ci ci;

	f->med = fl_median(v, n);
	f->has_ci = fl_median_ci(v, n, 0.95, &ci) == 0;
	f->lo = f->has_ci ? ci.lo : f->med;
	f->hi = f->has_ci ? ci.hi : f->med;
}

static void add_extra(struct fl_rd_cell *c, struct acc *a,
		      const char *extra)
{
	struct fl_rd_pair x;

	for (const char *p = extra; fl_rd_next_pair(&p, &x) == 0;) {
		unsigned int i;

		for (i = 0; i < c->nextra; i++)
			if (fl_rd_pair_is(&x, c->extra_name[i]))
				break;
		if (i == c->nextra) {
			if (c->nextra == FL_RD_MAX_EXTRA)
				continue;
			snprintf(c->extra_name[c->nextra++],
				 sizeof(c->extra_name[0]), "%.*s", x.name_len,
				 x.name);
		}
		/* checked by check_row; strtod stops at the ';' */
		if (a->nextra[i] < FL_RD_MAX_REPS)
			a->extra[i][a->nextra[i]++] = strtod(x.value, NULL);
	}
}

/* workload|backend|threads|placement|options, as fl_rd_find() takes */
static void key_of(const struct row *w, char *buf, size_t len)
{
	snprintf(buf, len, "%s|%s|%lu|%s|%s", field(w, FL_COL_WORKLOAD),
		 field(w, FL_COL_BACKEND), strtoul(field(w, FL_COL_THREADS), NULL, 10),
		 field(w, FL_COL_PLACEMENT), field(w, FL_COL_OPTIONS));
}

/* The parse in progress: cells, their accumulators and the index map. */
struct cells_parse {
	struct fl_rd_run *r;
	struct acc *acc;
	size_t ncap;
	long *pos;		/* cell index -> position in r->cells */
	size_t npos;
};

static struct fl_rd_cell *new_cell(struct cells_parse *p, struct row *w,
				   unsigned long idx)
{
	struct fl_rd_run *r = p->r;

	if (idx >= p->npos) {
		size_t nn = idx + 1024;
		long *q = realloc(p->pos, nn * sizeof(*q));

		if (!q)
			return NULL;
		for (size_t i = p->npos; i < nn; i++)
			q[i] = -1;
		p->pos = q;
		p->npos = nn;
	}
	if (r->ncells == p->ncap) {
		size_t cap = p->ncap ? p->ncap * 2 : 64;
		void *c = realloc(r->cells, cap * sizeof(*r->cells));

		if (c)
			r->cells = c;
		void *a = c ? realloc(p->acc, cap * sizeof(*p->acc)) : NULL;

		if (!a)
			return NULL;
		p->acc = a;
		p->ncap = cap;
	}
	struct fl_rd_cell *c = &r->cells[r->ncells];

	memset(c, 0, sizeof(*c));
	memset(&p->acc[r->ncells], 0, sizeof(*p->acc));
	for (size_t i = 0; i < NSETUP; i++)
		p->acc[r->ncells].setup[i] = field(w, setup_cols[i]);
	c->index = idx;
	snprintf(c->workload, sizeof(c->workload), "%s", field(w, FL_COL_WORKLOAD));
	snprintf(c->backend, sizeof(c->backend), "%s", field(w, FL_COL_BACKEND));
	c->threads = (unsigned int)strtoul(field(w, FL_COL_THREADS), NULL, 10);
	snprintf(c->placement, sizeof(c->placement), "%s",
		 field(w, FL_COL_PLACEMENT));
	snprintf(c->options, sizeof(c->options), "%s", field(w, FL_COL_OPTIONS));
	key_of(w, c->key, sizeof(c->key));
	c->duration_ns = w->col[FL_COL_DURATION] < 0 ? 0 :
			 strtoull(field(w, FL_COL_DURATION), NULL, 10);
	/* what was asked, not what the kernel gave: futex_hash_slots is
	 * the size the kernel chose (16 on 7.2, none on 6.12), and two
	 * kernels must stay comparable; a --hash-slots that differs is
	 * warned about with the settings */
	snprintf(c->setup_key, sizeof(c->setup_key), "%s|%llu|%s", c->key,
		 (unsigned long long)c->duration_ns,
		 w->col[FL_COL_SAMPLE_EVERY] < 0 ? "" : field(w, FL_COL_SAMPLE_EVERY));
	snprintf(c->status, sizeof(c->status), "ok");
	snprintf(c->hist, sizeof(c->hist), "%s", field(w, FL_COL_HIST));
	p->pos[idx] = (long)r->ncells++;
	return c;
}

/* A busy-loop speed or idle-wake column of the row (checked: a whole
 * number, or empty for the idle wake), or NaN where the run has none,
 * 0 says it was not taken or it is empty (not probed) */
static double taken_or_nan(const struct row *w, enum fl_col col)
{
	double v;

	if (w->col[col] < 0)
		return NAN;
	v = strtod(field(w, col), NULL);
	return v > 0.0 ? v : NAN;
}

/* The row's kernel counts (checked: empty or a whole number): a have
 * bit for each that is there. */
static void read_counts(const struct row *w, struct fl_rep_counts *k)
{
	memset(k, 0, sizeof(*k));
	for (int i = 0; i < FL_NCOUNT_COLS; i++) {
		const struct fl_count_col *c = &fl_count_cols[i];
		const char *s = field(w, c->col);

		if (!*s)
			continue;
		*(uint64_t *)((char *)k + c->offset) = strtoull(s, NULL, 10);
		/* cpu_ns's bit is set by its three columns together */
		if (c->col == FL_COL_CPU_NS || c->have != FL_HAVE_CPU)
			k->have |= c->have;
	}
	if (*field(w, FL_COL_CONTAMINATED)) {
		k->contaminated = strtoul(field(w, FL_COL_CONTAMINATED), NULL,
					   10) == 1;
		k->have |= FL_HAVE_CONTAMINATION;
	}
}

/* The cell's note: its row's whose busy loop drifted most, else its last
 * row's that says anything (base/result.h: fl_busy_moved). */
static void keep_note(struct fl_rd_cell *c, struct acc *a,
		      const struct row *w)
{
	double moved = fl_busy_moved(taken_or_nan(w, FL_COL_BUSY_START),
				     taken_or_nan(w, FL_COL_BUSY_END));

	if (!*field(w, FL_COL_NOTE))
		return;
	if (moved > FL_BUSY_DRIFT_MAX) {
		if (moved <= a->note_moved)
			return;	/* an earlier row drifted as far */
		a->note_moved = moved;
	} else if (a->note_moved > 0) {
		return;		/* a row that drifted has the note */
	}
	snprintf(c->note, sizeof(c->note), "%s", field(w, FL_COL_NOTE));
}

/* One checked data row into its cell. 0, or -1 with err. */
static int add_row(struct cells_parse *p, struct row *w)
{
	unsigned long idx = 0, rep = 0;
	double v[NFIGS];

	if (check_row(w, &idx, &rep, v))
		return -1;
	struct fl_rd_cell *c = idx < p->npos && p->pos[idx] >= 0 ?
			       &p->r->cells[p->pos[idx]] : NULL;

	if (!c && !(c = new_cell(p, w, idx))) {
		snprintf(w->err, w->errlen, "%s: out of memory", w->file);
		return -1;
	}
	struct acc *a = &p->acc[c - p->r->cells];

	for (size_t i = 0; i < NSETUP; i++)
		if (strcmp(field(w, setup_cols[i]), a->setup[i]))
			return bad(w, setup_cols[i], "differs from the first "
				   "row of cell %lu ('%.40s'): the rows of a "
				   "cell are of one setup", idx, a->setup[i]);
	if (a->reps_seen[rep / 64] & (1ull << (rep % 64)))
		return bad(w, FL_COL_REP, "is the second row of repetition %lu of "
			   "cell %lu", rep, idx);
	a->reps_seen[rep / 64] |= 1ull << (rep % 64);
	c->nrows++;
	/* what a repetition's bins must add up to (read_bins.c) */
	c->rep_ops[rep] = w->col[FL_COL_OPS] < 0 ? UINT64_MAX :
			  strtoull(field(w, FL_COL_OPS), NULL, 10);
	if (fl_col_status_rank(field(w, FL_COL_STATUS)) > fl_col_status_rank(c->status)) {
		snprintf(c->status, sizeof(c->status), "%s",
			 field(w, FL_COL_STATUS));
		snprintf(c->reason, sizeof(c->reason), "%s",
			 field(w, FL_COL_REASON));
	}
	keep_note(c, a, w);
	if (strcmp(field(w, FL_COL_STATUS), "ok") != 0)
		return 0;
	for (size_t i = 0; i < NFIGS; i++)
		a->v[i][c->nok] = v[i];
	c->ok_rep[c->nok] = (unsigned int)rep;
	c->busy[c->nok][0] = taken_or_nan(w, FL_COL_BUSY_START);
	c->busy[c->nok][1] = taken_or_nan(w, FL_COL_BUSY_END);
	c->idle_wake[c->nok][0] = taken_or_nan(w, FL_COL_WAKE_SHORT);
	c->idle_wake[c->nok][1] = taken_or_nan(w, FL_COL_WAKE_LONG);
	read_counts(w, &c->counts[c->nok]);
	c->ncontaminated += c->counts[c->nok].contaminated;
	c->nok++;
	add_extra(c, a, field(w, FL_COL_EXTRA));
	return 0;
}

static void summarise(struct cells_parse *p)
{
	struct fl_rd_run *r = p->r;

	for (unsigned long i = 0; i < r->ncells; i++) {
		struct fl_rd_cell *c = &r->cells[i];
		struct acc *a = &p->acc[i];
		struct fl_rd_fig *figs[NFIGS] = { &c->ops_per_sec, &c->p50,
			&c->p90, &c->p99, &c->p999, &c->jain };

		memcpy(c->ops, a->v[0], c->nok * sizeof(double));
		memcpy(c->lat_p50, a->v[1], c->nok * sizeof(double));
		for (size_t f = 0; f < NFIGS; f++)
			fig_of(a->v[f], c->nok, figs[f]);
		for (unsigned int e = 0; e < c->nextra; e++)
			fig_of(a->extra[e], a->nextra[e], &c->extra[e]);
	}
}

/* The header's columns into w->col; the field count, or -1 with err. */
static int read_header(struct row *w, char *line)
{
	int nf = fl_csv_split_at(line, w->f, w->at, MAX_FIELDS);

	if (nf < 0) {
		snprintf(w->err, w->errlen, "%s:1: not a CSV header",
			 w->file);
		return -1;
	}
	for (int i = 0; i < nf; i++) {
		for (int j = 0; j < i; j++) {
			if (strcmp(w->f[i], w->f[j]) == 0) {
				/* which of the two would the figures be? */
				snprintf(w->err, w->errlen, "%s:1:%d: column "
					 "'%.60s' twice (first at column %d)",
					 w->file, w->at[i], w->f[i], w->at[j]);
				return -1;
			}
		}
	}
	for (int c = 0; c < FL_NCOLS; c++) {
		w->col[c] = -1;
		for (int i = 0; i < nf; i++)
			if (strcmp(w->f[i], fl_col_name((enum fl_col)c)) == 0)
				w->col[c] = i;
		if (w->col[c] < 0 && fl_col_required((enum fl_col)c)) {
			snprintf(w->err, w->errlen, "%s:1: no column '%s'",
				 w->file, fl_col_name((enum fl_col)c));
			return -1;
		}
	}
	return nf;
}

/* Hand the checked row to the caller's fn, as it was in the file. */
static int pass_on(struct row *w, const char *raw, size_t raw_len,
		   fl_rd_row_fn fn, void *ctx)
{
	struct fl_rd_row row = {
		.file = w->file, .line = w->line,
		.cell = strtoul(field(w, FL_COL_CELL), NULL, 10),
		.rep = (unsigned int)strtoul(field(w, FL_COL_REP), NULL, 10),
		.field = w->f, .col = w->col, .text = raw,
		.text_len = raw_len,
	};

	return fn(ctx, &row, w->err, w->errlen);
}

const char *fl_rd_row_field(const struct fl_rd_row *row, enum fl_col c)
{
	return row->col[c] < 0 ? "" : row->field[row->col[c]];
}

int fl_rd_row_hist_is(const struct fl_rd_row *row, unsigned long i)
{
	char want[64];

	/* as write.c names it */
	snprintf(want, sizeof(want), "hist/cell-%04lu.csv", i);
	return strcmp(fl_rd_row_field(row, FL_COL_HIST), want) == 0;
}

int fl_rd_scan_cells(struct fl_rd_run *r, const char *file, char *text,
		     size_t len, int flags, int *torn_line, fl_rd_row_fn fn,
		     void *ctx, char *err, size_t errlen)
{
	struct cells_parse p = { .r = r };
	static struct row w;
	char *line = text, *end = text + len, *raw = NULL;
	int nf = -1, rc = -1;

	memset(&w, 0, sizeof(w));
	w.file = file;
	w.err = err;
	w.errlen = errlen;
	if (torn_line)
		*torn_line = 0;
	if (!len || memchr(text, '\0', len)) {
		snprintf(err, errlen, "%s: %s", file, len ? "a NUL byte: not "
			 "a CSV file" : "empty");
		return -1;
	}
	while (line < end) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t n = nl ? (size_t)(nl - line) + 1 : (size_t)(end - line);

		w.line++;
		if (!nl && w.line > 1) {
			/* written by a kill: a partial's resume drops it and
			 * runs that visit again; a finished run never has
			 * one, so it was cut or edited */
			if (flags & FL_RD_TORN_OK) {
				if (torn_line)
					*torn_line = w.line;
				break;
			}
			snprintf(err, errlen, "%s:%d: a torn last line (no "
				 "newline at its end): the file was cut short",
				 file, w.line);
			goto out;
		}
		if (fn && w.line > 1) {
			char *q = realloc(raw, n + 1);

			if (!q) {
				snprintf(err, errlen, "%s: out of memory", file);
				goto out;
			}
			raw = q;
			memcpy(raw, line, n);
			raw[n] = '\0';
		}
		if (nl)
			*nl = '\0';
		if (w.line == 1) {
			if ((nf = read_header(&w, line)) < 0)
				goto out;
		} else if (fl_csv_split_at(line, w.f, w.at, MAX_FIELDS) !=
			   nf) {
			snprintf(err, errlen, "%s:%d: expected %d fields", file,
				 w.line, nf);
			goto out;
		} else if (add_row(&p, &w) ||
			   (fn && pass_on(&w, raw, n, fn, ctx))) {
			goto out;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	summarise(&p);
	rc = 0;
out:
	free(raw);
	free(p.acc);
	free(p.pos);
	return rc;
}

int fl_rd_parse_cells(struct fl_rd_run *r, const char *file, char *text,
		      size_t len, char *err, size_t errlen)
{
	return fl_rd_scan_cells(r, file, text, len, 0, NULL, NULL, NULL, err,
				errlen);
}
