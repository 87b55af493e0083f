// SPDX-License-Identifier: GPL-2.0
/*
 * Expanding a thread list ("1,2,4", "1..2*cpus", "cpus/2") into thread
 * counts for this machine's CPU count.
 */
#include "sweep/matrix.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sweep/internal.h"
#include "spec/options.h"

/* One term of a thread list: N, cpus, N*cpus, cpus/N. */
static int thread_term(const char *t, unsigned int ncpus, uint64_t *v)
{
	char buf[64], *star, *slash;
	uint64_t k;

	if (strlen(t) >= sizeof(buf))
		return -1;
	strcpy(buf, t);
	if (strcmp(buf, "cpus") == 0) {
		*v = ncpus;
		return 0;
	}
	star = strchr(buf, '*');
	if (star && strcmp(star + 1, "cpus") == 0) {
		*star = '\0';
		if (fl_parse_u64(buf, &k) || k > FL_MAX_THREADS)
			return -1;
		*v = k * ncpus;
		return 0;
	}
	slash = strchr(buf, '/');
	if (slash && strncmp(buf, "cpus/", 5) == 0) {
		if (fl_parse_u64(slash + 1, &k) || k == 0)
			return -1;
		*v = ncpus / k ? ncpus / k : 1;
		return 0;
	}
	return fl_parse_u64(buf, v);
}

static int add_threads(unsigned int *out, int n, unsigned int max,
		       uint64_t v)
{
	for (int i = 0; i < n; i++)
		if (out[i] == v)
			return n;
	if ((unsigned int)n == max)
		return -1;
	out[n++] = (unsigned int)v;
	return n;
}

int fl_matrix_threads(const char *text, unsigned int ncpus,
		      unsigned int *out, unsigned int max, char *err,
		      size_t errlen)
{
	char buf[256], *save = NULL;
	int n = 0;

	if (strlen(text) >= sizeof(buf)) {
		snprintf(err, errlen, "threads: list too long");
		return -1;
	}
	if (list_without_blanks("threads", text, buf, sizeof(buf), err,
				errlen))
		return -1;
	for (char *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *dots = strstr(tok, "..");
		uint64_t a, b;

		if (dots) {
			*dots = '\0';
			if (thread_term(tok, ncpus, &a) ||
			    thread_term(dots + 2, ncpus, &b))
				goto bad;
			*dots = '.';
			if (a < 1 || b < a || b > FL_MAX_THREADS)
				goto bad;
			/* powers of two from a, then b itself */
			for (uint64_t v = a; v <= b; v *= 2) {
				n = add_threads(out, n, max, v);
				if (n < 0)
					goto too_many;
			}
			n = add_threads(out, n, max, b);
		} else {
			if (thread_term(tok, ncpus, &a) || a < 1 ||
			    a > FL_MAX_THREADS)
				goto bad;
			n = add_threads(out, n, max, a);
		}
		if (n < 0)
			goto too_many;
		continue;
bad:
		snprintf(err, errlen, "threads: '%s' is not a thread count "
			 "from 1 to %d (N, cpus, K*cpus, cpus/K, or A..B "
			 "for powers of two)", tok, FL_MAX_THREADS);
		return -1;
	}
	return n;
too_many:
	snprintf(err, errlen, "threads: '%s' gives more than %u values", text,
		 max);
	return -1;
}
