// SPDX-License-Identifier: GPL-2.0
/*
 * What each column of cells.csv may hold (columns.h). Names that become
 * file names or gnuplot words (workload, backend, placement, options,
 * counters) are held to a strict character set; numbers are decimal
 * (no sign, no hex, no inf or nan) and bounded by what the writer can
 * have written, so a value from elsewhere can neither wrap a sum nor run
 * an axis or an interval to 300 digits.
 */
#include "rundir/columns.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/result.h"
#include "rundir/read.h"
#include "spec/spec.h"

/* What a field is, and so how it is checked. */
enum kind {
	K_INDEX,	/* a cell index */
	K_NAME,		/* becomes part of a file name */
	K_THREADS,
	K_PLACEMENT,
	K_CPUS,		/* the CPU of each thread: "0,2-3" */
	K_OPTIONS,	/* name=value;... */
	K_REP,
	K_STATUS,
	K_TEXT,		/* free words, no control characters */
	K_WHOLE,	/* a whole number from lo to hi */
	K_FIGURE,	/* a decimal number from 0 to hi */
	K_EXTRA,	/* name=number;... */
	K_HIST,		/* hist/cell-N.csv, or empty */
	K_SPAN,		/* a whole number, at least 1 when the rep ran:
			 * a length an ok repetition cannot lack */
	K_COUNT,	/* empty (not counted) or a whole number from lo
			 * to hi */
};

struct column {
	const char *name;
	enum kind kind;
	int required;
	double lo, hi;		/* K_WHOLE, K_FIGURE, K_SPAN */
	const char *what;	/* K_WHOLE, K_SPAN: "a ... from %g to %g" */
};

/* 2^64 - 1, the most a uint64_t field can have been written as */
#define U64_MAX_D 18446744073709551615.0

/* A column checked by its kind alone, one with bounds, and a count. */
#define PLAIN(n, k, req)	{ .name = (n), .kind = (k), .required = (req) }
#define BOUNDED(n, k, req, l, h, w) \
	{ .name = (n), .kind = (k), .required = (req), .lo = (l), .hi = (h), \
	  .what = (w) }
#define COUNT(n, unit) \
	BOUNDED(n, K_COUNT, 0, 0, U64_MAX_D, "empty or a whole number of " unit)

