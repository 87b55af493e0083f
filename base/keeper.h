/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a program's output goes, between the folder that runs programs
 * (measure/program.c) and the run directory's writer (rundir/keep.c),
 * which sets it while a run is open: a hook in the bottom folder, so
 * neither of the two includes the other.
 */
#ifndef FUTEXLAB_BASE_KEEPER_H
#define FUTEXLAB_BASE_KEEPER_H

#include <stddef.h>

/* How much of one program's output is kept: its first and last halves of
 * this, with a line between saying how much was left out. */
#define FL_KEEP_MAX	65536

/* programs/NAME replaced by data: 0, or -1 with err; NULL while no run
 * is open (base/keeper.c holds it). */
extern int (*fl_program_keeper)(const char *name, const void *data,
				size_t len, char *err, size_t errlen);

#endif
