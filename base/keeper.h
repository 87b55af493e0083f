/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How much of a program's output a run keeps: the bound both the folder
 * that runs programs (measure/program.c) and the run directory's writer
 * (rundir/keep.c) hold it to, plain data neither may take from the
 * other.
 */
#ifndef FUTEXLAB_BASE_KEEPER_H
#define FUTEXLAB_BASE_KEEPER_H

/* How much of one program's output is kept: its first and last halves of
 * this, with a line between saying how much was left out. */
#define FL_KEEP_MAX	65536

#endif
