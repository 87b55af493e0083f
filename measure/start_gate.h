/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The start of a repetition: its threads gather at one gate and leave it
 * together when the controller opens it. Unlike a pthread barrier, every
 * wait here ends by a deadline, so a thread that was never created, or
 * one that never arrives, costs a message, not a hang.
 */
#ifndef FUTEXLAB_START_GATE_H
#define FUTEXLAB_START_GATE_H

#include <stdint.h>

#include "spec/workload.h"

struct fl_start_gate {
	/* threads that arrived; the last one to arrive wakes the
	 * controller, which waits on this word */
	_Alignas(FL_CACHELINE) uint32_t arrived;
	/* 0 until the controller opens the gate; the threads wait on it */
	_Alignas(FL_CACHELINE) uint32_t open;
	unsigned int n;			/* threads expected */
	uint64_t deadline_ns;		/* CLOCK_MONOTONIC: no wait past it */
};

void fl_start_gate_init(struct fl_start_gate *g, unsigned int n,
			uint64_t deadline_ns);
/* A thread's side: arrive, then wait for the opening. 0 once open, -1
 * when the deadline passed first (the thread must not run). */
int fl_start_gate_pass(struct fl_start_gate *g);
/* The controller's: wait for every thread. The count that arrived: n,
 * or fewer when the deadline passed first. */
unsigned int fl_start_gate_gather(struct fl_start_gate *g);
/* Release every thread at once. The start: the clock read just before
 * the release, so that no thread's work precedes it, however long the
 * release keeps the caller from reading the clock again. */
uint64_t fl_start_gate_open(struct fl_start_gate *g);

#endif
