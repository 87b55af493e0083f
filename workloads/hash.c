// SPDX-License-Identifier: GPL-2.0
/*
 * hash: the cost of hashing and keying a futex, as `perf bench futex hash`
 * measures it.
 *
 * Scenario: every thread owns an array of --futexes words (1024, perf's
 * default) and walks it forever, calling wait with a value the word never
 * holds. Each call builds the key, hashes it, takes and drops the bucket
 * lock and returns EAGAIN: nobody ever sleeps, so what is measured is the
 * per-operation cost of the lookup and the contention on hash buckets
 * between threads. Private keys skip the page lookup that shared keys need
 * (the private-futex patch measured 345 against 434 cycles per wait).
 *
 * Measures: operations per second in total and per thread (perf prints the
 * per-thread average), and the latency of one operation, timed for a
 * random one in 64 by default (--sample) so that reading the clock does
 * not dominate.
 * --shared is perf's flag: it needs a backend with shared keys.
 */
#include <errno.h>
#include <stdio.h>

#include "spec/workload.h"
#include "measure/rep.h"

enum { OPT_FUTEXES, OPT_SHARED };
enum { C_ERRORS };

#define FL_HASH_BAD_VAL 1234	/* never stored in a word: every wait fails */

#ifdef FL_DESCRIBE

static const struct fl_option options[] = {
	[OPT_FUTEXES] = FL_SWEEP_INT("futexes", "1024", 1, 1 << 20,
			"futexes per thread"),
	[OPT_SHARED] = FL_OPT_PERF_SHARED,
};

static const struct fl_counter_desc counters[] = {
	[C_ERRORS] = FL_COUNTER_SUM("errors"),
};

static uint32_t needs(const struct fl_cell *cell)
{
	return FL_CAP_WAIT | fl_shared_cap(cell, OPT_SHARED);
}

static size_t per_thread_bytes(const struct fl_cell *cell)
{
	size_t words = (size_t)cell->opt[OPT_FUTEXES] * 8;

	/* each thread's array starts on its own cache lines */
	return (words + FL_CACHELINE - 1) & ~(size_t)(FL_CACHELINE - 1);
}

static int init(struct fl_rep *rep, char *why, size_t len)
{
	size_t per = per_thread_bytes(rep->cell);

	rep->shared = fl_rep_alloc(rep, per * rep->nthreads, -1);
	if (!rep->shared) {
		snprintf(why, len, "cannot map %zu bytes of futexes",
			 per * rep->nthreads);
		return -1;
	}
	for (unsigned int i = 0; i < rep->nthreads; i++)
		rep->threads[i].local = (char *)rep->shared + per * i;
	return 0;
}

static int verify(struct fl_rep *rep, char *why, size_t len)
{
	uint64_t errors = fl_rep_sum(rep, C_ERRORS);

	if (errors) {
		snprintf(why, len, "%llu waits returned something other than "
			 "EAGAIN", (unsigned long long)errors);
		return -1;
	}
	return 0;
}

FL_WORKLOAD_DESCRIPTOR(hash) = {
	.name = "hash",
	.summary = "failing waits over many futexes (perf bench futex hash)",
	.scenario = "Each thread walks its own array of futexes calling wait "
		    "with a value they never hold, so every call hashes the "
		    "key and returns EAGAIN: the cost of keying and hashing. "
		    "ops/s per thread compares with perf bench futex hash.",
	.ops_unit = "waits",
	.latency = "wait latency (sampled)",
	.sample_every = 64,
	.options = options,
	.noptions = sizeof(options) / sizeof(options[0]),
	.counters = counters,
	.ncounters = sizeof(counters) / sizeof(counters[0]),
	.needs = needs,
	.init = init,
	.verify = verify,
};

#else /* one build per backend */

/*
 * The measured loop: one wait per operation, walking the array. The stop
 * flag is looked at before every operation (a relaxed load of a line
 * nobody writes until the end), so the count is exact; the timed
 * operations fall at random among all the futexes.
 */
static void thread(struct fl_thread *t)
{
	struct fl_rep *rep = t->rep;
	const size_t n = (size_t)rep->cell->opt[OPT_FUTEXES];
	void *words = t->local;
	uint64_t next_timed = t->sampler.first;
	uint64_t ops = 0, errors = 0;
	size_t i = 0;

	fl_words_init(words, n, 0);
	while (!fl_should_stop(rep)) {
		uint32_t *word = fl_word_at(words, i);
		int r;

		if (fl_sample_due(ops + 1, &next_timed, &t->sampler)) {
			uint64_t t0 = fl_now_ns();

			r = fl_wait(word, FL_HASH_BAD_VAL, NULL);
			fl_hist_record(t->hist, fl_now_ns() - t0);
		} else {
			r = fl_wait(word, FL_HASH_BAD_VAL, NULL);
		}
		if (r != -EAGAIN && r != -EINTR)
			errors++;
		fl_ops_publish(t, ++ops);
		if (++i == n)
			i = 0;
	}
	t->counters[C_ERRORS] = errors;
}

FL_WORKLOAD_IMPL(hash, thread, NULL);

#endif
