// SPDX-License-Identifier: GPL-2.0
/* Cell enumeration of a run specification. */
#include "spec/spec.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "spec/placement.h"

void fl_spec_init(struct fl_spec *s, const struct fl_workload *w)
{
	char err[256];

	memset(s, 0, sizeof(*s));
	s->workload = w;
	s->threads[0] = w && w->fixed_threads ? w->fixed_threads : 1;
	s->nthreads = 1;
	snprintf(s->placements[0], sizeof(s->placements[0]), "compact");
	s->nplacements = 1;
	s->duration_ns = 1000000000ull;
	s->warmup_ns = 200000000ull;
	s->reps = FL_REPS_MIN;
	s->reps_auto = 1;
	s->reps_max = FL_REPS_MAX_DEFAULT;
	s->seed = 1;
	s->hash_slots = -1;
	s->bin_ns = FL_BIN_NS_DEFAULT;
	for (unsigned int i = 0; w && i < w->noptions; i++)
		if (fl_opt_parse(&w->options[i], w->options[i].def,
				 &s->opts[i], err, sizeof(err)) == 0)
			s->opts[i].given = 0;
}

unsigned int fl_spec_sample_every(const struct fl_spec *s)
{
	if (s->sample_every)
		return s->sample_every;
	return s->workload->sample_every ? s->workload->sample_every : 1;
}

unsigned long fl_spec_ncells(const struct fl_spec *s)
{
	unsigned long n = (unsigned long)s->nbackends * s->nthreads *
			  s->nplacements;

	for (unsigned int i = 0; i < s->workload->noptions; i++)
		n *= s->opts[i].n ? s->opts[i].n : 1;
	return n;
}

int fl_spec_cell(const struct fl_spec *s, unsigned long i,
		 struct fl_cell *cell, char *err, size_t errlen)
{
	const struct fl_workload *w = s->workload;
	size_t used = 0;

	memset(cell, 0, sizeof(*cell));
	cell->workload = w;
	/* innermost first: threads, placements, options (last to first) */
	cell->threads = s->threads[i % s->nthreads];
	i /= s->nthreads;
	snprintf(cell->placement, sizeof(cell->placement), "%s",
		 s->placements[i % s->nplacements]);
	i /= s->nplacements;
	for (int o = (int)w->noptions - 1; o >= 0; o--) {
		unsigned int n = s->opts[o].n ? s->opts[o].n : 1;

		cell->opt[o] = s->opts[o].v[i % n];
		i /= n;
	}
	cell->backend = s->backends[i % s->nbackends];
	for (unsigned int o = 0; o < w->noptions && used < sizeof(cell->options);
	     o++) {
		char val[64];

		fl_opt_format(&w->options[o], cell->opt[o], val, sizeof(val));
		used += (size_t)snprintf(cell->options + used,
					 sizeof(cell->options) - used,
					 "%s%s=%s", o ? ";" : "",
					 w->options[o].name, val);
	}
	cell->duration_ns = s->duration_ns;
	cell->warmup_ns = s->warmup_ns;
	cell->reps = s->reps;
	cell->seed = s->seed;
	cell->hash_slots = s->hash_slots;
	cell->sample_every = fl_spec_sample_every(s);
	cell->bin_ns = s->bin_ns;
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	cell->ncpus_online = online > 0 ? (unsigned int)online : 1;
	unsigned int n = fl_cell_nthreads(cell);

	if (n > FL_MAX_THREADS && n > cell->threads) {
		/* the count asked may be within bounds: say what adds to it */
		snprintf(err, errlen, "%u threads, and %s runs %u of its own "
			 "besides: %u in all, at most %u", cell->threads,
			 w->name, n - cell->threads, n, FL_MAX_THREADS);
		return -1;
	}
	if (n > FL_MAX_THREADS) {
		snprintf(err, errlen, "%u threads: at most %u", n,
			 FL_MAX_THREADS);
		return -1;
	}
	if (fl_place_threads(cell->placement, n, cell->cpus, err, errlen))
		return -1;
	return w->place ? w->place(cell, n, err, errlen) : 0;
}

