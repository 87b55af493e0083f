// SPDX-License-Identifier: GPL-2.0
/* Writing inside a run directory without following links: write_at.h. */
#include "rundir/write_at.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rundir/regular.h"

/* "SHOWN: what: strerror"; always -1, errno kept */
static int failed(const char *shown, const char *what, char *err,
		  size_t errlen)
{
	int e = errno;

	snprintf(err, errlen, "%s: %s: %s", shown, what, strerror(e));
	errno = e;
	return -1;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int fl_write_at(int dirfd, const char *name, const char *shown,
		const void *data, size_t len, char *err, size_t errlen)
{
	char tmp[300];
	const char *slash = strrchr(name, '/');
	int fd;

	if (slash) {
		/* a name in a folder of the run: that folder by its own
		 * descriptor, opened without following a link */
		char folder[256];
		int sub, rc;

		snprintf(folder, sizeof(folder), "%.*s", (int)(slash - name),
			 name);
		sub = fl_open_folder(dirfd, folder, shown, err, errlen);
		if (sub < 0)
			return -1;
		rc = fl_write_at(sub, slash + 1, shown, data, len, err, errlen);
		close(sub);
		return rc;
	}
	/* one temporary name per file: a kill's leftover is the next
	 * write's to remove, so none piles up in the run */
	snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
	for (int tries = 0;; tries++) {
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST || tries)
			break;
		/* unlinkat removes what is there, a link included,
		 * without following it */
		if (unlinkat(dirfd, tmp, 0) && errno != ENOENT)
			break;
	}
	if (fd < 0)
		return failed(shown, "cannot write", err, errlen);
	if (write_all(fd, data, len) || fsync(fd)) {
		failed(shown, "cannot write", err, errlen);
		close(fd);
		unlinkat(dirfd, tmp, 0);
		return -1;
	}
	if (close(fd) || renameat(dirfd, tmp, dirfd, name)) {
		failed(shown, "cannot replace", err, errlen);
		unlinkat(dirfd, tmp, 0);
		return -1;
	}
	return 0;
}

/* 1 when dirfd/name (a name of the folder itself) holds the len bytes
 * of data, a regular file of one link, trusted */
static int holds(int dirfd, const char *name, const char *data, size_t len)
{
	char buf[1 << 16], why[64];
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
			O_NOCTTY | O_CLOEXEC);
	struct stat st;
	size_t at = 0;
	int same = 0;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    (size_t)st.st_size != len || fl_fd_trusted(fd, name, why,
						       sizeof(why)))
		goto out;
	while (at < len) {
		size_t want = len - at < sizeof(buf) ? len - at : sizeof(buf);
		ssize_t n = pread(fd, buf, want, (off_t)at);

		if (n <= 0 || memcmp(buf, data + at, (size_t)n))
			goto out;
		at += (size_t)n;
	}
	same = 1;
out:
	close(fd);
	return same;
}

int fl_write_at_changed(int dirfd, const char *name, const char *shown,
			const void *data, size_t len, char *err,
			size_t errlen)
{
	if (!strchr(name, '/') && holds(dirfd, name, data, len))
		return 0;
	return fl_write_at(dirfd, name, shown, data, len, err, errlen);
}

FILE *fl_create_at(int dirfd, const char *name, const char *header)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			O_CLOEXEC, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	fprintf(f, "%s\n", header);
	fflush(f);
	return f;
}

FILE *fl_append_at(int dirfd, const char *name, const char *shown,
		   char *err, size_t errlen)
{
	/* non-blocking: a FIFO here must not hold the run up */
	int fd = openat(dirfd, name, O_WRONLY | O_APPEND | O_NOFOLLOW |
			O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	FILE *f;

	if (fd < 0) {
		if (errno == ELOOP)
			snprintf(err, errlen, "%s: a symbolic link: refused",
				 shown);
		else
			failed(shown, "cannot append", err, errlen);
		return NULL;
	}
	/* a second link would carry the rows into a file elsewhere */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)) {
		snprintf(err, errlen, "%s: not a regular file of one link: "
			 "refused", shown);
		close(fd);
		return NULL;
	}
	f = fdopen(fd, "a");
	if (!f) {
		failed(shown, "cannot append", err, errlen);
		close(fd);
	}
	return f;
}

int fl_folder_at(int dirfd, const char *name, const char *shown,
		 char *err, size_t errlen)
{
	if (mkdirat(dirfd, name, 0755) && errno != EEXIST)
		return failed(shown, "cannot create", err, errlen);
	return fl_open_folder(dirfd, name, shown, err, errlen);
}

int fl_exists_at(int dirfd, const char *name)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

int fl_remove_at(int at, const char *name, const char *shown,
		 char *err, size_t errlen)
{
	int sub = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			 O_NONBLOCK | O_CLOEXEC);
	struct dirent *e;
	DIR *d;

	if (sub < 0) {
		/* a file, a FIFO or a link (ELOOP, ENOTDIR): the entry
		 * itself goes, what a link points at stays */
		if (errno == ENOENT)
			return 0;
		if (unlinkat(at, name, 0) && errno != ENOENT)
			return failed(shown, "cannot remove", err, errlen);
		return 0;
	}
	d = fdopendir(sub);
	if (!d) {
		close(sub);
		return failed(shown, "cannot remove", err, errlen);
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		/* a folder inside is the only thing unlinkat refuses */
		if (unlinkat(dirfd(d), e->d_name, 0) && errno == EISDIR &&
		    unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR))
			break;
	}
	closedir(d);
	if (unlinkat(at, name, AT_REMOVEDIR) && errno != ENOENT)
		return failed(shown, "cannot remove", err, errlen);
	return 0;
}
