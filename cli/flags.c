// SPDX-License-Identifier: GPL-2.0
/* A subcommand's getopt_long loop and its usage errors: see cli/flags.h. */
#include "cli/flags.h"

#include <stdio.h>

void fl_getopt_start(void)
{
	/* 0, not 1: glibc then forgets a previous parse entirely (its
	 * position inside an argument of an argv that may be gone) */
	optind = 0;
	opterr = 0;
}

int fl_getopt(const char *cmd, int argc, char **argv,
	      const struct option *longopts)
{
	/* the leading ':' makes a missing value ':' rather than '?' */
	int c = getopt_long(argc, argv, ":", longopts, NULL);

	switch (c) {
	case ':':
		fprintf(stderr, "futexlab %s: %s needs a value\n", cmd,
			argv[optind - 1]);
		return FL_GETOPT_BAD;
	case '?':
		fprintf(stderr, "futexlab %s: unknown option '%s' "
			"(see --help)\n", cmd, argv[optind - 1]);
		return FL_GETOPT_BAD;
	default:
		return c;
	}
}
