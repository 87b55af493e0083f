// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest's chained-PI family (kmodtest_pi_chain.c): a task of a chain,
 * a thread that takes its lock, blocks on the next and unlocks when
 * told; a chain of them started and finished; the priorities a task runs
 * at read back with sched_getattr().
 */
#include "kmodtest_pi_chain.h"

#include <sys/resource.h>

int wait_flag(_Atomic int *flag, int want, uint64_t ns)
{
	uint64_t end = now_ns() + ns;

	while (*flag < want && now_ns() < end)
		usleep(1000);
	return *flag >= want ? 0 : -1;
}

static void *link_main(void *p)
{
	struct link *l = p;
	struct sched_param sp = { .sched_priority = l->fifo };
	int r;

	l->tid = (pid_t)syscall(SYS_gettid);
	/* the raw syscall changes this thread only (glibc's: all threads) */
	if (l->set_uid &&
	    syscall(SYS_setresuid, l->ruid, l->euid, l->euid))
		l->err = -errno;
	if (!l->err && l->fifo && sched_setscheduler(0, SCHED_FIFO, &sp))
		l->err = -errno;
	if (!l->err && l->own &&
	    (r = k_pi(l->fd, FUTEXLAB_IOC_LOCK_PI, l->own,
		      now_ns() + 10 * SEC)))
		l->err = r;
	l->stage = 1;
	if (l->gated)
		wait_flag(&l->go, 1, 30 * SEC);
	if (l->want && !l->err)
		l->ret = k_pi(l->fd, FUTEXLAB_IOC_LOCK_PI, l->want,
			      now_ns() + l->want_ns);
	l->stage = 2;
	wait_flag(&l->release, 1, 30 * SEC);
	if (l->want && !l->err && !l->ret &&
	    (r = k_pi(l->fd, FUTEXLAB_IOC_UNLOCK_PI, l->want, 0)))
		l->err = r;
	if (l->own && (r = k_pi(l->fd, FUTEXLAB_IOC_UNLOCK_PI, l->own, 0)) &&
	    !l->err)
		l->err = r;
	l->stage = 3;
	wait_flag(&l->quit, 1, 30 * SEC);
	return NULL;
}

/*
 * Start @l and wait until it owns its lock and, if it has one to want,
 * sleeps in LOCK_PI on it.
 */
int link_start(struct link *l, int fd, uint32_t *own, uint32_t *want,
	       int fifo, uint64_t want_ns)
{
	l->fd = fd;
	l->own = own;
	l->want = want;
	l->fifo = fifo;
	l->want_ns = want_ns ? want_ns : 20 * SEC;
	if (pthread_create(&l->th, NULL, link_main, l))
		return fail("pthread_create"), -1;
	l->started = 1;
	if (wait_flag(&l->stage, 1, 10 * SEC) || l->err)
		return fail("link setup: %d (%s)", l->err,
			    strerror(-l->err)), -1;
	if (want && !l->gated && wait_sleeping(l->tid))
		return fail("tid %d never slept in LOCK_PI (stage %d ret %d)",
			    l->tid, l->stage, l->ret), -1;
	return 0;
}

/* Let @l unlock and wait until it did. Non-zero on an unlock error. */
int link_unlock(struct link *l)
{
	l->release = 1;
	if (wait_flag(&l->stage, 3, 20 * SEC))
		return fail("tid %d did not unlock", l->tid), -1;
	return l->err;
}

/* Let @l unlock and return; join it. Non-zero on an unlock error. */
int link_finish(struct link *l)
{
	if (!l->started)
		return 0;
	l->release = 1;
	l->quit = 1;
	pthread_join(l->th, NULL);
	l->started = 0;
	return l->err;
}

/*
 * Wait until @tid runs with @policy/@prio (boosts are applied before the
 * waiter sleeps, but a deboost may follow a hand-over by a moment); fail
 * naming @who otherwise.
 */
int expect_attr(pid_t tid, const char *who, uint32_t policy,
		uint32_t prio)
{
	uint64_t end = now_ns() + 5 * SEC;
	struct sched_attr_k at;

	for (;;) {
		if (get_attr(tid, &at))
			return fail("sched_getattr %s: %s", who,
				    strerror(errno)), -1;
		if (at.sched_policy == policy &&
		    (policy != SCHED_FIFO || at.sched_priority == prio))
			return 0;
		if (now_ns() >= end)
			break;
		usleep(2000);
	}
	return fail("%s: policy %u prio %u, want policy %u prio %u", who,
		    at.sched_policy, at.sched_priority, policy, prio), -1;
}

void init_words(uint32_t w[][2], int n)
{
	int i;

	for (i = 0; i < n; i++) {
		w[i][0] = 0;
		w[i][1] = FUTEXLAB_NO_NODE;
	}
}

/* T3 owns L3, T2 owns L2 and waits on L3, T1 owns L1 and waits on L2. */
int start_chain(struct link t[4], int fd, uint32_t w[][2],
		uint64_t t1_want_ns)
{
	if (link_start(&t[3], fd, w[3], NULL, 0, 0) ||
	    link_start(&t[2], fd, w[2], w[3], 0, 0) ||
	    link_start(&t[1], fd, w[1], w[2], 0, t1_want_ns))
		return -1;
	return 0;
}

void finish_all(struct link t[4])
{
	int i;

	for (i = 3; i >= 0; i--)
		link_finish(&t[i]);
}
