/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two files of kmodtest's safety family (kmodtest_safety.c and
 * kmodtest_safety_pi.c) share: word pairs on a shared page, the stock
 * futex for comparison, and a bounded reap of a child.
 */
#ifndef FUTEXLAB_KMODTEST_SAFETY_H
#define FUTEXLAB_KMODTEST_SAFETY_H

#include "kmodtest.h"

/* a word pair's node half: ~0 lets the module choose */
#define NO_NODE		0xffffffffu

/* A shared anonymous page of word pairs, every node word ~0. */
uint32_t *shared_words(void);
pid_t self_tid(void);
/* The stock futex, -errno on failure. */
long sfutex(uint32_t *w, int op, uint32_t val, const struct timespec *ts,
	    uint32_t *w2, uint32_t val3);
/* An absolute CLOCK_REALTIME time @ns from now (LOCK_PI's clock). */
struct timespec realtime_in(uint64_t ns);
/*
 * Wait for child @kid, whose operation ends by @deadline (ns,
 * CLOCK_MONOTONIC) at the latest; -1 (and a failure) when it outlives
 * that by 5 s, SIGKILLed or not.
 */
int reap_bounded(pid_t kid, uint64_t deadline, const char *what);

#endif
