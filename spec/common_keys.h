/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The keys every workload takes, as one table in the spirit of perf's
 * OPT_* tables: each row names the key, the form of its value and its
 * help, and the parser that sets it in an fl_spec within the row's
 * limits. `futexlab run`'s flags (--NAME VALUE) and a matrix file's keys
 * (NAME = VALUE) are both made from this table, so a key is spelled,
 * bounded and explained once, and means the same in both places.
 *
 * A value is a list where the key is an axis of the cells: backends
 * ("spin,futex2", or all, or host: every backend that needs no module),
 * thread counts (the grammar of threads.c: "1,2,4", "1..2*cpus",
 * "cpus/2") and placements (space-separated, as a CPU list holds commas).
 */
#ifndef FUTEXLAB_COMMON_KEYS_H
#define FUTEXLAB_COMMON_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "spec/spec.h"

/* Where a value comes from, for what it means and how a fault is worded. */
struct fl_key_ctx {
	unsigned int ncpus;	/* what "cpus" in a thread list stands for */
	unsigned int node_cpus;	/* "node-cpus": one node's (0: ncpus) */
	unsigned int package_cpus;	/* "package-cpus" (0: ncpus) */
	/*
	 * A matrix file's key rather than a flag: its messages name the key
	 * without dashes, and the few that tests pin in each surface's own
	 * words keep them (a thread given twice, a zero duration).
	 */
	int in_file;
};

struct fl_common_key {
	const char *name;		/* the flag without --, the file key */
	const char *arg;		/* the value's form in --help */
	const char *help;
	int (*parse)(const struct fl_common_key *k, const char *text,
		     struct fl_spec *s, const struct fl_key_ctx *ctx,
		     char *err, size_t errlen);
	uint64_t min, max;		/* the value's bounds, where it has
					 * them (seconds: in ns) */
	struct {			/* a whole number's row */
		const char *what;	/* "a slot count" */
		const char *low;	/* what min means, or "" */
		void (*set)(struct fl_spec *s, uint64_t v);
	} count;
};

/* The most rows the table may grow to (a flag parser's array bound). */
#define FL_MAX_COMMON_KEYS	24

extern const struct fl_common_key fl_common_keys[];
extern const unsigned int fl_ncommon_keys;

/* The row named name, or NULL. */
const struct fl_common_key *fl_common_key_find(const char *name);

/*
 * Parse text into s by row k: 0, or -1 with "--NAME: what is wrong" in
 * err ("NAME: ..." when ctx->in_file).
 */
int fl_common_key_apply(const struct fl_common_key *k, const char *text,
			struct fl_spec *s, const struct fl_key_ctx *ctx,
			char *err, size_t errlen);

/* The known keys, ", "-separated, then w's options (w may be NULL). */
void fl_common_keys_list(const struct fl_workload *w, char *buf,
			 size_t len);

/* A context for this machine: ncpus from the CPUs online, node_cpus and
 * package_cpus from its topology (spec/topology.h). */
void fl_key_ctx_here(struct fl_key_ctx *ctx, int in_file);
/* A context for the machine t describes. */
struct fl_topology;
void fl_key_ctx_of(struct fl_key_ctx *ctx, const struct fl_topology *t,
		   int in_file);

/*
 * The rows' parsers of the axes (axis_keys.c, threads.c); each writes
 * "--NAME: ..." into err on a fault.
 */
int fl_key_backends(const struct fl_common_key *k, const char *text,
		    struct fl_spec *s, const struct fl_key_ctx *ctx,
		    char *err, size_t errlen);
int fl_key_threads(const struct fl_common_key *k, const char *text,
		   struct fl_spec *s, const struct fl_key_ctx *ctx,
		   char *err, size_t errlen);
int fl_key_placements(const struct fl_common_key *k, const char *text,
		      struct fl_spec *s, const struct fl_key_ctx *ctx,
		      char *err, size_t errlen);

/*
 * The one thread-list grammar: items N, W, K*W, W/K (W one of cpus,
 * node-cpus, package-cpus) and A..B (powers of two from A, then B),
 * comma-separated, blanks around items ignored (fl_list_items());
 * expanded for ctx's machine into at most max values, a value given
 * twice by different items (node-cpus equal to cpus on a one-node
 * machine) kept once. The count, or -1 with
 * "--threads: ..." in err naming the bad item.
 */
int fl_parse_thread_list(const char *text, const struct fl_key_ctx *ctx,
			 unsigned int *out, unsigned int max, char *err,
			 size_t errlen);

#endif
