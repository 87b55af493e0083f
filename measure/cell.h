/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running one cell: every cell runs in a forked child process, so a cell
 * starts with a fresh address space (the per-process futex hash choices,
 * PR_FUTEX_HASH and the module's design, are made once per process and
 * cannot be undone), and a stuck cell is ended by killing its child
 * without disturbing the run. Results come back through a shared mapping
 * made before the fork; a repetition counts only once it is marked done.
 */
#ifndef FUTEXLAB_CELL_H
#define FUTEXLAB_CELL_H

#include <stdint.h>
#include <sys/types.h>

#include "measure/idle_wake.h"
#include "spec/workload.h"

enum fl_status {
	FL_STATUS_OK,
	FL_STATUS_FAILED,	/* an invariant broke: exit status 1 */
	FL_STATUS_SKIPPED,	/* cannot run here: the reason says why */
	FL_STATUS_ABORTED,	/* did not finish by its deadline */
};

const char *fl_status_name(enum fl_status s);

/*
 * Extra time a repetition may take beyond its duration before the cell is
 * aborted: threads must notice the stop flag and sleeping waiters must be
 * woken. Generous, because a loaded 2-CPU machine or a TCG guest is slow,
 * and bounded, because nothing may hang.
 */
#define FL_GRACE_NS(duration_ns) (2000000000ull + (duration_ns))
#define FL_SETUP_TIMEOUT_NS 15000000000ull

/*
 * Throughput over time: while the threads run, the controller wakes every
 * cell->bin_ns and sums the counts the threads publish (fl_ops_publish),
 * so the measured loops do nothing for it. A long repetition widens its
 * bins to a multiple of the asked width so that at most FL_MAX_BINS fit.
 */
#define FL_MAX_BINS 2048

struct fl_bins {
	uint64_t bin_ns;		/* the width actually used */
	unsigned int n;
	uint64_t end_ns[FL_MAX_BINS];	/* when the controller read bin i,
					 * from the start barrier (the last
					 * bin ends at the join) */
	uint64_t ops[FL_MAX_BINS];	/* operations completed in bin i */
};

/* The busy loop's speed (loops/us) in the cell's process, measured
 * before the first repetition (and used by it) and after the last; a
 * cell whose speed moved by more than this share is flagged, because
 * its --critical and --think lengths were not what they said. */
#define FL_BUSY_DRIFT_MAX 0.10

/* The speed's relative change from start to end (both positive). */
static inline double fl_busy_drift(double start, double end)
{
	return (end - start) / start;
}

/* It moved by more than FL_BUSY_DRIFT_MAX, either way. */
static inline int fl_busy_drifted(double start, double end)
{
	double d = fl_busy_drift(start, end);

	return d > FL_BUSY_DRIFT_MAX || d < -FL_BUSY_DRIFT_MAX;
}

struct fl_rep_result {
	int done;			/* written last by the child */
	enum fl_status status;
	char reason[256];
	uint64_t elapsed_ns;		/* from the start barrier to stop */
	uint64_t ops;
	unsigned int nthreads;
	long hash_slots;		/* the process's private futex hash
					 * after its threads started (6.16+
					 * sizes it by itself), -1 unknown */
	uint64_t thread_ops[FL_MAX_THREADS];
	uint64_t counters[FL_NCOUNTERS];
	struct fl_hist hist;		/* merged over the threads */
	struct fl_bins bins;		/* ops over time */
};

struct fl_cell_result {
	enum fl_status status;		/* worst of the repetitions */
	char reason[256];
	char note[256];			/* warnings, e.g. spin oversubscribed */
	unsigned int nreps;		/* results below (== cell->reps) */
	struct fl_rep_result *reps;	/* owned, free with fl_cell_result_free */
	struct fl_hist merged;		/* over all completed repetitions */
	uint64_t busy_start, busy_end;	/* loops/us before and after the
					 * repetitions; 0 if not measured */
	uint64_t busy_used;		/* loops/us the busy loop was sized
					 * by (fl_calibrate_busy) */
	struct fl_idle_wake idle_wake;	/* before the repetitions */
};

/* Run a cell (all its repetitions); never fails: the status says how. */
void fl_cell_run(const struct fl_cell *cell, struct fl_cell_result *res);
void fl_cell_result_free(struct fl_cell_result *res);

/* The child's side (cell_child.c): set up, run, report; never returns. */
struct fl_cell_shared;
void fl_cell_child(const struct fl_cell *cell,
		   const struct fl_workload_impl *impl,
		   struct fl_cell_shared *sh, pid_t parent)
	__attribute__((noreturn));

/* What the child and the parent share. */
struct fl_cell_shared {
	volatile int setup_done;	/* 1 ok, -1 failed: setup_reason */
	char setup_reason[256];
	volatile int rep;		/* repetition in progress, -1 warm-up */
	volatile uint64_t rep_deadline_ns;	/* parent aborts after this */
	uint64_t busy_start, busy_end;	/* see fl_cell_result */
	uint64_t busy_used;		/* see fl_cell_result */
	struct fl_idle_wake idle_wake;	/* see fl_cell_result */
	struct fl_rep_result reps[];	/* cell->reps of them */
};

/* Set by SIGINT/SIGTERM in the parent: finish no more cells. */
extern volatile int fl_interrupted;

/*
 * A descriptor of the process that runs cells which a cell's child must
 * not keep, -1 for none: the run directory a matrix holds its lock on.
 * An flock belongs to the open file, which fork() shares, so a child
 * keeping it would hold the lock after its parent was killed, until the
 * child too had died of its PR_SET_PDEATHSIG: a resume at once would be
 * refused. The child closes it first (cell_child.c).
 */
extern int fl_cell_parent_only_fd;

#endif
