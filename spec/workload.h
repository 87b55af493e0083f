/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workload contract.
 *
 * A workload is one file, workloads/<name>.c, compiled several times:
 *   - once with FL_DESCRIBE defined, for its descriptor (struct fl_workload:
 *     options, capabilities it needs, set-up and checks that do not touch
 *     the backend);
 *   - once per backend with `-include backends/<backend>.h`, for its thread
 *     body (struct fl_workload_impl), where fl_wait()/fl_wake()/... inline.
 * FL_WORKLOAD_DESCRIPTOR(name) and FL_WORKLOAD_IMPL(name) give the symbols
 * the generated registry (build/gen/registry.c) lists.
 *
 * Adding a workload: write workloads/<name>.c with both parts and add one
 * entry to WORKLOADS in configure.py.
 *
 * How a repetition runs (measure/cell.c): init() allocates the shared
 * state, the harness starts nthreads threads pinned by the placement, all
 * wait on one barrier, then run thread() until rep->stop is set at the end
 * of the duration; kick() then wakes any thread asleep in the backend so it
 * sees stop; the harness joins them (with a deadline) and calls verify().
 * Threads record into their own struct fl_thread only.
 */
#ifndef FUTEXLAB_WORKLOAD_H
#define FUTEXLAB_WORKLOAD_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "backends/backend.h"
#include "base/clock.h"
#include "base/hist.h"
#include "base/result.h"
#include "base/sample.h"
#include "spec/options.h"

#define FL_CACHELINE	128	/* two lines: adjacent-line prefetch pairs them */

struct fl_rep;

/* One cell: a workload on a backend with a thread count and option values. */
struct fl_cell {
	const struct fl_workload *workload;
	const struct fl_backend *backend;
	unsigned int threads;		/* --threads value */
	char placement[64];		/* compact, scatter, or the CPU list */
	/* the CPU of each thread, -1 unpinned: nplaced entries (the
	 * threads a repetition starts), sized and owned as spec/spec.h's
	 * fl_spec_cell() says; a forked child reads its own copy */
	int *cpus;
	unsigned int nplaced;
	unsigned int ncpus_online;
	int64_t opt[FL_MAX_OPTS];	/* one value per workload option */
	char options[512];		/* "name=value;..." as recorded */
	long hash_slots;		/* --hash-slots: -1 keep the default */
	uint64_t duration_ns, warmup_ns;
	unsigned int reps;
	uint64_t seed;
	unsigned int sample_every;	/* --sample: time 1 op in this many */
	uint64_t bin_ns;		/* --bin: throughput-over-time bins */
	int no_idle_wake;		/* 1: no idle-wake probe before the
					 * repetitions (measure/idle_wake.h):
					 * a campaign's visit after the cell's
					 * first in its run */
};

/* A thread's own slot: its counters and histogram on lines of its own. */
struct fl_thread {
	_Alignas(FL_CACHELINE) uint64_t ops;	/* the workload's unit of work */
	uint64_t counters[FL_NCOUNTERS];	/* merged by fl_counter_desc */
	struct fl_hist *hist;			/* latency (ns) */
	struct fl_rep *rep;
	unsigned int index;
	int cpu;
	pid_t tid;
	uint64_t seed;				/* per-thread, from the run seed */
	struct fl_sampler sampler;		/* which ops to time (sample.h) */
	void *local;				/* the workload's per-thread state */
	char pad[FL_CACHELINE];			/* nothing else shares the line */
};

/* The state of one repetition, shared by its threads. */
struct fl_rep {
	const struct fl_cell *cell;
	unsigned int nthreads;
	struct fl_thread *threads;
	void *shared;			/* init()'s state (measure/rep.h) */
	uint64_t hard_deadline_ns;	/* no wait may last past this */
	struct timespec hard_deadline;	/* the same, for fl_wait() */
	/* written once by the controller: read-mostly for the threads */
	_Alignas(FL_CACHELINE) atomic_int stop;
	/* set by a thread that saw an invariant break (outside hot loops) */
	_Alignas(FL_CACHELINE) atomic_int failed;
	char fail_reason[256];
	struct fl_rep_mem *mem;		/* allocations freed after the rep */
};

enum fl_merge { FL_MERGE_SUM, FL_MERGE_MAX };

struct fl_counter_desc {
	const char *name;	/* column name in the results' extra field */
	enum fl_merge merge;
};

/* Rows of a counter table: merged over threads by their sum, or by their
 * largest value (a maximum, or a figure every thread holds alike). */
#define FL_COUNTER_SUM(name_) { .name = (name_), .merge = FL_MERGE_SUM }
#define FL_COUNTER_MAX(name_) { .name = (name_), .merge = FL_MERGE_MAX }

/*
 * A plot of a workload's own beside the ones every workload gets (plot/):
 * a bar per series and value of `option`, at the largest thread count,
 * median with min and max as error bars, on two panels; the report shows
 * it with its caption.
 */
