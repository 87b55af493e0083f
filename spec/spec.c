// SPDX-License-Identifier: GPL-2.0
/* Cell enumeration of a run specification. */
#include "spec/spec.h"

#include <stdio.h>
#include <stdlib.h>
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
	int *cpus = cell->cpus;
	unsigned int nplaced = cell->nplaced;
	size_t used = 0;

	memset(cell, 0, sizeof(*cell));
	cell->cpus = cpus;		/* reused: resized below */
	cell->nplaced = nplaced;
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
	for (unsigned int o = 0; o < w->noptions; o++)
		if (w->options[o].yes_if_shared_keys &&
		    cell->backend->mem == FL_MEM_SHARED)
			cell->opt[o] = 1;
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
	if (fl_cell_size_cpus(cell, n)) {
		snprintf(err, errlen, "%u threads: out of memory for their "
			 "CPUs", n);
		return -1;
	}
	if (fl_place_threads(cell->placement, n, cell->cpus, err, errlen))
		return -1;
	return w->place ? w->place(cell, n, err, errlen) : 0;
}

int fl_cell_size_cpus(struct fl_cell *cell, unsigned int n)
{
	int *cpus;

	if (n == 0 || n > FL_MAX_THREADS)
		return -1;
	cpus = realloc(cell->cpus, n * sizeof(*cpus));
	if (!cpus)
		return -1;
	cell->cpus = cpus;
	cell->nplaced = n;
	return 0;
}

void fl_cell_free(struct fl_cell *cell)
{
	free(cell->cpus);
	cell->cpus = NULL;
	cell->nplaced = 0;
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
