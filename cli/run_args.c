// SPDX-License-Identifier: GPL-2.0
/* Parsing `futexlab run WORKLOAD [options]`. */
#include "cli/run_args.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/flags.h"
#include "cli/outputs.h"
#include "spec/placement.h"
#include "sweep/passes.h"

enum {
	OPT_BACKEND = 1000, OPT_THREADS, OPT_DURATION, OPT_WARMUP, OPT_REPS,
	OPT_PLACEMENT, OPT_RESULTS, OPT_SEED, OPT_JSON, OPT_HASH_SLOTS,
	OPT_SAMPLE, OPT_BIN, OPT_YES, OPT_REPS_MAX, OPT_BUDGET, OPT_HELP,
	OPT_WORKLOAD_BASE = 2000,
};

static const struct {
	const char *name;
	int has_arg;
	int val;
	const char *help;
} common[] = {
	{ "backend", 1, OPT_BACKEND,
	  "NAME[,NAME...]  backends to run (default futex-private; see list)" },
	{ "threads", 1, OPT_THREADS, "N[,N...]  thread counts (default 1)" },
	{ "duration", 1, OPT_DURATION,
	  "SECONDS  length of each repetition (default 1)" },
	{ "warmup", 1, OPT_WARMUP,
	  "SECONDS  warm-up before the repetitions (default 0.2)" },
	{ "reps", 1, OPT_REPS, "auto|N  repetitions per cell (default auto: "
	  "at least 6, more while the 95% interval is wider than +-5%)" },
	{ "reps-max", 1, OPT_REPS_MAX, "N  the most --reps auto takes "
	  "(default 30)" },
	{ "time-budget", 1, OPT_BUDGET, "SECONDS  what --reps auto may "
	  "spend (default 3x the minimum repetitions' time)" },
	{ "placement", 1, OPT_PLACEMENT,
	  "compact|scatter|CPU-LIST  thread pinning (default compact)" },
	{ "results", 1, OPT_RESULTS,
	  "DIR  where run directories go (default results)" },
	{ "seed", 1, OPT_SEED, "N  seed for every random choice (default 1)" },
	{ "json", 0, OPT_JSON, "  print the summary as JSON on stdout" },
	{ "hash-slots", 1, OPT_HASH_SLOTS,
	  "N  futex hash slots: futex-private/futex2 set the 6.16+ private "
	  "hash (0: the global table); kmod-private sizes its table (0: the "
	  "module's default); default: leave it" },
	{ "sample", 1, OPT_SAMPLE,
	  "N  time one operation in N, at random (default: the workload's, "
	  "shown below)" },
	{ "bin", 1, OPT_BIN,
	  "DURATION  throughput-over-time bin (default 10ms)" },
	{ "yes", 0, OPT_YES, "  run even when the estimate passes a day" },
	{ "help", 0, OPT_HELP, "  this help" },
};
#define NCOMMON (sizeof(common) / sizeof(common[0]))

static int usage_error(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "futexlab run: ");
	fprintf(stderr, fmt, a, b);
	fprintf(stderr, "\n");
	return 2;
}

