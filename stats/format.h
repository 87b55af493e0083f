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

#include "stats/cost.h"
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
/* "1.234 us", "456 ns", "0.5 ns": a time that need not be whole, to
 * four digits (a cost's interval is often narrower than 1%) */
void fl_fmt_ns_frac(double ns, char *buf, size_t len);
/* One cost figure (stats/cost.h) as "1.23 us/op [1.21 us, 1.25 us]
 * +-1.6%" (the unit after the median per `per`, none when NULL; the
 * share in percent), NOISY after it; "not counted" for none. */
void fl_fmt_cost_fig(const struct fl_cost *c, enum fl_cost_id id,
		     const char *per, char *buf, size_t len);
/* The cost line's text after "cost: ": CPU time per op (per the unit
 * `per`), switches per op and the CPU share, and the PMU's figures
 * where counted; or why there is none ("not counted ..."). */
void fl_fmt_cost(const struct fl_cost *c, const char *per, char *buf,
		 size_t len);
/* "2 of 6 repetitions contaminated (threads denied up to 41% of their
 * runnable time)", "none of 6 repetitions contaminated", or "" when no
 * repetition was judged. */
void fl_fmt_contamination(const struct fl_cost *c, char *buf, size_t len);

#endif
