/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a workload keeps in the run being written besides its rows: the
 * output of a program it ran (the app workload), under programs/. The run
 * is the one this process opened (or resumed), which a cell's forked
 * child inherits: the workload names the file, never a path.
 */
#ifndef FUTEXLAB_RUNDIR_KEEP_H
#define FUTEXLAB_RUNDIR_KEEP_H

#include <stddef.h>

#include "base/keeper.h"	/* FL_KEEP_MAX */

/* The run directory descriptor files are kept in (rundir/write.c sets it
 * when a run is opened or resumed, and -1 when it is closed); while one
 * is set, fl_keep() keeps a program's output there (cli/main.c gives
 * fl_keep to measure/program.c: fl_program_keep_with()). */
void fl_keep_into(int run_fd);

/*
 * programs/NAME replaced by data: NAME of [A-Za-z0-9._-], no leading dot.
 * 0, or -1 with why in err ("no run directory open": nothing kept).
 */
int fl_keep(const char *name, const void *data, size_t len, char *err,
	    size_t errlen);

#endif