void fl_run_usage(FILE *f, const struct fl_workload *w)
{
	fprintf(f, "usage: futexlab run %s [options]\n\n",
		w ? w->name : "WORKLOAD");
	if (w)
		fprintf(f, "%s\n\n", w->scenario);
	else {
		fprintf(f, "workloads:\n");
		for (unsigned int i = 0; i < fl_nworkloads; i++)
			fprintf(f, "  %-14s %s\n", fl_workloads[i]->name,
				fl_workloads[i]->summary);
		fprintf(f, "\n");
	}
	fprintf(f, "options for every workload:\n");
	for (size_t i = 0; i < NCOMMON; i++)
		fprintf(f, "  --%-12s %s\n", common[i].name, common[i].help);
	if (w && w->sample_every > 1)
		fprintf(f, "\n%s times one operation in %u, at random, by "
			"default (--sample)\n", w->name, w->sample_every);
	else if (w)
		fprintf(f, "\n%s times every operation by default "
			"(--sample 1)\n", w->name);
	if (!w || !w->noptions)
		return;
	fprintf(f, "\noptions of %s:\n", w->name);
	for (unsigned int i = 0; i < w->noptions; i++) {
		const struct fl_option *o = &w->options[i];

		fprintf(f, "  --%-12s %s (default %s)%s\n", o->name, o->help,
			o->def, o->sweep ? "; a list sweeps" : "");
		if (o->type == FL_OPT_ENUM) {
			fprintf(f, "  %-14s one of:", "");
			for (int c = 0; o->choices[c]; c++)
				fprintf(f, " %s", o->choices[c]);
			fprintf(f, "\n");
		}
	}
}

static int parse_seconds(const char *name, const char *text, uint64_t *out,
			 int allow_zero)
{
	if (fl_parse_seconds_ns(text, out) ||
	    (!allow_zero && *out == 0) || *out > 86400ull * 1000000000ull)
		return usage_error("--%s: '%s' is not a number of seconds "
				   "(e.g. 1 or 0.5, at most one day)", name,
				   text);
	return 0;
}

/* --reps, --reps-max and --time-budget into a: 0, or 2 after its
 * one-line error. */
static int reps_option(int c, struct fl_run_args *a)
{
	char err[512];
	uint64_t u;

	switch (c) {
	case OPT_REPS:
		if (fl_parse_reps(optarg, &a->spec, err, sizeof(err)))
			return usage_error("--%s%s", err, "");
		return 0;
	case OPT_REPS_MAX:
		if (fl_parse_u64(optarg, &u) || u < FL_REPS_MIN ||
		    u > FL_REPS_LIMIT)
			return usage_error("--reps-max: '%s' is not a whole "
					   "number from 6 to 100%s", optarg, "");
		a->spec.reps_max = (unsigned int)u;
		return 0;
	case OPT_BUDGET: {
		uint64_t ns;

		if (parse_seconds("time-budget", optarg, &ns, 0))
			return 2;
		a->spec.budget_s = (double)ns / 1e9;
		return 0;
	}
	}
	return 0;
}

/* One of the flags every workload takes into a: 0, or 2 after its
 * one-line error. */
static int common_option(int c, struct fl_run_args *a)
{
	char err[512];
	uint64_t u;

	switch (c) {
	case OPT_BACKEND:
		if (fl_parse_backends(optarg, &a->spec, err, sizeof(err)))
			return usage_error("%s%s", err, "");
		return 0;
	case OPT_THREADS:
		if (fl_parse_threads(optarg, &a->spec, err, sizeof(err)) ||
		    fl_spec_check_fixed_threads(&a->spec, err, sizeof(err)))
			return usage_error("%s%s", err, "");
		return 0;
	case OPT_DURATION:
		if (parse_seconds("duration", optarg, &a->spec.duration_ns, 0))
			return 2;
		return 0;
	case OPT_WARMUP:
		if (parse_seconds("warmup", optarg, &a->spec.warmup_ns, 1))
			return 2;
		return 0;
	case OPT_REPS:
	case OPT_REPS_MAX:
	case OPT_BUDGET:
		return reps_option(c, a);
	case OPT_PLACEMENT:
		if (strlen(optarg) >= sizeof(a->spec.placements[0]))
			return usage_error("--placement: '%s' is too "
					   "long%s", optarg, "");
		if (fl_placement_check(optarg, err, sizeof(err)))
			return usage_error("%s%s", err, "");
		snprintf(a->spec.placements[0],
			 sizeof(a->spec.placements[0]), "%s", optarg);
		return 0;
	case OPT_RESULTS:
		if (fl_check_output("run", "--results", optarg,
				    FL_OUT_DIR_TREE))
			return 2;
		a->results_dir = optarg;
		return 0;
	case OPT_YES:
		a->yes = 1;
		return 0;
	case OPT_SEED:
		if (fl_parse_u64(optarg, &a->spec.seed))
			return usage_error("--seed: '%s' is not a "
					   "non-negative integer%s",
					   optarg, "");
		return 0;
	case OPT_JSON:
		a->json = 1;
		return 0;
	case OPT_HASH_SLOTS:
		if (fl_parse_u64(optarg, &u) || u > (1u << 30))
			return usage_error("--hash-slots: '%s' is not "
					   "a slot count%s", optarg, "");
		a->spec.hash_slots = (long)u;
		return 0;
	case OPT_SAMPLE:
		if (fl_parse_sample(optarg, &a->spec, err, sizeof(err)))
			return usage_error("%s%s", err, "");
		return 0;
	case OPT_BIN:
		if (fl_parse_bin(optarg, &a->spec, err, sizeof(err)))
			return usage_error("%s%s", err, "");
		return 0;
	}
	return 0;
}

