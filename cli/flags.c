// SPDX-License-Identifier: GPL-2.0
/* A subcommand's getopt_long loop and its usage errors: see cli/flags.h. */
#include "cli/flags.h"

#include <stdio.h>
#include <string.h>

#include "rundir/regular.h"

/* the flags that build a list by being given again: "CMD --flag" */
static const char *const lists[] = {
	"campaign --side",
};

/* the value each option of the current parse was given, or NULL */
static const char *given[FL_GETOPT_MAX];

void fl_getopt_start(void)
{
	/* 0, not 1: glibc then forgets a previous parse entirely (its
	 * position inside an argument of an argv that may be gone) */
	optind = 0;
	opterr = 0;
	memset(given, 0, sizeof(given));
}

static int is_list(const char *cmd, const char *name)
{
	char key[128];

	snprintf(key, sizeof(key), "%s --%s", cmd, name);
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		if (!strcmp(lists[i], key))
			return 1;
	return 0;
}

FILE *fl_flags_said;

FILE *fl_flags_err(void)
{
	return fl_flags_said ? fl_flags_said : stderr;
}

FILE *fl_flags_out(void)
{
	return fl_flags_said ? fl_flags_said : stdout;
}

int fl_flag_twice(const char *cmd, const char *flag, const char *first,
		  const char *second)
{
	char b1[81], b2[81];

	fprintf(fl_flags_err(), "futexlab %s: %s is given twice ('%s', then '%s'): "
		"give it once\n", cmd, flag, fl_path_shown(first, b1, 80),
		fl_path_shown(second, b2, 80));
	return -1;
}

int fl_getopt_once(const char *cmd, const struct option *longopts,
		   int index, const char *arg)
{
	const struct option *o = &longopts[index];
	char flag[128];

	if (index < 0 || index >= FL_GETOPT_MAX || !o->has_arg || !arg)
		return 0;
	if (given[index] && !is_list(cmd, o->name)) {
		snprintf(flag, sizeof(flag), "--%s", o->name);
		return fl_flag_twice(cmd, flag, given[index], arg);
	}
	given[index] = arg;
	return 0;
}

int fl_getopt_exact(const char *cmd, char **argv,
		    const struct option *longopts, int index)
{
	const char *name = longopts[index].name;
	/* a value in the next argument: the flag is the one before it */
	const char *text = argv[optind - 1 - (optarg &&
					      optarg == argv[optind - 1])];
	size_t len = strcspn(text + 2, "=");

	if (!strncmp(text, "--", 2) && len == strlen(name) &&
	    !strncmp(text + 2, name, len))
		return 0;
	fprintf(stderr, "futexlab %s: unknown option '%.*s': options are "
		"spelled in full (--%s?)\n", cmd, (int)(len + 2), text, name);
	return -1;
}

int fl_getopt(const char *cmd, int argc, char **argv,
	      const struct option *longopts)
{
	int index = -1;
	/* the leading ':' makes a missing value ':' rather than '?' */
	int c = getopt_long(argc, argv, ":", longopts, &index);

	switch (c) {
	case ':':
		fprintf(fl_flags_err(), "futexlab %s: %s needs a value\n", cmd,
			argv[optind - 1]);
		return FL_GETOPT_BAD;
	case '?':
		/* an ambiguous prefix is as unknown as any other */
		fprintf(fl_flags_err(), "futexlab %s: unknown option '%s' "
			"(see --help)\n", cmd, argv[optind - 1]);
		return FL_GETOPT_BAD;
	case -1:
		return c;
	default:
		return fl_getopt_exact(cmd, argv, longopts, index) ||
		       fl_getopt_once(cmd, longopts, index, optarg) ?
		       FL_GETOPT_BAD : c;
	}
}
