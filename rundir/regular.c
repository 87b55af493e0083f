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

int fl_open_regular(int dirfd, const char *name, const char *shown,
		    int flags, char *err, size_t errlen)
{
	char sb[SHOWN_MAX + 1];
	const char *s = fl_path_shown(shown, sb, SHOWN_MAX);
	/* non-blocking: opening a FIFO must not wait for a writer */
	int oflags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
		     (flags & FL_NOFOLLOW ? O_NOFOLLOW : 0);
	int fd = openat(dirfd, name, oflags);
	struct stat st;

	if (fd < 0) {
		int e = errno;

		if (e == ELOOP && (flags & FL_NOFOLLOW))
			snprintf(err, errlen, "%s: a symbolic link: refused",
				 s);
		else
			snprintf(err, errlen, "%s: cannot read: %s", s,
				 strerror(e));
		errno = e;
		return -1;
	}
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
