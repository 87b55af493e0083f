// SPDX-License-Identifier: GPL-2.0
/* The table of the keys every workload takes, and their scalar parsers:
 * see common_keys.h. */
#include "spec/common_keys.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "spec/options.h"
#include "spec/topology.h"

#define ONE_DAY_NS	(86400ull * FL_NSEC_PER_SEC)

/* A number of seconds, in [k->min, k->max] ns. */
static int key_seconds(const struct fl_common_key *k, const char *text,
		       uint64_t *out, const struct fl_key_ctx *ctx,
		       char *err, size_t errlen)
{
	if (fl_parse_seconds_ns(text, out) || *out < k->min || *out > k->max) {
		/* a flag's words leave out "above 0": run's tests pin them */
		snprintf(err, errlen, "--%s: '%s' is not a number of seconds "
			 "(e.g. 1 or 0.5, %sat most one day)", k->name, text,
			 ctx->in_file && k->min ? "above 0, " : "");
		return -1;
	}
	return 0;
}

static int key_duration(const struct fl_common_key *k, const char *text,
			struct fl_spec *s, const struct fl_key_ctx *ctx,
			char *err, size_t errlen)
{
	return key_seconds(k, text, &s->duration_ns, ctx, err, errlen);
}

static int key_warmup(const struct fl_common_key *k, const char *text,
		      struct fl_spec *s, const struct fl_key_ctx *ctx,
		      char *err, size_t errlen)
{
	return key_seconds(k, text, &s->warmup_ns, ctx, err, errlen);
}

static int key_budget(const struct fl_common_key *k, const char *text,
		      struct fl_spec *s, const struct fl_key_ctx *ctx,
		      char *err, size_t errlen)
{
	uint64_t ns;

	if (key_seconds(k, text, &ns, ctx, err, errlen))
		return -1;
	s->budget_s = (double)ns / 1e9;
	return 0;
}

/* A whole number in [k->min, k->max], set by the row's set(); the
 * message names the range with what the number is. */
static int key_count(const struct fl_common_key *k, const char *text,
		     struct fl_spec *s, const struct fl_key_ctx *ctx,
		     char *err, size_t errlen)
{
	uint64_t u;

	(void)ctx;
	if (fl_parse_u64(text, &u) || u < k->min || u > k->max) {
		snprintf(err, errlen, "--%s: '%s' is not %s from %llu%s to "
			 "%llu", k->name, text, k->count.what,
			 (unsigned long long)k->min, k->count.low,
			 (unsigned long long)k->max);
		return -1;
	}
	k->count.set(s, u);
	return 0;
}

/* reps: auto, or a count as key_count() reads it */
static int key_reps(const struct fl_common_key *k, const char *text,
		    struct fl_spec *s, const struct fl_key_ctx *ctx,
		    char *err, size_t errlen)
{
	if (strcmp(text, "auto") == 0) {
		s->reps = FL_REPS_MIN;
		s->reps_auto = 1;
		return 0;
	}
	return key_count(k, text, s, ctx, err, errlen);
}

static void set_reps(struct fl_spec *s, uint64_t v)
{
	s->reps = (unsigned int)v;
	s->reps_auto = 0;
}

static void set_reps_max(struct fl_spec *s, uint64_t v)
{
	s->reps_max = (unsigned int)v;
}

static void set_hash_slots(struct fl_spec *s, uint64_t v)
{
	s->hash_slots = (long)v;
}

static void set_sample(struct fl_spec *s, uint64_t v)
{
	s->sample_every = (unsigned int)v;
}

static int key_seed(const struct fl_common_key *k, const char *text,
		    struct fl_spec *s, const struct fl_key_ctx *ctx,
		    char *err, size_t errlen)
{
	(void)ctx;
	if (fl_parse_u64(text, &s->seed)) {
		snprintf(err, errlen, "--%s: '%s' is not a non-negative "
			 "integer", k->name, text);
		return -1;
	}
	return 0;
}

static int key_bin(const struct fl_common_key *k, const char *text,
		   struct fl_spec *s, const struct fl_key_ctx *ctx,
		   char *err, size_t errlen)
{
	uint64_t ns;

	(void)ctx;
	if (fl_parse_duration_ns(text, &ns) || ns < k->min || ns > k->max) {
		snprintf(err, errlen, "--%s: '%s' is not a duration from 1ms "
			 "to 10s (e.g. 10ms)", k->name, text);
		return -1;
	}
	s->bin_ns = ns;
	return 0;
}

/* One row: name, the value's form, parser, bounds, help. */
#define KEY(name_, arg_, parse_, min_, max_, help_) \
	{ .name = (name_), .arg = (arg_), .parse = (parse_), \
	  .min = (min_), .max = (max_), .help = (help_) }
/* A row of a whole number: what it is and what its least value means,
 * for the message, and its setter. */
#define KEY_NUMBER(name_, arg_, parse_, set_, min_, max_, what_, low_, \
		   help_) \
	{ .name = (name_), .arg = (arg_), .parse = (parse_), \
	  .min = (min_), .max = (max_), .help = (help_), \
	  .count = { .what = (what_), .low = (low_), .set = (set_) } }
