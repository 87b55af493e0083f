// SPDX-License-Identifier: GPL-2.0
/*
 * app: an unmodified program as a cell, its pthread mutexes and condition
 * variables on the cell's backend and lock algorithm through the pthread
 * interposer (libfutexlab-interpose.so, docs/interpose.md).
 *
 * Scenario: each repetition runs --cmd once, in a process group of its
 * own, with LD_PRELOAD naming the interposer beside this binary and
 * FUTEXLAB_BACKEND and FUTEXLAB_ALGO naming the cell's backend and --algo
 * (--algo glibc: no interposer, glibc's own locks, on futex-private only,
 * where glibc's futex calls are). The command is split into words here,
 * quotes and backslashes as a shell reads them, and executed without a
 * shell: what only a shell would do (pipes, redirections, variables,
 * globs) is refused when the flag is read.
 *
 * Measures: one figure per repetition, lower is better: the program's
 * wall time from its start to its exit, or with --metric the number of
 * seconds the regular expression's first group matches in its output
 * (sysbench's "total time: +([0-9.]+)s"). The cell's figure is the median
 * of its repetitions with its interval, like every round workload's.
 *
 * A repetition fails when the program exits with a status other than 0,
 * is killed by a signal, or prints no match for --metric; it is killed
 * with its whole process group when it passes the repetition's deadline
 * (twice --duration and a second: set --duration to about the program's
 * run time). Its output, at most FL_KEEP_MAX bytes of it (the first and
 * last halves), is kept in the run directory as programs/run-ID.txt, the
 * ID in the row's extra column as output=ID.
 */
#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spec/workload.h"
#include "measure/rep.h"
#include "workloads/lib/regex_bound.h"

enum { OPT_ALGO, OPT_CMD, OPT_METRIC };
enum { C_OUTPUT, C_BYTES };
enum { ALGO_GLIBC, ALGO_MUTEX3, ALGO_SPIN_THEN_WAIT, ALGO_PI, ALGO_ADAPTIVE };

static const char *const algos[] = {
	"glibc", "mutex3", "spin-then-wait", "pi", "adaptive", NULL,
};

#define MAX_WORDS	64

/* what a shell would act on, refused unquoted: no shell runs the command */
#define SHELL_CHARS	"|&;<>()$`*?[~#"

/*
 * text split into words in buf (as long as text), argv NULL-ended: single
 * quotes keep everything, double quotes keep all but \" and \\, a
 * backslash outside quotes keeps the next character. The word count, or
 * -1 with why in err.
 */
static int split_words(const char *text, char *buf, char **argv, char *err,
		       size_t errlen)
{
	int n = 0, in_word = 0;
	char quote = 0, *o = buf;

	for (const char *c = text;; c++) {
		if (!quote && (*c == ' ' || *c == '\t' || !*c)) {
			if (in_word) {
				*o++ = '\0';
				in_word = 0;
			}
			if (!*c)
				break;
			continue;
		}
		if (!*c) {
			snprintf(err, errlen, "--cmd: a %c quote is not "
				 "closed", quote);
			return -1;
		}
		if (!in_word) {
			if (n == MAX_WORDS) {
				snprintf(err, errlen, "--cmd: more than %d "
					 "words", MAX_WORDS);
				return -1;
			}
			argv[n++] = o;
			in_word = 1;
		}
		if (quote == '\'') {
			if (*c == '\'')
				quote = 0;
			else
				*o++ = *c;
		} else if (*c == '\\' && (!quote || c[1] == '"' ||
					   c[1] == '\\')) {
			if (!*++c) {
				snprintf(err, errlen, "--cmd: ends in a "
					 "backslash");
				return -1;
			}
			*o++ = *c;
		} else if (quote == '"') {
			if (*c == '"')
				quote = 0;
			else
				*o++ = *c;
		} else if (*c == '\'' || *c == '"') {
			quote = *c;
		} else if (strchr(SHELL_CHARS, *c)) {
			snprintf(err, errlen, "--cmd: '%c' is shell syntax, "
				 "and no shell runs the command (quote it to "
				 "pass it as it is)", *c);
			return -1;
		} else {
			*o++ = *c;
		}
	}
	argv[n] = NULL;
	if (!n)
		snprintf(err, errlen, "--cmd: no program named");
	return n ? n : -1;
}

#ifdef FL_DESCRIBE

#include <limits.h>

/* 1 when the program runs: a path that is executable, or a name on PATH */
static int findable(const char *prog)
{
	const char *path = getenv("PATH");
	char full[PATH_MAX];

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0;
	for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t len = strcspn(p, ":");

		snprintf(full, sizeof(full), "%.*s/%s", (int)len, p, prog);
		if (len && access(full, X_OK) == 0)
			return 1;
		p += len + (p[len] == ':');
	}
	return 0;
}

static int check_cmd(const char *text, char *err, size_t errlen)
{
	char buf[1024], *argv[MAX_WORDS + 1];

	if (strlen(text) >= sizeof(buf)) {
		snprintf(err, errlen, "--cmd: too long");
		return -1;
	}
	if (split_words(text, buf, argv, err, errlen) < 0)
		return -1;
	if (!findable(argv[0])) {
		snprintf(err, errlen, "--cmd: %s: no such program (not "
			 "executable, or not on PATH)", argv[0]);
		return -1;
	}
	return 0;
}

