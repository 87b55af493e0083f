// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab plot RUN-DIR: draw the run's plots with gnuplot into
 * RUN-DIR/plots/ (see plot/plot.h for which), keeping each generated .gp
 * script next to its .png and .svg. Reads only the run directory.
 * Exit 0, 1 when gnuplot failed, 2 on bad usage, an unreadable run or an
 * output folder that cannot be written (checked before any plot).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "cli/flags.h"
#include "cli/outputs.h"
#include "cli/commands.h"
#include "spec/options.h"
#include "plot/plot.h"
#include "rundir/read.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: futexlab plot RUN-DIR [options]\n\n"
		"Draw a run's plots (PNG and SVG, with their gnuplot scripts)\n"
		"into RUN-DIR/plots/: per workload throughput, latency\n"
		"percentiles, latency CDF and fairness against threads, and\n"
		"the plots of a workload's own that the run describes (pi,\n"
		"condvar and numa have one). A workload this futexlab lacks\n"
		"gets the same generic plots.\n\n"
		"  --cdf-threads N   CDF of the cells with N threads (default: "
		"the largest)\n"
		"  --cdf-cells LIST  CDF of these cell indices instead, e.g. "
		"3,7\n"
		"  --timeline LIST   also throughput over time of these cell\n"
		"                    indices, e.g. 3,7: a line per repetition\n"
		"  --out DIR         write elsewhere than RUN-DIR/plots\n"
		"  --scripts-only    write the .gp scripts, do not run "
		"gnuplot\n"
		"  --help            this help\n");
}

static int bad_cell_item(const char *flag, const char *list,
			 const char *item, const char *why)
{
	fprintf(stderr, "futexlab plot: %s: '%s' in '%s' %s\n", flag, item,
		list, why);
	return -1;
}

/* A list of cell indices (--cdf-cells, --timeline): each item at most 9
 * digits, none empty, none twice, at most 64; -1 after a message. */
