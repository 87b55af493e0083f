/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ctrl-C, SIGTERM and SIGHUP for the commands that run cells (run,
 * matrix): they only set fl_interrupted (cell.h), so the cell in progress
 * is cleaned up and the command ends with what it finished (exit 130, and
 * for a matrix the command that resumes it), instead of dying mid-write.
 * SIGPIPE is ignored there: a reader that went away makes a write fail,
 * and the command stops as it does on any failed write, saying so.
 */
#ifndef FUTEXLAB_INTERRUPT_H
#define FUTEXLAB_INTERRUPT_H

/* From now on SIGINT, SIGTERM and SIGHUP set fl_interrupted and nothing
 * else, and SIGPIPE is ignored. */
void fl_catch_interrupts(void);

#endif
