// SPDX-License-Identifier: GPL-2.0
/* The announcement and the bound before cells run: see estimate.h. */
#include "cli/estimate.h"

#include <stdio.h>

void fl_format_duration(double s, char *buf, size_t len)
{
	if (s >= 3 * 86400.0)
		snprintf(buf, len, "%.0f days", s / 86400.0);
	else
		snprintf(buf, len, "%lu:%02lu:%02lu", (unsigned long)s / 3600,
			 (unsigned long)s / 60 % 60, (unsigned long)s % 60);
}

int fl_announce(const char *cmd, unsigned long ncells, unsigned long nreps,
		double seconds, int yes)
{
	char t[64];

	fl_format_duration(seconds, t, sizeof(t));
	if (seconds > FL_UNASKED_SECONDS && !yes) {
		fprintf(stderr, "futexlab %s: %lu cells, %lu repetitions in "
			"all: about %s, more than the day a run may take "
			"unasked: add --yes to run it\n", cmd, ncells, nreps,
			t);
		return -1;
	}
	fprintf(stderr, "futexlab %s: %lu cells, %lu repetitions in all, "
		"about %s (estimated)\n", cmd, ncells, nreps, t);
	return 0;
}
