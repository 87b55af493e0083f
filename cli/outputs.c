// SPDX-License-Identifier: GPL-2.0
/* Checking an output path before any work: see outputs.h. */
#include "cli/outputs.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/flags.h"
#include "rundir/regular.h"

/* refuse()'s flag for an output no flag can move */
#define FL_NO_OUT	""

static int refuse(const char *cmd, const char *flag, const char *path,
		  const char *why)
{
	char sb[161];

	if (!flag || !strcmp(flag, FL_NO_OUT)) {
		fprintf(fl_flags_err(), "futexlab %s: '%s' %s%s\n", cmd,
			fl_path_shown(path, sb, 160), why, flag ? "" :
			" (--out DIR writes elsewhere)");
		return -1;
	}
	fprintf(fl_flags_err(), "futexlab %s: %s: '%s' %s\n", cmd, flag,
		fl_path_shown(path, sb, 160), why);
	return -1;
}

static int unwritable(const char *cmd, const char *flag, const char *path,
		      int e)
{
	char why[300];

	snprintf(why, sizeof(why), "cannot be written: %s", strerror(e));
	return refuse(cmd, flag, path, why);
}

/*
 * Can an entry be made in the folder dirfd? Tried, not guessed: access()
 * says yes to root on a read-only file system and in /proc. 0, or an
 * errno.
 */
static int probe_at(int dirfd)
{
	char probe[64];

	for (unsigned int k = 0; k < 100; k++) {
		snprintf(probe, sizeof(probe), ".futexlab-probe-%ld-%u",
			 (long)getpid(), k);
		if (mkdirat(dirfd, probe, 0700) == 0)
			return unlinkat(dirfd, probe, AT_REMOVEDIR) ? errno : 0;
		if (errno != EEXIST)
			return errno;
	}
	return EEXIST;
}

/* The same for a folder named by its path: 0, or an errno. */
static int probe_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int e = fd < 0 ? errno : probe_at(fd);

	if (fd >= 0)
		close(fd);
	return e;
}

/* The directory a new entry path would go in: writable, or refused. */
static int parent_writable(const char *cmd, const char *flag,
			   const char *path, int any_depth)
{
	char buf[PATH_MAX], why[300];
	struct stat st;

	snprintf(buf, sizeof(buf), "%s", path);
	char *parent = dirname(buf);

	/* mkdir -p creates what is missing: the nearest that exists counts */
	while (any_depth && stat(parent, &st) && errno == ENOENT &&
	       strcmp(parent, ".") && strcmp(parent, "/"))
		parent = dirname(parent);
	if (stat(parent, &st)) {
		snprintf(why, sizeof(why), "cannot be created: %s: %s", parent,
			 strerror(errno));
		return refuse(cmd, flag, path, why);
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, sizeof(why), "cannot be created: %s is not a "
			 "directory", parent);
		return refuse(cmd, flag, path, why);
	}
	int e = probe_dir(parent);

	if (e) {
		snprintf(why, sizeof(why), "cannot be created in %s: %s",
			 parent, strerror(e));
		return refuse(cmd, flag, path, why);
	}
	return 0;
}

int fl_check_output(const char *cmd, const char *flag, const char *path,
		    enum fl_output_kind kind)
{
	struct stat st;
	char why[300];

	if (!*path)
		return refuse(cmd, flag, path, kind == FL_OUT_FILE ?
			      "is empty: name a file" :
			      "is empty: name a directory");
	if (strlen(path) >= PATH_MAX)
		return refuse(cmd, flag, path, "is longer than PATH_MAX");
	if (stat(path, &st)) {
		if (errno != ENOENT) {
			snprintf(why, sizeof(why), "cannot be used: %s",
				 strerror(errno));
			return refuse(cmd, flag, path, why);
		}
		return parent_writable(cmd, flag, path,
				       kind == FL_OUT_DIR_TREE);
	}
	if (kind == FL_OUT_FILE && S_ISDIR(st.st_mode))
		return refuse(cmd, flag, path, "is a directory, not a file");
	if (kind != FL_OUT_FILE && !S_ISDIR(st.st_mode))
		return refuse(cmd, flag, path, "exists and is not a directory");
	int e = kind == FL_OUT_FILE ? (access(path, W_OK) ? errno : 0) :
		probe_dir(path);

	return e ? unwritable(cmd, flag, path, e) : 0;
}

int fl_check_output_at(const char *cmd, int dirfd, const char *name,
		       const char *shown, int has_out)
{
	const char *flag = has_out ? NULL : FL_NO_OUT;
	struct stat st;
	int fd = -1, e;

	if (name && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		/* written in, never through a link */
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return refuse(cmd, flag, shown, "is not a directory "
				      "(a symbolic link is refused)");
	}
	e = probe_at(fd >= 0 ? fd : dirfd);
	if (fd >= 0)
		close(fd);
	return e ? unwritable(cmd, flag, shown, e) : 0;
}

int fl_write_dir_file(const char *cmd, const char *file, const char *dir)
{
	FILE *f;

	if (!file)
		return 0;
	f = fopen(file, "w");
	if (!f || fprintf(f, "%s\n", dir) < 0 || fclose(f)) {
		fprintf(stderr, "futexlab %s: cannot write %s: %s\n", cmd, file,
			strerror(errno));
		return -1;
	}
	return 0;
}