static int check_metric(const char *text, char *err, size_t errlen)
{
	const char *bound;
	regex_t re;
	int r;

	if (!*text)
		return 0;
	if (fl_regex_bounded(text, &bound)) {
		snprintf(err, errlen, "--metric '%s': %s", text, bound);
		return -1;
	}
	r = regcomp(&re, text, REG_EXTENDED);
	if (r) {
		char why[128];

		regerror(r, &re, why, sizeof(why));
		snprintf(err, errlen, "--metric '%s': %s", text, why);
		return -1;
	}
	r = re.re_nsub < 1;
	regfree(&re);
	if (r)
		snprintf(err, errlen, "--metric '%s': no (group) around the "
			 "number of seconds", text);
	return -r;
}

static const struct fl_option options[] = {
	[OPT_ALGO] = FL_SWEEP_ENUM("algo", "mutex3", algos,
			"the interposer's lock algorithm, or glibc's own "
			"locks (glibc)"),
	[OPT_CMD] = FL_OPTION_TEXT("cmd", "true", check_cmd,
			"the program and its arguments, split as a shell "
			"would but run without one"),
	[OPT_METRIC] = FL_OPTION_TEXT("metric", "", check_metric,
			"an extended regular expression whose first group "
			"is the figure, in seconds (default: wall time)"),
};

static const struct fl_counter_desc counters[] = {
	[C_OUTPUT] = FL_COUNTER_MAX("output"),
	[C_BYTES] = FL_COUNTER_SUM("output_bytes"),
};

static uint32_t needs(const struct fl_cell *cell)
{
	switch ((int)cell->opt[OPT_ALGO]) {
	case ALGO_PI:
		return FL_CAP_PI;
	case ALGO_ADAPTIVE:
		return FL_CAP_ADAPTIVE;
	default:
		return FL_CAP_WAIT;
	}
}

/* The interposer has the stock futex and the module's designs; glibc's
 * own locks are the stock private futex's. */
static int check(const struct fl_cell *cell, char *why, size_t len)
{
	const struct fl_backend *b = cell->backend;

	if (cell->opt[OPT_ALGO] == ALGO_GLIBC) {
		if (b->libc == FL_LIBC_PRIVATE)
			return 0;
		snprintf(why, len, "--algo glibc is glibc's own locks, on the "
			 "stock private futex: it runs on futex-private only");
		return -1;
	}
	if (!b->interposed) {
		snprintf(why, len, "the pthread interposer runs on "
			 "futex-private, futex-shared and the module's "
			 "kmod-* backends, not %s", b->name);
		return -1;
	}
	return 0;
}

FL_WORKLOAD_DESCRIPTOR(app) = {
	.name = "app",
	.summary = "an unmodified program (--cmd) on the cell's backend and "
		   "lock algorithm, through the pthread interposer",
	.scenario = "Each repetition runs --cmd once, in its own process "
		    "group, with its pthread mutexes and condition variables "
		    "on the cell's backend and --algo (the interposer, "
		    "docs/interpose.md). The figure is its wall time, or "
		    "the seconds --metric's first group matches in its "
		    "output; a status other than 0 fails the repetition, and "
		    "passing twice --duration and a second kills its process "
		    "group. Its output is kept in the run directory "
		    "(programs/run-ID.txt).",
	.ops_unit = "runs",
	.ops_by_one_thread = 1,
	/* which of the two a cell's is, its metric= says ("none": wall
	 * time), and what run prints of it (cli/cell_output.c) */
	.latency = "the program's time",
	.latency_is = "its wall time from start to exit where metric=none, "
		      "else the seconds its --metric expression (meta.json's "
		      "command line) found in its output",
	.sample_every = 1,
	.primary = FL_PRIMARY_LATENCY_P50,
	.options = options,
	.noptions = sizeof(options) / sizeof(options[0]),
	.counters = counters,
	.ncounters = sizeof(counters) / sizeof(counters[0]),
	.needs = needs,
	.check = check,
	.fixed_threads = 1,
	.threads_are = "the program's own, as its command line says: the "
		       "cell's one thread starts it",
};

#else /* one build per backend */

#include "measure/program.h"

static void thread(struct fl_thread *t)
{
	struct fl_rep *rep = t->rep;
	const struct fl_cell *cell = rep->cell;
	struct fl_program p = {
		.backend = cell->backend->name,
		.algo = cell->opt[OPT_ALGO] == ALGO_GLIBC ? NULL :
			algos[cell->opt[OPT_ALGO]],
		.metric = fl_opt_text(cell->opt[OPT_METRIC]),
		/* a second before the harness gives up on the thread */
		.deadline_ns = rep->hard_deadline_ns - 1000000000ull,
	};
	char buf[1024], *argv[MAX_WORDS + 1];
	uint64_t figure;

	if (split_words(fl_opt_text(cell->opt[OPT_CMD]), buf, argv,
			p.why, sizeof(p.why)) < 0) {
		fl_rep_fail(rep, "%s", p.why);
		return;
	}
	p.argv = argv;
	if (fl_program_run(&p, &figure)) {
		fl_rep_fail(rep, "%s", p.why);
	} else {
		fl_hist_record(t->hist, figure);
		fl_ops_add_one(t);
	}
	t->counters[C_OUTPUT] = p.output_id;
	t->counters[C_BYTES] = p.output_bytes;
	/* the repetition lasts its duration, as every cell's does */
	while (!fl_should_stop(rep))
		usleep(1000);
}

static void kick(struct fl_rep *rep)
{
	(void)rep;	/* nothing sleeps in the backend */
}

FL_WORKLOAD_IMPL(app, thread, kick);

#endif
