// SPDX-License-Identifier: GPL-2.0
/*
 * cells.csv read as untrusted data: every field the readers use is
 * checked before it is kept. Names that become file names or gnuplot
 * words (workload, backend, placement, options, counters) are held to a
 * strict character set; numbers must be finite and non-negative (Jain's
 * index at most 1); a cell index and a repetition appear once; rows of
 * one cell describe the same cell. The first bad field is reported as
 * FILE:LINE:COLUMN (COLUMN counts characters from 1) with its column's
 * name and value. Columns are found by their header names, so rows from
 * a later futexlab with more columns still read.
 */
#include "rundir/read.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rundir/csv.h"
#include "spec/workload.h"
#include "stats/stats.h"

#define MAX_FIELDS 64
/* the largest cell index a run directory may name */
#define MAX_CELL_INDEX 1000000ul

/* The columns read, named once. */
enum col {
	C_CELL, C_WORKLOAD, C_BACKEND, C_THREADS, C_PLACEMENT, C_OPTIONS,
	C_REP, C_STATUS, C_REASON, C_NOTE, C_OPS, C_P50, C_P90, C_P99,
	C_P999, C_JAIN, C_EXTRA, C_HIST, NCOLS,
	/* optional: runs written before they existed still read */
	C_DURATION = NCOLS, C_SAMPLE_EVERY, C_BUSY_START, C_BUSY_END,
	C_WAKE_SHORT, C_WAKE_LONG, NCOLS_ALL
};

static const char *const col_names[NCOLS_ALL] = {
	[C_CELL] = "cell", [C_WORKLOAD] = "workload",
	[C_BACKEND] = "backend", [C_THREADS] = "threads",
	[C_PLACEMENT] = "placement", [C_OPTIONS] = "options",
	[C_REP] = "rep", [C_STATUS] = "status", [C_REASON] = "reason",
	[C_NOTE] = "note", [C_OPS] = "ops_per_sec", [C_P50] = "lat_p50_ns",
	[C_P90] = "lat_p90_ns", [C_P99] = "lat_p99_ns",
	[C_P999] = "lat_p999_ns", [C_JAIN] = "jain", [C_EXTRA] = "extra",
	[C_HIST] = "hist", [C_DURATION] = "duration_ns",
	[C_SAMPLE_EVERY] = "sample_every",
	[C_BUSY_START] = "busy_loops_per_us_start",
	[C_BUSY_END] = "busy_loops_per_us_end",
	[C_WAKE_SHORT] = "idle_wake_short_ns",
	[C_WAKE_LONG] = "idle_wake_long_ns",
};

/* The figures kept per ok repetition, in the order of struct acc's v. */
static const enum col figure_cols[] = { C_OPS, C_P50, C_P90, C_P99, C_P999,
					C_JAIN };
#define NFIGS (sizeof(figure_cols) / sizeof(figure_cols[0]))

/* the ok repetitions' values while rows are read */
struct acc {
	double v[NFIGS][FL_RD_MAX_REPS];
	double extra[FL_RD_MAX_EXTRA][FL_RD_MAX_REPS];
	unsigned int nextra[FL_RD_MAX_EXTRA];
	uint64_t reps_seen[(FL_RD_MAX_REPS + 63) / 64];
};

/* One data line being read: where, and its fields. */
struct row {
	const char *file;
	int line;
	char *f[MAX_FIELDS];
	int at[MAX_FIELDS];		/* each field's first character */
	int col[NCOLS_ALL];		/* field index of each column, -1 for
					 * an optional one absent */
	char *err;
	size_t errlen;
};

static const char *const status_order[] = { "ok", "failed", "skipped",
					    "aborted" };

static int status_rank(const char *s)
{
	for (int i = 0; i < 4; i++)
		if (strcmp(s, status_order[i]) == 0)
			return i;
	return -1;
}

static const char *field(const struct row *w, enum col c)
{
	return w->f[w->col[c]];
}

