/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ctrl-C and SIGTERM for the commands that run cells (run, matrix): they
 * only set fl_interrupted (cell.h), so the cell in progress is cleaned up
 * and the command ends with what it finished, instead of dying mid-write.
 */
#ifndef FUTEXLAB_INTERRUPT_H
#define FUTEXLAB_INTERRUPT_H

/* From now on SIGINT and SIGTERM set fl_interrupted and nothing else. */
void fl_catch_interrupts(void);

#endif