#define KEY_COUNT(name_, set_, min_, max_, what_, low_, help_) \
	KEY_NUMBER(name_, "N", key_count, set_, min_, max_, what_, low_, \
		   help_)

const struct fl_common_key fl_common_keys[] = {
	KEY("backend", "NAME[,NAME...]", fl_key_backends, 0, 0,
	    "backends to run (default futex-private; see list; all, or "
	    "host: those that need no module)"),
	KEY("threads", "N[,N...]", fl_key_threads, 1, FL_MAX_THREADS,
	    "thread counts (default 1; also cpus, node-cpus, package-cpus, "
	    "K*cpus, cpus/K, and A..B for powers of two)"),
	KEY("placement", "compact|scatter|CPU-LIST", fl_key_placements, 0, 0,
	    "thread pinning (default compact; a space-separated list "
	    "sweeps)"),
	KEY("duration", "SECONDS", key_duration, 1, ONE_DAY_NS,
	    "length of each repetition (default 1)"),
	KEY("warmup", "SECONDS", key_warmup, 0, ONE_DAY_NS,
	    "warm-up before the repetitions (default 0.2)"),
	KEY_NUMBER("reps", "auto|N", key_reps, set_reps, 1, FL_REPS_LIMIT,
		   "auto or a whole number", "",
		   "repetitions per cell (default auto: at least 6, more "
		   "while the 95% interval is wider than +-5%)"),
	KEY_COUNT("reps-max", set_reps_max, FL_REPS_MIN, FL_REPS_LIMIT,
		  "a whole number", "",
		  "the most --reps auto takes (default 30)"),
	KEY("time-budget", "SECONDS", key_budget, 1, ONE_DAY_NS,
	    "what --reps auto may spend (default 3x the minimum "
	    "repetitions' time)"),
	KEY("seed", "N", key_seed, 0, 0,
	    "seed for every random choice (default 1)"),
	KEY_COUNT("hash-slots", set_hash_slots, 0, 1u << 30,
		  "a slot count", "",
		  "futex hash slots: futex-private/futex2 set the 6.16+ "
		  "private hash (0: the global table); kmod-private sizes "
		  "its table (0: the module's default); default: leave it"),
	KEY_COUNT("sample", set_sample, 1, FL_SAMPLE_EVERY_MAX,
		  "a whole number", " (time every operation)",
		  "time one operation in N, at random (default: the "
		  "workload's, shown below)"),
	KEY("bin", "DURATION", key_bin, 1000000ull, 10 * FL_NSEC_PER_SEC,
	    "throughput-over-time bin (default 10ms)"),
};
const unsigned int fl_ncommon_keys =
	sizeof(fl_common_keys) / sizeof(fl_common_keys[0]);
_Static_assert(sizeof(fl_common_keys) / sizeof(fl_common_keys[0]) <=
	       FL_MAX_COMMON_KEYS, "raise FL_MAX_COMMON_KEYS");

const struct fl_common_key *fl_common_key_find(const char *name)
{
	for (unsigned int i = 0; i < fl_ncommon_keys; i++)
		if (strcmp(fl_common_keys[i].name, name) == 0)
			return &fl_common_keys[i];
	return NULL;
}

int fl_common_key_apply(const struct fl_common_key *k, const char *text,
			struct fl_spec *s, const struct fl_key_ctx *ctx,
			char *err, size_t errlen)
{
	/* a file's value may keep a blank libinih left */
	while (ctx->in_file && (*text == ' ' || *text == '\t'))
		text++;
	if (!k->parse(k, text, s, ctx, err, errlen))
		return 0;
	/*
	 * a matrix file's key has no dashes; the length is err's own, whose
	 * first two bytes are the dashes (gcc's -fsanitize=address reads
	 * strlen(err + 2) as a read past a region of size 0)
	 */
	if (ctx->in_file && strncmp(err, "--", 2) == 0)
		memmove(err, err + 2, strlen(err) - 1);
	return -1;
}

void fl_common_keys_list(const struct fl_workload *w, char *buf,
			 size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < fl_ncommon_keys && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? ", " : "", fl_common_keys[i].name);
	for (unsigned int i = 0; w && i < w->noptions && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, ", %s",
					 w->options[i].name);
}

void fl_key_ctx_of(struct fl_key_ctx *ctx, const struct fl_topology *t,
		   int in_file)
{
	ctx->ncpus = t->ncpus ? t->ncpus : 1;
	ctx->node_cpus = fl_topology_node_cpus(t);
	ctx->package_cpus = fl_topology_package_cpus(t);
	ctx->in_file = in_file;
}

/* This machine's topology is read once per process: hwloc takes
 * milliseconds, and a matrix is parsed again for its resume, --list and
 * every input a fuzzer tries. */
void fl_key_ctx_here(struct fl_key_ctx *ctx, int in_file)
{
	static struct fl_topology t;
	static int known;

	if (!known) {
		fl_topology_here(&t);
		known = 1;
	}
	fl_key_ctx_of(ctx, &t, in_file);
}
