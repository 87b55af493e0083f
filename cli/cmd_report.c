// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab report RUN-DIR: write RUN-DIR/report.md (report/report.h says
 * what it holds). Reads only the run directory. Exit 0, 1 if report.md
 * cannot be written, 2 on bad usage or a directory that is not a run.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "report/report.h"

int fl_cmd_report(int argc, char **argv)
{
	char path[PATH_MAX + 32], err[1024];
	int rc;

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 ||
			  strcmp(argv[1], "-h") == 0)) {
		printf("usage: futexlab report RUN-DIR\n\nWrite RUN-DIR/"
		       "report.md: machine, kernel and settings, a table per\n"
		       "workload (each cell's median with its 95%% interval, "
		       "NOISY cells flagged,\npercentiles with their sample "
		       "counts), the plots of RUN-DIR/plots (run\nfutexlab "
		       "plot first), and the skipped, failed and aborted "
		       "cells.\n");
		return 0;
	}
	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: futexlab report RUN-DIR\n");
		return 2;
	}
	rc = fl_report_write(argv[1], path, sizeof(path), err, sizeof(err));
	if (rc) {
		fprintf(stderr, "futexlab report: %s\n", err);
		return rc == -ENOENT ? 2 : 1;
	}
	printf("%s\n", path);
	return 0;
}