static int cells_list_check(const char *flag, const char *list)
{
	char buf[512], *save = NULL;
	unsigned long seen[64];
	unsigned int n = 0;

	if (!*list || strlen(list) >= sizeof(buf) || list[0] == ',' ||
	    list[strlen(list) - 1] == ',' || strstr(list, ",,")) {
		fprintf(stderr, "futexlab plot: %s: '%s' is not a list of "
			"cell indices (e.g. 3,7)\n", flag, list);
		return -1;
	}
	strcpy(buf, list);
	for (char *t = strtok_r(buf, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		if (strspn(t, "0123456789") != strlen(t) || strlen(t) > 9)
			return bad_cell_item(flag, list, t, "is not a cell "
					     "index");
		unsigned long v = strtoul(t, NULL, 10);

		for (unsigned int i = 0; i < n; i++)
			if (seen[i] == v)
				return bad_cell_item(flag, list, t,
						     "is given twice");
		if (n == sizeof(seen) / sizeof(seen[0]))
			return bad_cell_item(flag, list, t, "is one cell too "
					     "many (at most 64)");
		seen[n++] = v;
	}
	return 0;
}

/* Every index of a checked list names a cell of run; -1 after a message. */
static int cdf_cells_in_run(const char *list, const struct fl_rd_run *run)
{
	char buf[512], *save = NULL, why[128];

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *t = strtok_r(buf, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		unsigned long v = strtoul(t, NULL, 10), i;

		for (i = 0; i < run->ncells && run->cells[i].index != v; i++)
			;
		if (i == run->ncells) {
			snprintf(why, sizeof(why), "is not a cell of %s (it "
				 "has %lu)", run->name, run->ncells);
			return bad_cell_item("--cdf-cells", list, t, why);
		}
	}
	return 0;
}

/* plot's options into @o and @outdir: 0, 1 (--help shown) or -1 (bad,
 * said). */
static int parse_plot_args(int argc, char **argv, struct fl_plot_opts *o,
			   const char **outdir)
{
	static const struct option longopts[] = {
		{ "cdf-threads", 1, NULL, 't' },
		{ "cdf-cells", 1, NULL, 'c' },
		{ "timeline", 1, NULL, 'T' },
		{ "out", 1, NULL, 'o' },
		{ "scripts-only", 0, NULL, 's' },
		{ "help", 0, NULL, 'h' },
		{ 0 },
	};
	uint64_t u;
	int c;

	fl_getopt_start();
	while ((c = fl_getopt("plot", argc, argv, longopts)) != -1) {
		switch (c) {
		case 't':
			if (fl_parse_u64(optarg, &u) || u < 1 || u > 1024) {
				fprintf(stderr, "futexlab plot: --cdf-threads: "
					"'%s' is not a thread count\n", optarg);
				return -1;
			}
			o->cdf_threads = (unsigned int)u;
			break;
		case 'c':
			if (cells_list_check("--cdf-cells", optarg))
				return -1;
			o->cdf_cells = optarg;
			break;
		case 'T':
			if (cells_list_check("--timeline", optarg))
				return -1;
			o->timeline_cells = optarg;
			break;
		case 'o':
			if (fl_check_output("plot", "--out", optarg,
					    FL_OUT_DIR))
				return -1;
			*outdir = optarg;
			break;
		case 's':
			o->no_render = 1;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:	/* FL_GETOPT_BAD: it said why */
			return -1;
		}
	}
	if (o->cdf_threads && o->cdf_cells) {
		/* the CDF is of one set of cells: which, could not be told */
		fprintf(stderr, "futexlab plot: --cdf-threads and --cdf-cells "
			"each choose the CDF's cells: give one\n");
		return -1;
	}
	return 0;
}

/* What plot needs of the run directory beyond fl_rd_open's checks. */
static int run_usable(const struct fl_rd_run *run, const char *outdir,
		      const struct fl_plot_opts *o)
{
	char err[2048];
	struct stat st;

	if (!outdir && fstatat(run->dirfd, "plots", &st, AT_SYMLINK_NOFOLLOW) ==
	    0 && !S_ISDIR(st.st_mode)) {
		/* a link planted in a run directory: refused, not followed */
		fprintf(stderr, "futexlab plot: %s/plots is not a directory "
			"(a symbolic link is refused)\n", run->dir);
		return -1;
	}
	if (o->cdf_cells && cdf_cells_in_run(o->cdf_cells, run))
		return -1;
	/* the timelines' bins are input too: all checked before the
	 * first plot is written, so a bad one leaves no half set */
	if (fl_plot_check(run, o, err, sizeof(err))) {
		fprintf(stderr, "futexlab plot: %s\n", err);
		return -1;
	}
	return 0;
}

int fl_cmd_plot(int argc, char **argv)
{
	struct fl_plot_opts o = { .say = &fl_say_stderr };
	static struct fl_rd_run run;
	char out[PATH_MAX + 16], err[2048];
	const char *outdir = NULL;
	int n = parse_plot_args(argc, argv, &o, &outdir);

	if (n)
		return n > 0 ? FL_EXIT_OK : FL_EXIT_USAGE;
	if (optind != argc - 1) {
		fprintf(stderr, "futexlab plot: %s%s%s (see --help)\n",
			optind < argc ? "give one RUN-DIR, not also '" :
			"give a RUN-DIR", optind < argc ? argv[argc - 1] : "",
			optind < argc ? "'" : "");
		return FL_EXIT_USAGE;
	}
	if (fl_rd_open(argv[optind], &run, err, sizeof(err))) {
		fprintf(stderr, "futexlab plot: %s\n", err);
		return FL_EXIT_USAGE;
	}
	if (run_usable(&run, outdir, &o)) {
		fl_rd_close(&run);
		return FL_EXIT_USAGE;
	}
	snprintf(out, sizeof(out), "%s/plots", run.dir);
	if (!outdir && fl_check_output_at("plot", run.dirfd, "plots", out,
					   1)) {
		fl_rd_close(&run);
		return FL_EXIT_USAGE;
	}
	n = fl_plot_run(&run, outdir, &o, stdout, err, sizeof(err));
	fl_rd_close(&run);
	if (n < 0) {
		fprintf(stderr, "futexlab plot: %s\n", err);
		return FL_EXIT_FAILED;
	}
	printf("%d plots in %s\n", n, outdir ? outdir : out);
	return FL_EXIT_OK;
}
