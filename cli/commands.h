/* SPDX-License-Identifier: GPL-2.0 */
/* The subcommands of build/futexlab: each takes its own argv. */
#ifndef FUTEXLAB_COMMANDS_H
#define FUTEXLAB_COMMANDS_H

/* the whole command line, for meta.json */
extern int fl_main_argc;
extern char **fl_main_argv;

int fl_cmd_list(int argc, char **argv);
int fl_cmd_run(int argc, char **argv);
int fl_cmd_matrix(int argc, char **argv);
int fl_cmd_plot(int argc, char **argv);
int fl_cmd_report(int argc, char **argv);
int fl_cmd_compare(int argc, char **argv);

#endif
