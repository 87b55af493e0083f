// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a matrix file from disk into fl_matrix_parse(), and freeing
 * what a parse allocated.
 */
#include "sweep/matrix.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rundir/regular.h"

static int load(int dirfd, const char *name, const char *shown,
		const struct fl_topology *t, struct fl_matrix *m, char *err,
		size_t errlen)
{
	char *buf;
	size_t len;
	int rc;

	memset(m, 0, sizeof(*m));
	/* a FIFO or a device given as the matrix file: refused, not read;
	 * inside a run directory, no link either */
	if (fl_read_regular(dirfd, name, shown, dirfd == AT_FDCWD ? 0 :
			    FL_NOFOLLOW, 16u << 20, &buf, &len, err, errlen))
		return -1;
	rc = fl_matrix_parse_for(shown, buf, len, t, m, err, errlen);
	free(buf);
	return rc;
}

int fl_matrix_load_at(int dirfd, const char *name, const char *shown,
		      struct fl_matrix *m, char *err, size_t errlen)
{
	return load(dirfd, name, shown, NULL, m, err, errlen);
}

int fl_matrix_load_for(const char *path, const struct fl_topology *t,
		       struct fl_matrix *m, char *err, size_t errlen)
{
	return load(AT_FDCWD, path, path, t, m, err, errlen);
}

int fl_matrix_load(const char *path, struct fl_matrix *m, char *err,
		   size_t errlen)
{
	return fl_matrix_load_at(AT_FDCWD, path, path, m, err, errlen);
}

void fl_matrix_free(struct fl_matrix *m)
{
	free(m->text);
	free(m->entries);
	free(m->visits);
	free(m->planned);
	m->planned = NULL;
	m->text = NULL;
	m->entries = NULL;
	m->visits = NULL;
	m->nentries = 0;
	m->nvisits = 0;
}
