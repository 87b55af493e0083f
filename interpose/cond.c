// SPDX-License-Identifier: GPL-2.0
/*
 * pthread_cond_*: a sequence word that waiters sleep on (struct ip_cond).
 *
 *   waiter                               signaller
 *   waiters++            (seq_cst)       seq++              (seq_cst)
 *   v = seq              (seq_cst)       if (waiters) wake(&seq, 1)
 *   unlock the mutex
 *   wait(&seq, v)
 *
 * Either the signaller sees the waiter counted and wakes, or the waiter
 * reads the new seq and its wait returns at once: no wakeup is lost. A
 * waiter may wake with no signal of its own (another's wake, a signal
 * handler), which POSIX allows. A broadcast wakes every sleeper; they then
 * meet on the mutex (no requeue: the algorithm's word has no waiter
 * count that a requeue could keep right for every algorithm).
 *
 * The wait is a cancellation point, as glibc's is: cancellation is made
 * asynchronous around the sleep alone, as glibc does around its own
 * cancellable system calls, and the cleanup handler takes the mutex back
 * before the thread's handlers run.
 *
 * A process-shared condition variable is glibc's own (set up by its
 * pthread_cond_init, said once, glibc's flag in the object). One of ours
 * may be used with a mutex routed to glibc (a robust one): it is unlocked
 * and taken back through glibc's functions.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <string.h>

#include "interpose/interpose.h"

_Static_assert(sizeof(struct ip_cond) <= offsetof(pthread_cond_t,
						   __data.__wrefs),
	       "struct ip_cond keeps clear of the flags word");

static inline struct ip_cond *as_ip(pthread_cond_t *c)
{
	return (struct ip_cond *)c;
}

static inline int is_glibc(pthread_cond_t *c)
{
	return __atomic_load_n(ip_cond_flags(c), __ATOMIC_RELAXED) &
	       IP_COND_GLIBC;
}

IP_EXPORT
int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr)
{
	int pshared = PTHREAD_PROCESS_PRIVATE;
	clockid_t clock = CLOCK_REALTIME;

	if (attr) {
		pthread_condattr_getpshared(attr, &pshared);
		pthread_condattr_getclock(attr, &clock);
	}
	if (pshared == PTHREAD_PROCESS_SHARED) {
		ip_routed(IP_ROUTE_COND_SHARED,
			  "a process-shared condition variable");
		return ip_real()->cond_init(c, attr);
	}
	memset(c, 0, sizeof(*c));
	if (clock == CLOCK_MONOTONIC)
		*ip_cond_flags(c) = IP_COND_MONOTONIC;
	return 0;
}

IP_EXPORT
int pthread_cond_destroy(pthread_cond_t *c)
{
	struct ip_cond *ic = as_ip(c);

	if (is_glibc(c))
		return ip_real()->cond_destroy(c);
	/* woken waiters still count themselves out: the memory is theirs
	 * until they have, as glibc's destroy also waits for them */
	while (__atomic_load_n(&ic->waiters, __ATOMIC_ACQUIRE))
		sched_yield();
	return 0;
}

struct waiting {
	struct ip_cond *ic;
	pthread_mutex_t *m;
};

static void leave(struct ip_cond *ic, pthread_mutex_t *m)
{
	__atomic_fetch_sub(&ic->waiters, 1, __ATOMIC_RELEASE);
	ip_mutex_relock(m);
}

/* cancelled in its sleep: the mutex is taken back, as glibc does */
static void cancelled(void *arg)
{
	struct waiting *w = arg;

	leave(w->ic, w->m);
}

/* The wait, with an optional MONOTONIC deadline: 0 or an errno. */
static int wait_on(pthread_cond_t *c, pthread_mutex_t *m,
		   const struct timespec *deadline, const char *call)
{
	const struct ip_backend *b = ip_backend_or_die(call);
	struct waiting w = { .ic = as_ip(c), .m = m };
	uint32_t seq;
	int r, oldtype;

	__atomic_fetch_add(&w.ic->waiters, 1, __ATOMIC_SEQ_CST);
	seq = __atomic_load_n(&w.ic->seq, __ATOMIC_SEQ_CST);
	r = ip_mutex_unlock(m);
	if (r) {
		__atomic_fetch_sub(&w.ic->waiters, 1, __ATOMIC_RELEASE);
		return r;
	}
	pthread_cleanup_push(cancelled, &w);
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &oldtype);
	r = b->wait(&w.ic->seq, seq, deadline);
	pthread_setcanceltype(oldtype, NULL);
	pthread_cleanup_pop(0);
	leave(w.ic, m);
	/* EAGAIN (seq moved), EINTR and a wake all return as a wakeup */
	return r == -ETIMEDOUT ? ETIMEDOUT : 0;
}

/* Which function carries a wait out: 0 ours, 1 glibc's, or -1 (said):
 * glibc's condition variable cannot wait with our mutex. */
static int whose(pthread_cond_t *c, pthread_mutex_t *m)
{
	if (!is_glibc(c))
		return 0;
	if (ip_mutex_is_glibc(m))
		return 1;
	ip_routed(IP_ROUTE_MIXED, "a process-shared condition variable with "
		  "a process-private mutex (EINVAL)");
	return -1;
}

IP_EXPORT
int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	int who = whose(c, m);

	if (who)
		return who > 0 ? ip_real()->cond_wait(c, m) : EINVAL;
	return wait_on(c, m, NULL, "pthread_cond_wait");
}

static int timed(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock,
		 const struct timespec *abs, const char *call)
{
	struct timespec mono;

	if (ip_deadline(clock, abs, &mono))
		return EINVAL;
	return wait_on(c, m, &mono, call);
}

IP_EXPORT
int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
			   const struct timespec *abs)
{
	int who = whose(c, m);
	clockid_t clock;

	if (who)
		return who > 0 ? ip_real()->cond_timedwait(c, m, abs) : EINVAL;
	clock = *ip_cond_flags(c) & IP_COND_MONOTONIC ? CLOCK_MONOTONIC :
							 CLOCK_REALTIME;
	return timed(c, m, clock, abs, "pthread_cond_timedwait");
}

IP_EXPORT
int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m,
			   clockid_t clock, const struct timespec *abs)
{
	int who = whose(c, m);

	if (who)
		return who > 0 ? ip_real()->cond_clockwait(c, m, clock, abs) :
				 EINVAL;
	return timed(c, m, clock, abs, "pthread_cond_clockwait");
}

static int wake(pthread_cond_t *c, int nr, const char *call)
{
	struct ip_cond *ic = as_ip(c);
	const struct ip_backend *b = ip_backend_or_die(call);

	__atomic_fetch_add(&ic->seq, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&ic->waiters, __ATOMIC_SEQ_CST))
		b->wake(&ic->seq, nr);
	return 0;
}

IP_EXPORT
int pthread_cond_signal(pthread_cond_t *c)
{
	if (is_glibc(c))
		return ip_real()->cond_signal(c);
	return wake(c, 1, "pthread_cond_signal");
}

IP_EXPORT
int pthread_cond_broadcast(pthread_cond_t *c)
{
	if (is_glibc(c))
		return ip_real()->cond_broadcast(c);
	return wake(c, INT_MAX, "pthread_cond_broadcast");
}
