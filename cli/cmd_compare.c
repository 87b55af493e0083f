// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab compare RUN-A RUN-B [RUN-C...]: each later run against the
 * first, cell by cell (compare/compare.h says how cells match and how the
 * verdicts are reached). futexlab compare --a RUN... --b RUN... and
 * futexlab compare CAMPAIGN: the run as the unit (compare/runs.h).
 * Writes compare.csv, compare.md and ratios.{gp,png,svg} into --out
 * (default: next to RUN-A, compare-<A>-vs-<B>), checked before any work.
 * Exit 0, 1 when an output cannot be written after all or gnuplot fails,
 * 2 on bad usage, an output that cannot be written, a directory that is
 * not a run, or runs whose comparison could not mean anything.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/outputs.h"
#include "campaign/campaign.h"
#include "compare/compare.h"
#include "compare/runs.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: futexlab compare RUN-A RUN-B [RUN-C...] [--out DIR] "
		"[--delta PCT]\n"
		"                        [--no-adjust] [--no-plot]\n"
		"       futexlab compare --a RUN... --b RUN... [--setting "
		"OPTION] [--out DIR]\n"
		"                        [--delta PCT]\n"
		"       futexlab compare CAMPAIGN [--out DIR] [--delta PCT]\n\n"
		"Compare each later run against RUN-A, cell by cell (cells "
		"match on their\nfull setup: workload, backend, threads, "
		"placement, options, duration, hash\nslots). Per cell: B/A of "
		"the primary figure with its 95%% interval, a\nrank-test "
		"p-value adjusted over the cells (Benjamini-\nHochberg), and a verdict: "
		"faster or\nslower when the interval lies beyond 1 +- delta, "
		"equivalent within it,\ninconclusive otherwise, undecided "
		"with too few repetitions. A geometric\nmean per workload and "
		"overall. Warns when the setups differ;\nrefuses a run given "
		"twice (a run against itself) and runs with no cell\nin "
		"common.\nWhere a workload's "
		"figures follow what each repetition measured\nof the "
		"machine (the cost of waking an idle CPU, the CPU's speed), "
		"its\nrepetitions are compared as if both runs had measured "
		"the same\n(docs/statistics.md).\n\n"
		"One run per side cannot tell a change of the machine between "
		"runs from a\nchange of the code: its intervals come from "
		"each run's repetitions. With\nseveral runs per side (--a "
		"and --b, or a campaign: futexlab campaign\n--help) the run "
		"is the unit: each run's median is one observation, the\n"
		"ratio and its interval come from how the runs spread, and a "
		"cell that\nneither differs nor is equivalent \"needs more "
		"runs\", with about how many\n(4 a side at least give an "
		"interval). A campaign's declared setting is\nleft out when "
		"its cells are matched.\n\n"
		"  --out DIR     where compare.csv, compare.md and "
		"ratios.png/svg go\n                (default: RUN-A's parent, "
		"compare-<A>-vs-<B>)\n"
		"  --delta PCT   the equivalence margin in percent (default "
		"2)\n"
		"  --no-adjust   compare the figures as measured, not "
		"adjusted for the\n                machine's state\n"
		"  --no-plot     skip the ratio plot\n"
		"  --a RUN...    side A's runs (with --b: the run as the "
		"unit)\n"
		"  --b RUN...    side B's runs\n"
		"  --setting OPTION  with --a and --b: match cells that differ "
		"only by\n                this workload option (the setting "
		"the sides vary)\n");
}

/* the runs of --a RUN... and --b RUN..., and argv without them */
struct sides {
	char *run[2][FL_RUNS_MAX_SIDE + 1];
	unsigned int n[2];
	int given[2];
	const char *setting;	/* --setting: the option cells may differ by */
	char **argv;
};

/* A list ends at the next flag; runs beyond what a side holds are kept
 * as one more, so that the count is refused with a message. */
static void take_sides(int *argc, char **argv, struct sides *s)
{
	int side = -1, n = 0;

	for (int i = 0; i < *argc; i++) {
		if (i && (!strcmp(argv[i], "--a") ||
			  !strcmp(argv[i], "--b"))) {
			side = argv[i][2] == 'b';
			s->given[side] = 1;
			continue;
		}
		if (side >= 0 && argv[i][0] != '-') {
			if (s->n[side] <= FL_RUNS_MAX_SIDE)
				s->run[side][s->n[side]++] = argv[i];
			continue;
		}
		side = -1;
		s->argv[n++] = argv[i];
	}
	*argc = n;
}

/*
 * --a and --b, or a campaign: compared here (0, or an fl_compare_runs()
 * code with err; 2 when a campaign printed its own folders). 1: neither,
 * for compare of runs one against another.
 */