static const struct column columns[FL_NCOLS] = {
	[FL_COL_CELL] = PLAIN("cell", K_INDEX, 1),
	[FL_COL_WORKLOAD] = PLAIN("workload", K_NAME, 1),
	[FL_COL_BACKEND] = PLAIN("backend", K_NAME, 1),
	[FL_COL_THREADS] = PLAIN("threads", K_THREADS, 1),
	[FL_COL_PLACEMENT] = PLAIN("placement", K_PLACEMENT, 1),
	[FL_COL_CPUS] = PLAIN("cpus", K_CPUS, 0),
	[FL_COL_OPTIONS] = PLAIN("options", K_OPTIONS, 1),
	[FL_COL_REP] = PLAIN("rep", K_REP, 1),
	[FL_COL_STATUS] = PLAIN("status", K_STATUS, 1),
	[FL_COL_REASON] = PLAIN("reason", K_TEXT, 1),
	[FL_COL_NOTE] = PLAIN("note", K_TEXT, 1),
	/* what was asked and what it took: neither is 0 where the
	 * repetition ran (compare matches cells on the duration) */
	[FL_COL_DURATION] = BOUNDED("duration_ns", K_SPAN, 0, 0, U64_MAX_D,
				    "a whole number of ns"),
	[FL_COL_ELAPSED] = BOUNDED("elapsed_ns", K_SPAN, 0, 0, U64_MAX_D,
				   "a whole number of ns"),
	[FL_COL_OPS] = BOUNDED("ops", K_WHOLE, 0, 0, U64_MAX_D,
			       "a whole number of operations"),
	[FL_COL_OPS_PER_SEC] = BOUNDED("ops_per_sec", K_FIGURE, 1, 0, HUGE_VAL,
				       NULL),
	[FL_COL_OPS_PER_THREAD] = BOUNDED("ops_per_sec_per_thread", K_FIGURE,
					  0, 0, HUGE_VAL, NULL),
	[FL_COL_LAT_COUNT] = BOUNDED("lat_count", K_WHOLE, 0, 0, U64_MAX_D,
				     "a whole number of samples"),
	[FL_COL_P50] = BOUNDED("lat_p50_ns", K_FIGURE, 1, 0, HUGE_VAL, NULL),
	[FL_COL_P90] = BOUNDED("lat_p90_ns", K_FIGURE, 1, 0, HUGE_VAL, NULL),
	[FL_COL_P99] = BOUNDED("lat_p99_ns", K_FIGURE, 1, 0, HUGE_VAL, NULL),
	[FL_COL_P999] = BOUNDED("lat_p999_ns", K_FIGURE, 1, 0, HUGE_VAL, NULL),
	[FL_COL_LAT_MAX] = BOUNDED("lat_max_ns", K_WHOLE, 0, 0, U64_MAX_D,
				   "a whole number of ns"),
	[FL_COL_LAT_MEAN] = BOUNDED("lat_mean_ns", K_WHOLE, 0, 0, U64_MAX_D,
				    "a whole number of ns"),
	[FL_COL_JAIN] = BOUNDED("jain", K_FIGURE, 1, 0, 1, NULL),
	[FL_COL_THREAD_OPS_MIN] = BOUNDED("thread_ops_min", K_WHOLE, 0, 0,
					  U64_MAX_D,
					  "a whole number of operations"),
	[FL_COL_THREAD_OPS_MAX] = BOUNDED("thread_ops_max", K_WHOLE, 0, 0,
					  U64_MAX_D,
					  "a whole number of operations"),
	[FL_COL_EXTRA] = PLAIN("extra", K_EXTRA, 1),
	[FL_COL_HIST] = PLAIN("hist", K_HIST, 1),
	/* -1: unknown, 0: the global table; the prctl's sizes are ints */
	[FL_COL_HASH_SLOTS] = BOUNDED("futex_hash_slots", K_WHOLE, 0, -1,
				      2147483647.0, "a slot count"),
	[FL_COL_SAMPLE_EVERY] = BOUNDED("sample_every", K_WHOLE, 0, 1,
					FL_SAMPLE_EVERY_MAX,
					"a sampling rate"),
	/* a bin of a day is far beyond any repetition futexlab runs */
	[FL_COL_BIN_NS] = BOUNDED("bin_ns", K_SPAN, 0, 0, 86400e9,
				  "a bin width in ns"),
	/* loops per microsecond: a few thousand on today's CPUs; 0 where
	 * the process did not calibrate (a skipped cell) */
	[FL_COL_BUSY_START] = BOUNDED("busy_loops_per_us_start", K_WHOLE, 0, 0,
				      1e6, "a busy-loop speed in loops/us"),
	[FL_COL_BUSY_END] = BOUNDED("busy_loops_per_us_end", K_WHOLE, 0, 0,
				    1e6, "a busy-loop speed in loops/us"),
	/* tens of microseconds; 0 where the probe could not run, empty
	 * where it was not made (a campaign's visit after its cell's
	 * first) */
	[FL_COL_WAKE_SHORT] = BOUNDED("idle_wake_short_ns", K_COUNT, 0, 0,
				      1e10, "an idle-wake cost in ns"),
	[FL_COL_WAKE_LONG] = BOUNDED("idle_wake_long_ns", K_COUNT, 0, 0, 1e10,
				     "an idle-wake cost in ns"),
	[FL_COL_BUSY_USED] = BOUNDED("busy_loops_per_us_used", K_WHOLE, 0, 0,
				     1e6, "a busy-loop speed in loops/us"),
	[FL_COL_CPU_NS] = COUNT("cpu_ns", "ns"),
	[FL_COL_CPU_NS_MIN] = COUNT("cpu_ns_thread_min", "ns"),
	[FL_COL_CPU_NS_MAX] = COUNT("cpu_ns_thread_max", "ns"),
	[FL_COL_RUN_DELAY] = COUNT("run_delay_ns", "ns"),
	[FL_COL_RUN_DELAY_MAX] = COUNT("run_delay_ns_thread_max", "ns"),
	[FL_COL_CTX] = COUNT("ctx_switches", "context switches"),
	[FL_COL_MIGRATIONS] = COUNT("cpu_migrations", "migrations"),
	[FL_COL_FAULTS] = COUNT("page_faults", "page faults"),
	[FL_COL_CYCLES] = COUNT("cycles", "cycles"),
	[FL_COL_INSTRUCTIONS] = COUNT("instructions", "instructions"),
	[FL_COL_REF_CYCLES] = COUNT("ref_cycles", "cycles"),
	[FL_COL_STEAL] = COUNT("steal_ns", "ns"),
	[FL_COL_CONTAMINATED] = BOUNDED("contaminated", K_COUNT, 0, 0, 1,
					"empty or a whole number"),
};

