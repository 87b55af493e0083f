// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest's PI family, once per hash design: lock_pi / trylock_pi /
 * unlock_pi errors, priority boost and hand-over, the lock word on a
 * copy-on-write page, and requeue-PI beyond the conformance suite.
 */
#include "kmodtest.h"

struct pi_arg {
	int fd;
	uint32_t *w;
	_Atomic int stage;
	_Atomic pid_t tid;
	_Atomic int ret;
};

static void *pi_owner(void *p)
{
	struct pi_arg *a = p;

	a->tid = (pid_t)syscall(SYS_gettid);
	a->ret = k_pi(a->fd, FUTEXLAB_IOC_LOCK_PI, a->w, 0);
	a->stage = 1;
	while (a->stage != 2)
		usleep(1000);
	a->ret = k_pi(a->fd, FUTEXLAB_IOC_UNLOCK_PI, a->w, 0);
	a->stage = 3;
	return NULL;
}

static void *pi_waiter(void *p)
{
	struct pi_arg *a = p;
	struct sched_param sp = { .sched_priority = 50 };

	a->tid = (pid_t)syscall(SYS_gettid);
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		a->ret = -errno;
		a->stage = 9;
		return NULL;
	}
	a->stage = 1;
	a->ret = k_pi(a->fd, FUTEXLAB_IOC_LOCK_PI, a->w,
		      now_ns() + 20000000000ull);
	a->stage = 2;
	while (a->stage != 3)
		usleep(1000);
	a->ret = k_pi(a->fd, FUTEXLAB_IOC_UNLOCK_PI, a->w, 0);
	a->stage = 4;
	return NULL;
}

static int wait_stage(_Atomic int *stage, int want)
{
	uint64_t end = now_ns() + 10000000000ull;

	while (*stage < want && now_ns() < end)
		usleep(1000);
	return *stage >= want ? 0 : -1;
}

/*
 * Long on purpose: one PI scenario in stages (owner, RT waiter, boost
 * seen with sched_getattr, unlock, deboost), each stage asserting the
 * state the last one left.
 */
int t_pi(uint32_t design)
{
	static uint32_t w[2];
	struct pi_arg o = { 0 }, wt = { 0 };
	struct sched_attr_k at;
	pthread_t to, tw;
	uint64_t end;
	int fd = open_design(design, 0), ret = -1, r;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	w[1] = FUTEXLAB_NO_NODE;
	w[0] = 0;
	/* errors first: EDEADLK, EPERM, EAGAIN */
	if ((r = k_pi(fd, FUTEXLAB_IOC_TRYLOCK_PI, w, 0)) != 0 ||
	    w[0] != (uint32_t)syscall(SYS_gettid)) {
		fail("trylock of a free lock: %d, word %#x", r, w[0]);
		goto out_fd;
	}
	if ((r = k_pi(fd, FUTEXLAB_IOC_LOCK_PI, w, 0)) != -EDEADLK) {
		fail("self-deadlock returned %d", r);
		goto out_fd;
	}
	if ((r = k_pi(fd, FUTEXLAB_IOC_UNLOCK_PI, w, 0)) != 0 || w[0] != 0) {
		fail("uncontended unlock: %d, word %#x", r, w[0]);
		goto out_fd;
	}
	if ((r = k_pi(fd, FUTEXLAB_IOC_UNLOCK_PI, w, 0)) != -EPERM) {
		fail("unlock of a free lock returned %d", r);
		goto out_fd;
	}

	o.fd = wt.fd = fd;
	o.w = wt.w = w;
	pthread_create(&to, NULL, pi_owner, &o);
	if (wait_stage(&o.stage, 1) || o.ret) {
		fail("owner lock_pi: %d", o.ret);
		goto out_join_o;
	}
	if ((r = k_pi(fd, FUTEXLAB_IOC_UNLOCK_PI, w, 0)) != -EPERM) {
		fail("unlock by a non-owner returned %d", r);
		goto out_join_o;
	}
	if ((r = k_pi(fd, FUTEXLAB_IOC_TRYLOCK_PI, w, 0)) != -EAGAIN) {
		fail("trylock of a held lock returned %d", r);
		goto out_join_o;
	}
	pthread_create(&tw, NULL, pi_waiter, &wt);
	if (wait_stage(&wt.stage, 1) || wt.stage == 9) {
		fail("waiter could not become SCHED_FIFO: %d", wt.ret);
		goto out_join;
	}
	/* the owner must become SCHED_FIFO 50 */
	end = now_ns() + 10000000000ull;
	do {
		usleep(2000);
		get_attr(o.tid, &at);
	} while (!(at.sched_policy == SCHED_FIFO && at.sched_priority == 50) &&
		 now_ns() < end);
	if (at.sched_policy != SCHED_FIFO || at.sched_priority != 50) {
		fail("owner not boosted: policy %u prio %u", at.sched_policy,
		     at.sched_priority);
		goto out_join;
	}
	if (!(w[0] & FUTEXLAB_WAITERS)) {
		fail("WAITERS bit not set under contention: %#x", w[0]);
		goto out_join;
	}
	o.stage = 2;		/* owner unlocks: hand-over to the waiter */
	if (wait_stage(&o.stage, 3) || o.ret) {
		fail("owner unlock_pi: %d", o.ret);
		goto out_join;
	}
	if (wait_stage(&wt.stage, 2) || wt.ret) {
		fail("waiter lock_pi: %d", wt.ret);
		goto out_join;
	}
	if ((w[0] & FUTEXLAB_TID_MASK) != (uint32_t)wt.tid) {
		fail("word after hand-over %#x, waiter %d", w[0], wt.tid);
		goto out_join;
	}
	get_attr(o.tid, &at);
	if (at.sched_policy != SCHED_OTHER) {
		fail("owner not deboosted: policy %u", at.sched_policy);
		goto out_join;
	}
	wt.stage = 3;
	if (wait_stage(&wt.stage, 4) || wt.ret || w[0] != 0) {
		fail("waiter unlock: %d, word %#x", wt.ret, w[0]);
		goto out_join;
	}
	ret = 0;
out_join:
	wt.stage = 3;
	o.stage = 2;
	pthread_join(tw, NULL);
out_join_o:
	o.stage = 2;
	pthread_join(to, NULL);
out_fd:
	close(fd);
	return ret;
}

