// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest's owner-death family: a PI lock's owner
 * dies holding it while waiters sleep in LOCK_PI (or in wait_requeue_pi,
 * requeued onto it) without a deadline. As with the stock futex, the top
 * waiter must take the lock over and return 0 owning it, the others stay
 * queued behind it, and every owner can unlock.
 *
 * Each scenario runs twice per design, on the stock futex and on the
 * module, in a child process watched by a timeout: a waiter that never
 * wakes is a "hung" failure, never a hung suite. The words the waiters
 * see are compared with the stock futex's in the same guest (their flag
 * bits: the TIDs differ from run to run).
 */
#include <linux/futex.h>

#include "kmodtest.h"

#define OD_SEC		1000000000ull
#define OD_BOUND	(10 * OD_SEC)	/* the watchdog: far above a takeover */
#define OD_TID		0x3fffffffu	/* FUTEX_TID_MASK */

/* The lock operations of one run: the module's file, or the stock futex */
struct od_be {
	int fd;			/* -1: the stock futex */
	uint32_t flags;		/* FUTEXLAB_F_SHARED for a MAP_SHARED word */
};

struct od_run;

/* What one waiter saw; in MAP_SHARED memory, written by the child */
struct od_waiter {
	struct od_run *run;	/* the scenario it is part of */
	_Atomic pid_t tid;
	_Atomic int done;
	int prio;		/* SCHED_FIFO priority to take first, or 0 */
	struct od_waiter *wait_for; /* holding the lock, wait for it to be done */
	int ret;		/* LOCK_PI (or wait_requeue_pi) */
	uint32_t word;		/* the lock word when it returned */
	int other_done;		/* the other waiter had returned by then */
	int unlock_ret;
	uint32_t after;		/* the word after its unlock */
};

/* A scenario's shared state: MAP_SHARED, so processes and threads see it */
struct od_run {
	struct od_be be;
	uint32_t words[8];	/* {lock, node}, {cond, node} */
	_Atomic int locked;	/* the owner holds the lock */
	_Atomic int go;		/* the owner may die now */
	int rq_ret;		/* cmp_requeue_pi's result */
	struct od_waiter w[2];
	char why[160];		/* a setup failure inside the child */
};

static uint32_t *od_lock_word(struct od_run *r)
{
	return &r->words[0];
}

static uint32_t *od_cond_word(struct od_run *r)
{
	return &r->words[2];
}

static int od_futex_op(const struct od_be *b, int op)
{
	return b->flags & FUTEXLAB_F_SHARED ? op : op | FUTEX_PRIVATE_FLAG;
}

static int od_sys(uint32_t *w, int op, uint32_t val, void *val2,
		  uint32_t *w2, uint32_t val3)
{
	long r = syscall(SYS_futex, w, op, val, val2, w2, val3);

	return r < 0 ? -errno : (int)r;
}

static int od_pi(const struct od_be *b, unsigned long cmd, uint32_t *w)
{
	struct futexlab_pi a = {
		.uaddr = (uintptr_t)w, .node = FUTEXLAB_NO_NODE,
		.flags = b->flags | FUTEXLAB_F_NODE,
	};

	if (b->fd < 0)
		return od_sys(w, od_futex_op(b, cmd == FUTEXLAB_IOC_LOCK_PI ?
					     FUTEX_LOCK_PI : FUTEX_UNLOCK_PI),
			      0, NULL, NULL, 0);
	return xioctl(b->fd, cmd, &a);
}

/* wait_requeue_pi on @cond (value 0) for @lock, without a deadline */
static int od_wait_rqpi(const struct od_be *b, uint32_t *cond, uint32_t *lock)
{
	struct futexlab_wait_requeue_pi a = {
		.uaddr = (uintptr_t)cond, .uaddr2 = (uintptr_t)lock,
		.flags = b->flags | FUTEXLAB_F_NODE,
		.node = FUTEXLAB_NO_NODE, .node2 = FUTEXLAB_NO_NODE,
	};

	if (b->fd < 0)
		return od_sys(cond, od_futex_op(b, FUTEX_WAIT_REQUEUE_PI), 0,
			      NULL, lock, 0);
	return xioctl(b->fd, FUTEXLAB_IOC_WAIT_REQUEUE_PI, &a);
}