#define OF(f) offsetof(struct fl_rep_counts, f)
#define PERF "perf_event_open on each measured thread: "

const struct fl_count_col fl_count_cols[FL_NCOUNT_COLS] = {
	{ FL_COL_CPU_NS, FL_HAVE_CPU, OF(cpu_ns), "ns", PERF "task-clock, "
	  "summed over the threads; /proc/thread-self/schedstat's first "
	  "field where perf is refused" },
	{ FL_COL_CPU_NS_MIN, FL_HAVE_CPU, OF(cpu_ns_min), "ns",
	  "the least of one thread's cpu_ns" },
	{ FL_COL_CPU_NS_MAX, FL_HAVE_CPU, OF(cpu_ns_max), "ns",
	  "the most of one thread's cpu_ns" },
	{ FL_COL_RUN_DELAY, FL_HAVE_RUN_DELAY, OF(run_delay_ns), "ns",
	  "/proc/thread-self/schedstat's second field (time runnable on a "
	  "run queue, not running), summed over the threads" },
	{ FL_COL_RUN_DELAY_MAX, FL_HAVE_RUN_DELAY, OF(run_delay_ns_max), "ns",
	  "the most of one thread's run_delay_ns" },
	{ FL_COL_CTX, FL_HAVE_CTX, OF(ctx_switches), "context switches",
	  PERF "PERF_COUNT_SW_CONTEXT_SWITCHES, summed" },
	{ FL_COL_MIGRATIONS, FL_HAVE_MIGRATIONS, OF(migrations), "migrations",
	  PERF "PERF_COUNT_SW_CPU_MIGRATIONS, summed" },
	{ FL_COL_FAULTS, FL_HAVE_FAULTS, OF(faults), "page faults",
	  PERF "PERF_COUNT_SW_PAGE_FAULTS, summed" },
	{ FL_COL_CYCLES, FL_HAVE_CYCLES, OF(cycles), "cycles",
	  PERF "PERF_COUNT_HW_CPU_CYCLES, summed; empty unless the PMU "
	  "counted it the whole repetition" },
	{ FL_COL_INSTRUCTIONS, FL_HAVE_INSTRUCTIONS, OF(instructions),
	  "instructions", PERF "PERF_COUNT_HW_INSTRUCTIONS, summed" },
	{ FL_COL_REF_CYCLES, FL_HAVE_REF_CYCLES, OF(ref_cycles), "cycles",
	  PERF "PERF_COUNT_HW_REF_CPU_CYCLES (at the reference clock), "
	  "summed" },
	{ FL_COL_STEAL, FL_HAVE_STEAL, OF(steal_ns), "ns",
	  "/proc/stat's steal over the repetition, summed over the machine's "
	  "CPUs (USER_HZ ticks: 10 ms steps)" },
};

const char *fl_col_name(enum fl_col c)
{
	return columns[c].name;
}

int fl_col_required(enum fl_col c)
{
	return columns[c].required;
}

int fl_col_find(const char *name)
{
	for (int c = 0; c < FL_NCOLS; c++)
		if (strcmp(columns[c].name, name) == 0)
			return c;
	return -1;
}

