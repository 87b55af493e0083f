/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Options as data: every workload declares a table of its own flags, and
 * the harness parses them, prints --help from them and records the chosen
 * values in every results row. A sweep option accepts a comma-separated
 * list and becomes one cell per value.
 */
#ifndef FUTEXLAB_OPTIONS_H
#define FUTEXLAB_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#define FL_MAX_OPTS	16
#define FL_MAX_SWEEP	16

enum fl_opt_type {
	FL_OPT_INT,	/* a non-negative integer, optional k/M suffix */
	FL_OPT_NS,	/* a duration: 100, 100ns, 5us, 2ms, 1s (ns if bare) */
	FL_OPT_BOOL,	/* a flag without a value */
	FL_OPT_ENUM,	/* one of choices[] */
};

struct fl_option {
	const char *name;		/* without the leading -- */
	enum fl_opt_type type;
	const char *def;		/* default, as it would be typed */
	const char *help;
	const char *const *choices;	/* FL_OPT_ENUM: NULL-terminated */
	int sweep;			/* accepts a list: one cell per value */
	int64_t min, max;		/* FL_OPT_INT/NS bounds (max 0: none) */
};

/* The parsed values of one option: one, or a list for a sweep. */
struct fl_opt_values {
	unsigned int n;
	int64_t v[FL_MAX_SWEEP];
	int given;			/* set on the command line */
};

/*
 * Parse one value of opt from text. Returns 0, or -1 with a message
 * naming the option and the bad text in err.
 */
int fl_opt_parse_one(const struct fl_option *opt, const char *text,
		     int64_t *out, char *err, size_t errlen);
/* Parse text (a list if opt->sweep) into vals. */
int fl_opt_parse(const struct fl_option *opt, const char *text,
		 struct fl_opt_values *vals, char *err, size_t errlen);
/* Format one value the way it would be typed: "100ns" -> "100", "all". */
void fl_opt_format(const struct fl_option *opt, int64_t v, char *buf,
		   size_t len);

/* Generic number parsing shared with the common flags. */
int fl_parse_u64(const char *text, uint64_t *out);
/* Seconds with up to 9 decimals ("0.5", "3") into ns; -1 if malformed. */
int fl_parse_seconds_ns(const char *text, uint64_t *out);
/* "100", "100ns", "5us", "2ms", "1s" into ns. */
int fl_parse_duration_ns(const char *text, uint64_t *out);

#endif
