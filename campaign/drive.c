// SPDX-License-Identifier: GPL-2.0
/* A campaign from its start to its last run, resumable at any point. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "campaign/internal.h"
#include "campaign/spawn.h"
#include "compare/runs.h"
#include "rundir/regular.h"
#include "rundir/write_at.h"

#define MATRIX_MAX	(1u << 20)

static int open_dir(const char *dir, char *err, size_t errlen)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		snprintf(err, errlen, "%s: %s", dir, errno == ELOOP ?
			 "a symbolic link, not a campaign folder" :
			 strerror(errno));
	return fd;
}

int fl_campaign_create(const char *dir, struct fl_campaign *c,
		       const char *matrix, char *err, size_t errlen)
{
	char *text = NULL, shown[4300];
	size_t len;
	int fd, rc = -1;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", dir,
			 strerror(errno));
		return -1;
	}
	fd = open_dir(dir, err, errlen);
	if (fd < 0)
		return -1;
	if (fl_exists_at(fd, FL_CAMPAIGN_MANIFEST)) {
		snprintf(err, errlen, "%s is a campaign already: give only "
			 "its folder to resume it", dir);
		goto out;
	}
	if (fl_read_regular(AT_FDCWD, matrix, matrix, 0, MATRIX_MAX, &text,
			    &len, err, errlen))
		goto out;
	snprintf(shown, sizeof(shown), "%s/matrix.ini", dir);
	if (fl_write_at(fd, "matrix.ini", shown, text, len, err, errlen) ||
	    fl_campaign_prepare(fd, dir, c, text, err, errlen))
		goto out;
	fl_campaign_add_rounds(c, c->rounds);
	rc = fl_campaign_save(fd, dir, c, err, errlen);
out:
	free(text);
	close(fd);
	return rc;
}

/* the finished runs' paths of side k */
struct side_paths {
	char (*path)[4200];
	char *ptr[FL_RUNS_MAX_SIDE];
	unsigned int n;
};

static int paths_of(int fd, const char *dir, const struct fl_campaign *c,
		    unsigned int k, struct side_paths *p, char *err,
		    size_t errlen)
{
	if (fl_campaign_side_runs(fd, dir, c, k, p->path, FL_RUNS_MAX_SIDE,
				  &p->n, err, errlen))
		return -1;
	for (unsigned int i = 0; i < p->n; i++)
		p->ptr[i] = p->path[i];
	return 0;
}

/* the cells that need more runs, over every side against the first;
 * -1 with err */
static int undecided(int fd, const char *dir, const struct fl_campaign *c,
		     unsigned int *cells, char *err, size_t errlen)
{
	static char pa[FL_RUNS_MAX_SIDE][4200], pb[FL_RUNS_MAX_SIDE][4200];
	struct side_paths a = { .path = pa }, b = { .path = pb };
	int rc = 0;

	*cells = 0;
	if (paths_of(fd, dir, c, 0, &a, err, errlen))
		return -1;
	for (unsigned int k = 1; k < c->nsides && !rc; k++) {
		unsigned int n, needed;

		rc = paths_of(fd, dir, c, k, &b, err, errlen) ? -1 :
		     fl_runs_undecided(a.ptr, a.n, b.ptr, b.n,
				       *c->setting ? c->setting : NULL,
				       c->delta, &n, &needed, err, errlen);
		*cells += n;
	}
	return rc ? -1 : 0;
}

/*
 * After round `round` (1-based) finished: 0 to go on as planned, 1 to
 * stop (the slots past it dropped), 2 to add a round; -1 with err.
 */
static int spend(int fd, const char *dir, struct fl_campaign *c,
		 unsigned int round, double started, char *err, size_t errlen)
{
	unsigned int planned = c->nslots / c->nsides, cells;
	double spent = (double)(time(NULL)) - started;

	/* below FL_RUNS_MIN_INTERVAL rounds no cell has an interval */
	if (round < FL_RUNS_MIN_INTERVAL)
		return 0;
	if (round < planned && !c->stop_when_decided)
		return 0;
	if (round >= planned && (round >= c->max_rounds ||
	    (c->time_budget_s > 0 && spent >= c->time_budget_s)))
		return 0;
	if (undecided(fd, dir, c, &cells, err, errlen))
		return -1;
	if (!cells && round < planned) {
		fprintf(stderr, "futexlab campaign: every cell decided after "
			"%u rounds: stopping early\n", round);
		c->nslots = round * c->nsides;
		return 1;
	}
	if (cells && round >= planned) {
		fprintf(stderr, "futexlab campaign: %u cells need more runs "
			"after %u rounds: adding a round\n", cells, round);
		return 2;
	}
	return 0;
}

int fl_campaign_continue(const char *dir, double run_timeout_s, char *err,
			 size_t errlen)
{
	static struct fl_campaign c;
	static char paths[FL_RUNS_MAX_SIDE][4200];
	double started = (double)time(NULL);
	int fd = open_dir(dir, err, errlen), rc = -1, failed = 0;

	if (fd < 0)
		return -1;
	if (fl_campaign_load(fd, dir, &c, err, errlen))
		goto out;
	c.run_timeout_s = run_timeout_s;
	/* every recorded run is the one recorded, before any run more */
	for (unsigned int k = 0; k < c.nsides; k++) {
		unsigned int n;

		if (fl_campaign_side_runs(fd, dir, &c, k, paths,
					  FL_RUNS_MAX_SIDE, &n, err, errlen))
			goto out;
	}
	for (unsigned int i = 0; i < c.nslots; i++) {
		int r;

		if (*c.slot[i].run)
			continue;
		r = fl_campaign_execute(fd, dir, &c, i, err, errlen);
		if (r < 0 || r == 130) {
			rc = r;
			goto out;
		}
		failed |= r == 1;
		if (fl_campaign_save(fd, dir, &c, err, errlen))
			goto out;
		if ((i + 1) % c.nsides == 0) {
			int s = spend(fd, dir, &c, (i + 1) / c.nsides, started,
				      err, errlen);

			if (s < 0)
				goto out;
			if (s == 2)
				fl_campaign_add_rounds(&c, 1);
			if (s && fl_campaign_save(fd, dir, &c, err, errlen))
				goto out;
		}
		if (fl_campaign_stop) {
			rc = 130;
			goto out;
		}
	}
	rc = failed;
out:
	close(fd);
	return rc;
}
