// SPDX-License-Identifier: GPL-2.0
/* Reading meta.json, cells.csv and histograms of a run directory. */
#include "rundir/read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rundir/csv.h"
#include "stats/stats.h"

#define MAX_FIELDS 64

enum col {
	C_CELL, C_WORKLOAD, C_BACKEND, C_THREADS, C_PLACEMENT, C_OPTIONS,
	C_REP, C_STATUS, C_REASON, C_NOTE, C_OPS, C_P50, C_P90, C_P99,
	C_P999, C_JAIN, C_EXTRA, C_HIST, NCOLS
};

static const char *const col_names[NCOLS] = {
	"cell", "workload", "backend", "threads", "placement", "options",
	"rep", "status", "reason", "note", "ops_per_sec", "lat_p50_ns",
	"lat_p90_ns", "lat_p99_ns", "lat_p999_ns", "jain", "extra", "hist",
};

/* the ok repetitions' values while rows are read */
struct acc {
	double v[6][FL_RD_MAX_REPS];	/* ops, p50, p90, p99, p999, jain */
	double extra[FL_RD_MAX_EXTRA][FL_RD_MAX_REPS];
	unsigned int nextra[FL_RD_MAX_EXTRA];
};

static const char *const status_order[] = { "ok", "failed", "skipped",
					    "aborted" };

static int status_rank(const char *s)
{
	for (int i = 0; i < 4; i++)
		if (strcmp(s, status_order[i]) == 0)
			return i;
	return 1;	/* unknown: treat as a failure, never as ok */
}

static void fig_of(const double *v, unsigned int n, struct fl_rd_fig *f)
{
	memset(f, 0, sizeof(*f));
	if (!n)
		return;
	f->med = fl_median(v, n);
	f->min = f->max = v[0];
	for (unsigned int i = 1; i < n; i++) {
		if (v[i] < f->min)
			f->min = v[i];
		if (v[i] > f->max)
			f->max = v[i];
	}
}

/* Does the pair have this name? */
static int pair_is(const struct fl_rd_pair *pair, const char *name)
{
	return strlen(name) == (size_t)pair->name_len &&
	       strncmp(pair->name, name, (size_t)pair->name_len) == 0;
}

static void add_extra(struct fl_rd_cell *c, struct acc *a,
		      const char *extra)
{
	struct fl_rd_pair x;

	for (const char *p = extra; fl_rd_next_pair(&p, &x) == 0;) {
		unsigned int i;

		if (!x.value)
			continue;
		for (i = 0; i < c->nextra; i++)
			if (pair_is(&x, c->extra_name[i]))
				break;
		if (i == c->nextra) {
			if (c->nextra == FL_RD_MAX_EXTRA)
				continue;
			snprintf(c->extra_name[c->nextra++],
				 sizeof(c->extra_name[0]), "%.*s", x.name_len,
				 x.name);
		}
		/* strtod stops at the ';' after the value */
		if (a->nextra[i] < FL_RD_MAX_REPS)
			a->extra[i][a->nextra[i]++] = strtod(x.value, NULL);
	}
}

static int read_meta(struct fl_rd_run *r)
{
	char path[PATH_MAX + 32];
	json_error_t jerr;

	snprintf(path, sizeof(path), "%s/meta.json", r->dir);
	r->meta = json_load_file(path, 0, &jerr);
	return r->meta ? 0 : -1;
}

