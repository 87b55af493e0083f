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

#include "base/result.h"
#include "spec/workload.h"

/*
 * Extra time a repetition may take beyond its duration before the cell is
 * aborted: threads must be created and reach the start, notice the stop
 * flag, and sleeping waiters must be woken. Generous, because a loaded
 * 2-CPU machine or a TCG guest is slow, and bounded, because nothing may
 * hang. A millisecond a thread: starting 4096 threads took 1.9 s on the
 * loaded 2-CPU development machine (docs/measurement.md), and a start
 * that ate the fixed part would leave none for the join.
 */
#define FL_GRACE_PER_THREAD_NS 1000000ull
#define FL_GRACE_NS(duration_ns, nthreads) \
	(2000000000ull + (duration_ns) + \
	 (uint64_t)(nthreads) * FL_GRACE_PER_THREAD_NS)
#define FL_SETUP_TIMEOUT_NS 15000000000ull

/* Run a cell (all its repetitions); never fails: the status says how
 * (FL_STATUS_FAILED, no repetitions, when there is no memory for them). */
void fl_cell_run(const struct fl_cell *cell, struct fl_cell_result *res);
/* The cell's note from what res holds: oversubscribed, the busy loop's
 * drift from busy_start to busy_end, and the workload's verdict over
 * every completed repetition. fl_cell_run() writes it for its own
 * repetitions; a run that gathers a cell's visits writes it again over
 * all of them, so that no verdict is one visit's. */
void fl_cell_note(const struct fl_cell *cell, struct fl_cell_result *res);
void fl_cell_result_free(struct fl_cell_result *res);

/* The note of a cell whose busy loop's speed moved by more than
 * FL_BUSY_DRIFT_MAX from start to end ("" when it held, or was not
 * measured): what it says of the lengths asked names only the workload's
 * own options among --critical and --think. */
void fl_busy_drift_note(const struct fl_workload *w, uint64_t start,
			uint64_t end, char *buf, size_t len);

/* The child's exit status when a repetition could not start (a thread
 * not created, or not at the start by the deadline): setup_reason and
 * the repetition's reason say why. */
#define FL_CHILD_GAVE_UP 3

/* The child's side (cell_child.c): set up, run, report; never returns. */
struct fl_cell_shared;
void fl_cell_child(const struct fl_cell *cell,
		   const struct fl_workload_impl *impl,
		   struct fl_cell_shared *sh, pid_t parent)
	__attribute__((noreturn));

/* A repetition's threads, joined, merged into its result (rep_merge.c). */
void fl_rep_merge(struct fl_rep_result *out, const struct fl_rep *rep);

/* What the child and the parent share. */
struct fl_cell_shared {
	volatile int setup_done;	/* 1 ok, -1 failed: setup_reason */
	char setup_reason[256];		/* also FL_CHILD_GAVE_UP's reason */
	volatile int rep;		/* repetition in progress, -1 warm-up */
	volatile uint64_t rep_deadline_ns;	/* parent aborts after this */
	/* the repetition's stop: when it is due (0 before the start), and
	 * set once the controller has set it; and the controller's raise
	 * to SCHED_FIFO (cell_child.c): 0 done, an errno, or -1 not tried.
	 * The parent names a stop still unset when it ends a repetition. */
	volatile uint64_t stop_due_ns;
	volatile int stop_set;
	volatile int controller_fifo;
	uint64_t busy_start, busy_end;	/* see fl_cell_result */
	uint64_t busy_used;		/* see fl_cell_result */
	struct fl_idle_wake idle_wake;	/* see fl_cell_result */
	struct fl_rep_result reps[];	/* cell->reps of them */
};

/* Set by SIGINT/SIGTERM in the parent: finish no more cells. */
extern volatile int fl_interrupted;

/* Where fl_cell_run() says a failed or aborted cell as it happens, a
 * line each (base/say.h); set by the command (cli/main.c), NULL:
 * nowhere. The cell's status and reason say it too. */
struct fl_say;
extern const struct fl_say *fl_cell_say;

/*
 * A descriptor of the process that runs cells which a cell's child must
 * not keep, -1 for none: the run directory a matrix holds its lock on.
 * An flock belongs to the open file, which fork() shares, so a child
 * keeping it would hold the lock after its parent was killed, until the
 * child too had died of its PR_SET_PDEATHSIG: a resume at once would be
 * refused. The child first puts a fresh open of the same directory,
 * which holds no lock, in its place (cell_child.c): a program's output
 * is still written there (rundir/keep.c).
 */
extern int fl_cell_parent_only_fd;

#endif
