// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab report RUN-DIR: write RUN-DIR/report.md (report/report.h says
 * what it holds). futexlab report RUN-DIR RUN-DIR... [--out DIR]: a
 * fleet, the runs of one matrix on several machines side by side, with
 * plots a line per machine, into DIR. Reads only the run directories.
 * Exit 0, 1 if a report or plot cannot be written after all, 2 on bad
 * usage, a directory that is not a run, a run given twice, or an output
 * that cannot be written (checked before any work).
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/outputs.h"
#include "report/report.h"
#include "rundir/read.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: futexlab report RUN-DIR\n"
		"       futexlab report RUN-DIR RUN-DIR... [--out DIR]\n\n"
		"Write RUN-DIR/report.md: machine, kernel and settings, a "
		"table per\nworkload (each cell's median with its 95%% "
		"interval, NOISY cells flagged,\npercentiles with their "
		"sample counts), the plots of RUN-DIR/plots (run\nfutexlab "
		"plot first), and the skipped, failed and aborted cells.\n\n"
		"With several runs (a fleet: one matrix on several machines, "
		"each named\nby its --label or host name), write one report "
		"with the machines side by\nside and plots with a line per "
		"machine into DIR (default: fleet-RUN\nnext to the first "
		"run; docs/fleet.md).\n\n"
		"  --out DIR   where a fleet's report.md and plots/ go\n"
		"  --help      this help\n");
}

/* fleet-<first run's name> beside the first run. */
static void default_out(const char *first, char *buf, size_t len)
{
	char a[PATH_MAX], b[PATH_MAX];

	snprintf(a, sizeof(a), "%s", first);
	snprintf(b, sizeof(b), "%s", first);
	for (size_t n = strlen(a); n > 1 && a[n - 1] == '/'; n--)
		a[n - 1] = b[n - 1] = '\0';
	snprintf(buf, len, "%s/fleet-%s", dirname(a), basename(b));
}

/* RUN/report.md, checked before it is written: 0; 2 after the message
 * for a run that cannot be read or written in; or fl_report_write_run's
 * code with err. */
static int report_one(const char *dir, char *path, size_t pathlen,
		      char *err, size_t errlen)
{
	static struct fl_rd_run run;
	char shown[PATH_MAX + 16];
	int rc;

	if (fl_rd_open(dir, &run, err, errlen)) {
		fprintf(stderr, "futexlab report: %s\n", err);
		return 2;
	}
	snprintf(shown, sizeof(shown), "%s/report.md", run.dir);
	rc = fl_check_output_at("report", run.dirfd, NULL, shown, 0) ? 2 :
	     fl_report_write_run(&run, path, pathlen, err, errlen);
	fl_rd_close(&run);
	return rc;
}

int fl_cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "out", 1, NULL, 'o' },
		{ "help", 0, NULL, 'h' },
		{ 0 },
	};
	char path[PATH_MAX + 32], err[1024], out[PATH_MAX + 16];
	const char *outdir = NULL;
	int rc, n;

	fl_getopt_start();
	for (int c; (c = fl_getopt("report", argc, argv, longopts)) != -1;) {
		switch (c) {
		case 'o':
			if (fl_check_output("report", "--out", optarg,
					    FL_OUT_DIR))
				return 2;
			outdir = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return 2;
		}
	}
	n = argc - optind;
	if (n < 1 || (n == 1 && outdir)) {
		fprintf(stderr, "usage: futexlab report RUN-DIR, or RUN-DIR "
			"RUN-DIR... [--out DIR] (see --help)\n");
		return 2;
	}
	if (n == 1) {
		rc = report_one(argv[optind], path, sizeof(path), err,
				sizeof(err));
		if (rc == 2)
			return 2;
	} else {
		if (!outdir) {
			default_out(argv[optind], out, sizeof(out));
			if (fl_check_output("report", NULL, out, FL_OUT_DIR))
				return 2;
			outdir = out;
		}
		rc = fl_report_fleet((const char *const *)argv + optind,
				     (unsigned int)n, outdir, &fl_say_stderr,
				     path, sizeof(path), err, sizeof(err));
	}
	if (rc) {
		fprintf(stderr, "futexlab report: %s\n", err);
		return rc == -EIO ? 1 : 2;
	}
	printf("%s\n", path);
	return 0;
}
