// SPDX-License-Identifier: GPL-2.0
/*
 * A workload's cells as plot series: its ok cells, the thread counts
 * they ran at, the options that take more than one value (a series is
 * one backend plus those), and a series' figure at one thread count.
 */
#include "plot/plot.h"

#include <stdlib.h>
#include <string.h>

#include "plot/internal.h"
#include "stats/percentile.h"

/* which of FL_NPCT a latency panel draws, or -1 */
static int pct_index(enum fig f)
{
	return f == F_P50 ? 0 : f == F_P99 ? 2 : f == F_P999 ? 3 : -1;
}

const struct fl_rd_fig *plot_fig_of(const struct wl *w,
				    const struct fl_rd_cell *c,
				    const struct panel *p)
{
	int k = pct_index(p->fig);

	/* the primary figure of a round workload is its p50's median */
	if (k >= 0 && !(k == 0 && c->lower_is_better)) {
		for (unsigned int i = 0; i < w->n; i++) {
			const struct plot_pcts *x = &w->pcts[i];

			if (w->cells[i] != c)
				continue;
			if (!x->read)	/* no histogram: the repetitions' */
				break;
			return x->enough[k] ? &x->fig[k] : NULL;
		}
	}
	switch (p->fig) {
	case F_OPS:
		return &c->ops_per_sec;
	case F_P50:
		return &c->p50;
	case F_P99:
		return &c->p99;
	case F_P999:
		return &c->p999;
	case F_JAIN:
		return &c->jain;
	case F_EXTRA:
		return fl_rd_extra(c, p->extra);
	case F_COST:
		return c->cost.ncpu ? &c->cpu_per_op : NULL;
	}
	return NULL;
}

/* The merged histogram's percentiles of each of w's cells. */
static void read_pcts(struct wl *w, const struct fl_rd_run *r)
{
	static struct fl_hist h;

	for (unsigned int i = 0; i < w->n; i++) {
		struct plot_pcts *x = &w->pcts[i];

		fl_hist_init(&h);
		x->read = fl_rd_hist(r, w->cells[i], &h) == 0;
		for (int k = 0; x->read && k < FL_NPCT; k++) {
			struct fl_pct pct;

			fl_hist_percentile(&h, fl_pct_q[k], &pct);
			x->enough[k] = pct.enough;
			x->fig[k] = (struct fl_rd_fig){
				.med = (double)pct.value, .lo = (double)pct.lo,
				.hi = (double)pct.hi, .has_ci = 1 };
		}
	}
}

void plot_wl_free(struct wl *w)
{
	free(w->cells);
	free(w->pcts);
	w->cells = NULL;
	w->pcts = NULL;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/* The names of the options in "a=1;b=2", in order. */
static unsigned int option_names(const char *opts, char names[][48],
				 unsigned int max)
{
	struct fl_rd_pair o;
	unsigned int n = 0;

	for (const char *p = opts; n < max && fl_rd_next_pair(&p, &o) == 0;)
		snprintf(names[n++], 48, "%.*s", o.name_len, o.name);
	return n;
}

void plot_wl_init(struct wl *w, const struct fl_rd_run *r,
		  const char *name)
{
	char names[FL_RD_MAX_EXTRA][48];

	memset(w, 0, sizeof(*w));
	w->name = name;
	w->cells = calloc(r->ncells ? r->ncells : 1, sizeof(*w->cells));
	w->pcts = calloc(r->ncells ? r->ncells : 1, sizeof(*w->pcts));
	if (!w->cells || !w->pcts) {
		plot_wl_free(w);
		return;
	}
	for (unsigned long i = 0; i < r->ncells; i++) {
		const struct fl_rd_cell *c = &r->cells[i];
		unsigned int t;

		if (strcmp(c->workload, name) != 0 || !c->nok ||
		    strcmp(c->status, "ok") != 0)
			continue;
		w->cells[w->n++] = c;
		for (t = 0; t < w->nthreads; t++)
			if (w->threads[t] == c->threads)
				break;
		if (t == w->nthreads && w->nthreads < MAX_X)
			w->threads[w->nthreads++] = c->threads;
	}
	qsort(w->threads, w->nthreads, sizeof(w->threads[0]), cmp_uint);
	read_pcts(w, r);
	if (!w->n)
		return;
	unsigned int nn = option_names(w->cells[0]->options, names,
				       FL_RD_MAX_EXTRA);

	for (unsigned int o = 0; o < nn; o++) {
		char first[128], v[128];
		int have = 0, varies = 0;

		for (unsigned int i = 0; i < w->n && !varies; i++) {
			if (fl_rd_option(w->cells[i], names[o], v, sizeof(v)))
				continue;
			if (!have)
				snprintf(first, sizeof(first), "%s", v);
			else if (strcmp(first, v) != 0)
				varies = 1;
			have = 1;
		}
		if (varies && w->nvary < MAX_VARY)
			snprintf(w->vary[w->nvary++], 48, "%s", names[o]);
	}
	for (unsigned int i = 1; i < w->n; i++)
		if (strcmp(w->cells[i]->placement, w->cells[0]->placement))
			w->vary_placement = 1;
}

void plot_label_of(const struct wl *w, const struct fl_rd_cell *c,
		   const char *skip, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "%s", c->backend);
	char v[128];

	if (w->vary_placement && used < len)
		used += (size_t)snprintf(buf + used, len - used, " %s",
					 c->placement);
	for (unsigned int o = 0; o < w->nvary && used < len; o++) {
		if (skip && strcmp(skip, w->vary[o]) == 0)
			continue;
		if (fl_rd_option(c, w->vary[o], v, sizeof(v)) == 0)
			used += (size_t)snprintf(buf + used, len - used,
						 " %s=%s", w->vary[o], v);
	}
}

/* The series' labels, in the order their cells come. */
unsigned int plot_series_of(const struct wl *w, const char *skip,
			    char labels[][256])
{
	unsigned int n = 0;
	char l[256];

	for (unsigned int i = 0; i < w->n; i++) {
		unsigned int s;

		plot_label_of(w, w->cells[i], skip, l, sizeof(l));
		for (s = 0; s < n; s++)
			if (strcmp(labels[s], l) == 0)
				break;
		if (s == n && n < MAX_SERIES)
			snprintf(labels[n++], 256, "%s", l);
	}
	return n;
}

static const struct fl_rd_cell *cell_at(const struct wl *w,
					const char *label, unsigned int threads,
					const char *skip)
{
	char l[256];

	for (unsigned int i = 0; i < w->n; i++) {
		if (w->cells[i]->threads != threads)
			continue;
		plot_label_of(w, w->cells[i], skip, l, sizeof(l));
		if (strcmp(l, label) == 0)
			return w->cells[i];
	}
	return NULL;
}

int plot_has_cell(const struct wl *w, const char *label,
		  unsigned int threads)
{
	return cell_at(w, label, threads, NULL) != NULL;
}

/* Panel p's figure for the series `label` at `threads`, or NULL. */
const struct fl_rd_fig *plot_fig_at(const struct wl *w, const char *label,
				    unsigned int threads,
				    const struct panel *p)
{
	const struct fl_rd_cell *c = cell_at(w, label, threads, NULL);

	return c ? plot_fig_of(w, c, p) : NULL;
}
