// SPDX-License-Identifier: GPL-2.0
/*
 * Reopening a partial run directory for its resume (write.h). The
 * directory is data from outside: it is opened by its own name inside
 * its results folder, never through a link (a link there would make the
 * final rename move the link, and the run stay elsewhere); its finished
 * name is read from its own name, .partial-NAME-PID-N, as fl_run_open()
 * made it, and held to the characters such a name has. Nothing inside a
 * file chooses where the run ends up.
 */
#include "rundir/write.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rundir/keep.h"

#define PREFIX ".partial-"

/* The run's name from an entry .partial-NAME-PID-N; 0, or -1. */
static int name_of_entry(const char *entry, char *name, size_t len)
{
	size_t n = strlen(entry);

	if (strncmp(entry, PREFIX, strlen(PREFIX)) != 0)
		return -1;
	/* -N, then -PID, from the end */
	for (int part = 0; part < 2; part++) {
		size_t d = 0;

		while (d < n && entry[n - 1 - d] >= '0' && entry[n - 1 - d] <= '9')
			d++;
		if (d == 0 || d > 10 || d >= n || entry[n - 1 - d] != '-')
			return -1;
		n -= d + 1;
	}
	if (n <= strlen(PREFIX) || n - strlen(PREFIX) >= len)
		return -1;
	memcpy(name, entry + strlen(PREFIX), n - strlen(PREFIX));
	name[n - strlen(PREFIX)] = '\0';
	/* <UTC time>-<host>: letters, digits, '-' and '_' (fl_run_open) */
	if (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		   "0123456789-_") != strlen(name) || name[0] == '-')
		return -1;
	return 0;
}

int fl_run_reopen(struct fl_run *run, const char *path, char *err,
		  size_t errlen)
{
	char given[PATH_MAX];
	const char *slash;
	struct stat st;

	memset(run, 0, sizeof(*run));
	run->dir_fd = run->fd = -1;
	snprintf(given, sizeof(given), "%s", path);
	for (size_t n = strlen(given); n > 1 && given[n - 1] == '/'; n--)
		given[n - 1] = '\0';
	snprintf(run->tmp, sizeof(run->tmp), "%s", given);
	slash = strrchr(given, '/');
	snprintf(run->entry, sizeof(run->entry), "%s", slash ? slash + 1 :
		 given);
	if (slash == given)
		snprintf(run->dir, sizeof(run->dir), "/");
	else if (slash)
		snprintf(run->dir, sizeof(run->dir), "%.*s",
			 (int)(slash - given), given);
	else
		snprintf(run->dir, sizeof(run->dir), ".");
	run->dir_fd = open(run->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (run->dir_fd < 0) {
		snprintf(err, errlen, "--resume: '%s': %s", path,
			 strerror(errno));
		return -1;
	}
	if (fstatat(run->dir_fd, run->entry, &st, AT_SYMLINK_NOFOLLOW) ||
	    !(S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode))) {
		snprintf(err, errlen, "--resume: '%s' is not a directory",
			 path);
		goto fail;
	}
	if (S_ISLNK(st.st_mode)) {
		snprintf(err, errlen, "--resume: '%s' is a symbolic link: "
			 "refused (give the partial directory itself)", path);
		goto fail;
	}
	if (strncmp(run->entry, PREFIX, strlen(PREFIX)) != 0) {
		if (fstatat(run->dir_fd, run->entry, &st, 0) == 0 &&
		    (run->fd = openat(run->dir_fd, run->entry, O_RDONLY |
				      O_DIRECTORY | O_NOFOLLOW |
				      O_CLOEXEC)) >= 0 &&
		    fstatat(run->fd, "meta.json", &st, AT_SYMLINK_NOFOLLOW) == 0)
			snprintf(err, errlen, "--resume: '%s' is a finished "
				 "run: finished runs are never modified", path);
		else
			snprintf(err, errlen, "--resume: '%s' is not a partial "
				 "run directory (results/.partial-*)", path);
		goto fail;
	}
	if (name_of_entry(run->entry, run->name, sizeof(run->name))) {
		snprintf(err, errlen, "--resume: '%s' is not named as futexlab "
			 "names a partial run (.partial-NAME-PID-N)", path);
		goto fail;
	}
	run->fd = openat(run->dir_fd, run->entry, O_RDONLY | O_DIRECTORY |
			 O_NOFOLLOW | O_CLOEXEC);
	if (run->fd < 0) {
		snprintf(err, errlen, "--resume: '%s': %s", path,
			 strerror(errno));
		goto fail;
	}
	fl_keep_into(run->fd);
	return 0;
fail:
	fl_run_close(run);
	return -1;
}
