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
#include "spec/common_keys.h"

/* getopt's codes: run's own flags, then a workload option's or a common
 * key's base plus its row's index. */
enum {
	OPT_RESULTS = 1000, OPT_JSON, OPT_YES, OPT_HELP,
	OPT_WORKLOAD_BASE = 2000,
	OPT_COMMON_BASE = 3000,
};

/* The flags only `run` has, beside the common keys (spec/common_keys.h). */
static const struct {
	const char *name;
	int has_arg;
	int val;
	const char *arg, *help;
} own[] = {
	{ "results", 1, OPT_RESULTS, "DIR",
	  "where run directories go (default results)" },
	{ "json", 0, OPT_JSON, "", "print the summary as JSON on stdout" },
	{ "yes", 0, OPT_YES, "", "run even when the estimate passes a day" },
	{ "help", 0, OPT_HELP, "", "this help" },
};
#define NOWN (sizeof(own) / sizeof(own[0]))

static int usage_error(const char *fmt, const char *a, const char *b)
{
	FILE *say = fl_flags_err();

	fprintf(say, "futexlab run: ");
	fprintf(say, fmt, a, b);
	fprintf(say, "\n");
	return 2;
}

void fl_run_usage(FILE *f, const struct fl_workload *w)
{
	fprintf(f, "usage: futexlab run %s [options]\n",
		w ? w->name : "WORKLOAD");
	fprintf(f, "       futexlab run --resume DIR   finish a run that "
		"was interrupted\n\n");
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
	for (unsigned int i = 0; i < fl_ncommon_keys; i++)
		fprintf(f, "  --%-12s %s  %s\n", fl_common_keys[i].name,
			fl_common_keys[i].arg, fl_common_keys[i].help);
	for (size_t i = 0; i < NOWN; i++)
		fprintf(f, "  --%-12s %s  %s\n", own[i].name, own[i].arg,
			own[i].help);
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
			/* a coded enum names some values; its help says the
			 * rest (numa's node sets and distances) */
			fprintf(f, "  %-14s %s:", "",
				o->parse ? "named values" : "one of");
			for (int c = 0; o->choices[c]; c++)
				fprintf(f, " %s", o->choices[c]);
			fprintf(f, "\n");
		}
	}
}

/* One of run's own flags into a: 0, or 2 after its one-line error. */
static int own_option(int c, struct fl_run_args *a)
{
	if (c == OPT_RESULTS) {
		if (fl_check_output("run", "--results", optarg,
				    FL_OUT_DIR_TREE))
			return 2;
		a->results_dir = optarg;
	} else if (c == OPT_JSON) {
		a->json = 1;
	} else if (c == OPT_YES) {
		a->yes = 1;
	}
	return 0;
}

/* argv's flags for workload w into a: 0, 1 after --help, or 2. */
static int parse_flags(int argc, char **argv, const struct fl_workload *w,
		       struct fl_run_args *a)
{
	struct option longopts[FL_MAX_COMMON_KEYS + NOWN + FL_MAX_OPTS + 1];
	_Static_assert(FL_MAX_COMMON_KEYS + NOWN + FL_MAX_OPTS <=
		       FL_GETOPT_MAX, "run's options outgrow fl_getopt_once()");
	struct fl_key_ctx ctx;
	char err[512];
	unsigned int n = 0;

	fl_key_ctx_here(&ctx, 0);
	for (unsigned int i = 0; i < fl_ncommon_keys; i++)
		longopts[n++] = (struct option){ fl_common_keys[i].name, 1,
			NULL, OPT_COMMON_BASE + (int)i };
	for (size_t i = 0; i < NOWN; i++)
		longopts[n++] = (struct option){ own[i].name, own[i].has_arg,
			NULL, own[i].val };
	for (unsigned int i = 0; i < w->noptions; i++)
		longopts[n++] = (struct option){ w->options[i].name,
			w->options[i].type == FL_OPT_BOOL ? 0 : 1, NULL,
			OPT_WORKLOAD_BASE + (int)i };
	longopts[n] = (struct option){ 0 };
	fl_getopt_start();
	for (;;) {
		int index = -1;
		int c = getopt_long(argc, argv, ":", longopts, &index);

		if (c == -1)
			break;
		if (c != ':' && c != '?' &&
		    (fl_getopt_exact("run", argv, longopts, index) ||
		     fl_getopt_once("run", longopts, index, optarg)))
			return 2;
		if (c >= OPT_COMMON_BASE) {
			if (fl_common_key_apply(&fl_common_keys[c -
						OPT_COMMON_BASE], optarg,
						&a->spec, &ctx, err,
						sizeof(err)))
				return usage_error("%s%s", err, "");
			continue;
		}
		if (c >= OPT_RESULTS && c < OPT_HELP) {
			if (own_option(c, a))
				return 2;
			continue;
		}
		switch (c) {
		case OPT_HELP:
			fl_run_usage(fl_flags_out(), w);
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

			if (o->type == FL_OPT_BOOL && optind < argc &&
			    argv[optind][0] != '-')
				return usage_error("--%s takes no value ('%s' "
						   "follows it): give it alone "
						   "for yes, leave it out for "
						   "no", o->name, argv[optind]);
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
		fl_run_usage(fl_flags_out(), NULL);
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
