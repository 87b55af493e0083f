/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the interruptible-wait tests share (kmodtest_intr.c: each sleeping
 * operation with and without FUTEXLAB_F_INTERRUPTIBLE, beside the stock
 * futex; kmodtest_intr_hostile.c: the flag where it is refused, signal
 * storms, a signal racing a wake): one thread blocked in one operation,
 * and the two signal dispositions a wait can meet.
 *
 * Every word is a plain u32 (FUTEXLAB_F_NODE with FUTEXLAB_NO_NODE), so
 * the three designs run the same code.
 */
#ifndef FUTEXLAB_KMODTEST_INTR_H
#define FUTEXLAB_KMODTEST_INTR_H

#include "kmodtest.h"

#define SIG_NORESTART	SIGUSR1	/* a handler without SA_RESTART */
#define SIG_RESTART	SIGUSR2	/* a handler with SA_RESTART */

enum intr_op {
	I_WAIT,			/* FUTEXLAB_IOC_WAIT on w, val */
	I_LOCK_PI,		/* FUTEXLAB_IOC_LOCK_PI on w, then unlock */
	I_WAIT_REQUEUE_PI,	/* WAIT_REQUEUE_PI w -> w2, then unlock w2 */
	I_ADAPTIVE,		/* LOCK_ADAPTIVE on w, then release it */
	I_WAITV,		/* WAITV on the INTR_WAITV words at w, val */
	I_STOCK_WAIT,		/* futex(2) FUTEX_WAIT_PRIVATE, untimed */
	I_STOCK_LOCK_PI,	/* futex(2) FUTEX_LOCK_PI_PRIVATE, then unlock */
};

#define INTR_WAITV	4	/* entries of an I_WAITV vector */

/* One thread blocked in one operation; the test fills the first part. */
struct intr_thread {
	enum intr_op op;
	int fd;
	uint32_t *w, *w2;
	uint32_t val;
	uint32_t flags;		/* FUTEXLAB_F_INTERRUPTIBLE, or 0 */
	uint64_t deadline;	/* absolute CLOCK_MONOTONIC ns, 0: none */
	int prio;		/* SCHED_FIFO priority of the thread, 0: none */
	/* the thread's side */
	pthread_t th;
	_Atomic pid_t tid;
	_Atomic int ret;	/* what the operation returned (-errno) */
	_Atomic int unlock_ret;	/* releasing what it took: 0 or -errno */
	_Atomic uint64_t returned_ns;	/* now_ns() as the operation returned */
	_Atomic int done;
};

/* Install the handlers of SIG_NORESTART and SIG_RESTART. */
void intr_handlers(void);
/* Handler runs so far (both signals). */
int intr_handled(void);
/* One operation with FUTEXLAB_F_NODE added: -errno, or its result. */
int intr_call(int fd, enum intr_op op, uint32_t *w, uint32_t *w2,
	      uint32_t val, uint32_t flags, uint64_t deadline);
/* Start @t and wait until it sleeps: 0, or fail() and -1. */
int intr_start(struct intr_thread *t);
/* Start @t without waiting for it to sleep (it may return at once). */
int intr_start_nowait(struct intr_thread *t);
/* Join @t within 5 s: 0 with t->ret valid, or fail() and -1. */
int intr_join(struct intr_thread *t);
/* Send @sig to @t and wait until a handler ran: 0, or fail() and -1. */
int intr_signal(struct intr_thread *t, int sig);
/* @t is asleep in its operation again (restarted): 0, or fail() and -1. */
int intr_still_waiting(struct intr_thread *t, const char *what);
/* Expect @t to return @want within 5 s: 0, or fail() and -1. */
int intr_expect(struct intr_thread *t, int want, const char *what);
/* Start @t, signal it with @sig once asleep, expect @want: 0, or -1. */
int intr_signalled(struct intr_thread *t, int sig, int want,
		   const char *what);
/* Start @t, signal it with @sig: it must go on waiting. 0, or -1. */
int intr_restarted(struct intr_thread *t, int sig, const char *what);

/* The module's wake, cmp_requeue_pi and unlock_pi on plain words. */
int intr_wake(int fd, uint32_t *w, int nr);
int intr_requeue_pi(int fd, uint32_t *w, uint32_t *w2, int nr_requeue,
		    uint32_t val);
int intr_pi(int fd, unsigned long cmd, uint32_t *w, uint32_t flags);

/* kmodtest_intr.c: run once per design (intr_stock once) */
int t_intr_wait(uint32_t design);
int t_intr_lock_pi(uint32_t design);
int t_intr_requeue_pi(uint32_t design);
int t_intr_adaptive(uint32_t design);
int t_intr_waitv(uint32_t design);
int t_intr_stock(void);
/* kmodtest_intr_hostile.c: run once per design */
int t_intr_refused(uint32_t design);
int t_intr_storm(uint32_t design);
int t_intr_wake_race(uint32_t design);

#endif /* FUTEXLAB_KMODTEST_INTR_H */
