// SPDX-License-Identifier: GPL-2.0
/* Histogram files of a run directory: hist_file.h. */
#include "rundir/hist_file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rundir/regular.h"
#include "rundir/write_at.h"

/*
 * A run's histograms are small (at most a few thousand buckets); a larger
 * file is not one of ours.
 */
#define MAX_HIST_BYTES	(4u << 20)

int fl_hist_write_csv(const struct fl_hist *h, FILE *f)
{
	fprintf(f, "# count=%" PRIu64 " sum=%" PRIu64 " min=%" PRIu64
		" max=%" PRIu64 "\n", h->count, h->sum,
		h->count ? h->min : 0, h->max);
	fprintf(f, "low_ns,high_ns,count\n");
	for (unsigned int i = 0; i < FL_HIST_BUCKETS; i++) {
		if (!h->buckets[i])
			continue;
		fprintf(f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n",
			fl_hist_bucket_low(i),
			fl_hist_bucket_low(i) + fl_hist_bucket_width(i) - 1,
			h->buckets[i]);
	}
	return ferror(f) ? -1 : 0;
}

int fl_hist_read_csv(struct fl_hist *h, FILE *f)
{
	char line[256];
	uint64_t lo, hi, n, total = 0;

	fl_hist_init(h);
	if (!fgets(line, sizeof(line), f) ||
	    sscanf(line, "# count=%" SCNu64 " sum=%" SCNu64 " min=%" SCNu64
		   " max=%" SCNu64, &h->count, &h->sum, &h->min, &h->max) != 4)
		return -1;
	if (!fgets(line, sizeof(line), f) ||
	    strcmp(line, "low_ns,high_ns,count\n") != 0)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNu64 ",%" SCNu64 ",%" SCNu64,
			   &lo, &hi, &n) != 3)
			return -1;
		unsigned int i = fl_hist_index(lo);

		/* a file from elsewhere: a count that wraps 2^64 could
		 * otherwise add up to anything */
		if (fl_hist_bucket_low(i) != lo ||
		    __builtin_add_overflow(h->buckets[i], n, &h->buckets[i]) ||
		    __builtin_add_overflow(total, n, &total))
			return -1;
	}
	if (total != h->count || (h->count && h->min > h->max))
		return -1;
	if (h->count == 0)
		h->min = UINT64_MAX;
	return 0;
}

int fl_rd_parse_hist(const char *file, const char *text, size_t len,
		     struct fl_hist *h, char *err, size_t errlen)
{
	FILE *f = len ? fmemopen((void *)text, len, "r") : NULL;
	int rc = f ? fl_hist_read_csv(h, f) : -1;

	if (f)
		fclose(f);
	if (rc)
		snprintf(err, errlen, "%s: %s", file, len ? "not a histogram "
			 "whose buckets add up to its count" : "empty");
	return rc;
}

int fl_hist_load_at(int dirfd, const char *name, const char *shown,
		    struct fl_hist *h, char *err, size_t errlen)
{
	char *text;
	size_t len;
	int rc;

	if (fl_read_regular(dirfd, name, shown, FL_NOFOLLOW, MAX_HIST_BYTES,
			    &text, &len, err, errlen))
		return -1;
	rc = fl_rd_parse_hist(shown, text, len, h, err, errlen);
	free(text);
	if (rc)
		errno = EINVAL;
	return rc;
}

int fl_hist_save_at(int dirfd, const char *name, const char *shown,
		    const struct fl_hist *h, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int rc;

	if (!f || fl_hist_write_csv(h, f) || fclose(f)) {
		free(text);
		snprintf(err, errlen, "%s: out of memory", shown);
		return -1;
	}
	rc = fl_write_at(dirfd, name, shown, text, len, err, errlen);
	free(text);
	return rc;
}
