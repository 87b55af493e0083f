// SPDX-License-Identifier: GPL-2.0
/* A campaign from its start to its last run, resumable at any point. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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

/* 0 when no folder above dir (which may not exist yet) is a run or a
 * partial run (a campaign there would change a result), or -1 with err */
static int outside_runs(const char *dir, char *err, size_t errlen)
{
	char path[4200], parent[4200], *slash;

	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (slash)
		slash[slash == parent] = '\0';
	if (!realpath(slash ? parent : ".", path) ||
	    strlen(path) + 3 > sizeof(path)) {
		snprintf(err, errlen, "%s: %s", slash ? parent : ".",
			 strerror(errno));
		return -1;
	}
	/* a name below the parent: the walk starts at the parent */
	strcat(path, "/x");
	while ((slash = strrchr(path, '/')) && slash != path) {
		int fd;

		*slash = '\0';
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if ((fl_exists_at(fd, "meta.json") &&
		     fl_exists_at(fd, "cells.csv")) ||
		    fl_exists_at(fd, "matrix.json")) {
			snprintf(err, errlen, "%s is inside the run %s: a "
				 "campaign goes in a folder of its own", dir,
				 path);
			close(fd);
			return -1;
		}
		close(fd);
	}
	return 0;
}

/* 1 when the folder open at fd holds nothing, 0 when it holds
 * something, -1 when it cannot be read */
static int empty(int fd)
{
	int dup_fd = dup(fd), n = 0;
	DIR *d = dup_fd < 0 ? NULL : fdopendir(dup_fd);
	struct dirent *e;

	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return -1;
	}
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return !n;
}

/* what a failed create made taken out again: its files, the builds'
 * copies, and the folder itself when it made it and nothing else is
 * left (a commit's build tree stays, said in err) */
static void undo_create(int fd, const char *dir, int made,
			const struct fl_campaign *c, char *err, size_t errlen)
{
	char name[128], why[256];

	fl_remove_at(fd, FL_CAMPAIGN_MANIFEST, dir, why, sizeof(why));
	fl_remove_at(fd, "matrix.ini", dir, why, sizeof(why));
	for (unsigned int i = 0; i < c->nsides; i++) {
		snprintf(name, sizeof(name), "matrix-%s.ini", c->side[i].name);
		fl_remove_at(fd, name, dir, why, sizeof(why));
		snprintf(name, sizeof(name), "builds/%s", c->side[i].name);
		fl_remove_at(fd, name, dir, why, sizeof(why));
	}
	fl_remove_at(fd, "builds", dir, why, sizeof(why));
	if (empty(fd) == 1) {
		if (made)
			rmdir(dir);
		return;
	}
	if (strlen(err) + 80 < errlen)
		snprintf(err + strlen(err), errlen - strlen(err), " (%s is "
			 "left half made: remove it to start again)", dir);
}

int fl_campaign_create(const char *dir, struct fl_campaign *c,
		       const char *matrix, char *err, size_t errlen)
{
	char *text = NULL, shown[4300];
	int fd, rc = -1, made, e;
	size_t len;

	if (outside_runs(dir, err, errlen) ||
	    fl_read_regular(AT_FDCWD, matrix, matrix, 0, MATRIX_MAX, &text,
			    &len, err, errlen))
		return -1;
	made = !mkdir(dir, 0755);
	if (!made && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", dir,
			 strerror(errno));
		goto out_free;
	}
	fd = open_dir(dir, err, errlen);
	if (fd < 0)
		goto out_free;
	e = made ? 1 : empty(fd);
	if (!made && fl_exists_at(fd, FL_CAMPAIGN_MANIFEST))
		snprintf(err, errlen, "%s is a campaign already: give only "
			 "its folder to resume it", dir);
	else if (e != 1)
		snprintf(err, errlen, "%s is %s: a campaign starts in a new "
			 "or empty folder", dir, e ? "unreadable" :
			 "not empty and not a campaign");
	/* a resume will ask it of the folder: before, not after,
	 * anything is written */
	else if (!fl_fd_trusted(fd, dir, err, errlen))
		rc = 0;
	if (rc) {
		if (made)
			rmdir(dir);
		goto out;
	}
	snprintf(shown, sizeof(shown), "%s/matrix.ini", dir);
	rc = fl_write_at(fd, "matrix.ini", shown, text, len, err, errlen) ||
	     fl_campaign_prepare(fd, dir, c, text, err, errlen);
	if (!rc) {
		fl_campaign_add_rounds(c, c->rounds);
		rc = fl_campaign_save(fd, dir, c, err, errlen);
	}
	if (rc)
		undo_create(fd, dir, made, c, err, errlen);
out:
	close(fd);