int fl_rd_open(const char *dir, struct fl_rd_run *r, char *err,
	       size_t errlen)
{
	char path[PATH_MAX + 32], *line = NULL, *f[MAX_FIELDS];
	int col[NCOLS], nf, lineno = 1;
	size_t cap = 0, ncap = 0;
	struct acc *acc = NULL;
	long *pos = NULL;	/* cell index -> position in r->cells */
	size_t npos = 0;
	ssize_t n;
	FILE *in;

	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	for (size_t l = strlen(r->dir); l > 1 && r->dir[l - 1] == '/'; l--)
		r->dir[l - 1] = '\0';
	const char *slash = strrchr(r->dir, '/');

	snprintf(r->name, sizeof(r->name), "%s", slash ? slash + 1 : r->dir);
	snprintf(path, sizeof(path), "%s/cells.csv", r->dir);
	in = fopen(path, "r");
	if (!in) {
		snprintf(err, errlen, "%s: not a run directory (cannot read "
			 "%s: %s)", dir, path, strerror(errno));
		return -1;
	}
	read_meta(r);
	if ((n = getline(&line, &cap, in)) <= 0) {
		snprintf(err, errlen, "%s: empty", path);
		goto fail;
	}
	nf = fl_csv_split(line, f, MAX_FIELDS);
	for (int c = 0; c < NCOLS; c++) {
		col[c] = -1;
		for (int i = 0; i < nf; i++)
			if (strcmp(f[i], col_names[c]) == 0)
				col[c] = i;
		if (col[c] < 0) {
			snprintf(err, errlen, "%s:1: no column '%s'", path,
				 col_names[c]);
			goto fail;
		}
	}
	while ((n = getline(&line, &cap, in)) > 0) {
		lineno++;
		if (line[n - 1] != '\n')
			break;	/* a torn last line of a killed run */
		if (fl_csv_split(line, f, MAX_FIELDS) != nf) {
			snprintf(err, errlen, "%s:%d: expected %d fields",
				 path, lineno, nf);
			goto fail;
		}
		char *end;
		unsigned long idx = strtoul(f[col[C_CELL]], &end, 10);

		if (*end || idx > 10000000ul) {
			snprintf(err, errlen, "%s:%d: bad cell index '%s'",
				 path, lineno, f[col[C_CELL]]);
			goto fail;
		}
		if (idx >= npos) {
			size_t nn = idx + 1024;
			long *p = realloc(pos, nn * sizeof(*pos));

			if (!p)
				goto oom;
			for (size_t i = npos; i < nn; i++)
				p[i] = -1;
			pos = p;
			npos = nn;
		}
		if (pos[idx] < 0) {
			if (r->ncells == ncap) {
				ncap = ncap ? ncap * 2 : 64;
				void *c = realloc(r->cells,
						  ncap * sizeof(*r->cells));
				void *a = realloc(acc, ncap * sizeof(*acc));

				if (c)
					r->cells = c;
				if (a)
					acc = a;
				if (!c || !a)
					goto oom;
			}
			struct fl_rd_cell *c = &r->cells[r->ncells];

			memset(c, 0, sizeof(*c));
			memset(&acc[r->ncells], 0, sizeof(*acc));
			c->index = idx;
			snprintf(c->workload, sizeof(c->workload), "%s",
				 f[col[C_WORKLOAD]]);
			snprintf(c->backend, sizeof(c->backend), "%s",
				 f[col[C_BACKEND]]);
			c->threads = (unsigned int)strtoul(f[col[C_THREADS]],
							   NULL, 10);
			snprintf(c->placement, sizeof(c->placement), "%s",
				 f[col[C_PLACEMENT]]);
			snprintf(c->options, sizeof(c->options), "%s",
				 f[col[C_OPTIONS]]);
			snprintf(c->key, sizeof(c->key), "%s|%s|%u|%s|%s",
				 c->workload, c->backend, c->threads,
				 c->placement, c->options);
			snprintf(c->status, sizeof(c->status), "ok");
			snprintf(c->hist, sizeof(c->hist), "%s",
				 f[col[C_HIST]]);
			pos[idx] = (long)r->ncells++;
		}
		struct fl_rd_cell *c = &r->cells[pos[idx]];
		struct acc *a = &acc[pos[idx]];

		c->nrows++;
		if (status_rank(f[col[C_STATUS]]) > status_rank(c->status)) {
			snprintf(c->status, sizeof(c->status), "%s",
				 f[col[C_STATUS]]);
			snprintf(c->reason, sizeof(c->reason), "%s",
				 f[col[C_REASON]]);
		}
		if (*f[col[C_NOTE]])
			snprintf(c->note, sizeof(c->note), "%s",
				 f[col[C_NOTE]]);
		if (strcmp(f[col[C_STATUS]], "ok") != 0 ||
		    c->nok == FL_RD_MAX_REPS)
			continue;
		static const enum col vc[6] = { C_OPS, C_P50, C_P90, C_P99,
						C_P999, C_JAIN };
		for (int i = 0; i < 6; i++)
			a->v[i][c->nok] = strtod(f[col[vc[i]]], NULL);
		c->nok++;
		add_extra(c, a, f[col[C_EXTRA]]);
	}
	for (unsigned long i = 0; i < r->ncells; i++) {
		struct fl_rd_cell *c = &r->cells[i];
		struct acc *a = &acc[i];

		memcpy(c->ops, a->v[0], c->nok * sizeof(double));
		fig_of(a->v[0], c->nok, &c->ops_per_sec);
		fig_of(a->v[1], c->nok, &c->p50);
		fig_of(a->v[2], c->nok, &c->p90);
		fig_of(a->v[3], c->nok, &c->p99);
		fig_of(a->v[4], c->nok, &c->p999);
		fig_of(a->v[5], c->nok, &c->jain);
		c->spread = fl_spread(a->v[0], c->nok);
		c->noisy = fl_is_noisy(c->spread);
		for (unsigned int e = 0; e < c->nextra; e++)
			fig_of(a->extra[e], a->nextra[e], &c->extra[e]);
	}
	free(acc);
	free(pos);
	free(line);
	fclose(in);
	return 0;
oom:
	snprintf(err, errlen, "%s: out of memory", path);
fail:
	free(acc);
	free(pos);
	free(line);
	fclose(in);
	fl_rd_close(r);
	return -1;
}

