/* SPDX-License-Identifier: GPL-2.0 */
/*
 * getopt_long over a subcommand's own argv (argv[0] is the subcommand),
 * with the messages every subcommand gives in the same words: a flag
 * without its value, a flag it does not know, and a flag with a value
 * given twice. Each subcommand keeps its options table and its own
 * switch over the values.
 */
#ifndef FUTEXLAB_CLI_FLAGS_H
#define FUTEXLAB_CLI_FLAGS_H

#include <getopt.h>
#include <stdio.h>

/* fl_getopt() printed why argv is bad: the command exits with status 2. */
/* the most options a table may have for fl_getopt_once() to hold each
 * to one value */
#define FL_GETOPT_MAX	64

#define FL_GETOPT_BAD	(-2)

/* Start again at argv[1], with getopt's own messages off and no flag
 * seen yet. */
void fl_getopt_start(void);

/*
 * The next option's val from longopts (no short options, names only in
 * full), -1 after the last one, or FL_GETOPT_BAD after "futexlab CMD: --x
 * needs a value", "futexlab CMD: unknown option '--x' (see --help)",
 * fl_getopt_exact()'s or fl_getopt_once()'s message on stderr.
 */
int fl_getopt(const char *cmd, int argc, char **argv,
	      const struct option *longopts);

/*
 * Options are spelled in full: getopt_long would take "--thread" for
 * --threads and call "--b" ambiguous, so a name typed short could mean
 * another option once one is added. For a parser of its own: 0 when
 * longopts[index], just parsed, was spelled in full; else -1 after
 * "futexlab CMD: unknown option '--thread': options are spelled in
 * full (--threads?)".
 */
int fl_getopt_exact(const char *cmd, char **argv,
		    const struct option *longopts, int index);

/*
 * A flag that takes a value says one thing: given again, which value
 * is meant cannot be told, so the second time is refused (the lists a
 * flag builds by being repeated, campaign's --side, excepted). For a
 * parser of its own: longopts[index] was just parsed with arg; 0, or -1
 * after "futexlab CMD: --x is given twice ('a', then 'b'): give it once".
 */
int fl_getopt_once(const char *cmd, const struct option *longopts,
		   int index, const char *arg);

/*
 * Where the flag parsers say what is wrong (fl_flags_err) and print
 * their help (fl_flags_out): stderr and stdout, unless a command parsing
 * flags it read from a file catches what they say to name the file in
 * its own line (cli/cmd_run.c's resume) by setting fl_flags_said.
 */
extern FILE *fl_flags_said;
FILE *fl_flags_err(void);
FILE *fl_flags_out(void);

/* That message for a parser without an options table. */
int fl_flag_twice(const char *cmd, const char *flag, const char *first,
		  const char *second);

#endif
