// SPDX-License-Identifier: GPL-2.0
/*
 * build/futexlab: the one binary. `futexlab COMMAND [args]`; every command
 * takes --help. Exit status: 0 success, 1 a failed check or output that
 * could not be written, 2 bad usage, 130 interrupted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/say.h"
#include "base/text.h"
#include "cli/commands.h"
#include "measure/cell.h"
#include "measure/counters.h"
#include "measure/program.h"
#include "rundir/keep.h"
#include "version.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "list", fl_cmd_list, "workloads, backends and machine support" },
	{ "run", fl_cmd_run, "run a workload: one cell or a small sweep" },
	{ "matrix", fl_cmd_matrix, "run a matrix file of experiments" },
	{ "plot", fl_cmd_plot, "draw a run's plots with gnuplot" },
	{ "report", fl_cmd_report, "write a run's report.md" },
	{ "compare", fl_cmd_compare, "compare runs cell by cell" },
	{ "campaign", fl_cmd_campaign, "several runs per side, interleaved" },
	{ "merge", fl_cmd_merge, "join a matrix's shards into one run" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: futexlab COMMAND [options]\n\n"
		"Contended futex workloads on pluggable backends; results in "
		"results/.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n  futexlab COMMAND --help    that command's options\n"
		"  futexlab --version\n");
}

int fl_main_argc;
char **fl_main_argv;

static void say_line(void *arg, const char *text)
{
	(void)arg;
	fprintf(stderr, "%s\n", text);
}

const struct fl_say fl_say_stderr = { say_line, NULL };

/* --version alone, or a usage error naming what came with it. */
static int version(int argc, char **argv, int at)
{
	for (int i = 1; i < argc; i++) {
		if (i != at && (i != 1 || at == 1)) {
			fprintf(stderr, "futexlab: --version takes no operands "
				"('%s')\n", argv[i]);
			return 2;
		}
	}
	printf("futexlab %s (git %s)\n", FL_VERSION, FL_GIT_COMMIT);
	return 0;
}

static int run_command(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "futexlab: give a command (futexlab --help "
			"lists them)\n");
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0)
		return version(argc, argv, 1);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name) != 0)
			continue;
		/* `futexlab CMD --version`: the command's name may stay */
		for (int j = 2; j < argc; j++)
			if (strcmp(argv[j], "--version") == 0)
				return version(argc, argv, j);
		return commands[i].fn(argc - 1, argv + 1);
	}
	fprintf(stderr, "futexlab: unknown command '%s' (futexlab --help "
		"lists them)\n", argv[1]);
	return 2;
}

/*
 * stdout and stderr behind sinks that escape every byte a terminal acts
 * on (base/text.h): messages quote matrix files, flags and run
 * directories from anywhere, and no message can forget. Buffered as
 * they were. 0, or -1 (out of memory).
 */
static int escape_output(void)
{
	FILE *out = fl_text_sink(stdout, isatty(STDOUT_FILENO) ? _IOLBF :
				 _IOFBF);
	FILE *err = out ? fl_text_sink(stderr, _IONBF) : NULL;

	if (!err) {
		if (out)
			fclose(out);
		return -1;
	}
	stdout = out;
	stderr = err;
	return 0;
}

/*
 * FUTEXLAB_PERF=off: count without perf events (schedstat and steal
 * only), for a kernel where switching them on and off is not safe (a
 * QEMU TCG guest: docs/measurement.md). 0, or -1 with the one line said.
 */
static int perf_switch(void)
{
	const char *v = getenv("FUTEXLAB_PERF");

	if (!v || !strcmp(v, "on"))
		return 0;
	if (!strcmp(v, "off")) {
		fl_counters_perf_off("FUTEXLAB_PERF=off");
		return 0;
	}
	fprintf(stderr, "futexlab: FUTEXLAB_PERF: '%s' is not on or off\n",
		v);
	return -1;
}

int main(int argc, char **argv)
{
	int rc;

	if (escape_output()) {
		fprintf(stderr, "futexlab: cannot set up output: %s\n",
			strerror(errno));
		return 1;
	}
	if (perf_switch())
		return 2;
	fl_main_argc = argc;
	fl_main_argv = argv;
	/* a failed or aborted cell is said as the run goes on */
	fl_cell_say = &fl_say_stderr;
	/* an app cell's program output goes to the run being written */
	fl_program_keep_with(fl_keep);
	rc = run_command(argc, argv);
	/* output that never arrived is a failure: `futexlab list >/dev/full`
	 * must not exit 0 (a command that failed already said why) */
	errno = 0;
	if (fflush(stdout) || ferror(stdout)) {
		if (!rc)
			fprintf(stderr, "futexlab: cannot write to standard "
				"output: %s\n", errno ? strerror(errno) :
				"an earlier write failed");
		return rc ? rc : 1;
	}
	return rc;
}