void fl_rd_close(struct fl_rd_run *r)
{
	json_decref(r->meta);
	r->meta = NULL;
	free(r->cells);
	r->cells = NULL;
	r->ncells = 0;
}

const char *fl_rd_meta(const struct fl_rd_run *r, const char *path,
		       char *buf, size_t len)
{
	char p[256], *save = NULL;
	json_t *v = r->meta;

	snprintf(p, sizeof(p), "%s", path);
	for (char *tok = strtok_r(p, ".", &save); tok && v;
	     tok = strtok_r(NULL, ".", &save))
		v = json_object_get(v, tok);
	if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, len, "%g", json_real_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, len, "%s", json_is_true(v) ? "yes" : "no");
	else
		snprintf(buf, len, "?");
	return buf;
}

int fl_rd_foreign_share(const struct fl_rd_run *r, double *share)
{
	json_t *v = json_object_get(r->meta, "foreign_cpu_share");

	if (!json_is_number(v))
		return -1;
	*share = json_number_value(v);
	return 0;
}

static const char *workload_str(const struct fl_rd_run *r, const char *w,
				const char *key, const char *dflt)
{
	json_t *v = json_object_get(json_object_get(json_object_get(r->meta,
		"workloads"), w), key);

	return json_is_string(v) ? json_string_value(v) : dflt;
}

int fl_rd_has_fairness(const struct fl_rd_run *r, const char *workload)
{
	json_t *v = json_object_get(json_object_get(json_object_get(r->meta,
		"workloads"), workload), "fairness");

	return !json_is_false(v);
}

const char *fl_rd_ops_unit(const struct fl_rd_run *r, const char *workload)
{
	return workload_str(r, workload, "ops_unit", "ops");
}

const char *fl_rd_latency_what(const struct fl_rd_run *r,
			       const char *workload)
{
	return workload_str(r, workload, "latency", "latency");
}

int fl_rd_hist(const struct fl_rd_run *r, const struct fl_rd_cell *c,
	       struct fl_hist *h)
{
	char path[PATH_MAX + 160];
	FILE *f;
	int rc;

	if (!*c->hist || strstr(c->hist, ".."))
		return -1;
	snprintf(path, sizeof(path), "%s/%s", r->dir, c->hist);
	f = fopen(path, "r");
	if (!f)
		return -1;
	rc = fl_hist_read_csv(h, f);
	fclose(f);
	return rc;
}

const struct fl_rd_fig *fl_rd_extra(const struct fl_rd_cell *c,
				    const char *name)
{
	for (unsigned int i = 0; i < c->nextra; i++)
		if (strcmp(c->extra_name[i], name) == 0)
			return &c->extra[i];
	return NULL;
}

int fl_rd_next_pair(const char **p, struct fl_rd_pair *pair)
{
	const char *s = *p;
	size_t len = strcspn(s, ";"), name_len = strcspn(s, "=;");

	if (!*s)
		return -1;
	pair->name = s;
	pair->name_len = (int)name_len;
	pair->value = name_len < len ? s + name_len + 1 : NULL;
	pair->value_len = name_len < len ? (int)(len - name_len - 1) : 0;
	*p = s + len + (s[len] == ';');
	return 0;
}

int fl_rd_option(const struct fl_rd_cell *c, const char *name, char *val,
		 size_t len)
{
	struct fl_rd_pair o;

	for (const char *p = c->options; fl_rd_next_pair(&p, &o) == 0;) {
		if (o.value && pair_is(&o, name)) {
			snprintf(val, len, "%.*s", o.value_len, o.value);
			return 0;
		}
	}
	return -1;
}

const struct fl_rd_cell *fl_rd_find(const struct fl_rd_run *r,
				    const char *key)
{
	for (unsigned long i = 0; i < r->ncells; i++)
		if (strcmp(r->cells[i].key, key) == 0)
			return &r->cells[i];
	return NULL;
}

const struct fl_rd_cell *fl_rd_first_of(const struct fl_rd_run *r,
					const char *workload)
{
	for (unsigned long i = 0; i < r->ncells; i++)
		if (strcmp(r->cells[i].workload, workload) == 0)
			return &r->cells[i];
	return NULL;
}
