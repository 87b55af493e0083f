/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmodtest's chained-PI family (kmodtest_pi_chain.c): what its files
 * share: the tasks of a chain (struct link), each a thread that takes
 * one module PI lock and blocks on another (kmodtest_pi_chain_link.c),
 * and the checks of the priorities they run at.
 */
#ifndef FUTEXLAB_KMODTEST_PI_CHAIN_H
#define FUTEXLAB_KMODTEST_PI_CHAIN_H

#include "kmodtest.h"

#define CHAIN_PRIO	40

/* One task of a chain: takes @own, then blocks on @want, then unlocks. */
struct link {
	pthread_t th;
	int fd;
	uint32_t *own;		/* taken first (NULL: none) */
	uint32_t *want;		/* then blocked on (NULL: none) */
	int fifo;		/* SCHED_FIFO priority, 0: SCHED_OTHER */
	uint64_t want_ns;	/* how long LOCK_PI on @want may wait */
	_Atomic pid_t tid;
	_Atomic int stage;	/* 1: owns @own; 2: LOCK_PI @want returned */
	_Atomic int ret;	/* what LOCK_PI on @want returned */
	_Atomic int release;	/* set: unlock what it holds (stage 3) */
	_Atomic int quit;	/* set: return (its TID stays valid till then) */
	_Atomic int err;	/* a setup or unlock error */
	_Atomic int go;		/* with @gated: now block on @want */
	int gated;		/* wait for @go before blocking on @want */
	int set_uid;		/* first switch this thread to @ruid, @euid */
	uid_t ruid, euid;
	int started;
};

/* kmodtest_pi_chain_link.c */
int wait_flag(_Atomic int *flag, int want, uint64_t ns);
int link_start(struct link *l, int fd, uint32_t *own, uint32_t *want,
	       int fifo, uint64_t want_ns);
int link_unlock(struct link *l);
int link_finish(struct link *l);
int expect_attr(pid_t tid, const char *who, uint32_t policy,
		uint32_t prio);
void init_words(uint32_t w[][2], int n);
int start_chain(struct link t[4], int fd, uint32_t w[][2],
		uint64_t t1_want_ns);
void finish_all(struct link t[4]);

#endif /* FUTEXLAB_KMODTEST_PI_CHAIN_H */