out_free:
	free(text);
	return rc ? -1 : 0;
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
		unsigned int n = 0, needed;

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

	/* below FL_RUNS_MIN_INTERVAL rounds no cell has an interval; a
	 * visit campaign's rounds are runs its blocks filled, judged by
	 * block (blocks.c) */
	if (round < FL_RUNS_MIN_INTERVAL || c->visit)
		return 0;
	if (round < planned && !c->stop_when_decided)
		return 0;
	if (round >= planned && (round >= c->max_rounds ||
	    (c->time_budget_s > 0 && spent >= c->time_budget_s)))
		return 0;
	if (undecided(fd, dir, c, &cells, err, errlen))
		return -1;
	if (!cells && round < planned) {
		fl_say(fl_campaign_say, "futexlab campaign: every cell "
		       "decided after %u rounds: stopping early", round);
		c->nslots = round * c->nsides;
		return 1;
	}
	if (cells && round >= planned) {
		fl_say(fl_campaign_say, "futexlab campaign: %u cells need "
		       "more runs after %u rounds: adding a round", cells,
		       round);
		return 2;
	}
	return 0;
}

/* the folder locked for this command, against another at once; the
 * lock's descriptor, or -1 with err */
static int lock_folder(int fd, const char *dir, char *err, size_t errlen)
{
	int lock = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (lock < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (flock(lock, LOCK_EX | LOCK_NB)) {
		snprintf(err, errlen, "%s is in use by another futexlab "
			 "campaign: wait until it ends, then run this again",
			 dir);
		close(lock);
		return -1;
	}
	return lock;
}

/* what a killed campaign changed put back, said on stderr */
static int put_back(int fd, const char *dir, struct fl_campaign *c,
		    char *err, size_t errlen)
{
	for (unsigned int i = 0; i < c->nsaved; i++) {
		char path[600];

		campaign_setting_path(c, &c->side[c->saved[i].side],
				      c->saved[i].kind, path, sizeof(path));
		fl_say(fl_campaign_say, "futexlab campaign: putting %s back "
		       "to %s (a killed campaign left side %s's value)", path,
		       c->saved[i].value, c->side[c->saved[i].side].name);
	}
	return campaign_restore(fd, dir, c, err, errlen);
}

/* every recorded run the one recorded and its side's (a side whose copy
 * is this futexlab has runs of this build), and none twice */
static int check_runs(int fd, const char *dir, struct fl_campaign *c,
		      char *err, size_t errlen)
{
	static char paths[FL_RUNS_MAX_SIDE][4200];

	for (unsigned int k = 0; k < c->nsides; k++) {
		unsigned int n;
		int exe;

		if (!*c->side[k].kernel) {
			exe = campaign_open_binary(fd, dir, &c->side[k],
						   &c->is_self[k], err, errlen);
			if (exe < 0)
				return -1;
			close(exe);
		}

		if (fl_campaign_side_runs(fd, dir, c, k, paths,
					  FL_RUNS_MAX_SIDE, &n, err, errlen))
			return -1;
	}
	return campaign_check_distinct(fd, dir, c, err, errlen);
}

/* 1 when a slot of c is not finished */
static int unfinished(const struct fl_campaign *c)
{
	for (unsigned int i = 0; i < c->nslots; i++)
		if (!*c->slot[i].run)
			return 1;
	return 0;
}

int fl_campaign_continue(const char *dir, const struct fl_campaign_cmd *cmd,
			 char *err, size_t errlen)
{
	static struct fl_campaign c;
	double started = (double)time(NULL);
	int fd = open_dir(dir, err, errlen), lock = -1, rc = -1, failed = 0;

	if (fd < 0)
		return -1;
	c.cmd = *cmd;
	if (fl_fd_trusted(fd, dir, err, errlen) ||
	    (lock = lock_folder(fd, dir, err, errlen)) < 0 ||
	    campaign_file_trusted(fd, dir, FL_CAMPAIGN_MANIFEST, err,
				  errlen) ||
	    fl_campaign_load(fd, dir, &c, err, errlen))
		goto out;
	/* a run a killed campaign started may still be going, with its
	 * side's settings: nothing is put back or run under it */
	if (campaign_runs_going(fd, dir, &c, err, errlen))
		goto out;
	if (cmd->restore_only) {
		if (!c.nsaved)
			fl_say(fl_campaign_say, "futexlab campaign: %s has no "
			       "setting to put back", dir);
		rc = put_back(fd, dir, &c, err, errlen);
		goto out;
	}
	if (check_runs(fd, dir, &c, err, errlen) ||
	    ((unfinished(&c) || c.nsaved) &&
	     campaign_gate(fd, dir, &c, err, errlen)) ||
	    put_back(fd, dir, &c, err, errlen))
		goto out;
	/* a visit campaign's blocks, then its runs finished below */
	if (c.visit && !c.blocks_ended) {
		rc = campaign_blocks(fd, dir, &c, err, errlen);
		if (rc)
			goto out;
		rc = -1;
	}
	/* no side has a visit to finish a run with: the cells failed */
	if (campaign_no_block(&c)) {
		fl_say(fl_campaign_say, "futexlab campaign: " CAMPAIGN_NO_BLOCK,
		       dir);
		rc = 1;
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
		if (campaign_check_distinct(fd, dir, &c, err, errlen) ||
		    fl_campaign_save(fd, dir, &c, err, errlen))
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
	if (lock >= 0)
		close(lock);
	close(fd);
	return rc;
}