/* Letters, digits and the characters in extra, at most max of them. */
static int only_chars(const char *s, const char *extra, size_t max)
{
	if (strlen(s) > max)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr(extra, *s)))
			return 0;
	return 1;
}

/* What may become part of a file name: never "", "." or "..". */
static int is_name(const char *s)
{
	return *s && *s != '.' && only_chars(s, "-_.", 63);
}

static int no_controls(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/* Digits only, at most 9 of them, at most max. */
static int parse_index(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	if (*s < '0' || *s > '9' || strlen(s) > 9)
		return -1;
	*v = strtoul(s, &end, 10);
	return *end || *v > max ? -1 : 0;
}

/* A whole number: an optional '-' (only where lo < 0), digits, and
 * within [lo, hi] without wrapping. */
static int whole_ok(const char *s, double lo, double hi)
{
	const char *d = s + (*s == '-' && lo < 0);
	size_t n = strspn(d, "0123456789");
	uint64_t v = 0;

	if (n == 0 || d[n] || n > 20)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(d[i] - '0'), &v))
			return 0;
	double x = d == s ? (double)v : -(double)v;

	/* hi of 2^64-1 as a double rounds up to 2^64: v cannot exceed it */
	return x >= lo && (hi >= U64_MAX_D || x <= hi);
}

int fl_col_number(const char *s, size_t len, double *v)
{
	char buf[64], *end;
	size_t i = 0, digits;

	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	/* digits [. digits] [e [+-] digits]: what "%.1f" or "%g" writes */
	digits = strspn(buf, "0123456789");
	i = digits;
	if (buf[i] == '.') {
		size_t f = strspn(buf + i + 1, "0123456789");

		digits += f;
		i += 1 + f;
	}
	if (!digits)
		return -1;
	if (buf[i] == 'e' || buf[i] == 'E') {
		size_t j = i + 1 + (buf[i + 1] == '+' || buf[i + 1] == '-');
		size_t x = strspn(buf + j, "0123456789");

		if (!x)
			return -1;
		i = j + x;
	}
	if (buf[i])
		return -1;
	*v = strtod(buf, &end);
	return *end || !isfinite(*v) || *v < 0 ? -1 : 0;
}

/* "name=value;..." with names of [a-z0-9_-] and values checked by ok. */
static int pairs_ok(const char *text, int (*ok)(const char *v, int len))
{
	struct fl_rd_pair p;

	if (strlen(text) >= sizeof(((struct fl_rd_cell *)0)->options))
		return 0;
	for (const char *s = text; fl_rd_next_pair(&s, &p) == 0;) {
		char name[64];

		if (!p.value || p.name_len < 1 ||
		    p.name_len >= (int)sizeof(name))
			return 0;
		snprintf(name, sizeof(name), "%.*s", p.name_len, p.name);
		if (!*name || !only_chars(name, "-_", 47) ||
		    !ok(p.value, p.value_len))
			return 0;
	}
	return 1;
}

static int option_value_ok(const char *v, int len)
{
	char buf[128];

	if (len >= (int)sizeof(buf))
		return 0;
	snprintf(buf, sizeof(buf), "%.*s", len, v);
	return only_chars(buf, "-_.+:", 127);
}

static int counter_value_ok(const char *v, int len)
{
	double d;

	return fl_col_number(v, (size_t)len, &d) == 0;
}

/* hist/cell-N.csv, or empty */
static int hist_name_ok(const char *s)
{
	size_t d;

	if (!*s)
		return 1;
	if (strncmp(s, "hist/cell-", 10) != 0)
		return 0;
	d = strspn(s + 10, "0123456789");
	return d >= 1 && d <= 9 && strcmp(s + 10 + d, ".csv") == 0;
}

unsigned long fl_col_cpus_count(const char *s)
{
	unsigned long n = *s ? 1 : 0;

	for (; *s; s++)
		n += *s == ',';
	return n;
}

/* in order of how bad, as measure/cell.h's enum fl_status */
static const char *const statuses[] = { "ok", "failed", "skipped",
					"aborted" };

