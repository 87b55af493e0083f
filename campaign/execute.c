// SPDX-License-Identifier: GPL-2.0
/* Running one slot of a campaign to the end, resuming what a kill left. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "campaign/internal.h"
#include "campaign/spawn.h"
#include "rundir/regular.h"
#include "rundir/write_at.h"

/* a guest's boot and matrix under TCG, beyond the run's own deadline */
#define VM_EXTRA_S	600
#define MATRIX_TEXT_MAX	(256u << 10)

/* In work/NN: the finished run (a folder not starting with '.') and the
 * partial one (.partial-*); 0, or -1 with err when there are several. */
int campaign_look_in(int workfd, const char *shown, char *finished,
		   char *partial, size_t len, char *err, size_t errlen)
{
	int fd = dup(workfd);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;
	int rc = 0;

	finished[0] = partial[0] = '\0';
	if (!d) {
		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, "%s: %s", shown, strerror(errno));
		return -1;
	}
	rewinddir(d);
	while ((e = readdir(d)) && !rc) {
		struct stat st;
		char *into;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(workfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISDIR(st.st_mode))
			continue;
		into = !strncmp(e->d_name, ".partial-", 9) ? partial :
		       e->d_name[0] != '.' ? finished : NULL;
		if (!into)
			continue;
		if (*into || strlen(e->d_name) >= len) {
			snprintf(err, errlen, "%s holds more than one run "
				 "(%s and %s): take out the one that is not "
				 "this slot's", shown, *into ? into : "?",
				 e->d_name);
			rc = -1;
		} else {
			snprintf(into, len, "%s", e->d_name);
		}
	}
	closedir(d);
	return rc;
}

int campaign_work_open(int dirfd, const char *dir, unsigned int i,
		       char *work, size_t worklen, char *finished,
		       char *partial, size_t len, char *err, size_t errlen)
{
	char workname[32];
	int fd = fl_folder_at(dirfd, "work", "work", err, errlen), workfd;

	if (fd < 0)
		return -1;
	close(fd);
	snprintf(workname, sizeof(workname), "work/%02u", i + 1);
	snprintf(work, worklen, "%s/%s", dir, workname);
	workfd = fl_folder_at(dirfd, workname, work, err, errlen);
	if (workfd >= 0 && campaign_look_in(workfd, work, finished, partial,
					    len, err, errlen)) {
		close(workfd);
		return -1;
	}
	return workfd;
}

int campaign_runs_going(int dirfd, const char *dir,
			const struct fl_campaign *c, char *err,
			size_t errlen)
{
	char workname[32], work[4300], finished[256], partial[256];
	char shown[4600], why[4600];
	int rc = 0;

	/* only a lock held stops it: whatever else is wrong in work/NN
	 * the slot's run says when it comes (and --restore must work) */
	for (unsigned int i = 0; i < c->nslots && !rc; i++) {
		int workfd, fd = -1;

		snprintf(workname, sizeof(workname), "work/%02u", i + 1);
		snprintf(work, sizeof(work), "%s/%s", dir, workname);
		if (*c->slot[i].run || !fl_exists_at(dirfd, workname))
			continue;
		workfd = fl_open_folder(dirfd, workname, work, why,
					sizeof(why));
		if (workfd < 0)
			continue;
		if (!campaign_look_in(workfd, work, finished, partial, sizeof(partial),
			     why, sizeof(why)) && *partial) {
			snprintf(shown, sizeof(shown), "%s/%s", work, partial);
			fd = fl_open_folder(workfd, partial, shown, why,
					    sizeof(why));
		}
		if (fd >= 0 && flock(fd, LOCK_SH | LOCK_NB)) {
			snprintf(err, errlen, "%s/%s is still being written by "
				 "a run a killed campaign started: wait until it "
				 "ends, then run this again", work, partial);
			rc = -1;
		}
		if (fd >= 0)
			close(fd);
		close(workfd);
	}
	return rc;
}

/* the script a guest runs: the side's matrix written where it runs
 * (/fl), then the matrix into /fl/results, which vm/run brings back */