/* cmp_requeue_pi: the one waiter of @cond (value 0) onto @lock */
static int od_cmp_rqpi(const struct od_be *b, uint32_t *cond, uint32_t *lock)
{
	struct futexlab_requeue a = {
		.uaddr = (uintptr_t)cond, .uaddr2 = (uintptr_t)lock,
		.nr_wake = 1, .nr_requeue = 0, .val = 0,
		.flags = b->flags | FUTEXLAB_F_NODE,
		.node = FUTEXLAB_NO_NODE, .node2 = FUTEXLAB_NO_NODE,
	};

	if (b->fd < 0)
		return od_sys(cond, od_futex_op(b, FUTEX_CMP_REQUEUE_PI), 1,
			      NULL, lock, 0);
	return xioctl(b->fd, FUTEXLAB_IOC_CMP_REQUEUE_PI, &a);
}

static void od_why(struct od_run *r, const char *what)
{
	snprintf(r->why, sizeof(r->why), "%s", what);
}

/* Wait (bounded) until the process @pid sleeps. */
static int od_wait_sleeping_pid(pid_t pid)
{
	uint64_t end = now_ns() + 5 * OD_SEC;

	while (now_ns() < end) {
		if (count_sleeping(&pid, 1))
			return 0;
		usleep(1000);
	}
	return -1;
}

/* ------------------------------------------------------------ threads */
/* The owner: take the lock, then exit holding it when told to. */
static void *od_owner_thread(void *p)
{
	struct od_run *r = p;

	if (od_pi(&r->be, FUTEXLAB_IOC_LOCK_PI, od_lock_word(r))) {
		od_why(r, "the owner's LOCK_PI failed");
		r->locked = -1;
		return NULL;
	}
	r->locked = 1;
	while (!r->go)
		usleep(1000);
	return NULL;		/* the thread exits owning the lock */
}

/* After a waiter got the lock: note what it saw, then unlock. */
static void od_got_it(struct od_run *r, struct od_waiter *me)
{
	uint64_t end = now_ns() + 3 * OD_SEC;

	me->word = *od_lock_word(r);
	/* the waiter that got it before us has seen the word after its unlock */
	while (me->wait_for && !me->wait_for->done && now_ns() < end)
		usleep(1000);
	me->other_done = (me == &r->w[0] ? r->w[1].done : r->w[0].done);
	if (!me->ret) {
		me->unlock_ret = od_pi(&r->be, FUTEXLAB_IOC_UNLOCK_PI,
				       od_lock_word(r));
		me->after = *od_lock_word(r);
	}
	me->done = 1;
}

/* A LOCK_PI waiter without a deadline */
static void *od_lock_waiter(void *p)
{
	struct od_waiter *me = p;
	struct od_run *r = me->run;
	struct sched_param sp = { .sched_priority = me->prio };

	if (me->prio)
		sched_setscheduler(0, SCHED_FIFO, &sp);
	me->tid = (pid_t)syscall(SYS_gettid);
	me->ret = od_pi(&r->be, FUTEXLAB_IOC_LOCK_PI, od_lock_word(r));
	od_got_it(r, me);
	return NULL;
}

/* A wait_requeue_pi waiter without a deadline, on the cond word */
static void *od_rqpi_waiter(void *p)
{
	struct od_waiter *me = p;
	struct od_run *r = me->run;

	me->tid = (pid_t)syscall(SYS_gettid);
	me->ret = od_wait_rqpi(&r->be, od_cond_word(r), od_lock_word(r));
	od_got_it(r, me);
	return NULL;
}

