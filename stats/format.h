/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How a figure is written for people: rates with a k/M/G suffix, times
 * in the unit their size calls for, an interval beside its median, a
 * percentile with its interval. Every printed table and summary goes
 * through these, so one figure reads the same everywhere.
 */
#ifndef FUTEXLAB_FORMAT_H
#define FUTEXLAB_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "stats/percentile.h"
#include "stats/stats.h"

/* "1.23M", "456k" for ops/s; "120 ns", "4.1 us" for latencies */
void fl_fmt_rate(double v, char *buf, size_t len);
void fl_fmt_ns(uint64_t ns, char *buf, size_t len);
/* "1.23M [1.2M, 1.25M] +-2.0%" or "1.23M (interval n/a: 3 reps)": the
 * primary figure of a cell, for text and tables */
void fl_fmt_ci(const struct fl_ci *ci, int latency, char *buf, size_t len);
/* "120 ns [118, 125]" or "n/e (90 samples)": one table cell's text */
void fl_pct_format(const struct fl_pct *p, char *buf, size_t len);

#endif