static char *guest_script(int dirfd, const char *dir, const char *side,
			  char *err, size_t errlen)
{
	char name[64], shown[4300], *text, *out, *q;
	size_t len;

	snprintf(name, sizeof(name), "matrix-%s.ini", side);
	snprintf(shown, sizeof(shown), "%s/%s", dir, name);
	if (fl_read_regular(dirfd, name, shown, FL_NOFOLLOW, MATRIX_TEXT_MAX,
			    &text, &len, err, errlen))
		return NULL;
	out = malloc(len * 4 + 256);
	if (!out) {
		free(text);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	q = out + sprintf(out, "printf '%%s' '");
	for (const char *p = text; *p; p++) {
		if (*p == '\'') {
			memcpy(q, "'\\''", 4);
			q += 4;
		} else {
			*q++ = *p;
		}
	}
	sprintf(q, "' > campaign.ini && build/futexlab matrix campaign.ini "
		"--results results");
	free(text);
	return out;
}

/* a guest's boot of slot i's side: vm/run with the side's matrix */
static int run_guest(int dirfd, const char *dir, struct fl_campaign *c,
		     const struct fl_campaign_side *s, const char *work,
		     char *err, size_t errlen)
{
	char *script = guest_script(dirfd, dir, s->name, err, errlen);
	char *argv[16], timeout[32];
	int n = 0, rc;

	if (!script)
		return -1;
	snprintf(timeout, sizeof(timeout), "%.0f", c->cmd.run_timeout_s);
	argv[n++] = c->vm;
	argv[n++] = "--results-out";
	argv[n++] = (char *)work;
	argv[n++] = "--timeout";
	argv[n++] = timeout;
	if (strcmp(s->kernel, "debian")) {
		argv[n++] = "--kernel";
		argv[n++] = (char *)s->kernel;
	}
	argv[n++] = "--";
	argv[n++] = "sh";
	argv[n++] = "-c";
	argv[n++] = script;
	argv[n] = NULL;
	rc = fl_campaign_spawn(argv, -1, NULL, s->nice, STDERR_FILENO, NULL,
			       c->cmd.run_timeout_s + VM_EXTRA_S, err, errlen);
	free(script);
	return rc;
}

int campaign_run_side(int dirfd, const char *dir, struct fl_campaign *c,
		      unsigned int k, const char *work, const char *partial,
		      const char *visit, int out_fd, char *err, size_t errlen)
{
	const struct fl_campaign_side *s = &c->side[k];
	char bin[4300], matrix[4300], part[4400], drop[4400], *text;
	/* a visit campaign's run takes visits (--visit), each sized by
	 * the campaign's one busy-loop speed, until it is finished with
	 * the visits it has (--finish) */
	char speed[32];
	char *more[5] = { visit ? "--visit" : c->visit ? "--finish" : NULL,
			  (char *)visit, visit && c->busy_speed ?
			  "--busy-speed" : NULL, speed, NULL };
	int exe = -1, rc = -1;
	pid_t hogs[64];
	size_t len;

	snprintf(speed, sizeof(speed), "%llu",
		 (unsigned long long)c->busy_speed);
	snprintf(bin, sizeof(bin), "%s/builds/%s/futexlab", dir, s->name);
	snprintf(matrix, sizeof(matrix), "%s/matrix-%s.ini", dir, s->name);
	snprintf(part, sizeof(part), "%s/%s", work, partial);
	snprintf(drop, sizeof(drop), "%s/", work);
	if (campaign_side_matrix(dirfd, dir, s, 1, &text, &len, err, errlen))
		return -1;
	free(text);
	if (!*s->kernel) {
		int build = campaign_open_binary(dirfd, dir, s, NULL, err,
						 errlen);

		if (build < 0)
			return -1;
		/* a copy of its own for every run and visit: where a
		 * build's pages fall is not a side's (fresh_binary.c) */
		exe = campaign_fresh_binary(dirfd, dir, s, build, err, errlen);
		close(build);
		if (exe < 0)
			return -1;
	}
	if (campaign_apply(dirfd, dir, c, s, err, errlen))
		goto out;
	if (campaign_hogs_start(s->hogs, hogs, err, errlen)) {
		campaign_restore(dirfd, dir, c, NULL, 0);
		goto out;
	}
	if (*s->kernel) {
		rc = run_guest(dirfd, dir, c, s, work, err, errlen);
	} else if (*partial) {
		char *argv[] = { bin, "matrix", "--resume", part, matrix,
				 more[0], more[1], more[2], more[3], NULL };

		rc = fl_campaign_spawn(argv, exe, NULL, s->nice,
				       out_fd < 0 ? STDERR_FILENO : out_fd,
				       out_fd < 0 ? drop : NULL,
				       c->cmd.run_timeout_s, err, errlen);
	} else if (c->visit && !visit) {
		snprintf(err, errlen, "side %s has no visit in %s to finish "
			 "its run with", s->name, work);
	} else {
		char *argv[] = { bin, "matrix", matrix, "--results",
				 (char *)work, more[0], more[1], more[2],
				 more[3], NULL };

		rc = fl_campaign_spawn(argv, exe, NULL, s->nice,
				       out_fd < 0 ? STDERR_FILENO : out_fd,
				       out_fd < 0 ? drop : NULL,
				       c->cmd.run_timeout_s, err, errlen);
	}
	campaign_hogs_stop(s->hogs, hogs);
	if (campaign_restore(dirfd, dir, c, rc < 0 ? NULL : err, errlen))
		rc = -1;
out:
	if (exe >= 0)
		close(exe);
	return rc;
}

/* the finished run of work/NN moved to runs/NN-SIDE */
static int take_in(int dirfd, const char *dir, const char *workname,
		   const char *finished, const char *run, char *err,
		   size_t errlen)
{
	char from[4400], shown[4400];
	int fd = fl_folder_at(dirfd, "runs", "runs", err, errlen);

	if (fd < 0)
		return -1;
	close(fd);
	snprintf(from, sizeof(from), "%s/%s", workname, finished);
	if (renameat(dirfd, from, dirfd, run)) {
		snprintf(shown, sizeof(shown), "%s/%s", dir, from);
		snprintf(err, errlen, "cannot move %s to %s/%s: %s", shown,
			 dir, run, strerror(errno));
		return -1;
	}
	return 0;
}

int fl_campaign_execute(int dirfd, const char *dir, struct fl_campaign *c,
			unsigned int i, char *err, size_t errlen)
{
	struct fl_campaign_slot *s = &c->slot[i];
	const char *side = c->side[s->side].name;
	char run[64], workname[32], work[4300], finished[256], partial[256];
	char found[300];
	struct fl_campaign_slot seen = { 0 };
	int workfd, rc = 0;

	snprintf(run, sizeof(run), "runs/%02u-%s", i + 1, side);
	snprintf(workname, sizeof(workname), "work/%02u", i + 1);
	if (!fl_exists_at(dirfd, run)) {
		workfd = campaign_work_open(dirfd, dir, i, work, sizeof(work),
					    finished, partial,
					    sizeof(finished), err, errlen);
		if (workfd < 0)
			return -1;
		if (!*finished) {
			fl_say(fl_campaign_say, "futexlab campaign: run %u of "
			       "%u, side %s (%s)%s", i + 1, c->nslots, side,
			       c->side[s->side].why, *partial ?
			       ": resuming its partial run" : "");
			rc = campaign_run_side(dirfd, dir, c, s->side, work,
					       partial, NULL, -1, err,
					       errlen);
			if (rc < 0 || rc >= 128)
				goto out_close;	/* interrupted: 130 */
			if (rc > 1) {
				snprintf(err, errlen, "the run of side %s in "
					 "%s failed (exit %d)", side, work,
					 rc);
				rc = -1;
				goto out_close;
			}
			if (campaign_look_in(workfd, work, finished, partial,
					     sizeof(finished), err, errlen))
				goto out_fail;
			if (!*finished) {
				snprintf(err, errlen, "the run of side %s left "
					 "no finished run in %s", side, work);
				goto out_fail;
			}
		}
		snprintf(found, sizeof(found), "%s/%s", workname, finished);
		if (campaign_run_facts(dirfd, dir, found, &seen, err, errlen) ||
		    campaign_check_run(dirfd, dir, c, s->side, i, found, &seen,
				       err, errlen) ||
		    take_in(dirfd, dir, workname, finished, run, err, errlen))
			goto out_fail;
		close(workfd);
		/* emptied: gone, so work/ shows only what is in flight */
		unlinkat(dirfd, workname, AT_REMOVEDIR);
	}
	if (campaign_run_facts(dirfd, dir, run, &seen, err, errlen) ||
	    campaign_check_run(dirfd, dir, c, s->side, i, run, &seen, err,
			       errlen))
		return -1;
	seen.side = s->side;
	*s = seen;
	snprintf(s->run, sizeof(s->run), "%s", run);
	fl_say(fl_campaign_say, "futexlab campaign: run %u of %u, side %s: "
	       "%s/%s", i + 1, c->nslots, side, dir, run);
	return rc;
out_fail:
	rc = -1;
out_close:
	close(workfd);
	return rc >= 128 ? 130 : rc;
}