/* "FILE:LINE:COLUMN: NAME 'VALUE' <why>"; always -1 */
static int __attribute__((format(printf, 3, 4)))
bad(struct row *w, enum col c, const char *why, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, why);
	vsnprintf(what, sizeof(what), why, ap);
	va_end(ap);
	snprintf(w->err, w->errlen, "%s:%d:%d: %s '%.80s' %s", w->file,
		 w->line, w->at[w->col[c]], col_names[c], field(w, c), what);
	return -1;
}

/* Letters, digits and the characters in extra, at most max of them. */
static int only_chars(const char *s, const char *extra, size_t max)
{
	if (strlen(s) > max)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr(extra, *s)))
			return 0;
	return 1;
}

/* What may become part of a file name: never "", "." or "..". */
static int is_name(const char *s)
{
	return *s && *s != '.' && only_chars(s, "-_.", 63);
}

static int no_controls(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

static int parse_index(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	if (*s < '0' || *s > '9' || strlen(s) > 9)
		return -1;
	*v = strtoul(s, &end, 10);
	return *end || *v > max ? -1 : 0;
}

/* A finite number >= 0, the whole text. */
static int parse_figure(const char *s, size_t len, double *v)
{
	char buf[64], *end;

	if (!len || len >= sizeof(buf) || !strchr("0123456789.", *s))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	*v = strtod(buf, &end);
	return *end || !isfinite(*v) || *v < 0 ? -1 : 0;
}

/* "name=value;..." with names of [a-z0-9_-] and values checked by ok. */
static int pairs_ok(const char *text, int (*ok)(const char *v, int len))
{
	struct fl_rd_pair p;

	if (strlen(text) >= sizeof(((struct fl_rd_cell *)0)->options))
		return 0;
	for (const char *s = text; fl_rd_next_pair(&s, &p) == 0;) {
		char name[64];

		if (!p.value || p.name_len < 1 ||
		    p.name_len >= (int)sizeof(name))
			return 0;
		snprintf(name, sizeof(name), "%.*s", p.name_len, p.name);
		if (!*name || !only_chars(name, "-_", 47) ||
		    !ok(p.value, p.value_len))
			return 0;
	}
	return 1;
}

static int option_value_ok(const char *v, int len)
{
	char buf[128];

	if (len >= (int)sizeof(buf))
		return 0;
	snprintf(buf, sizeof(buf), "%.*s", len, v);
	return only_chars(buf, "-_.+:", 127);
}

static int counter_value_ok(const char *v, int len)
{
	double d;

	return parse_figure(v, (size_t)len, &d) == 0;
}

/* hist/cell-N.csv, or empty */
static int hist_name_ok(const char *s)
{
	size_t d;

	if (!*s)
		return 1;
	if (strncmp(s, "hist/cell-", 10) != 0)
		return 0;
	d = strspn(s + 10, "0123456789");
	return d >= 1 && d <= 9 && strcmp(s + 10 + d, ".csv") == 0;
}

/* The fields that describe the cell and the row's place in it. */
static int check_identity(struct row *w, unsigned long *idx,
			  unsigned long *rep)
{
	unsigned long threads;

	if (parse_index(field(w, C_CELL), MAX_CELL_INDEX, idx))
		return bad(w, C_CELL, "is not a cell index from 0 to %lu",
			   MAX_CELL_INDEX);
	if (!is_name(field(w, C_WORKLOAD)))
		return bad(w, C_WORKLOAD, "is not a name (letters, digits, "
			   "'-', '_', '.')");
	if (!is_name(field(w, C_BACKEND)))
		return bad(w, C_BACKEND, "is not a name (letters, digits, "
			   "'-', '_', '.')");
	if (parse_index(field(w, C_THREADS), FL_MAX_THREADS, &threads) ||
	    threads < 1)
		return bad(w, C_THREADS, "is not a thread count from 1 to %d",
			   FL_MAX_THREADS);
	if (!*field(w, C_PLACEMENT) ||
	    !only_chars(field(w, C_PLACEMENT), ",-", 63))
		return bad(w, C_PLACEMENT, "is not compact, scatter or a CPU "
			   "list");
	if (!pairs_ok(field(w, C_OPTIONS), option_value_ok))
		return bad(w, C_OPTIONS, "is not name=value;... of letters, "
			   "digits, '-', '_', '.', '+', ':'");
	if (parse_index(field(w, C_REP), FL_RD_MAX_REPS - 1, rep))
		return bad(w, C_REP, "is not a repetition from 0 to %d",
			   FL_RD_MAX_REPS - 1);
	if (status_rank(field(w, C_STATUS)) < 0)
		return bad(w, C_STATUS, "is not ok, failed, skipped or "
			   "aborted");
	if (!no_controls(field(w, C_REASON)))
		return bad(w, C_REASON, "holds a control character");
	if (!no_controls(field(w, C_NOTE)))
		return bad(w, C_NOTE, "holds a control character");
	if (!hist_name_ok(field(w, C_HIST)))
		return bad(w, C_HIST, "is not hist/cell-N.csv");
	return 0;
}

/* The row's figures into v[], and the counters' text checked. */
static int check_figures(struct row *w, double v[NFIGS])
{
	for (size_t i = 0; i < NFIGS; i++) {
		const char *s = field(w, figure_cols[i]);

		if (parse_figure(s, strlen(s), &v[i]))
			return bad(w, figure_cols[i], "is not a finite "
				   "number >= 0");
	}
	if (v[NFIGS - 1] > 1)
		return bad(w, C_JAIN, "is above 1, the most Jain's index "
			   "can be");
	if (!pairs_ok(field(w, C_EXTRA), counter_value_ok))
		return bad(w, C_EXTRA, "is not name=number;... with finite "
			   "numbers >= 0");
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
		/* checked by check_figures; strtod stops at the ';' */
		if (a->nextra[i] < FL_RD_MAX_REPS)
			a->extra[i][a->nextra[i]++] = strtod(x.value, NULL);
	}
}