static int by_runs(int argc, char **argv, const struct sides *s,
		   const struct fl_compare_opts *o, char *outdir,
		   size_t outlen, char *err, size_t errlen)
{
	if (!s->given[0] && !s->given[1]) {
		if (s->setting) {
			snprintf(err, errlen, "--setting needs --a and --b (a "
				 "campaign declares its own)");
			return -EINVAL;
		}
		if (argc - optind != 1 || !fl_campaign_is(argv[optind]))
			return 1;
		int rc = fl_campaign_compare(argv[optind], o, stdout, err,
					     errlen);

		return rc ? rc : 2;
	}
	if (optind < argc) {
		snprintf(err, errlen, "'%s': with --a and --b every run "
			 "belongs to a side", argv[optind]);
		return -EINVAL;
	}
	if (s->n[0] == 1 && s->n[1] == 1 && !s->setting) {
		char *pair[2] = { s->run[0][0], s->run[1][0] };
		struct fl_compare_opts one = *o;

		one.note = FL_ONE_RUN_NOTE;
		return fl_compare(pair, 2, &one, stdout, outdir, outlen, err,
				  errlen);
	}
	return fl_compare_runs(s->run[0], s->n[0], s->run[1], s->n[1],
			       s->setting, o, stdout, outdir, outlen, err,
			       errlen);
}

/*
 * Where compare writes without --out, beside the first run of A, checked
 * before any work as --out is: 1 after the message when it cannot be
 * written. A campaign says where its comparison goes itself.
 */
static int default_out_unwritable(int argc, char **argv,
				  const struct sides *s)
{
	char out[PATH_MAX + 300];
	int npos = argc - optind;

	if (s->given[0] || s->given[1]) {
		if (!s->n[0] || !s->n[1])
			return 0;
		fl_compare_default_out(s->run[0][0], s->run[1][0], 0,
				       s->n[0] > 1 || s->n[1] > 1 ||
				       s->setting, out, sizeof(out));
	} else if (npos >= 2) {
		fl_compare_default_out(argv[optind], argv[optind + 1],
				       npos > 2, 0, out, sizeof(out));
	} else {
		return 0;
	}
	return fl_check_output("compare", NULL, out, FL_OUT_DIR) != 0;
}

static int compare_main(int argc, char **argv, struct sides *sides)
{
	static const struct option longopts[] = {
		{ "out", 1, NULL, 'o' },
		{ "delta", 1, NULL, 'd' },
		{ "no-plot", 0, NULL, 'n' },
		{ "no-adjust", 0, NULL, 'a' },
		{ "setting", 1, NULL, 's' },
		{ "help", 0, NULL, 'h' },
		{ 0 },
	};
	struct fl_compare_opts o = { .say = &fl_say_stderr,
				     .delta = FL_DELTA_DEFAULT, .plot = 1,
				     .adjust = 1 };

	char outdir[PATH_MAX + 300], err[2048], *end;
	int rc;

	take_sides(&argc, argv, sides);
	argv = sides->argv;
	fl_getopt_start();
	for (;;) {
		int c = fl_getopt("compare", argc, argv, longopts);

		if (c == -1)
			break;
		switch (c) {
		case 'o':
			if (fl_check_output("compare", "--out", optarg,
					    FL_OUT_DIR))
				return 2;
			o.outdir = optarg;
			break;
		case 'd':
			o.delta = strtod(optarg, &end) / 100.0;
			if (*end || end == optarg || !(o.delta >= 0) ||
			    o.delta >= 1) {
				fprintf(stderr, "futexlab compare: --delta: "
					"'%s' is not a percentage from 0 to "
					"100\n", optarg);
				return 2;
			}
			break;
		case 'n':
			o.plot = 0;
			break;
		case 'a':
			o.adjust = 0;
			break;
		case 's':
			sides->setting = optarg;
			o.setting_given = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:	/* FL_GETOPT_BAD: it said why */
			return 2;
		}
	}
	if (!o.outdir && default_out_unwritable(argc, argv, sides))
		return 2;
	rc = by_runs(argc, argv, sides, &o, outdir, sizeof(outdir), err,
		     sizeof(err));
	if (rc == 1)
		rc = fl_compare(argv + optind, (unsigned int)(argc - optind),
				&o, stdout, outdir, sizeof(outdir), err,
				sizeof(err));
	else if (rc == 2)
		return 0;	/* a campaign printed its folders */
	if (rc) {
		fprintf(stderr, "futexlab compare: %s%s\n", err,
			rc == -EINVAL ? " (see --help)" : "");
		return rc == -EIO ? 1 : 2;
	}
	printf("%s\n", outdir);
	return 0;
}

int fl_cmd_compare(int argc, char **argv)
{
	static struct sides sides;
	int rc;

	sides.argv = calloc((size_t)argc + 1, sizeof(char *));
	if (!sides.argv) {
		fprintf(stderr, "futexlab compare: out of memory\n");
		return 1;
	}
	rc = compare_main(argc, argv, &sides);
	free(sides.argv);
	return rc;
}