/* argv's flags for workload w into a: 0, 1 after --help, or 2. */
static int parse_flags(int argc, char **argv, const struct fl_workload *w,
		       struct fl_run_args *a)
{
	struct option longopts[NCOMMON + FL_MAX_OPTS + 1];
	char err[512];
	unsigned int n = 0;

	for (size_t i = 0; i < NCOMMON; i++)
		longopts[n++] = (struct option){ common[i].name,
			common[i].has_arg, NULL, common[i].val };
	for (unsigned int i = 0; i < w->noptions; i++)
		longopts[n++] = (struct option){ w->options[i].name,
			w->options[i].type == FL_OPT_BOOL ? 0 : 1, NULL,
			OPT_WORKLOAD_BASE + (int)i };
	longopts[n] = (struct option){ 0 };
	fl_getopt_start();
	for (;;) {
		int c = getopt_long(argc, argv, ":", longopts, NULL);

		if (c == -1)
			break;
		if (c >= OPT_BACKEND && c < OPT_HELP) {
			if (common_option(c, a))
				return 2;
			continue;
		}
		switch (c) {
		case OPT_HELP:
			fl_run_usage(stdout, w);
			return 1;
		case ':':
			return usage_error("%s needs a value%s", argv[optind - 1],
					   "");
		case '?':
			return usage_error("unknown option '%s' for workload "
					   "%s (see --help)", argv[optind - 1],
					   w->name);
		default: {
			const struct fl_option *o =
				&w->options[c - OPT_WORKLOAD_BASE];

			if (o->type == FL_OPT_BOOL) {
				a->spec.opts[c - OPT_WORKLOAD_BASE].n = 1;
				a->spec.opts[c - OPT_WORKLOAD_BASE].v[0] = 1;
				a->spec.opts[c - OPT_WORKLOAD_BASE].given = 1;
			} else if (fl_opt_parse(o, optarg,
					&a->spec.opts[c - OPT_WORKLOAD_BASE],
					err, sizeof(err))) {
				return usage_error("%s%s", err, "");
			}
		}
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'%s", argv[optind],
				   "");
	return 0;
}

int fl_run_args_parse(int argc, char **argv, struct fl_run_args *a)
{
	const struct fl_workload *w;

	memset(a, 0, sizeof(*a));
	a->results_dir = "results";
	if (argc < 1)
		return usage_error("give a workload (futexlab run --help lists "
				   "them)%s%s", "", "");
	if (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0) {
		fl_run_usage(stdout, NULL);
		return 1;
	}
	w = fl_workload_find(argv[0]);
	if (!w)
		return usage_error("unknown workload '%s'%s", argv[0],
				   " (futexlab list shows them)");
	fl_spec_init(&a->spec, w);
	a->spec.backends[0] = fl_backend_find("futex-private");
	a->spec.nbackends = 1;
	return parse_flags(argc, argv, w, a);
}