/* Start waiter @i running @fn and wait until it sleeps. */
static int od_start(struct od_run *r, int i, pthread_t *th,
		    void *(*fn)(void *))
{
	r->w[i].run = r;
	if (pthread_create(th, NULL, fn, &r->w[i]))
		return od_why(r, "pthread_create"), -1;
	while (!r->w[i].tid)
		usleep(100);
	if (wait_sleeping(r->w[i].tid))
		return od_why(r, "the waiter never slept"), -1;
	return 0;
}

/* Start the owner thread and wait until it holds the lock. */
static int od_start_owner(struct od_run *r, pthread_t *th)
{
	if (pthread_create(th, NULL, od_owner_thread, r))
		return od_why(r, "pthread_create"), -1;
	while (!r->locked)
		usleep(100);
	return r->locked == 1 ? 0 : -1;
}

/* ------------------------------------------------------------ scenarios */
/* The owner thread exits holding the lock; one waiter with no deadline. */
static void od_thread_exit(struct od_run *r, int two)
{
	pthread_t owner, th[2];

	if (od_start_owner(r, &owner))
		return;
	r->w[0].prio = two ? 10 : 0;
	r->w[0].wait_for = two ? &r->w[1] : NULL;
	if (od_start(r, 0, &th[0], od_lock_waiter))
		return;
	if (two) {
		r->w[1].prio = 20;
		if (od_start(r, 1, &th[1], od_lock_waiter))
			return;
	}
	r->go = 1;
	pthread_join(owner, NULL);
	pthread_join(th[0], NULL);
	if (two)
		pthread_join(th[1], NULL);
}

/* The owner thread exits holding the lock a requeued waiter waits for. */
static void od_rqpi_exit(struct od_run *r)
{
	pthread_t owner, th;

	if (od_start_owner(r, &owner))
		return;
	if (od_start(r, 0, &th, od_rqpi_waiter))
		return;
	r->rq_ret = od_cmp_rqpi(&r->be, od_cond_word(r), od_lock_word(r));
	r->go = 1;
	pthread_join(owner, NULL);
	pthread_join(th, NULL);
}

/* The owner process is killed holding a shared lock; the waiter is another. */
static void od_process_kill(struct od_run *r)
{
	struct od_waiter *me = &r->w[0];
	pid_t owner, waiter;

	owner = fork();
	if (owner == 0) {
		od_owner_thread(r);
		pause();
		_exit(0);
	}
	while (!r->locked)
		usleep(100);
	if (r->locked != 1) {
		kill_and_reap(&owner, 1);
		return;
	}
	waiter = fork();
	if (waiter == 0) {
		me->tid = getpid();
		me->ret = od_pi(&r->be, FUTEXLAB_IOC_LOCK_PI, od_lock_word(r));
		od_got_it(r, me);
		_exit(0);
	}
	if (od_wait_sleeping_pid(waiter))
		od_why(r, "the waiter process never slept");
	kill_and_reap(&owner, 1);
	waitpid(waiter, NULL, 0);
}

enum od_kind { OD_EXIT, OD_TWO, OD_KILL, OD_RQPI };

/*
 * Run scenario @kind on @design (0: the stock futex) in a child process,
 * SIGKILLed if it outlives OD_BOUND. Return: the run (munmap it), with
 * ->why set if it hung or its setup failed.
 */
static struct od_run *od_run(uint32_t design, enum od_kind kind)
{
	struct od_run *r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t end = now_ns() + OD_BOUND;
	pid_t kid;
	int st;

