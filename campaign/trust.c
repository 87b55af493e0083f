// SPDX-License-Identifier: GPL-2.0
/*
 * What a campaign folder may make futexlab run. The folder is data from
 * wherever it came: a resume runs a side's own build (bin=, commit=), a
 * kernel= side's vm/run or a side's sysctl only when the command line
 * says --yes, and a side with no build of its own only when its copy is
 * this futexlab, byte for byte. The folder, the manifest and the files
 * that name a program (a side's matrix, its binary) must be the user's
 * and writable by no one else (rundir/regular.h: fl_fd_trusted), and
 * every one is opened without following a link.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/say.h"
#include "campaign/internal.h"
#include "rundir/regular.h"

#define MATRIX_MAX	(1u << 20)

/* name (below dirfd) opened as a regular file, no link on the way, and
 * trusted; its descriptor, or -1 with err */
static int open_trusted(int dirfd, const char *dir, const char *name,
			char *err, size_t errlen)
{
	char shown[4400];

	snprintf(shown, sizeof(shown), "%s/%s", dir, name);
	return fl_open_trusted(dirfd, name, shown, err, errlen);
}

int campaign_file_trusted(int dirfd, const char *dir, const char *name,
			  char *err, size_t errlen)
{
	int fd = open_trusted(dirfd, dir, name, err, errlen);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

int campaign_side_matrix(int dirfd, const char *dir,
			 const struct fl_campaign_side *s, int trusted,
			 char **text, size_t *len, char *err, size_t errlen)
{
	char name[64], shown[4400], *given = NULL, *want = NULL;
	size_t glen;
	int rc = -1;

	*text = NULL;
	snprintf(name, sizeof(name), "matrix-%s.ini", s->name);
	snprintf(shown, sizeof(shown), "%s/%s", dir, name);
	if ((trusted && (campaign_file_trusted(dirfd, dir, "matrix.ini", err,
					       errlen) ||
			 campaign_file_trusted(dirfd, dir, name, err,
					       errlen))) ||
	    fl_read_regular(dirfd, "matrix.ini", "matrix.ini", FL_NOFOLLOW,
			    MATRIX_MAX, &given, &glen, err, errlen) ||
	    fl_read_regular(dirfd, name, shown, FL_NOFOLLOW, MATRIX_MAX, text,
			    len, err, errlen))
		goto out;
	want = fl_campaign_side_matrix(given, s);
	if (!want || strlen(given) != glen || strcmp(want, *text)) {
		snprintf(err, errlen, "%s is not %s/matrix.ini with side %s's "
			 "setting: edited since the campaign began", shown,
			 dir, s->name);
		goto out;
	}
	rc = 0;
out:
	if (rc) {
		free(*text);
		*text = NULL;
	}
	free(given);
	free(want);
	return rc;
}

/* 1 when the files open at a and b hold the same bytes */
static int same_bytes(int a, int b)
{
	static char x[1 << 16], y[1 << 16];
	off_t at = 0;

	for (;;) {
		ssize_t n = pread(a, x, sizeof(x), at);
		ssize_t m = pread(b, y, sizeof(y), at);

		if (n < 0 || n != m || memcmp(x, y, (size_t)n))
			return 0;
		if (!n)
			return 1;
		at += n;
	}
}

int campaign_open_binary(int dirfd, const char *dir,
			 const struct fl_campaign_side *s, int *self,
			 char *err, size_t errlen)
{
	char name[128];
	int fd, me;

	snprintf(name, sizeof(name), "builds/%s/futexlab", s->name);
	fd = open_trusted(dirfd, dir, name, err, errlen);
	if (fd < 0 || !self)
		return fd;
	me = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	*self = me >= 0 && same_bytes(fd, me);
	if (me >= 0)
		close(me);
	return fd;
}

/* what side s would run that the folder names, appended to what */
static int side_names(int dirfd, const char *dir, const struct fl_campaign *c,
		      const struct fl_campaign_side *s, char *what,
		      size_t len, char *err, size_t errlen)
{
	size_t used = strlen(what);
	int self = 0, fd;

#define NAME(...) (used += used < len ? (size_t)snprintf(what + used, \
		   len - used, __VA_ARGS__) : 0)
	if (*s->kernel) {
		NAME("%s%s (side %s's guest)", used ? "; " : "", c->vm,
		     s->name);
	} else {
		fd = campaign_open_binary(dirfd, dir, s, &self, err, errlen);
		if (fd < 0)
			return -1;
		close(fd);
		if (!self)
			NAME("%s%s/builds/%s/futexlab (side %s's build%s)",
			     used ? "; " : "", dir, s->name, s->name,
			     *s->bin || *s->commit ? "" :
			     ", not this futexlab");
	}
	if (*s->sysctl)
		NAME("%ssysctl %s (side %s)", used ? "; " : "", s->sysctl,
		     s->name);
	if (*s->modparam)
		NAME("%smodparam %s (side %s)", used ? "; " : "", s->modparam,
		     s->name);
#undef NAME
	return 0;
}

int campaign_gate(int dirfd, const char *dir, const struct fl_campaign *c,
		  char *err, size_t errlen)
{
	char what[4096] = "";

	for (unsigned int k = 0; k < c->nsides; k++) {
		char name[64];

		snprintf(name, sizeof(name), "matrix-%s.ini", c->side[k].name);
		if (campaign_file_trusted(dirfd, dir, name, err, errlen) ||
		    side_names(dirfd, dir, c, &c->side[k], what,
			       sizeof(what), err, errlen))
			return -1;
	}
	if (*what && !c->cmd.yes) {
		snprintf(err, errlen, "resuming %s runs what its folder names: "
			 "%s; give --yes to run it", dir, what);
		return -1;
	}
	if (*what)
		fl_say(fl_campaign_say, "futexlab campaign: running what %s "
		       "names: %s", dir, what);
	return 0;
}
