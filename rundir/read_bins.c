// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a repetition's bins file back (see read.h). The file comes from
 * the run directory, which is data: it is opened only as a regular file
 * below the run, without following a link on the way (fl_open_regular);
 * the first line is "# bin_ns=N" with N at least 1, the second the header
 * "end_ns,ops", then at least one and at most FL_RD_MAX_BINS rows of two
 * whole numbers whose ends never go back, every line ends with a newline,
 * and the rows add up to the repetition's ops in cells.csv exactly (the
 * writer's last bin takes the operations in progress at the stop).
 */
#include "rundir/read.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rundir/regular.h"

/* 2048 rows of two 20-digit numbers and their header, with room */
#define MAX_BINS_BYTES	(1u << 20)

/* A whole number of at most 20 digits that fits 64 bits, ending at a
 * stop character; 0 with *v and *s past it, or -1. */
static int whole(const char **s, char stop, unsigned long long *v)
{
	const char *p = *s;
	size_t n = strspn(p, "0123456789");
	unsigned long long x = 0;

	if (n == 0 || n > 20 || p[n] != stop)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (__builtin_mul_overflow(x, 10, &x) ||
		    __builtin_add_overflow(x, (unsigned long long)(p[i] - '0'),
					   &x))
			return -1;
	*v = x;
	*s = p + n + 1;
	return 0;
}

/* "FILE:LINE: why" (LINE 0: the file as a whole); always -1 */
static int bad(const char *shown, unsigned int line, const char *why,
	       char *err, size_t errlen)
{
	if (line)
		snprintf(err, errlen, "%s:%u: %s", shown, line, why);
	else
		snprintf(err, errlen, "%s: %s", shown, why);
	return -1;
}

/* The text of a bins file into b; 0, or -1 with err. */
static int parse_bins(const char *shown, const char *text, size_t len,
		      struct fl_rd_bins *b, unsigned long long *sum,
		      char *err, size_t errlen)
{
	const char *p = text, *end = text + len;
	unsigned int line = 1;

	if (!len)
		return bad(shown, 0, "empty: no bins", err, errlen);
	if (memchr(text, '\0', len) || text[len - 1] != '\n')
		return bad(shown, 0, "not a bins file (a NUL byte, or the last "
			   "line has no newline)", err, errlen);
	if (strncmp(p, "# bin_ns=", 9) != 0 ||
	    (p += 9, whole(&p, '\n', &b->bin_ns)) || !b->bin_ns)
		return bad(shown, 1, "not '# bin_ns=N' with N at least 1",
			   err, errlen);
	line++;
	if (strncmp(p, "end_ns,ops\n", 11) != 0)
		return bad(shown, 2, "not the header 'end_ns,ops'", err,
			   errlen);
	p += 11;
	*sum = 0;
	for (line++; p < end; line++) {
		unsigned long long e, ops;

		if (b->n == FL_RD_MAX_BINS)
			return bad(shown, line, "more bins than the "
				   "2048 a repetition writes", err, errlen);
		if (whole(&p, ',', &e) || whole(&p, '\n', &ops))
			return bad(shown, line, "not 'end_ns,ops' (two whole "
				   "numbers)", err, errlen);
		if (b->n && e < b->end_ns[b->n - 1])
			return bad(shown, line, "ends before the bin above it",
				   err, errlen);
		if (__builtin_add_overflow(*sum, ops, sum))
			return bad(shown, line, "the operations wrap 2^64",
				   err, errlen);
		b->end_ns[b->n] = e;
		b->ops[b->n++] = ops;
	}
	if (!b->n)
		return bad(shown, 0, "no bins after the header", err, errlen);
	return 0;
}

int fl_rd_bins(const struct fl_rd_run *r, const struct fl_rd_cell *c,
	       unsigned int rep, struct fl_rd_bins *b, char *err,
	       size_t errlen)
{
	char name[64], shown[PATH_MAX + 64], why[128], *text;
	unsigned long long sum;
	size_t len;
	int rc;

	snprintf(name, sizeof(name), "bins/cell-%04lu-rep-%03u.csv", c->index,
		 rep);
	snprintf(shown, sizeof(shown), "%s/%s", r->dir, name);
	memset(b, 0, sizeof(*b));
	if (fl_read_regular(r->dirfd, name, shown, FL_NOFOLLOW,
			    MAX_BINS_BYTES, &text, &len, err, errlen))
		return errno == ENOENT ? 1 : -1;
	rc = parse_bins(shown, text, len, b, &sum, err, errlen);
	free(text);
	if (rc)
		return -1;
	if (rep < FL_RD_MAX_REPS && c->rep_ops[rep] != UINT64_MAX &&
	    sum != c->rep_ops[rep]) {
		snprintf(why, sizeof(why), "the bins add up to %llu "
			 "operations, but cells.csv says repetition %u did "
			 "%llu", sum, rep, (unsigned long long)c->rep_ops[rep]);
		return bad(shown, 0, why, err, errlen);
	}
	return 0;
}
