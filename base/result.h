/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a cell's repetitions produce, as plain data: the harness fills
 * it (measure/), the run directory stores and reads it back (rundir/),
 * the statistics and the readers take their figures from it. Nothing
 * here runs anything, so every folder may include it.
 */
#ifndef FUTEXLAB_BASE_RESULT_H
#define FUTEXLAB_BASE_RESULT_H

#include <stdint.h>

#include "base/hist.h"

#define FL_NCOUNTERS	12	/* workload-defined per-thread counters (pi --chain: 11) */
/* A cell's threads at most. Nothing is sized by it per cell or per
 * repetition: a repetition's memory follows the threads it has. */
#define FL_MAX_THREADS	4096

enum fl_status {
	FL_STATUS_OK,
	FL_STATUS_FAILED,	/* an invariant broke: exit status 1 */
	FL_STATUS_SKIPPED,	/* cannot run here: the reason says why */
	FL_STATUS_ABORTED,	/* did not finish by its deadline */
};

const char *fl_status_name(enum fl_status s);

/* What waking an idle CPU cost before a cell's repetitions
 * (measure/idle_wake.h measures it; compare sets figures against it). */
struct fl_idle_wake {
	uint64_t short_ns, long_ns;	/* median wake latency; 0 unknown */
	int not_probed;			/* 1: the probe was not made (a
					 * campaign's visit after the cell's
					 * first): the columns are empty */
};

/* Above this share of the CPU time taken by other processes, report and
 * compare call the machine busy (measure/host_load.h measures it). */
#define FL_BUSY_WARN 0.10

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

/*
 * How far the speed moved, either way; 0 where a speed is not known
 * (0, or NaN from a reader). A cell's note is the note of its repetition
 * whose speed moved most, if that one drifted, else its last note that
 * says anything (rundir/read_cells.c, from cells.csv's rows); what run
 * prints after the visits says that repetition's drift (sweep/job_run.c)
 * beside the workload's verdict over them all (pi's rounds).
 */
static inline double fl_busy_moved(double start, double end)
{
	double d;

	if (!(start > 0) || !(end > 0))
		return 0;
	d = fl_busy_drift(start, end);
	return d < 0 ? -d : d;
}

/*
 * The threads' operation counts, summed up as fairness needs them
 * (stats/stats.h: fl_thread_ops_add): every thread is added, one that
 * did nothing too, so a repetition's result has the same size at one
 * thread as at FL_MAX_THREADS.
 */
struct fl_thread_ops {
	unsigned int n;			/* threads added */
	uint64_t min, max;		/* 0 and 0 with none */
	double sum, sumsq;		/* for Jain's index */
};

/*
 * What the kernel counted for a repetition's measured threads, from the
 * start gate's opening to the join (measure/counters.h), summed over
 * them. A bit of have is set only when every thread counted that
 * figure: a sum over some of the threads is never given as the whole.
 */
enum fl_count_have {	/* bits of struct fl_rep_counts.have */
	FL_HAVE_CPU = 1 << 0, FL_HAVE_RUN_DELAY = 1 << 1, FL_HAVE_CTX = 1 << 2,
	FL_HAVE_MIGRATIONS = 1 << 3, FL_HAVE_FAULTS = 1 << 4,
	FL_HAVE_CYCLES = 1 << 5, FL_HAVE_INSTRUCTIONS = 1 << 6,
	FL_HAVE_REF_CYCLES = 1 << 7, FL_HAVE_STEAL = 1 << 8,
	FL_HAVE_CONTAMINATION = 1 << 9,
};

/* A repetition is contaminated (measure/counters.h: fl_counters_judge)
 * when its threads were denied this share of their runnable time more
 * than their own oversubscription explains, or when steal took more
 * than FL_STEAL_MAX of the machine's CPU time (docs/measurement.md). */
#define FL_DENIED_MARGIN 0.10
#define FL_STEAL_MAX 0.01

struct fl_rep_counts {
	unsigned int have;
	uint64_t cpu_ns, cpu_ns_min, cpu_ns_max;	/* CPU time (ns) */
	uint64_t run_delay_ns, run_delay_ns_max;	/* on a run queue */
	uint64_t ctx_switches, migrations, faults;
	uint64_t cycles, instructions, ref_cycles;
	uint64_t steal_ns;		/* the machine's, over all CPUs */
	int contaminated;		/* 1: denied more CPU than the
					 * threads' own oversubscription
					 * explains (docs/measurement.md) */
};

struct fl_rep_result {
	int done;			/* written last by the child */
	enum fl_status status;
	char reason[256];
	uint64_t elapsed_ns;		/* from the start gate to stop */
	/* the harness's own time: creating the threads until the gate
	 * opened, and merging their counts and histograms after */
	uint64_t start_ns, merge_ns;
	uint64_t ops;
	unsigned int nthreads;
	long hash_slots;		/* the process's private futex hash
					 * after its threads started (6.16+
					 * sizes it by itself), -1 unknown */
	struct fl_thread_ops thread_ops;	/* every thread's, for fairness */
	uint64_t counters[FL_NCOUNTERS];
	struct fl_hist hist;		/* merged over the threads */
	struct fl_bins bins;		/* ops over time */
	struct fl_rep_counts counts;	/* what the kernel counted */
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
	long cell_maxrss_kb;		/* the cell's process's peak resident
					 * set (KiB; its threads, their
					 * histograms and stacks), 0 unknown */
};

#endif
