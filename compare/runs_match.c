// SPDX-License-Identifier: GPL-2.0
/* Matching the cells of every run of both sides on their setup. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare/runs_internal.h"
#include "stats/cost.h"

/* options without the ignored one: "algo=pi;critical=100" less
 * critical is "algo=pi" */
static void options_less(const char *opts, const char *ignore, char *buf,
			 size_t len)
{
	struct fl_rd_pair o;
	size_t used = 0;

	buf[0] = '\0';
	for (const char *p = opts;
	     used + 1 < len && fl_rd_next_pair(&p, &o) == 0;) {
		if (ignore && fl_rd_pair_is(&o, ignore))
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%.*s%s%.*s",
					 used ? ";" : "", o.name_len, o.name,
					 o.value ? "=" : "",
					 o.value ? o.value_len : 0,
					 o.value ? o.value : "");
	}
}

void runs_match_key(const struct fl_rd_cell *c, const char *ignore,
		      char *buf, size_t len)
{
	const char *sample = strrchr(c->setup_key, '|');
	char opts[512];

	options_less(c->options, ignore, opts, sizeof(opts));
	snprintf(buf, len, "%s|%s|%u|%s|%s|%llu%s", c->workload, c->backend,
		 c->threads, c->placement, opts,
		 (unsigned long long)c->duration_ns, sample ? sample : "|");
}

static struct runs_cell *find(struct runs_cmp *c, const char *key)
{
	for (unsigned long i = 0; i < c->n; i++)
		if (!strcmp(c->cells[i].key, key))
			return &c->cells[i];
	return NULL;
}

static int add_run(struct runs_cmp *c, unsigned long cap, int s,
		   unsigned int k, char *err, size_t errlen)
{
	const struct fl_rd_run *r = &c->side[s].run[k];

	for (unsigned long i = 0; i < r->ncells; i++) {
		const struct fl_rd_cell *x = &r->cells[i];
		char key[sizeof(c->cells[0].key)];
		struct runs_cell *m;

		runs_match_key(x, c->ignore, key, sizeof(key));
		m = find(c, key);
		if (!m) {
			if (c->n == cap) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			m = &c->cells[c->n++];
			snprintf(m->key, sizeof(m->key), "%s", key);
			m->first = x;
			m->lower_is_better = x->lower_is_better;
			for (int t = 0; t < 2; t++)
				for (unsigned int j = 0; j < FL_RUNS_MAX_SIDE;
				     j++)
					m->med[t][j] = NAN;
		}
		if (m->at[s][k]) {
			snprintf(err, errlen, "%s: cells %lu and %lu differ "
				 "only by the setting %s, so compare could not "
				 "tell them apart", r->dir, m->at[s][k]->index,
				 x->index, c->ignore);
			return -1;
		}
		m->at[s][k] = x;
		/* the figure compared: the primary, or the cost (lower is
		 * faster) where the run counted it */
		double v = c->cost ? (x->cost.ncpu ?
			   x->cost.fig[FL_COST_CPU].ci.mid : 0) : x->ci.mid;

		if (c->cost)
			m->lower_is_better = 1;
		if (!strcmp(x->status, "ok") && x->nok && v > 0 &&
		    (c->cost || x->lower_is_better == m->lower_is_better)) {
			m->med[s][k] = v;
			m->ok[s][m->nok[s]++] = v;
		}
	}
	return 0;
}

int runs_match(struct runs_cmp *c, char *err, size_t errlen)
{
	unsigned long cap = 0;

	for (int s = 0; s < 2; s++)
		for (unsigned int k = 0; k < c->side[s].n; k++)
			cap += c->side[s].run[k].ncells;
	c->n = 0;
	c->cells = calloc(cap + 1, sizeof(*c->cells));
	if (!c->cells) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int s = 0; s < 2; s++)
		for (unsigned int k = 0; k < c->side[s].n; k++)
			if (add_run(c, cap, s, k, err, errlen))
				return -1;
	return 0;
}
