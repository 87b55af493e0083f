// SPDX-License-Identifier: GPL-2.0
/* Opening only regular files from outside: see regular.h. */
#include "rundir/regular.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The longest path a message shows whole. */
#define SHOWN_MAX 160

const char *fl_path_shown(const char *path, char *buf, size_t max)
{
	size_t n = strlen(path);

	if (n <= max || max < 16)
		return path;
	size_t head = (max - 3) / 3, tail = max - 3 - head;

	snprintf(buf, max + 1, "%.*s...%s", (int)head, path, path + n - tail);
	return buf;
}

static const char *kind_of(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

/* "SHOWN: 'COMPONENT' is ..." for a folder on the way that will not do */
static int folder_refused(int at, const char *comp, const char *s, int e,
			  char *err, size_t errlen)
{
	struct stat st = { .st_mode = 0 };

	if (fstatat(at, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode))
		snprintf(err, errlen, "%s: '%s' is a symbolic link: refused",
			 s, comp);
	else if (e == ENOTDIR)
		snprintf(err, errlen, "%s: '%s' is %s, not a folder: refused",
			 s, comp, kind_of(st.st_mode));
	else
		snprintf(err, errlen, "%s: cannot read '%s': %s", s, comp,
			 strerror(e));
	errno = e == ELOOP ? EINVAL : e;
	return -1;
}

/*
 * Walk the first len characters of name, a folder path relative to
 * dirfd, one component at a time, each opened without following a
 * link. The last folder's descriptor, or -1 with err.
 */
static int walk_folders(int dirfd, const char *name, size_t len,
			const char *s, char *err, size_t errlen)
{
	char comp[256];
	int at = dirfd;

	for (size_t i = 0; i < len;) {
		size_t n = strcspn(name + i, "/");

		if (n > len - i)
			n = len - i;
		if (n == 0 || n >= sizeof(comp) ||
		    (n == 2 && strncmp(name + i, "..", 2) == 0)) {
			snprintf(err, errlen, "%s: not a name inside the run "
				 "directory: refused", s);
			if (at != dirfd)
				close(at);
			errno = EINVAL;
			return -1;
		}
		memcpy(comp, name + i, n);
		comp[n] = '\0';
		int fd = openat(at, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				O_NONBLOCK | O_CLOEXEC);

		if (fd < 0) {
			int e = errno;

			folder_refused(at, comp, s, e, err, errlen);
			if (at != dirfd)
				close(at);
			return -1;
		}
		if (at != dirfd)
			close(at);
		at = fd;
		i += n + 1;
	}
	return at == dirfd ? dup(dirfd) : at;
}

int fl_open_folder(int dirfd, const char *name, const char *shown,
		   char *err, size_t errlen)
{
	char sb[SHOWN_MAX + 1];

	return walk_folders(dirfd, name, strlen(name),
			    fl_path_shown(shown, sb, SHOWN_MAX), err, errlen);
}

int fl_open_regular(int dirfd, const char *name, const char *shown,
		    int flags, char *err, size_t errlen)
{
	char sb[SHOWN_MAX + 1];
	const char *s = fl_path_shown(shown, sb, SHOWN_MAX);
	/* non-blocking: opening a FIFO must not wait for a writer */
	int oflags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
		     (flags & FL_NOFOLLOW ? O_NOFOLLOW : 0);
	const char *slash = strrchr(name, '/');
	int at = dirfd, fd;
	struct stat st = { .st_mode = 0 };

	/* "hist/cell-0000.csv": a link at "hist" would lead out of the
	 * run as surely as one at the file's own name */
	if ((flags & FL_NOFOLLOW) && slash && name[0] != '/') {
		at = walk_folders(dirfd, name, (size_t)(slash - name), s, err,
				  errlen);
		if (at < 0)
			return -1;
		name = slash + 1;
	}
	fd = openat(at, name, oflags);
	if (fd < 0) {
		int e = errno;

		if (e == ELOOP && (flags & FL_NOFOLLOW))
			snprintf(err, errlen, "%s: a symbolic link: refused",
				 s);
		else
			snprintf(err, errlen, "%s: cannot read: %s", s,
				 strerror(e));
		if (at != dirfd)
			close(at);
		errno = e;
		return -1;
	}
	if (at != dirfd)
		close(at);
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: %s, not a regular file: refused", s,
			 kind_of(st.st_mode));
		close(fd);
		errno = EINVAL;
		return -1;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		snprintf(err, errlen, "%s: %s", s, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

FILE *fl_fopen_regular(int dirfd, const char *name, const char *shown,
		       int flags, char *err, size_t errlen)
{
	int fd = fl_open_regular(dirfd, name, shown, flags, err, errlen);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "r");

	if (fd >= 0 && !f) {
		snprintf(err, errlen, "%s: %s", shown, strerror(errno));
		close(fd);
	}
	return f;
}

int fl_read_regular(int dirfd, const char *name, const char *shown,
		    int flags, size_t max, char **text, size_t *len,
		    char *err, size_t errlen)
{
	char sb[SHOWN_MAX + 1];
	int fd = fl_open_regular(dirfd, name, shown, flags, err, errlen);
	size_t cap = 8192, n = 0;
	char *buf;

	*text = NULL;
	*len = 0;
	if (fd < 0)
		return -1;
	buf = malloc(cap + 1);
	for (;;) {
		if (buf && n == cap && cap < max) {
			cap = cap * 2 > max ? max : cap * 2;
			char *p = realloc(buf, cap + 1);

			if (!p)
				free(buf);
			buf = p;
		}
		if (!buf) {
			snprintf(err, errlen, "%s: out of memory",
				 fl_path_shown(shown, sb, SHOWN_MAX));
			close(fd);
			return -1;
		}
		if (n == cap) {
			snprintf(err, errlen, "%s: larger than %zu MiB: "
				 "refused", fl_path_shown(shown, sb, SHOWN_MAX),
				 max >> 20);
			goto fail;
		}
		ssize_t r = read(fd, buf + n, cap - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "%s: cannot read: %s",
				 fl_path_shown(shown, sb, SHOWN_MAX),
				 strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
fail:
	free(buf);
	close(fd);
	errno = EIO;
	return -1;
}

int fl_fd_trusted(int fd, const char *shown, char *err, size_t errlen)
{
	char sb[SHOWN_MAX + 1];
	const char *s = fl_path_shown(shown, sb, SHOWN_MAX);
	struct stat st;
	uid_t me = geteuid();

	if (fstat(fd, &st) != 0) {
		snprintf(err, errlen, "%s: cannot stat: %s", s,
			 strerror(errno));
		return -1;
	}
	if (st.st_uid != me && st.st_uid != 0) {
		snprintf(err, errlen, "%s: owned by uid %u, not by you (uid "
			 "%u): refused (copy it, or chown it to yourself)",
			 s, (unsigned int)st.st_uid, (unsigned int)me);
		errno = EPERM;
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(err, errlen, "%s: writable by %s: refused (chmod "
			 "go-w it if you trust what it holds)", s,
			 st.st_mode & S_IWOTH ? "others" : "its group");
		errno = EPERM;
		return -1;
	}
	return 0;
}

int fl_open_trusted(int dirfd, const char *name, const char *shown,
		    char *err, size_t errlen)
{
	int fd = fl_open_regular(dirfd, name, shown, FL_NOFOLLOW, err, errlen);

	if (fd >= 0 && fl_fd_trusted(fd, shown, err, errlen)) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}
