/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A histogram file of a run directory (hist/cell-N.csv): a
 * "# count= sum= min= max=" line, the header "low_ns,high_ns,count", then
 * one row per non-empty bucket. Written and read only here: by the run's
 * writer, the readers and the finalizing of a matrix, which merges each
 * cell's visits. A file read back is held to what the writer writes:
 * every row one of base/hist.h's buckets (its low and high exactly), in
 * rising order, none empty; the counts add up to count without wrapping
 * 2^64; min and max in the first and the last bucket, the sum between
 * count times each. An empty file is an error, and each other names its
 * line.
 */
#ifndef FUTEXLAB_RUNDIR_HIST_FILE_H
#define FUTEXLAB_RUNDIR_HIST_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "base/hist.h"

/* Write the non-empty buckets as CSV: low_ns,high_ns,count. */
int fl_hist_write_csv(const struct fl_hist *h, FILE *f);
/* Read what fl_hist_write_csv wrote (at most a few MiB); -1 on anything
 * else. */
int fl_hist_read_csv(struct fl_hist *h, FILE *f);

/* A histogram file's text (len bytes) into h; file is the name messages
 * give. 0, or -1 with err. */
int fl_rd_parse_hist(const char *file, const char *text, size_t len,
		     struct fl_hist *h, char *err, size_t errlen);

/* dirfd/name read as untrusted input (a regular file, no link on the
 * way, at most a few MiB) into h; shown as the message's path. 0, or -1
 * with err and errno (ENOENT: there is none). */
int fl_hist_load_at(int dirfd, const char *name, const char *shown,
		    struct fl_hist *h, char *err, size_t errlen);

/* h written as dirfd/name, replacing it whole (write_at.h). 0, or -1
 * with err. */
int fl_hist_save_at(int dirfd, const char *name, const char *shown,
		    const struct fl_hist *h, char *err, size_t errlen);

#endif
