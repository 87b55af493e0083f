// SPDX-License-Identifier: GPL-2.0
/*
 * The one thread-list grammar, for `run --threads` and a matrix file's
 * threads key alike: "1,2,4", "1..2*cpus", "cpus/2", "node-cpus",
 * expanded into thread counts for a machine's CPUs, its largest NUMA
 * node's and its largest package's (this machine's, or a synthetic one
 * a plan is made for: spec/topology.h).
 */
#include "spec/common_keys.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec/options.h"

/* What a word of the grammar stands for on ctx's machine, or 0. */
static unsigned int word_value(const char *word, const struct fl_key_ctx *ctx)
{
	if (strcmp(word, "cpus") == 0)
		return ctx->ncpus;
	/* a context that names no node or package: one node, one package */
	if (strcmp(word, "node-cpus") == 0)
		return ctx->node_cpus ? ctx->node_cpus : ctx->ncpus;
	if (strcmp(word, "package-cpus") == 0)
		return ctx->package_cpus ? ctx->package_cpus : ctx->ncpus;
	return 0;
}

/* One term of a thread list: N, W, N*W or W/N, where W is cpus,
 * node-cpus or package-cpus. */
static int thread_term(const char *t, const struct fl_key_ctx *ctx,
		       uint64_t *v)
{
	char buf[64], *star, *slash;
	unsigned int w;
	uint64_t k;

	if (strlen(t) >= sizeof(buf))
		return -1;
	strcpy(buf, t);
	w = word_value(buf, ctx);
	if (w) {
		*v = w;
		return 0;
	}
	star = strchr(buf, '*');
	w = star ? word_value(star + 1, ctx) : 0;
	if (w) {
		*star = '\0';
		if (fl_parse_u64(buf, &k) || k > FL_MAX_THREADS)
			return -1;
		*v = k * w;
		return 0;
	}
	slash = strchr(buf, '/');
	if (slash) {
		*slash = '\0';
		w = word_value(buf, ctx);
		if (!w || fl_parse_u64(slash + 1, &k) || k == 0)
			return -1;
		*v = w / k ? w / k : 1;
		return 0;
	}
	return fl_parse_u64(buf, v);
}

static int add_threads(unsigned int *out, int n, unsigned int max,
		       uint64_t v)
{
	for (int i = 0; i < n; i++)
		if (out[i] == v)
			return n;
	if ((unsigned int)n == max)
		return -1;
	out[n++] = (unsigned int)v;
	return n;
}

/*
 * A term that is no thread count. A flag's plain item (no cpus, no
 * range) keeps the words of an integer list, which run's tests pin.
 */
static int bad_term(const char *term, const char *item,
		    const struct fl_key_ctx *ctx, char *err, size_t errlen)
{
	uint64_t v;

	if (!ctx->in_file && strcmp(term, item) == 0 &&
	    !strstr(item, "cpus")) {
		if (fl_parse_u64(item, &v))
			snprintf(err, errlen, "--threads: '%s' is not a "
				 "non-negative integer", item);
		else
			snprintf(err, errlen, "--threads: %s is out of range "
				 "[1, %d]", item, FL_MAX_THREADS);
	} else if (strcmp(term, item)) {
		snprintf(err, errlen, "--threads: '%s' in '%s' is not a thread "
			 "count from 1 to %d (N, cpus, K*cpus or cpus/K)",
			 term, item, FL_MAX_THREADS);
	} else {
		snprintf(err, errlen, "--threads: '%s' is not a thread count "
			 "from 1 to %d (N, cpus, K*cpus, cpus/K, or A..B for "
			 "powers of two)", item, FL_MAX_THREADS);
	}
	return -1;
}

/* A..B: powers of two from A, then B itself, into out. */
static int add_range(const char *item, const struct fl_key_ctx *ctx,
		     unsigned int *out, int *n, unsigned int max, char *err,
		     size_t errlen)
{
	const char *dots = strstr(item, "..");
	char a_text[64];
	uint64_t a, b;

	snprintf(a_text, sizeof(a_text), "%.*s", (int)(dots - item), item);
	if (thread_term(a_text, ctx, &a) || a < 1 ||
	    a > FL_MAX_THREADS)
		return bad_term(a_text, item, ctx, err, errlen);
	if (thread_term(dots + 2, ctx, &b) || b < 1 ||
	    b > FL_MAX_THREADS)
		return bad_term(dots + 2, item, ctx, err, errlen);
	if (b < a) {
		snprintf(err, errlen, "--threads: '%s' ends below its start",
			 item);
		return -1;
	}
	for (uint64_t v = a; v <= b && *n >= 0; v *= 2)
		*n = add_threads(out, *n, max, v);
	if (*n >= 0)
		*n = add_threads(out, *n, max, b);
	return 0;
}

/* Has an earlier item of the list the same text (or the same number)? */
static int repeated(const char *list, const char *item)
{
	size_t len = strlen(item);

	for (const char *p = list; p < item; p += strcspn(p, ",") + 1) {
		size_t n = strcspn(p, ",");

		if ((n == len && strncmp(p, item, len) == 0) ||
		    (strspn(p, "0123456789") == n && n &&
		     strspn(item, "0123456789") == len &&
		     strtoull(p, NULL, 10) == strtoull(item, NULL, 10)))
			return 1;
	}
	return 0;
}

/* An item written twice is a typo (machine-dependent overlaps, cpus on a
 * 1-CPU box, merge); each surface's tests pin its own words. */
static int given_twice(const char *item, const char *list,
		       const struct fl_key_ctx *ctx, char *err, size_t errlen)
{
	if (ctx->in_file)
		snprintf(err, errlen, "--threads: '%s' is given twice in '%s'",
			 item, list);
	else
		snprintf(err, errlen, "--threads: '%s' in '%s' repeats a value "
			 "given before it", item, list);
	return -1;
}

int fl_parse_thread_list(const char *text, const struct fl_key_ctx *ctx,
			 unsigned int *out, unsigned int max, char *err,
			 size_t errlen)
{
	char buf[256], list[256];
	int n = 0;

	if (strlen(text) >= sizeof(buf)) {
		snprintf(err, errlen, "--threads: list too long");
		return -1;
	}
	if (fl_list_items("threads", text, buf, sizeof(buf), err, errlen))
		return -1;
	snprintf(list, sizeof(list), "%s", buf);
	/* every item, the empty ones too */
	for (char *item = list, *next; item; item = next) {
		uint64_t a;

		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		if (!*item) {
			snprintf(err, errlen, "--threads: '%s': an empty item "
				 "in the list", buf);
			return -1;
		}
		if (repeated(list, item))
			return given_twice(item, buf, ctx, err, errlen);
		if (strstr(item, "..")) {
			if (add_range(item, ctx, out, &n, max, err, errlen))
				return -1;
		} else if (thread_term(item, ctx, &a) || a < 1 ||
			   a > FL_MAX_THREADS) {
			return bad_term(item, item, ctx, err, errlen);
		} else {
			n = add_threads(out, n, max, a);
		}
		if (n < 0) {
			snprintf(err, errlen, "--threads: '%s' gives more than "
				 "%u values", text, max);
			return -1;
		}
	}
	return n;
}
