// SPDX-License-Identifier: GPL-2.0
/*
 * Opening a run directory: cells.csv (read_cells.c), meta.json and the
 * histograms, each a regular file inside it; and what the readers ask of
 * an open run.
 */
#include "rundir/read.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/result.h"
#include "rundir/regular.h"

/* A run's histograms are all checked when it is opened (an empty,
 * corrupt or wrapped file is an error then, not a missing curve later). */
#define MAX_META_BYTES	(16u << 20)

/* "RUN/name" for messages */
static const char *in_run(const struct fl_rd_run *r, const char *name,
			  char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", r->dir, name);
	return buf;
}

int fl_rd_parse_meta(struct fl_rd_run *r, const char *file, const char *text,
		     size_t len, char *err, size_t errlen)
{
	json_error_t jerr;

	r->meta = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!r->meta) {
		snprintf(err, errlen, "%s:%d:%d: %s", file, jerr.line,
			 jerr.column, jerr.text);
		return -1;
	}
	if (!json_is_object(r->meta)) {
		snprintf(err, errlen, "%s:1:1: not a JSON object", file);
		goto bad;
	}
	if (fl_rd_check_plots(r->meta, file, err, errlen) ||
	    fl_rd_check_distances(r->meta, file, err, errlen) ||
	    fl_rd_check_meta(r->meta, file, err, errlen))
		goto bad;
	return 0;
bad:
	json_decref(r->meta);
	r->meta = NULL;
	return -1;
}

/* meta.json, if there is one (a run without it still plots), and what
 * it counts of the cells against cells.csv's. */
static int read_meta(struct fl_rd_run *r, char *err, size_t errlen)
{
	char shown[PATH_MAX + 32], *text;
	size_t len;
	int rc;

	in_run(r, "meta.json", shown, sizeof(shown));
	if (fl_read_regular(r->dirfd, "meta.json", shown, FL_NOFOLLOW,
			    MAX_META_BYTES, &text, &len, err, errlen))
		return errno == ENOENT ? 0 : -1;
	rc = fl_rd_parse_meta(r, shown, text, len, err, errlen) ||
	     fl_rd_check_counts(r, shown, err, errlen) ? -1 : 0;
	free(text);
	return rc;
}

/* A cell's histogram file through the run's descriptor; 0, or -1. */
static int read_hist(const struct fl_rd_run *r, const struct fl_rd_cell *c,
		     struct fl_hist *h, char *err, size_t errlen)
{
	char shown[PATH_MAX + 160];

	return fl_hist_load_at(r->dirfd, c->hist, in_run(r, c->hist, shown,
							  sizeof(shown)),
			       h, err, errlen);
}

static int check_hists(const struct fl_rd_run *r, char *err, size_t errlen)
{
	static struct fl_hist h;

	for (unsigned long i = 0; i < r->ncells; i++)
		if (*r->cells[i].hist &&
		    read_hist(r, &r->cells[i], &h, err, errlen))
			return -1;
	return 0;
}

/* r->dir and r->name from the path given, and the directory opened. */
static int open_dir(const char *dir, struct fl_rd_run *r, char *err,
		    size_t errlen)
{
	char sb[200];

	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	for (size_t l = strlen(r->dir); l > 1 && r->dir[l - 1] == '/'; l--)
		r->dir[l - 1] = '\0';
	const char *slash = strrchr(r->dir, '/');

	snprintf(r->name, sizeof(r->name), "%s", slash ? slash + 1 : r->dir);
	r->dirfd = open(r->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->dirfd < 0) {
		snprintf(err, errlen, "%s: not a run directory: %s",
			 fl_path_shown(dir, sb, 160), strerror(errno));
		return -1;
	}
	return 0;
}

static const char *workload_str(const struct fl_rd_run *r, const char *w,
				const char *key, const char *dflt);

/* The cell's cost figures: each ok repetition's counts over its
 * operations (rep_ops is by the rep column, counts by ok repetition). */
static void cost_of(struct fl_rd_cell *c)
{
	uint64_t ops[FL_RD_MAX_REPS];

	for (unsigned int i = 0; i < c->nok; i++)
		ops[i] = c->rep_ops[c->ok_rep[i]] == UINT64_MAX ? 0 :
			 c->rep_ops[c->ok_rep[i]];
	fl_cost_of(c->counts, ops, c->nok, &c->cost);
	c->cpu_per_op = (struct fl_rd_fig){
		.med = c->cost.fig[FL_COST_CPU].ci.mid,
		.lo = c->cost.fig[FL_COST_CPU].ci.lo,
		.hi = c->cost.fig[FL_COST_CPU].ci.hi,
		.has_ci = c->cost.fig[FL_COST_CPU].ci.ok };
}

/* Each cell's primary figure, as meta.json names it for the workload
 * (throughput unless it says latency_p50), with its interval. */
static void judge_primary(struct fl_rd_run *r)
{
	for (unsigned long i = 0; i < r->ncells; i++) {
		struct fl_rd_cell *c = &r->cells[i];

		c->lower_is_better = !strcmp(workload_str(r, c->workload,
			"primary", "throughput"), "latency_p50");
		c->primary = c->lower_is_better ? c->lat_p50 : c->ops;
		fl_median_ci(c->primary, c->nok, FL_CONFIDENCE, &c->ci);
		c->noisy = fl_ci_noisy(&c->ci, FL_NOISY_HALFWIDTH);
		cost_of(c);
	}
}

