// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab matrix FILE --estimate [--topology XML]: what a matrix would
 * cost on this machine or on the one an hwloc XML file describes, before
 * anything runs: each experiment's thread list as that machine expands
 * it, the cells and their minimum repetitions, the nominal time
 * (sweep/cost.h) and what the time budget adds to it.
 */
#include "cli/matrix_estimate.h"

#include <stdio.h>
#include <string.h>

#include "cli/estimate.h"
#include "cli/topology_file.h"
#include "spec/topology.h"
#include "sweep/cost.h"
#include "sweep/matrix.h"

static void print_machine(const char *topology, const struct fl_topology *t)
{
	printf("machine: %s: %u CPUs, %u NUMA node(s), %u package(s); "
	       "cpus = %u, node-cpus = %u, package-cpus = %u\n",
	       topology ? topology : "this one", t->ncpus, t->nnodes,
	       t->npackages, t->ncpus, fl_topology_node_cpus(t),
	       fl_topology_package_cpus(t));
}

/* Each experiment's threads and cells; the minimum's seconds and visits
 * into *seconds and *visits, the largest time budget asked into
 * *budget, and whether any experiment's repetitions adapt into
 * *adaptive. */
static void print_experiments(const struct fl_matrix *m, double *seconds,
			      unsigned long *visits, double *budget,
			      int *adaptive)
{
	for (unsigned int x = 0; x < m->nexps; x++) {
		const struct fl_spec *s = &m->exps[x].spec;

		printf("  [experiment %s] threads ", m->exps[x].name);
		for (unsigned int i = 0; i < s->nthreads; i++)
			printf("%s%u", i ? "," : "", s->threads[i]);
		printf(": %lu cells x %u repetitions\n", m->exps[x].ncells,
		       s->reps);
		*seconds += fl_spec_minimum_seconds(s);
		*visits += m->exps[x].ncells * s->reps;
		if (s->budget_s > *budget)
			*budget = s->budget_s;
		*adaptive |= s->reps_auto;
	}
}

/* What --reps auto may add within the budget, as the run would spend it
 * (sweep/job_passes.c: every minimum visit first, then extra ones while
 * they fit); with every experiment's reps fixed, nothing. */
static void print_budget(double minimum_s, double asked_s, int adaptive)
{
	double budget = fl_budget_seconds(asked_s, minimum_s);
	char t[64];

	if (!adaptive) {
		fl_format_duration(minimum_s, t, sizeof(t));
		printf("repetitions fixed (no experiment has reps = auto): "
		       "no cell gets more than its reps, about %s in all "
		       "(estimated)\n", t);
		return;
	}

	printf("time budget %.0f s", budget);
	if (asked_s <= 0)
		printf(" (no time-budget key: %g times the minimum)",
		       FL_BUDGET_FACTOR);
	printf(": ");

	if (budget <= minimum_s) {
		fl_format_duration(minimum_s, t, sizeof(t));
		printf("the minimum repetitions alone take %.0f s, so no cell "
		       "gets more than its minimum: about %s in all "
		       "(estimated)\n", minimum_s, t);
		return;
	}
	fl_format_duration(budget, t, sizeof(t));
	printf("up to %.0f s more for the cells whose interval is still "
	       "wide: at most about %s in all (estimated)\n",
	       budget - minimum_s, t);
}

int fl_matrix_estimate(const char *file, const char *topology)
{
	static struct fl_matrix m;
	struct fl_topology t;
	unsigned long visits = 0;
	double seconds = 0, budget = 0;
	char err[2048], d[64];
	int adaptive = 0;

	if (topology && fl_topology_file("matrix", topology, &t))
		return 2;
	if (!topology)
		fl_topology_here(&t);
	if (fl_matrix_load_for(file, &t, &m, err, sizeof(err))) {
		/* a bad matrix file's message already reads FILE:LINE */
		fprintf(stderr, "%s%s\n", *m.name && strncmp(err, m.name,
			strlen(m.name)) == 0 ? "" : "futexlab matrix: ", err);
		fl_matrix_free(&m);
		return 2;
	}
	print_machine(topology, &t);
	print_experiments(&m, &seconds, &visits, &budget, &adaptive);
	fl_format_duration(seconds, d, sizeof(d));
	printf("%lu cells in %u experiment(s), %lu repetitions at least: "
	       "about %s (estimated)\n", m.ncells, m.nexps, visits, d);
	print_budget(seconds, budget, adaptive);
	fl_matrix_free(&m);
	return 0;
}
