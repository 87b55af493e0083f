/* SPDX-License-Identifier: GPL-2.0 */
/*
 * getopt_long over a subcommand's own argv (argv[0] is the subcommand),
 * with the two messages every subcommand gives in the same words: a flag
 * without its value and a flag it does not know. Each subcommand keeps
 * its options table and its own switch over the values.
 */
#ifndef FUTEXLAB_CLI_FLAGS_H
#define FUTEXLAB_CLI_FLAGS_H

#include <getopt.h>

/* fl_getopt() printed why argv is bad: the command exits with status 2. */
#define FL_GETOPT_BAD	(-2)

/* Start again at argv[1], with getopt's own messages off. */
void fl_getopt_start(void);

/*
 * The next option's val from longopts (no short options), -1 after the
 * last one, or FL_GETOPT_BAD after "futexlab CMD: --x needs a value" or
 * "futexlab CMD: unknown option '--x' (see --help)" on stderr.
 */
int fl_getopt(const char *cmd, int argc, char **argv,
	      const struct option *longopts);

#endif