/* workload|backend|threads|placement|options, as fl_rd_find() takes */
static void key_of(const struct row *w, char *buf, size_t len)
{
	snprintf(buf, len, "%s|%s|%lu|%s|%s", field(w, C_WORKLOAD),
		 field(w, C_BACKEND), strtoul(field(w, C_THREADS), NULL, 10),
		 field(w, C_PLACEMENT), field(w, C_OPTIONS));
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
	c->index = idx;
	snprintf(c->workload, sizeof(c->workload), "%s", field(w, C_WORKLOAD));
	snprintf(c->backend, sizeof(c->backend), "%s", field(w, C_BACKEND));
	c->threads = (unsigned int)strtoul(field(w, C_THREADS), NULL, 10);
	snprintf(c->placement, sizeof(c->placement), "%s",
		 field(w, C_PLACEMENT));
	snprintf(c->options, sizeof(c->options), "%s", field(w, C_OPTIONS));
	key_of(w, c->key, sizeof(c->key));
	c->duration_ns = w->col[C_DURATION] < 0 ? 0 :
			 strtoull(field(w, C_DURATION), NULL, 10);
	/* what was asked, not what the kernel gave: futex_hash_slots is
	 * the size the kernel chose (16 on 7.2, none on 6.12), and two
	 * kernels must stay comparable; a --hash-slots that differs is
	 * warned about with the settings */
	snprintf(c->setup_key, sizeof(c->setup_key), "%s|%llu|%s", c->key,
		 (unsigned long long)c->duration_ns,
		 w->col[C_SAMPLE_EVERY] < 0 ? "" : field(w, C_SAMPLE_EVERY));
	snprintf(c->status, sizeof(c->status), "ok");
	snprintf(c->hist, sizeof(c->hist), "%s", field(w, C_HIST));
	p->pos[idx] = (long)r->ncells++;
	return c;
}

