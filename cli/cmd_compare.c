// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab compare RUN-A RUN-B [RUN-C...]: each later run against the
 * first, cell by cell (compare/compare.h says how cells match and how the
 * verdicts are reached). Writes compare.csv, compare.md and
 * ratios.{gp,png,svg} into --out (default: next to RUN-A,
 * compare-<A>-vs-<B>). Exit 0, 1 when an output cannot be written or
 * gnuplot fails, 2 on bad usage or a directory that is not a run.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/outputs.h"
#include "compare/compare.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: futexlab compare RUN-A RUN-B [RUN-C...] [--out DIR] "
		"[--delta PCT]\n"
		"                        [--no-adjust] [--no-plot]\n\n"
		"Compare each later run against RUN-A, cell by cell (cells "
		"match on their\nfull setup: workload, backend, threads, "
		"placement, options, duration, hash\nslots). Per cell: B/A of "
		"the primary figure with its 95%% interval, a\nrank-test "
		"p-value adjusted over the cells (Benjamini-\nHochberg), and a verdict: "
		"faster or\nslower when the interval lies beyond 1 +- delta, "
		"equivalent within it,\ninconclusive otherwise, undecided "
		"with too few repetitions. A geometric\nmean per workload and "
		"overall. Warns when the setups differ.\nWhere a workload's "
		"figures follow what each repetition measured\nof the "
		"machine (the cost of waking an idle CPU, the CPU's speed), "
		"its\nrepetitions are compared as if both runs had measured "
		"the same\n(docs/statistics.md).\n\n"
		"  --out DIR     where compare.csv, compare.md and "
		"ratios.png/svg go\n                (default: RUN-A's parent, "
		"compare-<A>-vs-<B>)\n"
		"  --delta PCT   the equivalence margin in percent (default "
		"2)\n"
		"  --no-adjust   compare the figures as measured, not "
		"adjusted for the\n                machine's state\n"
		"  --no-plot     skip the ratio plot\n");
}

int fl_cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "out", 1, NULL, 'o' },
		{ "delta", 1, NULL, 'd' },
		{ "no-plot", 0, NULL, 'n' },
		{ "no-adjust", 0, NULL, 'a' },
		{ "help", 0, NULL, 'h' },
		{ 0 },
	};
	struct fl_compare_opts o = { .delta = FL_DELTA_DEFAULT, .plot = 1,
				     .adjust = 1 };
	char outdir[PATH_MAX + 300], err[2048], *end;
	int rc;

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
		case 'h':
			usage(stdout);
			return 0;
		default:	/* FL_GETOPT_BAD: it said why */
			return 2;
		}
	}
	rc = fl_compare(argv + optind, (unsigned int)(argc - optind), &o,
			stdout, outdir, sizeof(outdir), err, sizeof(err));
	if (rc) {
		fprintf(stderr, "futexlab compare: %s%s\n", err,
			rc == -EINVAL ? " (see --help)" : "");
		return rc == -EIO ? 1 : 2;
	}
	printf("%s\n", outdir);
	return 0;
}
