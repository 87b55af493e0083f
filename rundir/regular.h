/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading files that come from outside: run directories (from guests, lab
 * machines, colleagues) and matrix files. Only regular files are read: a
 * file is opened non-blocking and checked with fstat before the first
 * read, so a FIFO, a device or a folder under an expected name is an
 * error naming the path, never a hang. Inside a run directory names are
 * opened relative to its descriptor without following a symbolic link.
 * Every message keeps its reason: a long path is shortened in the middle.
 */
#ifndef FUTEXLAB_RUNDIR_REGULAR_H
#define FUTEXLAB_RUNDIR_REGULAR_H

#include <stddef.h>
#include <stdio.h>

/* The most a file from outside may hold (cells.csv of 100,000 cells of
 * 100 repetitions is about 40 MiB). */
#define FL_MAX_INPUT_BYTES	(256u << 20)

/* flags for fl_open_regular() */
#define FL_NOFOLLOW	1	/* refuse a symbolic link, the name's own or
				 * any folder's on the way ("hist/x.csv") */

/*
 * Open name (relative to dirfd, or AT_FDCWD) for reading; shown is the
 * path a message names. The descriptor is blocking again once it is known
 * to be a regular file. Returns it, or -1 with "SHOWN: why" in err and
 * errno set (ENOENT when there is no such file, EINVAL when it is not a
 * regular file).
 */
int fl_open_regular(int dirfd, const char *name, const char *shown,
		    int flags, char *err, size_t errlen);

/*
 * Open the folder name (relative to dirfd, one or more components) for
 * use as a directory descriptor, refusing a symbolic link anywhere on the
 * way and anything that is not a folder; shown as fl_open_regular(). The
 * descriptor, or -1 with err and errno (ENOENT: no such folder).
 */
int fl_open_folder(int dirfd, const char *name, const char *shown,
		   char *err, size_t errlen);

/* The same as a FILE for reading; NULL with err. */
FILE *fl_fopen_regular(int dirfd, const char *name, const char *shown,
		       int flags, char *err, size_t errlen);

/*
 * The whole file, at most max bytes, NUL-terminated, in *text (free it);
 * *len is its length. 0, or -1 with err and errno as fl_open_regular().
 */
int fl_read_regular(int dirfd, const char *name, const char *shown,
		    int flags, size_t max, char **text, size_t *len,
		    char *err, size_t errlen);

/*
 * Whether what is open at fd (a folder, or a file in one) may say what
 * futexlab runs: it belongs to the user running futexlab (or to root)
 * and no one else may write it, as ssh asks of its configuration. 0, or
 * -1 with "SHOWN: why, and how to make it trusted" in err. Resuming a
 * partial run or a campaign asks this of the folder and of each file
 * that names a program.
 */
int fl_fd_trusted(int fd, const char *shown, char *err, size_t errlen);

/* fl_open_regular(FL_NOFOLLOW) of name, then fl_fd_trusted(): the
 * descriptor, or -1 with err and errno (ENOENT: no such file, EPERM: not
 * to be trusted). */
int fl_open_trusted(int dirfd, const char *name, const char *shown,
		    char *err, size_t errlen);

/* path for a message: whole if it has at most max characters, otherwise
 * its start and end around "...", so the reason after it is never cut. */
const char *fl_path_shown(const char *path, char *buf, size_t max);

#endif
