// SPDX-License-Identifier: GPL-2.0
/*
 * A program's output kept in the run directory, programs/NAME, written
 * through the run's descriptor like every other file (write_at.c).
 */
#include "rundir/keep.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rundir/write_at.h"

static int keep_fd = -1;

void fl_keep_into(int run_fd)
{
	keep_fd = run_fd;
}

int fl_keep(const char *name, const void *data, size_t len, char *err,
	    size_t errlen)
{
	char path[300];
	int fd;

	if (!*name || *name == '.' ||
	    strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		   "0123456789._-") != strlen(name) || strlen(name) > 200) {
		snprintf(err, errlen, "programs/%s: not a file name", name);
		return -1;
	}
	if (keep_fd < 0) {
		snprintf(err, errlen, "no run directory open");
		return -1;
	}
	if (len > FL_KEEP_MAX + 256)
		len = FL_KEEP_MAX + 256;
	fd = fl_folder_at(keep_fd, "programs", "programs", err, errlen);
	if (fd < 0)
		return -1;
	snprintf(path, sizeof(path), "programs/%s", name);
	if (fl_write_at(fd, name, path, data, len, err, errlen)) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}
