// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest's boost-end family: what a PI owner is left with once every
 * boost on it has ended. The rule (docs/kmod.md, the PI security model):
 * after the last boost, the owner holds no scheduling policy or priority
 * that its own rights (RLIMIT_RTPRIO, CAP_SYS_NICE) would not let it set,
 * however many locks boosted it and in whatever order they were released,
 * and nothing it forked while boosted inherits the boost. Each case's
 * owner is a process of uid 65534 with RLIMIT_RTPRIO 0 (or 10, where its
 * own choice is tested), its waiters root threads at SCHED_FIFO:
 *   pi-two-locks-12, pi-two-locks-21
 *              the owner holds L1 and L2, FIFO 10 waits on L1 and FIFO
 *              20 on L2; it unlocks L1 then L2 (or L2 then L1) and must
 *              end SCHED_OTHER, not at the first boost's FIFO 10;
 *   pi-boost-setscheduler
 *              boosted to FIFO 50, the owner lowers itself to FIFO 1
 *              (allowed: it lowers the boost) and forks; after its unlock
 *              it must be SCHED_OTHER, and the child must never have been
 *              real-time;
 *   pi-boost-own-choice
 *              with RLIMIT_RTPRIO 10 the owner moves itself to FIFO 5
 *              during the boost, which it could do unboosted too: that
 *              choice stands after the unlock.
 */
#include <sys/resource.h>

#include "kmodtest_safety.h"

/* how long a waiter stays queued: long enough for a slow debug guest */
#define WAIT_BOUND	(8000 * MS)

/* Shared between the test and the owner process (its own mapping). */
struct boost_ctl {
	_Atomic pid_t owner;	/* the owner's TID once it holds its locks */
	_Atomic int step;	/* the last step the owner finished */
	_Atomic int go;		/* the step the test allows next */
	_Atomic int ret[4];	/* what the owner's calls returned */
	_Atomic int child_policy;	/* -1 until the child reported */
	_Atomic int child_prio;
};

/* The owner's side: wait until the test allows step @n. */
static int owner_await(struct boost_ctl *c, int n)
{
	uint64_t end = now_ns() + 30 * SEC;

	while (c->go < n)
		if (now_ns() > end)
			return -1;
		else
			usleep(1000);
	return 0;
}

/* The test's side: allow step @n and wait until the owner did it. */
static int owner_step(struct boost_ctl *c, int n)
{
	uint64_t end = now_ns() + 10 * SEC;

	c->go = n;
	while (c->step < n)
		if (now_ns() > end)
			return fail("the owner did not finish step %d", n), -1;
		else
			usleep(1000);
	return 0;
}

/*
 * A PI operation on a shared word: the owner is a process of its own and
 * its waiters threads of the test, so only shared keys meet.
 */
static int pi_shared(int fd, unsigned long cmd, uint32_t *w, uint64_t deadline)
{
	struct futexlab_pi a = { .uaddr = (uintptr_t)w,
				 .flags = FUTEXLAB_F_SHARED };

	if (deadline) {
		a.deadline_ns = deadline;
		a.flags |= FUTEXLAB_F_DEADLINE;
	}
	return xioctl(fd, cmd, &a);
}

/* Become the owner: uid 65534 with RLIMIT_RTPRIO @rtprio. */
static int become_owner(int rtprio)
{
	struct rlimit rl = { (rlim_t)rtprio, (rlim_t)rtprio };

	return setrlimit(RLIMIT_RTPRIO, &rl) ||
	       setresgid(NOBODY, NOBODY, NOBODY) ||
	       setresuid(NOBODY, NOBODY, NOBODY) ? -1 : 0;
}

/* A root thread at SCHED_FIFO @prio that takes @w, then lets it go. */
struct rt_waiter {
	pthread_t th;
	int fd;
	uint32_t *w;
	int prio;
	_Atomic int ret;
	_Atomic int done;
};

static void *rt_waiter_main(void *p)
{
	struct rt_waiter *a = p;

	set_fifo(0, a->prio);
	a->ret = pi_shared(a->fd, FUTEXLAB_IOC_LOCK_PI, a->w, now_ns() + WAIT_BOUND);
	if (!a->ret)
		pi_shared(a->fd, FUTEXLAB_IOC_UNLOCK_PI, a->w, 0);
	a->done = 1;
	return NULL;
}

static void rt_waiter_start(struct rt_waiter *a, int fd, uint32_t *w,
			    int prio)
{
	memset(a, 0, sizeof(*a));
	a->fd = fd;
	a->w = w;
	a->prio = prio;
	pthread_create(&a->th, NULL, rt_waiter_main, a);
}

/* Join @a: 0 if it got the lock, else a failure naming @what. */
static int rt_waiter_join(struct rt_waiter *a, const char *what)
{
	pthread_join(a->th, NULL);
	if (a->ret)
		return fail("the %s waiter's LOCK_PI returned %d", what, a->ret),
			-1;
	return 0;
}