enum fl_plot_figure {
	FL_FIG_OPS,		/* ops/s */
	FL_FIG_P50, FL_FIG_P99, FL_FIG_P999,	/* latency percentiles */
	FL_FIG_JAIN,		/* fairness */
	FL_FIG_EXTRA,		/* one of the workload's counters */
};

struct fl_plot_panel {
	enum fl_plot_figure fig;
	const char *extra;		/* FL_FIG_EXTRA: the counter's name */
	const char *title;
	/* NULL: the figure's own; a time's quantity without its unit,
	 * which the plot chooses by the range (ns, us, ms, s) */
	const char *ylabel;
};

struct fl_special_plot {
	const char *option;		/* one bar group per value of it */
	const char *name;		/* the file: plots/<name>.png */
	const char *title;
	const char *ylabel;		/* latency panels' quantity, or NULL */
	struct fl_plot_panel panels[2];
	const char *caption;		/* the report's words for it */
};

/*
 * The figure a cell is judged by (its median, interval, NOISY flag and
 * compare's verdict): its throughput, or, for a round workload whose
 * rate its own schedule sets, the median latency it exists to measure
 * (lower is better).
 */
enum fl_primary { FL_PRIMARY_THROUGHPUT, FL_PRIMARY_LATENCY_P50 };

struct fl_workload {
	const char *name;
	const char *summary;		/* one line for `futexlab list` */
	const char *scenario;		/* the paragraph shown by --help */
	const char *ops_unit;		/* what ops counts, e.g. "acquisitions" */
	/* ops are rounds that one controller thread counts: fairness across
	 * threads (Jain's index, min and max per thread) means nothing */
	int ops_by_one_thread;
	const char *latency;		/* what the histogram holds */
	/* optional: which figure that is, where a cell's options choose
	 * (app: its wall time, or the seconds --metric finds), for the
	 * readers (meta.json's "latency_is") */
	const char *latency_is;
	/* --sample's default: time one operation in this many on average
	 * (1: every one, for rounds whose latency dwarfs a clock read) */
	unsigned int sample_every;
	enum fl_primary primary;
	const struct fl_option *options;
	unsigned int noptions;
	const struct fl_counter_desc *counters;
	unsigned int ncounters;
	/* capabilities a cell needs, given its option values */
	uint32_t (*needs)(const struct fl_cell *cell);
	/* optional: 0 if the cell can run here, else a skip reason */
	int (*check)(const struct fl_cell *cell, char *why, size_t len);
	/* 0, or the one thread count this workload runs (pi's three
	 * roles): the default, and the only --threads value accepted */
	unsigned int fixed_threads;
	/* optional: what a cell's thread count is where it is not the
	 * threads that contend (app's one thread starts a program that
	 * runs its own), for the readers (meta.json's "threads") */
	const char *threads_are;
	/* optional: threads actually started (default cell->threads) */
	unsigned int (*nthreads)(const struct fl_cell *cell);
	/* optional: choose the threads' CPUs itself (numa: a node's CPUs),
	 * after the placement policy filled cell->cpus[0..nthreads); may
	 * rename cell->placement to say so. Called wherever cells are made;
	 * 0, or -1 with err for a usage error (a cell that merely cannot
	 * run here should keep the policy's CPUs and be skipped by check) */
	int (*place)(struct fl_cell *cell, unsigned int nthreads, char *err,
		     size_t len);
	/* allocate and set rep->shared; 0 or -1 with a reason */
	int (*init)(struct fl_rep *rep, char *why, size_t len);
	/* after the threads joined: 0 if every invariant held */
	int (*verify)(struct fl_rep *rep, char *why, size_t len);
	/* optional: a verdict for the cell's note (pi's "inversion"), from
	 * the merged counters of each repetition that completed ok; called
	 * in the parent after the cell, appended to the harness's note */
	void (*note)(const struct fl_cell *cell,
		     const uint64_t (*counters)[FL_NCOUNTERS],
		     unsigned int nreps, char *buf, size_t len);
	/* optional: a plot of its own, drawn by `futexlab plot` and shown
	 * by `futexlab report` when the run has the workload's cells */
	const struct fl_special_plot *plot;
};

/* The threads a repetition of the cell runs: the workload's own count
 * (e.g. waiters plus a waker), else --threads. */
static inline unsigned int fl_cell_nthreads(const struct fl_cell *cell)
{
	return cell->workload->nthreads ? cell->workload->nthreads(cell) :
	       cell->threads;
}

/*
 * A spin backend with more threads than CPUs. A spinner keeps its CPU for
 * whole time slices, so the thread that would end its spin (an owner, a
 * waker) may not run for a long while: on a loaded host a short
 * repetition can pass with nothing done. That is what spinning costs
 * there, not a broken backend, so such an empty repetition is a
 * measurement (zero ops) where elsewhere it is a failure; the cell's note
 * says why.
 */
static inline int fl_cell_spin_oversubscribed(const struct fl_cell *cell)
{
	return cell->backend->spins &&
	       fl_cell_nthreads(cell) > cell->ncpus_online;
}

