/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Seeing that waiters sleep (sleeping.c): a thread blocked in a futex
 * wait is in state S in /proc/self/task/<tid>/stat. Readiness is seen,
 * not guessed with a sleep.
 */
#ifndef FUTEXLAB_MEASURE_SLEEPING_H
#define FUTEXLAB_MEASURE_SLEEPING_H

#include <stdint.h>
#include <sys/types.h>

#include "spec/workload.h"

/* Wait until every listed thread sleeps (state S in /proc), or the
 * deadline passes: 0, or -ETIMEDOUT. */
int fl_wait_threads_sleeping(struct fl_thread *const *threads, unsigned int n,
			     uint64_t deadline_ns);

/* A thread of this process's scheduler state letter ('S' asleep), or
 * '?' when it cannot be read. */
char fl_thread_state(pid_t tid);

#endif
