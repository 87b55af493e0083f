// SPDX-License-Identifier: GPL-2.0
/* One folder by its device and inode: see same_dir.h. */
#include "rundir/same_dir.h"

#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* no file system nests folders deeper than this below its root */
#define SAME_DIR_MAX_DEPTH	4096

int fl_same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

int fl_rd_same(const struct fl_rd_run *a, const struct fl_rd_run *b)
{
	struct stat sa, sb;

	return fstat(a->dirfd, &sa) == 0 && fstat(b->dirfd, &sb) == 0 &&
	       fl_same_stat(&sa, &sb);
}

int fl_rd_repeated(const struct fl_rd_run *runs, unsigned int n,
		   unsigned int *first, unsigned int *again)
{
	for (unsigned int j = 1; j < n; j++)
		for (unsigned int i = 0; i < j; i++)
			if (fl_rd_same(&runs[i], &runs[j])) {
				*first = i;
				*again = j;
				return 1;
			}
	return 0;
}

/* the folder path names, or the nearest one above it that exists, open */
static int open_nearest(const char *path)
{
	char buf[PATH_MAX];
	char *p = buf;

	snprintf(buf, sizeof(buf), "%s", path);
	for (;;) {
		int fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd >= 0 || !strcmp(p, ".") || !strcmp(p, "/"))
			return fd;
		p = dirname(p);
	}
}

int fl_rd_holds(const struct fl_rd_run *r, const char *path)
{
	struct stat run, at, up;
	int fd = open_nearest(path), found = 0;

	if (fd < 0 || fstat(r->dirfd, &run) || fstat(fd, &at)) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	/* up through "..", from the folder itself to the root, whose ".."
	 * is itself */
	for (int depth = 0; depth < SAME_DIR_MAX_DEPTH && !found; depth++) {
		int parent;

		found = fl_same_stat(&at, &run);
		parent = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		fd = parent;
		if (fd < 0 || fstat(fd, &up) || fl_same_stat(&up, &at))
			break;
		at = up;
	}
	if (fd >= 0)
		close(fd);
	return found;
}
