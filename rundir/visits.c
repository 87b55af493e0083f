// SPDX-License-Identifier: GPL-2.0
/* A partial run's visit journal, visits.csv: visits.h. */
#include "rundir/visits.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rundir/write_at.h"

void fl_visit_hist_name(char *buf, size_t len, unsigned long cell,
			unsigned int rep)
{
	snprintf(buf, len, "hist/cell-%04lu-rep-%03u.csv", cell, rep);
}

static const char *shown_of(const struct fl_run *run, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", run->tmp, FL_VISITS_FILE);
	return buf;
}

static void close_journal(struct fl_run *run)
{
	if (run->visits)
		fclose(run->visits);
	run->visits = NULL;
}

/* visits.csv replaced by text, then opened to append */
static int replace(struct fl_run *run, const char *text, size_t len,
		   char *err, size_t errlen)
{
	char shown[PATH_MAX + 32];

	close_journal(run);
	shown_of(run, shown, sizeof(shown));
	if (fl_write_at_changed(run->fd, FL_VISITS_FILE, shown, text, len,
				err, errlen))
		return -1;
	run->visits = fl_append_at(run->fd, FL_VISITS_FILE, shown, err,
				   errlen);
	return run->visits ? 0 : -1;
}

int fl_visits_start(struct fl_run *run, char *err, size_t errlen)
{
	run->visits = fl_create_at(run->fd, FL_VISITS_FILE, FL_VISITS_COLUMNS);
	if (!run->visits) {
		snprintf(err, errlen, "--results: cannot write in '%s': %s",
			 run->tmp, strerror(errno));
		return -1;
	}
	return 0;
}

int fl_visits_note(struct fl_run *run, const struct fl_row_place *at,
		   char *err, size_t errlen)
{
	char shown[PATH_MAX + 32];

	fprintf(run->visits, "%lu,%lu,%u\n", at->visit, at->cell, at->rep);
	if (fflush(run->visits) || fsync(fileno(run->visits))) {
		snprintf(err, errlen, "cannot write %s: %s",
			 shown_of(run, shown, sizeof(shown)), strerror(errno));
		return -1;
	}
	return 0;
}

/* a line: two unsigned longs, an unsigned int, two commas, a newline */
#define LINE_MAX_LEN	64

int fl_visits_rewrite(struct fl_run *run, const struct fl_row_place *kept,
		      unsigned long n, char *err, size_t errlen)
{
	size_t cap = sizeof(FL_VISITS_COLUMNS) + 1 + n * LINE_MAX_LEN, len;
	char *text = malloc(cap);
	int rc;

	if (!text) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	len = (size_t)snprintf(text, cap, "%s\n", FL_VISITS_COLUMNS);
	for (unsigned long i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len, "%lu,%lu,%u\n",
					kept[i].visit, kept[i].cell,
					kept[i].rep);
	rc = replace(run, text, len, err, errlen);
	free(text);
	return rc;
}

int fl_visits_present(const struct fl_run *run)
{
	return fl_exists_at(run->fd, FL_VISITS_FILE);
}

int fl_visits_remove(struct fl_run *run, char *err, size_t errlen)
{
	char shown[PATH_MAX + 32];

	close_journal(run);
	if (fl_remove_at(run->fd, FL_VISITS_FILE, shown_of(run, shown,
							  sizeof(shown)),
			 err, errlen))
		return -1;
	fsync(run->fd);
	return 0;
}
