/* SPDX-License-Identifier: GPL-2.0 */
/* The subcommands of build/futexlab: each takes its own argv. */
#ifndef FUTEXLAB_COMMANDS_H
#define FUTEXLAB_COMMANDS_H

/*
 * Exit statuses, the same for every subcommand (README "Using it"): only
 * this layer knows them; the libraries return 0/-1 and a message.
 */
enum fl_exit {
	FL_EXIT_OK = 0,
	FL_EXIT_FAILED = 1,		/* a failed check or an aborted cell */
	FL_EXIT_USAGE = 2,		/* bad usage or bad input */
	FL_EXIT_NOTHING_RAN = 3,	/* every cell was skipped: no figure */
	FL_EXIT_INTERRUPTED = 130,	/* SIGINT/SIGTERM; resumable */
};

/* the whole command line, for meta.json */
extern int fl_main_argc;
extern char **fl_main_argv;

/* What a library says beyond its result (base/say.h): a line on stderr.
 * Handed to each library that takes one; cli/main.c. */
struct fl_say;
extern const struct fl_say fl_say_stderr;

int fl_cmd_list(int argc, char **argv);
int fl_cmd_run(int argc, char **argv);
int fl_cmd_matrix(int argc, char **argv);
int fl_cmd_plot(int argc, char **argv);
int fl_cmd_report(int argc, char **argv);
int fl_cmd_compare(int argc, char **argv);
int fl_cmd_campaign(int argc, char **argv);
int fl_cmd_merge(int argc, char **argv);

#endif