int fl_col_status_rank(const char *s)
{
	for (size_t i = 0; i < sizeof(statuses) / sizeof(*statuses); i++)
		if (strcmp(s, statuses[i]) == 0)
			return (int)i;
	return -1;
}

/* A column's upper bound as a message gives it. */
static const char *upto(double hi, char *buf, size_t len)
{
	if (hi >= U64_MAX_D)
		return "2^64-1";
	snprintf(buf, len, "%.0f", hi);
	return buf;
}

int fl_col_check(enum fl_col c, const char *s, int ok, char *why,
		 size_t len)
{
	const struct column *col = &columns[c];
	char hi[32];
	unsigned long u;
	double d, lo;

	switch (col->kind) {
	case K_INDEX:
		if (!parse_index(s, FL_MAX_CELL_INDEX, &u))
			return 0;
		snprintf(why, len, "is not a cell index from 0 to %lu",
			 FL_MAX_CELL_INDEX);
		return -1;
	case K_NAME:
		if (is_name(s))
			return 0;
		snprintf(why, len, "is not a name (letters, digits, '-', '_', "
			 "'.')");
		return -1;
	case K_THREADS:
		if (!parse_index(s, FL_MAX_THREADS, &u) && u >= 1)
			return 0;
		snprintf(why, len, "is not a thread count from 1 to %d",
			 FL_MAX_THREADS);
		return -1;
	case K_PLACEMENT:
		if (*s && only_chars(s, ",-", 63))
			return 0;
		snprintf(why, len, "is not compact, scatter or a CPU list");
		return -1;
	case K_CPUS:
		if (strspn(s, "0123456789,-") != strlen(s) ||
		    strlen(s) > FL_MAX_THREADS * 8) {
			snprintf(why, len, "is not a list of CPUs (digits, "
				 "',', '-')");
			return -1;
		}
		if (fl_col_cpus_count(s) > FL_MAX_THREADS) {
			snprintf(why, len, "lists %lu CPUs: a cell has at most "
				 "%d threads", fl_col_cpus_count(s),
				 FL_MAX_THREADS);
			return -1;
		}
		return 0;
	case K_OPTIONS:
		if (pairs_ok(s, option_value_ok))
			return 0;
		snprintf(why, len, "is not name=value;... of letters, digits, "
			 "'-', '_', '.', '+', ':'");
		return -1;
	case K_REP:
		if (!parse_index(s, FL_RD_MAX_REPS - 1, &u))
			return 0;
		snprintf(why, len, "is not a repetition from 0 to %d",
			 FL_RD_MAX_REPS - 1);
		return -1;
	case K_STATUS:
		if (fl_col_status_rank(s) >= 0)
			return 0;
		snprintf(why, len, "is not ok, failed, skipped or aborted");
		return -1;
	case K_TEXT:
		if (no_controls(s))
			return 0;
		snprintf(why, len, "holds a control character");
		return -1;
	case K_COUNT:
		if (!*s)
			return 0;
		/* fall through */
	case K_SPAN:
	case K_WHOLE:
		lo = col->kind == K_SPAN && ok ? 1 : col->lo;
		if (whole_ok(s, lo, col->hi))
			return 0;
		snprintf(why, len, "is not %s from %.0f to %s%s", col->what,
			 lo, upto(col->hi, hi, sizeof(hi)),
			 col->kind == K_SPAN && ok ? " (the repetition ran)" :
			 "");
		return -1;
	case K_FIGURE:
		if (fl_col_number(s, strlen(s), &d))
			snprintf(why, len, "is not a finite number >= 0");
		else if (d > col->hi)
			snprintf(why, len, "is above %g, the most Jain's index "
				 "can be", col->hi);
		else
			return 0;
		return -1;
	case K_EXTRA:
		if (pairs_ok(s, counter_value_ok))
			return 0;
		snprintf(why, len, "is not name=number;... with finite numbers "
			 ">= 0");
		return -1;
	case K_HIST:
		if (hist_name_ok(s))
			return 0;
		snprintf(why, len, "is not hist/cell-N.csv");
		return -1;
	}
	return -1;
}