static int unknown_backend(const char *name, char *err, size_t errlen)
{
	size_t used = (size_t)snprintf(err, errlen, "--backend: unknown "
				       "backend '%s' (known:", name);

	for (unsigned int i = 0; i < fl_nbackends && used < errlen; i++)
		used += (size_t)snprintf(err + used, errlen - used, "%s%s",
					 i ? ", " : " ", fl_backends[i]->name);
	if (used < errlen)
		snprintf(err + used, errlen - used, ")");
	return -1;
}

/* One name of the list into s: known, not given before. */
static int add_backend(struct fl_spec *s, const char *text, const char *tok,
		       char *err, size_t errlen)
{
	const struct fl_backend *b = fl_backend_find(tok);

	if (!*tok) {
		snprintf(err, errlen, "--backend: '%s': an empty name in the "
			 "list", text);
		return -1;
	}
	if (!b)
		return unknown_backend(tok, err, errlen);
	for (unsigned int i = 0; i < s->nbackends; i++) {
		if (s->backends[i] == b) {
			snprintf(err, errlen, "--backend: '%s' is given twice "
				 "in '%s'", tok, text);
			return -1;
		}
	}
	if (s->nbackends == FL_MAX_AXIS) {
		snprintf(err, errlen, "--backend: more than %d names",
			 FL_MAX_AXIS);
		return -1;
	}
	s->backends[s->nbackends++] = b;
	return 0;
}

int fl_parse_backends(const char *text, struct fl_spec *s, char *err,
		      size_t errlen)
{
	char buf[512];

	if (strlen(text) >= sizeof(buf) || !*text) {
		snprintf(err, errlen, "--backend: '%s': give a list of names",
			 text);
		return -1;
	}
	strcpy(buf, text);
	s->nbackends = 0;
	/* every item, the empty ones too: "spin,,futex2" is a mistake */
	for (char *tok = buf, *next; tok; tok = next) {
		next = strchr(tok, ',');
		if (next)
			*next++ = '\0';
		if (add_backend(s, text, tok, err, errlen))
			return -1;
	}
	return 0;
}

int fl_parse_threads(const char *text, struct fl_spec *s, char *err,
		     size_t errlen)
{
	struct fl_option opt = { .name = "threads", .type = FL_OPT_INT,
				 .sweep = 1, .min = 1, .max = FL_MAX_THREADS };
	struct fl_opt_values v;

	if (fl_opt_parse(&opt, text, &v, err, errlen))
		return -1;
	s->nthreads = v.n;
	for (unsigned int i = 0; i < v.n; i++)
		s->threads[i] = (unsigned int)v.v[i];
	return 0;
}

int fl_parse_sample(const char *text, struct fl_spec *s, char *err,
		    size_t errlen)
{
	uint64_t u;

	if (fl_parse_u64(text, &u) || u < 1 || u > FL_SAMPLE_EVERY_MAX) {
		snprintf(err, errlen, "--sample: '%s' is not a whole number "
			 "from 1 (time every operation) to %u", text,
			 FL_SAMPLE_EVERY_MAX);
		return -1;
	}
	s->sample_every = (unsigned int)u;
	return 0;
}

int fl_parse_bin(const char *text, struct fl_spec *s, char *err,
		 size_t errlen)
{
	uint64_t ns;

	if (fl_parse_duration_ns(text, &ns) || ns < 1000000ull ||
	    ns > 10 * FL_NSEC_PER_SEC) {
		snprintf(err, errlen, "--bin: '%s' is not a duration from 1ms "
			 "to 10s (e.g. 10ms)", text);
		return -1;
	}
	s->bin_ns = ns;
	return 0;
}

int fl_spec_check_fixed_threads(const struct fl_spec *s, char *err,
				size_t errlen)
{
	const struct fl_workload *w = s->workload;

	for (unsigned int i = 0; w && w->fixed_threads && i < s->nthreads;
	     i++) {
		if (s->threads[i] != w->fixed_threads) {
			snprintf(err, errlen, "--threads: '%u' for %s, which "
				 "always runs %u threads", s->threads[i],
				 w->name, w->fixed_threads);
			return -1;
		}
	}
	return 0;
}