struct fl_workload_impl {
	const struct fl_workload *workload;
	const struct fl_backend *backend;
	void (*thread)(struct fl_thread *t);
	/* wake threads asleep in the backend once rep->stop is set */
	void (*kick)(struct fl_rep *rep);
};

/*
 * A futex of a workload's shared state is two u32: its value, then the
 * node word a node-word backend (word_bytes 8: futex2-numa, kmod-numa)
 * reads after it to choose the NUMA node whose table hashes the futex.
 * init() sets it through these, outside any measured loop, from the
 * cell's descriptor; a backend without one never reads it.
 */
static inline void fl_node_set(const struct fl_rep *rep, uint32_t *futex,
			       uint32_t node)
{
	if (rep->cell->backend->word_bytes == 8)
		futex[1] = node;
}

/* The node word says "the kernel chooses" (FUTEX_NO_NODE). */
static inline void fl_node_any(const struct fl_rep *rep, uint32_t *futex)
{
	fl_node_set(rep, futex, rep->cell->backend->node_any);
}

/*
 * perf bench futex's -S/--shared, one definition for every workload that
 * takes it: a yes/no option, and the capability a cell then needs. A
 * backend whose keys are shared (futex-shared) is a shared cell without
 * it: its label says shared=yes there.
 */
#define FL_OPT_PERF_SHARED { .name = "shared", .type = FL_OPT_BOOL, \
	.def = "no", .yes_if_shared_keys = 1, \
	.help = "shared keys (perf -S/--shared): needs a shared backend; " \
		"yes on a backend whose keys are shared" }

static inline uint32_t fl_shared_cap(const struct fl_cell *cell,
				     unsigned int opt)
{
	return cell->opt[opt] ? FL_CAP_SHARED : 0;
}

/*
 * Publish the thread's operation count so far. The controller reads it
 * every --bin for throughput over time: a relaxed store to the thread's
 * own line is a plain store, no fence and no locked instruction.
 */
static inline void fl_ops_publish(struct fl_thread *t, uint64_t ops)
{
	__atomic_store_n(&t->ops, ops, __ATOMIC_RELAXED);
}

/* A thread's operations counted in memory, one more. */
static inline void fl_ops_add_one(struct fl_thread *t)
{
	fl_ops_publish(t, t->ops + 1);
}

static inline int fl_should_stop(const struct fl_rep *rep)
{
	return atomic_load_explicit(&rep->stop, memory_order_relaxed);
}

/* For verify(), after the join: one per-thread counter, summed. */
static inline uint64_t fl_rep_sum(const struct fl_rep *rep,
				  unsigned int counter)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < rep->nthreads; i++)
		sum += rep->threads[i].counters[counter];
	return sum;
}

/* For verify(), after the join: every thread's ops, summed. */
static inline uint64_t fl_rep_ops(const struct fl_rep *rep)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < rep->nthreads; i++)
		sum += rep->threads[i].ops;
	return sum;
}

#define FL_WORKLOAD_DESCRIPTOR(wl) \
	const struct fl_workload FL_CAT(fl_workload_, wl)

#define FL_WORKLOAD_IMPL(wl, thread_fn, kick_fn) \
	extern const struct fl_workload FL_CAT(fl_workload_, wl); \
	extern const struct fl_backend FL_CAT(fl_backend_, FL_BACKEND_ID); \
	const struct fl_workload_impl \
		FL_CAT3(fl_impl_, wl, FL_CAT(__, FL_BACKEND_ID)) = { \
		.workload = &FL_CAT(fl_workload_, wl), \
		.backend = &FL_CAT(fl_backend_, FL_BACKEND_ID), \
		.thread = thread_fn, \
		.kick = kick_fn, \
	}

#ifdef FL_BACKEND_ID
/*
 * Futex words in a per-backend build. A word is FL_WORD_BYTES long: 4, or
 * 8 for a node-word backend (futex2-numa, kmod-numa), where a node number
 * follows the value; its header's FL_NODE_ANY there (FUTEX_NO_NODE) lets
 * the kernel choose the waiter's node.
 */
static inline uint32_t *fl_word_at(void *base, size_t i)
{
	return (uint32_t *)((char *)base + i * FL_WORD_BYTES);
}

static inline void fl_words_init(void *base, size_t n, uint32_t val)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t *w = fl_word_at(base, i);

		w[0] = val;
#if FL_WORD_BYTES == 8
		w[1] = FL_NODE_ANY;
#endif
	}
}
#endif

/* The generated registry. */
extern const struct fl_workload *const fl_workloads[];
extern const unsigned int fl_nworkloads;
extern const struct fl_workload_impl *const fl_impls[];
extern const unsigned int fl_nimpls;

const struct fl_workload *fl_workload_find(const char *name);
const struct fl_workload_impl *fl_impl_find(const struct fl_workload *w,
					    const struct fl_backend *b);

#endif
