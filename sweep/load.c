// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a matrix file from disk into fl_matrix_parse(), and freeing
 * what a parse allocated.
 */
#include "sweep/matrix.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fl_matrix_load(const char *path, struct fl_matrix *m, char *err,
		   size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc;

	memset(m, 0, sizeof(*m));
	if (!f) {
		snprintf(err, errlen, "%s: cannot read: %s", path,
			 strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 8192;
			char *p = cap > (16u << 20) ? NULL : realloc(buf, cap);

			if (!p) {
				snprintf(err, errlen, "%s: too large", path);
				free(buf);
				fclose(f);
				return -1;
			}
			buf = p;
		}
		size_t n = fread(buf + len, 1, cap - len, f);

		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: cannot read: %s", path,
			 strerror(errno));
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	rc = fl_matrix_parse(path, buf ? buf : "", len, m, err, errlen);
	free(buf);
	return rc;
}

void fl_matrix_free(struct fl_matrix *m)
{
	free(m->text);
	free(m->entries);
	free(m->visits);
	m->text = NULL;
	m->entries = NULL;
	m->visits = NULL;
	m->nentries = 0;
	m->nvisits = 0;
}