/* A busy-loop speed or idle-wake column of the row (positive), or NaN */
static double positive_or_nan(const struct row *w, int col)
{
	double v;

	if (w->col[col] < 0)
		return NAN;
	v = strtod(field(w, col), NULL);
	return v > 0.0 && isfinite(v) ? v : NAN;
}

/* One checked data row into its cell. 0, or -1 with err. */
static int add_row(struct cells_parse *p, struct row *w)
{
	unsigned long idx, rep;
	double v[NFIGS];
	char key[sizeof(((struct fl_rd_cell *)0)->key)];

	if (check_identity(w, &idx, &rep) || check_figures(w, v))
		return -1;
	struct fl_rd_cell *c = idx < p->npos && p->pos[idx] >= 0 ?
			       &p->r->cells[p->pos[idx]] : NULL;

	if (!c && !(c = new_cell(p, w, idx))) {
		snprintf(w->err, w->errlen, "%s: out of memory", w->file);
		return -1;
	}
	struct acc *a = &p->acc[c - p->r->cells];

	key_of(w, key, sizeof(key));
	if (strcmp(key, c->key) || strcmp(field(w, C_HIST), c->hist))
		return bad(w, C_CELL, "describes another cell than the "
			   "earlier rows of that cell (%.60s)", c->key);
	if (a->reps_seen[rep / 64] & (1ull << (rep % 64)))
		return bad(w, C_REP, "is the second row of repetition %lu of "
			   "cell %lu", rep, idx);
	a->reps_seen[rep / 64] |= 1ull << (rep % 64);
	c->nrows++;
	if (status_rank(field(w, C_STATUS)) > status_rank(c->status)) {
		snprintf(c->status, sizeof(c->status), "%s",
			 field(w, C_STATUS));
		snprintf(c->reason, sizeof(c->reason), "%s",
			 field(w, C_REASON));
	}
	if (*field(w, C_NOTE))
		snprintf(c->note, sizeof(c->note), "%s", field(w, C_NOTE));
	if (strcmp(field(w, C_STATUS), "ok") != 0)
		return 0;
	for (size_t i = 0; i < NFIGS; i++)
		a->v[i][c->nok] = v[i];
	c->ok_rep[c->nok] = (unsigned int)rep;
	c->busy[c->nok][0] = positive_or_nan(w, C_BUSY_START);
	c->busy[c->nok][1] = positive_or_nan(w, C_BUSY_END);
	c->idle_wake[c->nok][0] = positive_or_nan(w, C_WAKE_SHORT);
	c->idle_wake[c->nok][1] = positive_or_nan(w, C_WAKE_LONG);
	c->nok++;
	add_extra(c, a, field(w, C_EXTRA));
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
	for (int c = 0; c < NCOLS_ALL; c++) {
		w->col[c] = -1;
		for (int i = 0; i < nf; i++)
			if (strcmp(w->f[i], col_names[c]) == 0)
				w->col[c] = i;
		if (w->col[c] < 0 && c < NCOLS) {
			snprintf(w->err, w->errlen, "%s:1: no column '%s'",
				 w->file, col_names[c]);
			return -1;
		}
	}
	return nf;
}

int fl_rd_parse_cells(struct fl_rd_run *r, const char *file, char *text,
		      size_t len, char *err, size_t errlen)
{
	struct cells_parse p = { .r = r };
	static struct row w;
	char *line = text, *end = text + len;
	int nf = -1, rc = -1;

	memset(&w, 0, sizeof(w));
	w.file = file;
	w.err = err;
	w.errlen = errlen;
	if (!len || memchr(text, '\0', len)) {
		snprintf(err, errlen, "%s: %s", file, len ? "a NUL byte: not "
			 "a CSV file" : "empty");
		return -1;
	}
	while (line < end) {
		char *nl = memchr(line, '\n', (size_t)(end - line));

		w.line++;
		if (!nl && w.line > 1)
			break;		/* a torn last line of a killed run */
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
		} else if (add_row(&p, &w)) {
			goto out;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	summarise(&p);
	rc = 0;
out:
	free(p.acc);
	free(p.pos);
	return rc;
}