/*
 * The lock word on a copy-on-write page (after fork): the kernel's
 * cmpxchg faults, and faulting the page in must not write to the word
 * (fault_in_writeable() stores a zero byte: an owner's TID would change).
 */
struct cow_arg {
	int fd;
	uint32_t *w;
	_Atomic int ret;
};

static void *cow_locker(void *p)
{
	struct cow_arg *a = p;

	a->ret = k_pi(a->fd, FUTEXLAB_IOC_LOCK_PI, a->w, now_ns() + 100000000);
	return NULL;
}

static void fork_and_reap(void)
{
	pid_t c = fork();

	if (c == 0)
		_exit(0);
	waitpid(c, NULL, 0);
}

int t_pi_cow(uint32_t design)
{
	uint32_t *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint32_t me = (uint32_t)syscall(SYS_gettid);
	struct cow_arg a;
	pthread_t th;
	int fd = open_design(design, 0), ret = -1, r;

	if (fd < 0 || w == MAP_FAILED)
		return fail("setup"), -1;
	*w = 0;
	if ((r = k_pi(fd, FUTEXLAB_IOC_TRYLOCK_PI, w, 0)) != 0 || *w != me) {
		fail("trylock: %d, word %#x", r, *w);
		goto out;
	}
	fork_and_reap();	/* the page is copy-on-write now */
	a.fd = fd;
	a.w = w;
	a.ret = 1;
	pthread_create(&th, NULL, cow_locker, &a);
	pthread_join(th, NULL);
	if (a.ret != -ETIMEDOUT || *w != (me | FUTEXLAB_WAITERS)) {
		fail("contended lock on a COW page: %d, word %#x (owner %#x)",
		     a.ret, *w, me);
		goto out;
	}
	fork_and_reap();
	if ((r = k_pi(fd, FUTEXLAB_IOC_UNLOCK_PI, w, 0)) != 0 || *w != 0) {
		fail("unlock on a COW page: %d, word %#x", r, *w);
		goto out;
	}
	ret = 0;
out:
	close(fd);
	munmap(w, 4096);
	return ret;
}

/*
 * Requeue-PI beyond the conformance suite: the exact errors, a plain wake
 * or cmp_requeue refused on a requeue-PI waiter, a requeued waiter that
 * times out on the PI lock (and leaves no waiter and no boost behind).
 */
static void *rqpi_waiter(void *p)
{
	struct waiter *w = p;
	struct futexlab_wait_requeue_pi a = {
		.uaddr = (uintptr_t)w->w, .uaddr2 = (uintptr_t)w->w2,
		.val = 0, .flags = FUTEXLAB_F_DEADLINE,
		.deadline_ns = w->deadline,
	};

	w->tid = (pid_t)syscall(SYS_gettid);
	w->ret = xioctl(w->fd, FUTEXLAB_IOC_WAIT_REQUEUE_PI, &a);
	w->done = 1;
	return NULL;
}

