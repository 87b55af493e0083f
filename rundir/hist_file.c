// SPDX-License-Identifier: GPL-2.0
/* Histogram files of a run directory: hist_file.h. */
#include "rundir/hist_file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
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

/* A whole number of at most 20 digits that fits 64 bits, ending at stop;
 * 0 with *v and *s past the stop, or -1. */
static int whole(const char **s, char stop, uint64_t *v)
{
	const char *p = *s;
	size_t n = strspn(p, "0123456789");
	uint64_t x = 0;

	if (n == 0 || n > 20 || p[n] != stop)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (__builtin_mul_overflow(x, 10, &x) ||
		    __builtin_add_overflow(x, (uint64_t)(p[i] - '0'), &x))
			return -1;
	*v = x;
	*s = p + n + 1;
	return 0;
}

/* The count line: "# count=N sum=N min=N max=N". */
static int count_line(const char **p, struct fl_hist *h)
{
	static const char *const keys[] = { "# count=", " sum=", " min=",
					    " max=" };
	uint64_t *v[] = { &h->count, &h->sum, &h->min, &h->max };

	for (size_t i = 0; i < 4; i++) {
		size_t n = strlen(keys[i]);

		if (strncmp(*p, keys[i], n) != 0)
			return -1;
		*p += n;
		if (whole(p, i == 3 ? '\n' : ' ', v[i]))
			return -1;
		if (i < 3)
			(*p)--;	/* its space begins the next key */
	}
	return 0;
}

/* One bucket row at *p after the one of index *last (-1: none): its
 * index. 0, or -1 with why. */
static int bucket_row(const char **p, long *last, struct fl_hist *h,
		      uint64_t *total, char *why, size_t wlen)
{
	uint64_t lo, hi, n;
	unsigned int i;

	if (whole(p, ',', &lo) || whole(p, ',', &hi) || whole(p, '\n', &n)) {
		snprintf(why, wlen, "not 'low_ns,high_ns,count' (three whole "
			 "numbers)");
		return -1;
	}
	i = fl_hist_index(lo);
	if (fl_hist_bucket_low(i) != lo ||
	    hi != lo + fl_hist_bucket_width(i) - 1) {
		snprintf(why, wlen, "%" PRIu64 ",%" PRIu64 " is not a bucket "
			 "(%" PRIu64 ",%" PRIu64 " is the one holding %" PRIu64
			 ")", lo, hi, fl_hist_bucket_low(i),
			 fl_hist_bucket_low(i) + fl_hist_bucket_width(i) - 1,
			 lo);
		return -1;
	}
	if ((long)i <= *last) {
		snprintf(why, wlen, "bucket %" PRIu64 " is not above the one "
			 "before it: buckets are written once each, rising",
			 lo);
		return -1;
	}
	if (!n) {
		snprintf(why, wlen, "bucket %" PRIu64 " counts 0: only the "
			 "others are written", lo);
		return -1;
	}
	/* a file from elsewhere: a count that wraps 2^64 could otherwise
	 * add up to anything */
	if (__builtin_add_overflow(*total, n, total)) {
		snprintf(why, wlen, "the counts wrap 2^64");
		return -1;
	}
	h->buckets[i] = n;
	*last = i;
	return 0;
}

/* The count line's min and max against the buckets: each in the first
 * and last one (the largest values all land in the last), the sum
 * between count * min and count * max. 0, or -1 with why. */
static int extremes(const struct fl_hist *h, long first, long last,
		    char *why, size_t wlen)
{
	uint64_t lo, hi;

	if (!h->count) {
		if (h->sum || h->min || h->max) {
			snprintf(why, wlen, "count=0 with a sum, min or max");
			return -1;
		}
		return 0;
	}
	if ((long)fl_hist_index(h->min) != first ||
	    (long)fl_hist_index(h->max) != last || h->min > h->max) {
		snprintf(why, wlen, "min=%" PRIu64 " max=%" PRIu64 " are not "
			 "in the first and the last bucket", h->min, h->max);
		return -1;
	}
	if (__builtin_mul_overflow(h->count, h->min, &lo) || h->sum < lo ||
	    (!__builtin_mul_overflow(h->count, h->max, &hi) && h->sum > hi)) {
		snprintf(why, wlen, "sum=%" PRIu64 " is not count times a "
			 "mean from min to max", h->sum);
		return -1;
	}
	return 0;
}

/* A histogram file's text into h: 0, or -1 with why and *line the line
 * it is about (0: the file as a whole). */
static int parse_hist(const char *text, size_t len, struct fl_hist *h,
		      unsigned int *line, char *why, size_t wlen)
{
	const char *p = text, *end = text + len;
	uint64_t total = 0;
	long first = -1, last = -1;

	fl_hist_init(h);
	*line = 0;
	if (!len || memchr(text, '\0', len) || text[len - 1] != '\n') {
		snprintf(why, wlen, "%s", !len ? "empty" : "not a histogram "
			 "(a NUL byte, or the last line has no newline)");
		return -1;
	}
	*line = 1;
	if (count_line(&p, h)) {
		snprintf(why, wlen, "not '# count=N sum=N min=N max=N'");
		return -1;
	}
	*line = 2;
	if (strncmp(p, "low_ns,high_ns,count\n", 21) != 0) {
		snprintf(why, wlen, "not the header 'low_ns,high_ns,count'");
		return -1;
	}
	for (p += 21; p < end; ) {
		++*line;
		if (bucket_row(&p, &last, h, &total, why, wlen))
			return -1;
		if (first < 0)
			first = last;
	}
	*line = 1;
	if (total != h->count) {
		snprintf(why, wlen, "count=%" PRIu64 ", but the buckets add up "
			 "to %" PRIu64, h->count, total);
		return -1;
	}
	if (extremes(h, first, last, why, wlen))
		return -1;
	if (h->count == 0)
		h->min = UINT64_MAX;
	return 0;
}

int fl_hist_read_csv(struct fl_hist *h, FILE *f)
{
	char *text = malloc(MAX_HIST_BYTES), why[160];
	size_t len = text ? fread(text, 1, MAX_HIST_BYTES, f) : 0;
	unsigned int line;
	int rc = text && len < MAX_HIST_BYTES && !ferror(f) ?
		 parse_hist(text, len, h, &line, why, sizeof(why)) : -1;

	free(text);
	return rc;
}

int fl_rd_parse_hist(const char *file, const char *text, size_t len,
		     struct fl_hist *h, char *err, size_t errlen)
{
	char why[160];
	unsigned int line;

	if (parse_hist(text, len, h, &line, why, sizeof(why)) == 0)
		return 0;
	if (line)
		snprintf(err, errlen, "%s:%u: %s", file, line, why);
	else
		snprintf(err, errlen, "%s: %s", file, why);
	return -1;
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
