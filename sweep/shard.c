// SPDX-License-Identifier: GPL-2.0
/* A matrix's shards: the K/N flag, the balanced split, a job restricted
 * to its share (sweep/shard.h). */
#include "sweep/shard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep/job.h"
#include "sweep/passes.h"

/* A decimal number of at most 6 digits, no sign or space; -1 if not. */
static long small_number(const char *p, const char **end)
{
	long v = 0;
	int digits = 0;

	while (*p >= '0' && *p <= '9' && digits < 7) {
		v = v * 10 + (*p++ - '0');
		digits++;
	}
	*end = p;
	return digits && digits < 7 ? v : -1;
}

int fl_shard_parse(const char *text, struct fl_shard *s, char *err,
		   size_t errlen)
{
	const char *p;
	long k = small_number(text, &p), n = -1;

	if (k >= 0 && *p == '/')
		n = small_number(p + 1, &p);
	if (k < 0 || n < 0 || *p) {
		snprintf(err, errlen, "--shard: '%.40s' is not K/N (shard K "
			 "of N, K from 0 to N-1)", text);
		return -1;
	}
	if (n < 1 || n > FL_SHARD_MAX || k >= n) {
		snprintf(err, errlen, "--shard: '%.40s': K must be 0 to N-1 "
			 "and N 1 to %d", text, FL_SHARD_MAX);
		return -1;
	}
	s->k = (unsigned int)k;
	s->n = (unsigned int)n;
	return 0;
}

struct costed {
	double cost;
	unsigned long cell;
};

static int longest_first(const void *a, const void *b)
{
	const struct costed *x = a, *y = b;

	if (x->cost != y->cost)
		return x->cost > y->cost ? -1 : 1;
	return x->cell < y->cell ? -1 : x->cell > y->cell;
}

struct load {
	double s;
	unsigned int shard;
};

static int lighter(const struct load *a, const struct load *b)
{
	return a->s < b->s || (a->s == b->s && a->shard < b->shard);
}

/* Restore the heap's order from slot i down, after its load grew. */
static void sift_down(struct load *h, unsigned int n, unsigned int i)
{
	for (;;) {
		unsigned int l = 2 * i + 1, m = i;

		if (l < n && lighter(&h[l], &h[m]))
			m = l;
		if (l + 1 < n && lighter(&h[l + 1], &h[m]))
			m = l + 1;
		if (m == i)
			return;
		struct load t = h[i];

		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

int fl_shard_split(const struct fl_cell_track *t, unsigned long ncells,
		   unsigned int nshards, unsigned int *owner)
{
	struct costed *c = calloc(ncells + 1, sizeof(*c));
	struct load *h = calloc(nshards + 1, sizeof(*h));

	if (!c || !h) {
		free(c);
		free(h);
		return -1;
	}
	for (unsigned long i = 0; i < ncells; i++)
		c[i] = (struct costed){ t[i].reps * t[i].cost_s, i };
	qsort(c, ncells, sizeof(*c), longest_first);
	/* shards in index order with no load already form a heap */
	for (unsigned int s = 0; s < nshards; s++)
		h[s] = (struct load){ 0.0, s };
	for (unsigned long i = 0; i < ncells; i++) {
		owner[c[i].cell] = h[0].shard;
		h[0].s += c[i].cost;
		sift_down(h, nshards, 0);
	}
	free(c);
	free(h);
	return 0;
}

int fl_shard_cells(const struct fl_matrix *m, const struct fl_shard *sh,
		   unsigned char *in, double *share, char *err,
		   size_t errlen)
{
	unsigned long nc = m->ncells;
	struct fl_cell_track *t = calloc(nc + 1, sizeof(*t));
	unsigned int *owner = calloc(nc + 1, sizeof(*owner));
	double all = 0.0, mine = 0.0;
	int rc = -1;

	if (sh->n > nc) {
		snprintf(err, errlen, "--shard %u/%u: the matrix has %lu "
			 "cell(s) on this machine, fewer than %u shards",
			 sh->k, sh->n, nc, sh->n);
		goto out;
	}
	if (!t || !owner) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	/* each cell's cost as the passes plan it: its experiment's */
	for (unsigned int x = 0; x < m->nexps; x++)
		for (unsigned long i = 0; i < m->exps[x].ncells; i++)
			fl_track_init(&t[m->exps[x].first_cell + i],
				      &m->exps[x].spec);
	if (fl_shard_split(t, nc, sh->n, owner)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (unsigned long c = 0; c < nc; c++) {
		double cost = t[c].reps * t[c].cost_s;

		in[c] = owner[c] == sh->k;
		all += cost;
		mine += in[c] ? cost : 0.0;
	}
	*share = all > 0.0 ? mine / all : 1.0;
	rc = 0;
out:
	free(t);
	free(owner);
	return rc;
}

int fl_shard_restrict(struct fl_matrix_job *j, char *err, size_t errlen)
{
	double share;

	if (!j->shard.n)
		return 0;
	j->in_shard = calloc(j->m.ncells + 1, 1);
	if (!j->in_shard) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (fl_shard_cells(&j->m, &j->shard, j->in_shard, &share, err,
			   errlen))
		return -1;
	for (unsigned long c = 0; c < j->m.ncells; c++)
		if (!j->in_shard[c])
			j->tracks[c].stopped = 1;
	j->budget_s *= share;
	return 0;
}

struct fl_record_shard fl_shard_record(const struct fl_matrix_job *j)
{
	return (struct fl_record_shard){
		.k = j->shard.k, .n = j->shard.n,
		.matrix_cells = j->m.ncells, .in_shard = j->in_shard,
	};
}

json_t *fl_shard_json(const struct fl_matrix_job *j)
{
	struct fl_record_shard s = fl_shard_record(j);

	return fl_record_shard_json(&s);
}

int fl_shard_from_state(struct fl_matrix_job *j, char *err, size_t errlen)
{
	json_t *s = json_object_get(j->state, "shard");
	json_t *k = json_object_get(s, "k"), *n = json_object_get(s, "n");

	j->shard.k = j->shard.n = 0;
	if (!s)
		return 0;
	/* the cells are computed again, never taken from the file */
	if (!json_is_integer(k) || !json_is_integer(n) ||
	    json_integer_value(n) < 1 ||
	    json_integer_value(n) > FL_SHARD_MAX ||
	    json_integer_value(k) < 0 ||
	    json_integer_value(k) >= json_integer_value(n)) {
		snprintf(err, errlen, "%s/matrix.json: 'shard' is not "
			 "{\"k\": K, \"n\": N} with 0 <= K < N <= %d",
			 j->run.tmp, FL_SHARD_MAX);
		return -1;
	}
	j->shard.k = (unsigned int)json_integer_value(k);
	j->shard.n = (unsigned int)json_integer_value(n);
	return 0;
}
