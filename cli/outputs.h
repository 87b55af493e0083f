/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every subcommand checks where it will write before it starts work:
 * `--out`, `--results` and `--run-dir-file`, and the folders plot, report
 * and compare write without `--out`, are refused up front, with one line
 * naming the bad value (exit 2), instead of after a matrix ran or with a
 * message that names an empty path.
 */
#ifndef FUTEXLAB_CLI_OUTPUTS_H
#define FUTEXLAB_CLI_OUTPUTS_H

enum fl_output_kind {
	FL_OUT_DIR,		/* a directory, created if its parent exists */
	FL_OUT_DIR_TREE,	/* a directory, created with its parents */
	FL_OUT_FILE,		/* a file, created or replaced */
};

/*
 * 0 when path can be written as kind; otherwise -1 after "futexlab CMD:
 * FLAG: 'PATH' why" on stderr. flag NULL: path is where the command
 * writes without --out, and the message says so.
 */
int fl_check_output(const char *cmd, const char *flag, const char *path,
		    enum fl_output_kind kind);

/*
 * The same for an output a command writes inside a run by default
 * (plot's RUN/plots, report's RUN/report.md), through the run's folder
 * dirfd: name, a folder made there or written in, never through a
 * link; or (name NULL) a file made in dirfd itself. shown is its path
 * for the message, which names --out when the command has one (has_out).
 */
int fl_check_output_at(const char *cmd, int dirfd, const char *name,
		       const char *shown, int has_out);

/* A finished run directory's path into --run-dir-file (NULL: none), for
 * scripts; 0, or -1 after "futexlab CMD: cannot write FILE: why". */
int fl_write_dir_file(const char *cmd, const char *file, const char *dir);

#endif
