// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a repetition's bins file back (see read.h). The file comes from
 * the run directory, which is data: it is opened only as a regular file
 * below the run, every line must be two integers, the bins' ends must
 * grow, and no more than FL_RD_MAX_BINS are taken.
 */
#include "rundir/read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static FILE *open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	return fdopen(fd, "r");
}

/* One "end_ns,ops" row; 0, or -1 if it is anything else. */
static int parse_row(const char *line, unsigned long long *end,
		     unsigned long long *ops)
{
	int used = 0;

	if (sscanf(line, "%llu,%llu%n", end, ops, &used) != 2 ||
	    (line[used] != '\n' && line[used] != '\0'))
		return -1;
	return line[0] >= '0' && line[0] <= '9' ? 0 : -1;
}

int fl_rd_bins(const struct fl_rd_run *r, unsigned long cell,
	       unsigned int rep, struct fl_rd_bins *b, char *err,
	       size_t errlen)
{
	char path[PATH_MAX + 64], line[256];
	unsigned int lineno = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/bins/cell-%04lu-rep-%03u.csv",
		 r->dir, cell, rep);
	memset(b, 0, sizeof(*b));
	f = open_regular(path);
	if (!f) {
		if (errno == ENOENT)
			return 1;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long end, ops;

		lineno++;
		if (lineno == 1 && sscanf(line, "# bin_ns=%llu", &b->bin_ns)
		    == 1)
			continue;
		if (lineno <= 2 && strcmp(line, "end_ns,ops\n") == 0)
			continue;
		if (parse_row(line, &end, &ops) ||
		    (b->n && end < b->end_ns[b->n - 1]) ||
		    b->n == FL_RD_MAX_BINS || !b->bin_ns) {
			snprintf(err, errlen, "%s:%u: not a bin (end_ns,ops "
				 "after a '# bin_ns=' line, ends growing, at "
				 "most %u)", path, lineno, FL_RD_MAX_BINS);
			fclose(f);
			return -1;
		}
		b->end_ns[b->n] = end;
		b->ops[b->n++] = ops;
	}
	fclose(f);
	return 0;
}
