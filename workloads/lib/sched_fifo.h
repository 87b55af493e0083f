/* SPDX-License-Identifier: GPL-2.0 */
/*
 * check() for workloads whose threads run SCHED_FIFO (pi, condvar with
 * --rt-waiters): may a thread of this process take the policy at a given
 * priority? Without CAP_SYS_NICE (or an RLIMIT_RTPRIO that covers it)
 * it may not, and the cell is skipped with the reason. Descriptor builds.
 */
#ifndef FUTEXLAB_WORKLOADS_LIB_SCHED_FIFO_H
#define FUTEXLAB_WORKLOADS_LIB_SCHED_FIFO_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

/* In: the priority; out: 0 or pthread_setschedparam()'s error. */
static inline void *fl_fifo_probe(void *arg)
{
	struct sched_param sp = { .sched_priority = *(int *)arg };

	*(int *)arg = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	return NULL;
}

/* 0 if SCHED_FIFO at prio is allowed, else -1 with the reason. Asked in
 * a short-lived thread, so the caller's own policy never changes. */
static inline int fl_fifo_check(int prio, char *why, size_t len)
{
	int res = prio;
	pthread_t th;

	if (pthread_create(&th, NULL, fl_fifo_probe, &res) == 0)
		pthread_join(th, NULL);
	else
		res = EAGAIN;
	if (res) {
		snprintf(why, len, "needs CAP_SYS_NICE (run as root): "
			 "SCHED_FIFO priority %d: %s", prio, strerror(res));
		return -1;
	}
	return 0;
}

#endif