	if (r == MAP_FAILED)
		return NULL;
	memset(r, 0, sizeof(*r));
	r->words[1] = FUTEXLAB_NO_NODE;
	r->words[3] = FUTEXLAB_NO_NODE;
	r->be.fd = -1;
	r->be.flags = kind == OD_KILL ? FUTEXLAB_F_SHARED : 0;
	kid = fork();
	if (kid == 0) {
		if (design) {
			r->be.fd = open_design(design, 0);
			if (r->be.fd < 0) {
				od_why(r, "open_design");
				_exit(1);
			}
		}
		if (kind == OD_KILL)
			od_process_kill(r);
		else if (kind == OD_RQPI)
			od_rqpi_exit(r);
		else
			od_thread_exit(r, kind == OD_TWO);
		_exit(0);
	}
	if (kid < 0) {
		od_why(r, "fork");
		return r;
	}
	while (now_ns() < end) {
		if (waitpid(kid, &st, WNOHANG) == kid)
			return r;
		usleep(10000);
	}
	kill(kid, SIGKILL);
	waitpid(kid, &st, 0);
	snprintf(r->why, sizeof(r->why),
		 "hung: still blocked %llu s after the owner died "
		 "(the waiter %s)",
		 (unsigned long long)(OD_BOUND / OD_SEC),
		 r->w[0].done ? "returned" : "never returned");
	return r;
}

/*
 * One waiter's result against the stock futex's in the same scenario;
 * @next: the waiter its unlock hands the lock to, or NULL (the word is 0).
 */
static int od_check_waiter(const char *who, const struct od_waiter *k,
			   const struct od_waiter *s,
			   const struct od_waiter *next)
{
	uint32_t next_tid = next ? (uint32_t)next->tid : 0;

	if (!k->done || k->ret) {
		fail("%s: LOCK_PI returned %d%s (stock %d)", who, k->ret,
		     k->done ? "" : ", never", s->ret);
		return -1;
	}
	if ((k->word & OD_TID) != (uint32_t)k->tid ||
	    (k->word & ~OD_TID) != (s->word & ~OD_TID)) {
		fail("%s: word %#x with TID %d (stock %#x with TID %d)", who,
		     k->word, k->tid, s->word, s->tid);
		return -1;
	}
	if (k->unlock_ret || (k->after & OD_TID) != next_tid ||
	    (k->after & ~OD_TID) != (s->after & ~OD_TID)) {
		fail("%s: UNLOCK_PI returned %d, word after %#x (stock %d, %#x)",
		     who, k->unlock_ret, k->after, s->unlock_ret, s->after);
		return -1;
	}
	return 0;
}

static int od_test(uint32_t design, enum od_kind kind)
{
	struct od_run *s = od_run(0, kind), *k = NULL;
	int ret = -1;

	if (!s)
		return fail("mmap"), -1;
	if (s->why[0] || !s->w[0].done || s->w[0].ret) {
		fail("the stock futex: %s (LOCK_PI %d)", s->why, s->w[0].ret);
		goto out;
	}
	k = od_run(design, kind);
	if (!k) {
		fail("mmap");
		goto out;
	}
	if (k->why[0]) {
		fail("%s", k->why);
		goto out;
	}
	if (kind == OD_RQPI && k->rq_ret != s->rq_ret) {
		fail("cmp_requeue_pi returned %d, stock %d", k->rq_ret,
		     s->rq_ret);
		goto out;
	}
	if (kind != OD_TWO) {
		ret = od_check_waiter("the waiter", &k->w[0], &s->w[0], NULL);
		goto out;
	}
	/* w[1] has the higher priority: it takes over, w[0] stays queued */
	if (od_check_waiter("the high-priority waiter", &k->w[1], &s->w[1],
			    &k->w[0]) ||
	    od_check_waiter("the low-priority waiter", &k->w[0], &s->w[0],
			    NULL))
		goto out;
	if (k->w[1].other_done || !k->w[0].other_done) {
		fail("the low-priority waiter returned first (stock: %s)",
		     s->w[1].other_done ? "the same" : "the high one");
		goto out;
	}
	ret = 0;
out:
	munmap(s, sizeof(*s));
	if (k)
		munmap(k, sizeof(*k));
	return ret;
}

int t_pi_owner_exit(uint32_t design)
{
	return od_test(design, OD_EXIT);
}

int t_pi_owner_kill(uint32_t design)
{
	return od_test(design, OD_KILL);
}

int t_pi_owner_two(uint32_t design)
{
	return od_test(design, OD_TWO);
}

int t_requeue_pi_owner_exit(uint32_t design)
{
	return od_test(design, OD_RQPI);
}
