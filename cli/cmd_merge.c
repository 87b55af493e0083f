// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab merge SHARD... [--results DIR]: the shards of one matrix
 * (futexlab matrix FILE --shard K/N, run on one machine or many) into one
 * run directory equal in its cells to a run of the whole matrix
 * (merge/merge.h, docs/fleet.md). Its path is the last line. Exit 0, 1
 * when writing failed, 2 on bad usage or a bad shard (one line naming
 * it, nothing written).
 */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/flags.h"
#include "cli/outputs.h"
#include "merge/merge.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: futexlab merge SHARD-DIR... [--results DIR]\n\n"
		"Join the run directories of a matrix's shards (futexlab\n"
		"matrix FILE --shard K/N, K = 0 .. N-1) into one run\n"
		"directory under results/, equal in its cells to a run of\n"
		"the whole matrix; meta.json records the host of each cell.\n"
		"Every shard must be of the same matrix and futexlab, each K\n"
		"given once (docs/fleet.md).\n\n"
		"  --results DIR   where the merged run goes (default "
		"results)\n"
		"  --run-dir-file F  also write its path to F\n"
		"  --help          this help\n");
}

int fl_cmd_merge(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "results", 1, NULL, 'r' },
		{ "run-dir-file", 1, NULL, 'f' },
		{ "help", 0, NULL, 'h' },
		{ 0 },
	};
	const char *results = "results", *dir_file = NULL;
	static struct fl_merged m;
	char err[2048], final[4096];
	int rc;

	fl_getopt_start();
	for (int c; (c = fl_getopt("merge", argc, argv, longopts)) != -1;) {
		switch (c) {
		case 'r':
			if (fl_check_output("merge", "--results", optarg,
					    FL_OUT_DIR_TREE))
				return FL_EXIT_USAGE;
			results = optarg;
			break;
		case 'f':
			if (fl_check_output("merge", "--run-dir-file", optarg,
					    FL_OUT_FILE))
				return FL_EXIT_USAGE;
			dir_file = optarg;
			break;
		case 'h':
			usage(stdout);
			return FL_EXIT_OK;
		default:
			return FL_EXIT_USAGE;
		}
	}
	if (optind >= argc || argc - optind > 100000) {
		fprintf(stderr, "futexlab merge: give the shards' run "
			"directories, 1 to 100000 (see --help)\n");
		return FL_EXIT_USAGE;
	}
	if (fl_merge_read(&m, (const char *const *)argv + optind,
			  (unsigned int)(argc - optind), err, sizeof(err))) {
		fl_merge_free(&m);
		fprintf(stderr, "futexlab merge: %s\n", err);
		return FL_EXIT_USAGE;
	}
	rc = fl_merge_write(&m, results, fl_main_argc, fl_main_argv, final,
			    sizeof(final), err, sizeof(err));
	if (rc) {
		fprintf(stderr, "futexlab merge: %s\n", err);
	} else {
		printf("%lu cells from %u shards\n%s\n", m.ncells, m.n, final);
		rc = fl_write_dir_file("merge", dir_file, final);
	}
	fl_merge_free(&m);
	return rc ? FL_EXIT_FAILED : FL_EXIT_OK;
}