/* @tid's policy and priority now, as "policy P prio N" for messages. */
static const char *attr_str(pid_t tid, struct sched_attr_k *at)
{
	static char buf[64];

	if (get_attr(tid, at))
		return "unreadable";
	snprintf(buf, sizeof(buf), "policy %u prio %u", at->sched_policy,
		 at->sched_priority);
	return buf;
}

/*
 * A case's processes: @c in its own shared mapping, @p the lock words
 * (pairs {value, node} on a shared page), the owner process and a file.
 */
struct boost_case {
	struct boost_ctl *c;
	uint32_t *p;
	pid_t kid;
	int fd;
};

static int boost_case_open(struct boost_case *bc, uint32_t design)
{
	memset(bc, 0, sizeof(*bc));
	bc->kid = -1;
	bc->c = mmap(NULL, sizeof(*bc->c), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	bc->p = shared_words();
	bc->fd = open_design(design, 0);
	if (bc->c == MAP_FAILED || !bc->p || bc->fd < 0)
		return fail("setup"), -1;
	bc->c->child_policy = -1;
	return 0;
}

/* Wait for the owner to hold its locks (step 1). */
static int boost_case_owner_ready(struct boost_case *bc)
{
	if (owner_step(bc->c, 1))
		return -1;
	if (bc->c->ret[0] || bc->c->ret[1])
		return fail("the owner's TRYLOCK_PI returned %d, %d",
			    bc->c->ret[0], bc->c->ret[1]), -1;
	return 0;
}

static void boost_case_close(struct boost_case *bc)
{
	if (bc->kid > 0) {
		bc->c->go = 1000;	/* let it run to its end */
		if (reap_bounded(bc->kid, now_ns() + 10 * SEC, "owner"))
			kill_and_reap(&bc->kid, 1);
	}
	if (bc->fd >= 0)
		close(bc->fd);
	if (bc->p)
		munmap(bc->p, 4096);
	if (bc->c && bc->c != MAP_FAILED)
		munmap(bc->c, sizeof(*bc->c));
}

/* ------------------------------------------------------------ two locks */
/*
 * The owner of pi-two-locks: takes p[0] (L1) and p[2] (L2), then at step 2
 * unlocks @first, at step 3 the other.
 */
static void two_locks_owner(struct boost_ctl *c, uint32_t *p, int fd,
			    int first)
{
	uint32_t *l[2] = { &p[0], &p[2] };

	if (become_owner(0))
		_exit(1);
	c->ret[0] = pi_shared(fd, FUTEXLAB_IOC_TRYLOCK_PI, l[0], 0);
	c->ret[1] = pi_shared(fd, FUTEXLAB_IOC_TRYLOCK_PI, l[1], 0);
	c->owner = (pid_t)syscall(SYS_gettid);
	c->step = 1;
	if (owner_await(c, 2))
		_exit(1);
	c->ret[2] = pi_shared(fd, FUTEXLAB_IOC_UNLOCK_PI, l[first], 0);
	c->step = 2;
	if (owner_await(c, 3))
		_exit(1);
	c->ret[3] = pi_shared(fd, FUTEXLAB_IOC_UNLOCK_PI, l[!first], 0);
	c->step = 3;
	owner_await(c, 1000);
	_exit(0);
}

static int two_locks(uint32_t design, int first)
{
	struct rt_waiter w1, w2;
	struct sched_attr_k at;
	struct boost_case bc;
	const char *s;
	int ret = -1, started = 0;

	if (boost_case_open(&bc, design))
		goto out;
	bc.kid = fork();
	if (bc.kid == 0)
		two_locks_owner(bc.c, bc.p, bc.fd, first);
	if (boost_case_owner_ready(&bc))
		goto out;
	rt_waiter_start(&w1, bc.fd, &bc.p[0], 10);
	if (wait_fifo(bc.c->owner, 10)) {
		fail("the FIFO 10 waiter on L1 did not boost the owner (%s)",
		     attr_str(bc.c->owner, &at));
		goto out_w1;
	}
	rt_waiter_start(&w2, bc.fd, &bc.p[2], 20);
	started = 1;
	if (wait_fifo(bc.c->owner, 20)) {
		fail("the FIFO 20 waiter on L2 did not boost the owner (%s)",
		     attr_str(bc.c->owner, &at));
		goto out_w2;
	}
	if (owner_step(bc.c, 2) || owner_step(bc.c, 3))
		goto out_w2;
	if (bc.c->ret[2] || bc.c->ret[3]) {
		fail("the owner's UNLOCK_PI returned %d, %d", bc.c->ret[2],
		     bc.c->ret[3]);
		goto out_w2;
	}
	s = attr_str(bc.c->owner, &at);
	if (at.sched_policy != SCHED_OTHER || at.sched_priority) {
		fail("after both unlocks the owner is left at %s, want SCHED_OTHER",
		     s);
		goto out_w2;
	}
	ret = 0;
out_w2:
	bc.c->go = 1000;
	if (started && rt_waiter_join(&w2, "L2"))
		ret = -1;
out_w1:
	bc.c->go = 1000;
	if (rt_waiter_join(&w1, "L1"))
		ret = -1;
out:
	boost_case_close(&bc);
	return ret;
}

int t_pi_two_locks_12(uint32_t design)
{
	return two_locks(design, 0);
}

int t_pi_two_locks_21(uint32_t design)
{
	return two_locks(design, 1);
}

/* ------------------------------------------------------------ own calls */
/*
 * The owner of pi-boost-setscheduler and pi-boost-own-choice: takes p[0];
 * at step 2, while boosted, sets SCHED_FIFO @prio itself (without, then
 * with SCHED_FLAG_RESET_ON_FORK, ret[1] and ret[2]) and forks a child that
 * reports its policy; at step 3 unlocks (ret[3]).
 */
static void own_call_owner(struct boost_ctl *c, uint32_t *p, int fd,
			   int rtprio, int prio)
{
	struct sched_attr_k at;
	pid_t child;

	if (become_owner(rtprio))
		_exit(1);
	c->ret[0] = pi_shared(fd, FUTEXLAB_IOC_TRYLOCK_PI, &p[0], 0);
	c->owner = (pid_t)syscall(SYS_gettid);
	c->step = 1;
	if (owner_await(c, 2))
		_exit(1);
	c->ret[1] = set_attr(0, SCHED_FIFO, (uint32_t)prio, 0) ? -errno : 0;
	c->ret[2] = set_attr(0, SCHED_FIFO, (uint32_t)prio,
			     SCHED_FLAG_RESET_ON_FORK) ? -errno : 0;
	child = fork();
	if (child == 0) {
		if (!get_attr(0, &at)) {
			c->child_prio = (int)at.sched_priority;
			c->child_policy = (int)at.sched_policy;
		}
		_exit(0);
	}
	waitpid(child, NULL, 0);
	c->step = 2;
	if (owner_await(c, 3))
		_exit(1);
	c->ret[3] = pi_shared(fd, FUTEXLAB_IOC_UNLOCK_PI, &p[0], 0);
	c->step = 3;
	owner_await(c, 1000);
	_exit(0);
}

/*
 * Boost an owner of RLIMIT_RTPRIO @rtprio to FIFO 50, let it set FIFO
 * @prio itself and fork, then unlock; the owner's policy and priority
 * after the unlock go to *@policy and *@after_prio.
 */
static int own_call(uint32_t design, int rtprio, int prio, int *policy,
		    int *after_prio)
{
	struct rt_waiter w;
	struct sched_attr_k at;
	struct boost_case bc;
	int ret = -1;

	if (boost_case_open(&bc, design))
		goto out;
	bc.kid = fork();
	if (bc.kid == 0)
		own_call_owner(bc.c, bc.p, bc.fd, rtprio, prio);
	if (owner_step(bc.c, 1))
		goto out;
	if (bc.c->ret[0]) {
		fail("the owner's TRYLOCK_PI returned %d", bc.c->ret[0]);
		goto out;
	}
	rt_waiter_start(&w, bc.fd, &bc.p[0], 50);
	if (wait_fifo(bc.c->owner, 50)) {
		fail("the FIFO 50 waiter did not boost the owner (%s)",
		     attr_str(bc.c->owner, &at));
		goto out_w;
	}
	if (owner_step(bc.c, 2) || owner_step(bc.c, 3))
		goto out_w;
	if (bc.c->ret[3]) {
		fail("the owner's UNLOCK_PI returned %d", bc.c->ret[3]);
		goto out_w;
	}
	if (bc.c->child_policy < 0) {
		fail("the child forked during the boost did not report");
		goto out_w;
	}
	if (bc.c->child_policy != SCHED_OTHER) {
		fail("the child forked during the boost has policy %d prio %d (owner's calls: %d, %d)",
		     bc.c->child_policy, bc.c->child_prio, bc.c->ret[1],
		     bc.c->ret[2]);
		goto out_w;
	}
	attr_str(bc.c->owner, &at);
	*policy = (int)at.sched_policy;
	*after_prio = (int)at.sched_priority;
	ret = 0;
out_w:
	bc.c->go = 1000;
	if (rt_waiter_join(&w, "FIFO 50"))
		ret = -1;
out:
	boost_case_close(&bc);
	return ret;
}

int t_pi_boost_setscheduler(uint32_t design)
{
	int policy, prio;

	if (own_call(design, 0, 1, &policy, &prio))
		return -1;
	if (policy != SCHED_OTHER || prio)
		return fail("the owner (RLIMIT_RTPRIO 0) lowered itself to FIFO 1 while boosted and kept policy %d prio %d after its unlock",
			    policy, prio), -1;
	return 0;
}

int t_pi_boost_own_choice(uint32_t design)
{
	int policy, prio;

	if (own_call(design, 10, 5, &policy, &prio))
		return -1;
	if (policy != SCHED_FIFO || prio != 5)
		return fail("the owner (RLIMIT_RTPRIO 10) set FIFO 5 itself while boosted and was left at policy %d prio %d",
			    policy, prio), -1;
	return 0;
}
