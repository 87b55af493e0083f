// SPDX-License-Identifier: GPL-2.0
/*
 * One visit of a visit campaign: side k's futexlab makes the nth visit
 * of a cell in the side's run (work/NN's partial run, made by its first
 * visit), and says its figure in one line, which is read back here as
 * untrusted text: the cell and the visit's number must be the ones
 * asked for and the figure a finite positive number.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "campaign/internal.h"
#include "rundir/regular.h"

/* what a visit prints: its line and the partial's path */
#define VISIT_OUT_MAX	8192

/* the slot that holds side k's run of round run (a visit campaign's
 * rounds have one run a side) */
static unsigned int slot_of(const struct fl_campaign *c, unsigned int k,
			    unsigned int run)
{
	unsigned int i = run * c->nsides;

	while (i + 1 < c->nslots && c->slot[i].side != k)
		i++;
	return i;
}

/* "-" or a finite positive number into *v (NAN for "-"); 0 or -1 */
static int maybe(const char *s, double *v)
{
	char *end;

	*v = NAN;
	if (!strcmp(s, "-"))
		return 0;
	*v = strtod(s, &end);
	return *end || !isfinite(*v) || *v <= 0 ? -1 : 0;
}

/* "visit CELL N ok NAME FIGURE CPU CONTAMINATED" among out's lines into
 * v; 0, 1 when the visit was not ok (the cell stopped), or -1 with err */
static int read_visit(const char *out, unsigned int cell, unsigned int nth,
		      const char *side, struct campaign_visit_fig *v,
		      char *err, size_t errlen)
{
	const char *line = strstr(out, "visit ");
	char status[16], name[16], cpu[40], dirty[4], tail[2];
	unsigned int c, n;

	if (line && (line == out || line[-1] == '\n') &&
	    sscanf(line, "visit %u %u %15s %15s %lf %39s %3s%1[\n]", &c, &n,
		   status, name, &v->fig, cpu, dirty, tail) == 8 &&
	    c == cell && n == nth && !maybe(cpu, &v->cpu) &&
	    (!strcmp(dirty, "-") || !strcmp(dirty, "0") ||
	     !strcmp(dirty, "1")) &&
	    (!strcmp(name, "ops_per_sec") || !strcmp(name, "p50_ns"))) {
		v->latency = !strcmp(name, "p50_ns");
		v->contaminated = !strcmp(dirty, "1");
		v->idle = 0;
		if (!strcmp(status, "stopped"))
			return 1;
		if (!strcmp(status, "ok") && isfinite(v->fig) && v->fig > 0)
			return 0;
		/* a spinner starved of its CPU for the whole visit: a
		 * throughput of 0, whose log ratio is no number */
		if (!strcmp(status, "ok") && !v->latency && v->fig == 0) {
			v->idle = 1;
			return 1;
		}
	}
	snprintf(err, errlen, "side %s's visit %u of cell %u did not say "
		 "its figure (\"visit %u %u ok NAME FIGURE CPU "
		 "CONTAMINATED\"): is its futexlab one without matrix "
		 "--visit?", side, nth, cell, cell, nth);
	return -1;
}

int campaign_visit(int dirfd, const char *dir, struct fl_campaign *c,
		   unsigned int k, unsigned int run, unsigned int cell,
		   unsigned int nth, struct campaign_visit_fig *fig, char *err,
		   size_t errlen)
{
	char work[4300], finished[256], partial[256];
	char visit[32], out[VISIT_OUT_MAX + 1];
	int workfd, rc = -1;
	FILE *tmp = NULL;
	ssize_t got;

	workfd = campaign_work_open(dirfd, dir, slot_of(c, k, run), work,
				    sizeof(work), finished, partial,
				    sizeof(partial), err, errlen);
	if (workfd < 0)
		return -1;
	if (*finished) {
		snprintf(err, errlen, "%s/%s: side %s's run finished before "
			 "its visits ended: take it out", work, finished,
			 c->side[k].name);
		goto out;
	}
	tmp = tmpfile();
	if (!tmp) {
		snprintf(err, errlen, "a file for the visit's output: %s",
			 strerror(errno));
		goto out;
	}
	snprintf(visit, sizeof(visit), "%u:%u", cell, nth);
	rc = campaign_run_side(dirfd, dir, c, k, work, partial, visit,
			       fileno(tmp), err, errlen);
	if (rc < 0 || rc >= 128) {
		rc = rc < 0 ? -1 : 130;
		goto out;
	}
	got = pread(fileno(tmp), out, VISIT_OUT_MAX, 0);
	out[got > 0 ? got : 0] = '\0';
	if (rc > 1) {
		snprintf(err, errlen, "side %s's visit %u of cell %u failed "
			 "(exit %d; said above)", c->side[k].name, nth, cell,
			 rc);
		rc = -1;
		goto out;
	}
	rc = read_visit(out, cell, nth, c->side[k].name, fig, err, errlen);
out:
	if (tmp)
		fclose(tmp);
	close(workfd);
	return rc;
}
