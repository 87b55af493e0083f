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
	FL_OPT_TEXT,	/* printable text, checked by check(); recorded as
			 * a hash of it (a run's options column holds
			 * names, not commands: meta.json has the text) */
};

/*
 * A kind of value an option accepts besides its named choices, for the
 * people and tools that read `futexlab list`: numa's --cpu-nodes takes a
 * node ("N", e.g. "1") and a node set ("N+N...", e.g. "0+2+5"). The
 * example parses (tests/unit/test_options.c checks every one).
 */
struct fl_option_form {
	const char *name;		/* "node set" */
	const char *syntax;		/* "N+N..." */
	const char *example;		/* "0+2+5" */
	const char *help;		/* what such a value means */
};

struct fl_option {
	const char *name;		/* without the leading -- */
	enum fl_opt_type type;
	const char *def;		/* default, as it would be typed */
	const char *help;
	const char *const *choices;	/* FL_OPT_ENUM: NULL-terminated */
	int sweep;			/* accepts a list: one cell per value */
	int64_t min, max;		/* FL_OPT_INT/NS bounds (max 0: none) */
	/* FL_OPT_TEXT: 0, or -1 with a message naming the option */
	int (*check)(const char *text, char *err, size_t errlen);
	/* optional, FL_OPT_ENUM: values that choices[] cannot list (numa's
	 * node sets "0+2+5" and distances "d21"). parse() reads any value,
	 * named or not, into a value of its own encoding (0, or -1 with a
	 * message naming the option); format() prints it back the way it
	 * would be typed. choices[] then lists the named values only. */
	int (*parse)(const struct fl_option *opt, const char *text,
		     int64_t *out, char *err, size_t errlen);
	void (*format)(int64_t v, char *buf, size_t len);
	/* optional: what else a value may be (a coded enum's grammar),
	 * ended by an entry whose name is NULL */
	const struct fl_option_form *forms;
	/* FL_OPT_BOOL: yes in every cell whose backend keys its words as
	 * shared (perf's --shared on futex-shared), so the cell's label
	 * says what its keys are */
	int yes_if_shared_keys;
};

/*
 * Rows of an option table, one macro per kind, perf-style: the name, the
 * default as it would be typed, the bounds or choices, the help last.
 * An FL_SWEEP_ row accepts a comma-separated list, one cell per value;
 * an FL_OPTION_ row takes one value. A max of 0 means no upper bound.
 *
 *   FL_SWEEP_NS("critical", "100", 0, 1000000000,
 *               "critical section length, ns of busy work"),
 */
#define FL_OPTION_ROW(name_, type_, def_, choices_, sweep_, min_, max_, \
		      help_) \
	{ .name = (name_), .type = (type_), .def = (def_), \
	  .help = (help_), .choices = (choices_), .sweep = (sweep_), \
	  .min = (min_), .max = (max_) }

#define FL_OPTION_INT(name, def, min, max, help) \
	FL_OPTION_ROW(name, FL_OPT_INT, def, NULL, 0, min, max, help)
#define FL_SWEEP_INT(name, def, min, max, help) \
	FL_OPTION_ROW(name, FL_OPT_INT, def, NULL, 1, min, max, help)
#define FL_OPTION_NS(name, def, min, max, help) \
	FL_OPTION_ROW(name, FL_OPT_NS, def, NULL, 0, min, max, help)
#define FL_SWEEP_NS(name, def, min, max, help) \
	FL_OPTION_ROW(name, FL_OPT_NS, def, NULL, 1, min, max, help)
/* a flag without a value: "no" unless given */
#define FL_OPTION_BOOL(name, help) \
	FL_OPTION_ROW(name, FL_OPT_BOOL, "no", NULL, 0, 0, 0, help)
#define FL_OPTION_ENUM(name, def, choices, help) \
	FL_OPTION_ROW(name, FL_OPT_ENUM, def, choices, 0, 0, 0, help)
#define FL_SWEEP_ENUM(name, def, choices, help) \
	FL_OPTION_ROW(name, FL_OPT_ENUM, def, choices, 1, 0, 0, help)

/* an enum whose values parse_ and format_ encode (see struct fl_option):
 * choices_ names some values, forms_ describes the others */
#define FL_SWEEP_CODED(name_, def_, choices_, forms_, parse_, format_, \
		       help_) \
	{ .name = (name_), .type = FL_OPT_ENUM, .def = (def_), \
	  .help = (help_), .choices = (choices_), .sweep = 1, \
	  .parse = (parse_), .format = (format_), .forms = (forms_) }

/* one value of printable text, never a list (a comma is text) */
#define FL_OPTION_TEXT(name_, def_, check_, help_) \
	{ .name = (name_), .type = FL_OPT_TEXT, .def = (def_), \
	  .help = (help_), .check = (check_) }

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
/*
 * text, a comma-separated list, into buf (at most len - 1 characters)
 * without the blanks around its items ("1, 2" is "1,2"); -1 with
 * "--NAME: ..." in err when an item holds a blank ("1 2" is no 12, nor
 * two items: separate them with commas) or nothing is left.
 */
int fl_list_items(const char *name, const char *text, char *buf, size_t len,
		  char *err, size_t errlen);

/* Parse text (a list if opt->sweep) into vals. */
int fl_opt_parse(const struct fl_option *opt, const char *text,
		 struct fl_opt_values *vals, char *err, size_t errlen);
/* Format one value the way it would be typed: "100ns" -> "100", "all". */
void fl_opt_format(const struct fl_option *opt, int64_t v, char *buf,
		   size_t len);

/* An FL_OPT_TEXT value's text (the value is its index in this process's
 * table of texts, inherited by a cell's forked child). */
const char *fl_opt_text(int64_t v);

/* Generic number parsing shared with the common flags. */
int fl_parse_u64(const char *text, uint64_t *out);
/* Seconds with up to 9 decimals ("0.5", "3") into ns; -1 if malformed. */
int fl_parse_seconds_ns(const char *text, uint64_t *out);
/* "100", "100ns", "5us", "2ms", "1s" into ns. */
int fl_parse_duration_ns(const char *text, uint64_t *out);

#endif