/*
 * Long on purpose: one requeue-PI scenario in stages (waiters queued,
 * requeued onto a held lock, boosted, handed over, deboosted), each stage
 * asserting the state the last one left.
 */
int t_requeue_pi(uint32_t design)
{
	static uint32_t a[2], b[2];
	struct futexlab_wait_requeue_pi wr;
	struct futexlab_requeue rq;
	struct waiter w;
	int fd = open_design(design, 0), ret = -1, r;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	a[1] = FUTEXLAB_NO_NODE;
	b[1] = FUTEXLAB_NO_NODE;
	a[0] = 0;
	b[0] = 0;
	memset(&wr, 0, sizeof(wr));
	wr.uaddr = wr.uaddr2 = (uintptr_t)a;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT_REQUEUE_PI, &wr), -EINVAL,
	       "wait_requeue_pi onto the same word");
	wr.uaddr2 = (uintptr_t)b;
	wr.flags = 1u << 8;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT_REQUEUE_PI, &wr), -EINVAL,
	       "wait_requeue_pi flag 1<<8");
	wr.flags = 0;
	wr.val = 1;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT_REQUEUE_PI, &wr), -EAGAIN,
	       "wait_requeue_pi mismatch");
	memset(&rq, 0, sizeof(rq));
	rq.uaddr = (uintptr_t)a;
	rq.uaddr2 = (uintptr_t)b;
	rq.nr_wake = 2;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE_PI, &rq), -EINVAL,
	       "cmp_requeue_pi with nr_wake 2");
	rq.nr_wake = 1;
	rq.uaddr2 = (uintptr_t)a;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE_PI, &rq), -EINVAL,
	       "cmp_requeue_pi onto the same word");
	rq.uaddr2 = (uintptr_t)b;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE_PI, &rq), 0,
	       "cmp_requeue_pi without waiters");

	/* a requeue-PI waiter refuses plain wakes and plain requeues */
	memset(&w, 0, sizeof(w));
	w.fd = fd;
	w.w = a;
	w.w2 = b;
	w.deadline = now_ns() + 20000000000ull;
	if (start_sleeper(&w.th, rqpi_waiter, &w, &w.tid)) {
		fail("requeue-PI waiter did not sleep");
		goto out_join;
	}
	if ((r = k_wake(fd, a, 1, ~0u, 0)) != -EINVAL) {
		fail("plain wake of a requeue-PI waiter: %d", r);
		goto out_join;
	}
	if ((r = k_requeue(fd, a, b, 1, 1, 0)) != -EINVAL) {
		fail("plain requeue of a requeue-PI waiter: %d", r);
		goto out_join;
	}
	/* b held by us: the waiter is queued on b, then times out there */
	if ((r = k_pi(fd, FUTEXLAB_IOC_LOCK_PI, b, 0)) != 0) {
		fail("lock_pi of b: %d", r);
		goto out_join;
	}
	w.deadline = 0;		/* (the waiter's own deadline is 20 s) */
	rq.nr_requeue = 0;
	if ((r = xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE_PI, &rq)) != 1) {
		fail("cmp_requeue_pi onto a held lock: %d", r);
		goto out_unlock;
	}
	if (!(b[0] & FUTEXLAB_WAITERS) || w.done) {
		fail("after requeue: word %#x, waiter done %d", b[0], w.done);
		goto out_unlock;
	}
	/* the waiter leaves the PI queue on a signal: -EAGAIN, as stock */
	catch_usr1();
	wait_sleeping(w.tid);
	pthread_kill(w.th, SIGUSR1);
	pthread_join(w.th, NULL);
	if (w.ret != -EAGAIN) {
		fail("signalled requeued waiter returned %d", w.ret);
		goto out_unlock;
	}
	if (check_no_waiters(fd, "left"))
		goto out_unlock;
	if ((r = k_pi(fd, FUTEXLAB_IOC_UNLOCK_PI, b, 0)) != 0 || b[0] != 0) {
		fail("unlock after the waiter left: %d, word %#x", r, b[0]);
		goto out_fd;
	}
	ret = 0;
	goto out_fd;
out_unlock:
	k_pi(fd, FUTEXLAB_IOC_UNLOCK_PI, b, 0);
out_join:
	a[0] = 1;			/* the restarted wait then fails with EAGAIN */
	pthread_kill(w.th, SIGUSR1);
	pthread_join(w.th, NULL);
	goto out_fd;
out:
	ret = -1;
out_fd:
	close(fd);
	return ret;
}
