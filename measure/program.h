/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One run of an unmodified program for the app workload: started in a
 * process group of its own with the pthread interposer on the cell's
 * backend and algorithm, its output read into a bounded buffer and kept
 * in the run directory, waited for until a deadline, past which the
 * whole group is killed. Nothing it started outlives it: what left the
 * group (setsid, a daemon) is an orphan the cell's processes adopt and
 * end, in the cell's child when the program exits and in the cell's
 * parent when that child is killed (Ctrl-C, an overrun).
 */
#ifndef FUTEXLAB_MEASURE_PROGRAM_H
#define FUTEXLAB_MEASURE_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "base/keeper.h"	/* FL_KEEP_MAX */

struct fl_program {
	char **argv;			/* NULL-ended; argv[0] found on PATH */
	const char *backend;		/* FUTEXLAB_BACKEND */
	const char *algo;		/* FUTEXLAB_ALGO; NULL: glibc's own
					 * locks, no interposer */
	const char *metric;		/* "" for wall time */
	uint64_t deadline_ns;		/* fl_now_ns() clock */
	/* out */
	uint64_t output_id;		/* programs/run-ID.txt */
	uint64_t output_bytes;		/* all it wrote, kept or not */
	char why[256];
};

/*
 * How a program's output is kept: programs/NAME replaced by data, 0 or
 * -1 with err (rundir/keep.c's fl_keep(), which cli/main.c gives here
 * once, as measure/ may not call the run directory's writer). Unset,
 * a program's output is said not kept.
 */
void fl_program_keep_with(int (*keep)(const char *name, const void *data,
				      size_t len, char *err, size_t errlen));

/* Make this process a child subreaper: an orphan below it (a daemon of
 * the program's) becomes its child, not init's. */
void fl_program_adopt_orphans(void);

/* Kill and reap every child of this process, and every child that comes
 * to it as they die, until none is left. */
void fl_program_end_children(void);

/* Run p once: 0 with its figure in ns (wall time, or --metric's seconds),
 * or -1 with p->why. */
int fl_program_run(struct fl_program *p, uint64_t *figure_ns);

#endif