/* The text as read, before the parser cuts it into fields: what is
 * checked is what a merge copies (no second read of the file). */
static int keep_cells_text(struct fl_rd_run *r, const char *text, size_t len,
			   char *err, size_t errlen)
{
	r->cells_text = malloc(len + 1);
	if (!r->cells_text) {
		snprintf(err, errlen, "%s: out of memory", r->dir);
		return -1;
	}
	memcpy(r->cells_text, text, len);
	r->cells_text[len] = '\0';
	r->cells_len = len;
	return 0;
}

int fl_rd_open(const char *dir, struct fl_rd_run *r, char *err,
	       size_t errlen)
{
	char shown[PATH_MAX + 32], *text = NULL;
	size_t len;

	memset(r, 0, sizeof(*r));
	r->dirfd = -1;
	if (open_dir(dir, r, err, errlen))
		return -1;
	/* a folder with neither file: what the reader was given is not a
	 * run at all, said as every reader says it */
	if (faccessat(r->dirfd, "cells.csv", F_OK, AT_SYMLINK_NOFOLLOW) &&
	    errno == ENOENT &&
	    faccessat(r->dirfd, "meta.json", F_OK, AT_SYMLINK_NOFOLLOW) &&
	    errno == ENOENT) {
		snprintf(err, errlen, "%s: not a run directory (no cells.csv, "
			 "no meta.json)", fl_path_shown(dir, shown, 160));
		fl_rd_close(r);
		return -1;
	}
	in_run(r, "cells.csv", shown, sizeof(shown));
	if (fl_read_regular(r->dirfd, "cells.csv", shown, FL_NOFOLLOW,
			    FL_MAX_INPUT_BYTES, &text, &len, err, errlen) ||
	    keep_cells_text(r, text, len, err, errlen) ||
	    fl_rd_parse_cells(r, shown, text, len, err, errlen) ||
	    read_meta(r, err, errlen) || check_hists(r, err, errlen)) {
		free(text);
		fl_rd_close(r);
		return -1;
	}
	free(text);
	judge_primary(r);
	fl_rd_rep_times(r);
	return 0;
}

void fl_rd_close(struct fl_rd_run *r)
{
	if (r->dirfd >= 0)
		close(r->dirfd);
	r->dirfd = -1;
	json_decref(r->meta);
	r->meta = NULL;
	free(r->cells);
	r->cells = NULL;
	r->ncells = 0;
	free(r->cells_text);
	r->cells_text = NULL;
	r->cells_len = 0;
}

json_t *fl_rd_meta_json(const struct fl_rd_run *r, const char *path)
{
	char p[256], *save = NULL;
	json_t *v = r->meta;

	snprintf(p, sizeof(p), "%s", path);
	for (char *tok = strtok_r(p, ".", &save); tok && v;
	     tok = strtok_r(NULL, ".", &save))
		v = json_object_get(v, tok);
	return v;
}

const char *fl_rd_meta(const struct fl_rd_run *r, const char *path,
		       char *buf, size_t len)
{
	json_t *v = fl_rd_meta_json(r, path);

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

int fl_rd_busy_host(const struct fl_rd_run *r, unsigned long *drifted,
		    unsigned long *reps)
{
	*drifted = *reps = 0;
	for (unsigned long i = 0; i < r->ncells; i++) {
		const struct fl_rd_cell *c = &r->cells[i];

		for (unsigned int j = 0; j < c->nok; j++)
			*drifted += isfinite(c->busy[j][0]) &&
				    isfinite(c->busy[j][1]) &&
				    fl_busy_drifted(c->busy[j][0],
						    c->busy[j][1]);
		*reps += c->nok;
	}
	return *reps && (double)*drifted > FL_BUSY_WARN * (double)*reps;
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

const char *fl_rd_threads_are(const struct fl_rd_run *r,
			      const char *workload)
{
	const char *what = workload_str(r, workload, "threads", "");

	return *what ? what : NULL;
}

const char *fl_rd_latency_is(const struct fl_rd_run *r, const char *workload)
{
	const char *what = workload_str(r, workload, "latency_is", "");

	return *what ? what : NULL;
}

int fl_rd_hist(const struct fl_rd_run *r, const struct fl_rd_cell *c,
	       struct fl_hist *h)
{
	char err[64];

	return *c->hist ? read_hist(r, c, h, err, sizeof(err)) : -1;
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

int fl_rd_pair_is(const struct fl_rd_pair *pair, const char *name)
{
	return strlen(name) == (size_t)pair->name_len &&
	       strncmp(pair->name, name, (size_t)pair->name_len) == 0;
}

int fl_rd_option(const struct fl_rd_cell *c, const char *name, char *val,
		 size_t len)
{
	struct fl_rd_pair o;

	for (const char *p = c->options; fl_rd_next_pair(&p, &o) == 0;) {
		if (o.value && fl_rd_pair_is(&o, name)) {
			snprintf(val, len, "%.*s", o.value_len, o.value);
			return 0;
		}
	}
	return -1;
}

const struct fl_rd_cell *fl_rd_find_setup(const struct fl_rd_run *r,
					  const char *setup_key)
{
	for (unsigned long i = 0; i < r->ncells; i++)
		if (strcmp(r->cells[i].setup_key, setup_key) == 0)
			return &r->cells[i];
	return NULL;
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
