// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest's safety family, its PI half: the findings about priority
 * inheritance, each expecting what the stock futex does in the same guest
 * where it defines a behaviour, but for pi-other-user, where the module's
 * TID rule departs from it (the rest is kmodtest_safety.c):
 *   pi-kthread, pi-other-user, pi-rlimit, pi-reset-on-fork
 *                     (2) the PI security model of docs/kmod.md;
 *   pi-live-prio, pi-dl-waiter, pi-free-take, requeue-pi-alias
 *                     (7) the smaller findings.
 */
#include <linux/futex.h>
#include <sys/resource.h>

#include "kmodtest_safety.h"

/*
 * How long a PI waiter stays queued while the test watches the owner's
 * policy: long enough for the watcher to see the boost on the slowest
 * guest (a KASAN and lockdep kernel under TCG missed it at 300 ms).
 */
#define WAITER_BOUND	(1000 * MS)

/* ------------------------------------------------------------ finding 2 */
struct pi_waiter {
	int fd;
	uint32_t *w;
	uint32_t flags;
	int prio;		/* SCHED_FIFO priority, 0: none, -1: DEADLINE */
	uint64_t deadline;
	_Atomic pid_t tid;
	_Atomic int ret;
	_Atomic int done;
};

static void *pi_waiter_main(void *p)
{
	struct pi_waiter *a = p;
	struct futexlab_pi pi = {
		.uaddr = (uintptr_t)a->w, .deadline_ns = a->deadline,
		.flags = a->flags | FUTEXLAB_F_DEADLINE,
	};

	if (a->prio > 0)
		set_fifo(0, a->prio);
	else if (a->prio < 0 && set_attr(0, SCHED_DEADLINE, 0, 0))
		a->ret = -1000 - errno;
	a->tid = self_tid();
	if (a->ret > -1000)
		a->ret = xioctl(a->fd, FUTEXLAB_IOC_LOCK_PI, &pi);
	a->done = 1;
	return NULL;
}

static void start_pi_waiter(struct pi_waiter *a, pthread_t *th)
{
	pthread_create(th, NULL, pi_waiter_main, a);
}

/*
 * While @a waits, watch the scheduling of @target: the highest SCHED_FIFO
 * priority seen (0 if it never was SCHED_FIFO) goes to *@max_fifo; returns
 * once @a is done.
 */
static void watch_policy(struct pi_waiter *a, pid_t target, int *max_fifo)
{
	struct sched_attr_k at;

	*max_fifo = 0;
	while (!a->done) {
		if (!get_attr(target, &at) && at.sched_policy == SCHED_FIFO &&
		    (int)at.sched_priority > *max_fifo)
			*max_fifo = (int)at.sched_priority;
		usleep(2000);
	}
}

int t_pi_kthread(uint32_t design)
{
	uint32_t *p = shared_words();
	struct pi_waiter a = { 0 };
	struct timespec ts = realtime_in(200 * MS);
	pthread_t th;
	long stock;
	int fd = open_design(design, 0), max, ret = -1;
	char comm[32] = "";
	FILE *f = fopen("/proc/2/comm", "r");

	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
	}
	if (fd < 0 || !p || strncmp(comm, "kthreadd", 8))
		return fail("setup (pid 2 is '%s')", comm), -1;
	p[0] = 2;
	p[2] = 2;
	stock = sfutex(&p[2], FUTEX_LOCK_PI_PRIVATE, 0, &ts, NULL, 0);
	a.fd = fd;
	a.w = &p[0];
	a.prio = 50;
	a.deadline = now_ns() + WAITER_BOUND;
	start_pi_waiter(&a, &th);
	watch_policy(&a, 2, &max);
	pthread_join(th, NULL);
	if (max) {
		fail("kthreadd became SCHED_FIFO %d", max);
		goto out;
	}
	if (a.ret != stock) {
		fail("LOCK_PI on kthreadd's TID returned %d, stock %ld", a.ret,
		     stock);
		goto out;
	}
	ret = 0;
out:
	close(fd);
	munmap(p, 4096);
	return ret;
}

/*
 * An owner process of uid @owner_uid (RLIMIT_RTPRIO @owner_rtprio) holds
 * p[0] (kmod) and p[2] (stock); a waiter process, SCHED_FIFO 50 and then
 * uid @waiter_uid, waits on each for 300 ms. p[4..5] receive the waiter's
 * two results; the owner's highest SCHED_FIFO priority during the kmod
 * wait goes to *@max, its policy after it to *@after.
 */
static int pi_two_users(uint32_t design, uid_t owner_uid, int owner_rtprio,
			uid_t waiter_uid, int *max, int *after, int *kret,
			long *stock)
{
	uint32_t *p = shared_words();
	struct sched_attr_k at;
	pid_t owner, waiter;
	uint64_t end;
	int ret = -1;

	if (!p)
		return fail("mmap"), -1;
	p[6] = 0;
	owner = fork();
	if (owner == 0) {
		struct rlimit rl = { owner_rtprio, owner_rtprio };

		setrlimit(RLIMIT_RTPRIO, &rl);
		if (setresuid(owner_uid, owner_uid, owner_uid))
			_exit(1);
		p[0] = (uint32_t)self_tid();
		p[2] = p[0];
		p[6] = 1;
		for (;;)
			pause();
	}
	end = now_ns() + 5 * SEC;
	while (!p[6] && now_ns() < end)
		usleep(1000);
	p[8] = 0;
	waiter = fork();
	if (waiter == 0) {
		int fd = open_design(design, 0);
		struct timespec ts;

		if (set_fifo(0, 50) ||
		    setresuid(waiter_uid, waiter_uid, waiter_uid))
			_exit(1);
		ts = realtime_in(300 * MS);
		p[5] = (uint32_t)sfutex(&p[2], FUTEX_LOCK_PI, 0, &ts, NULL, 0);
		p[8] = 1;
		p[4] = (uint32_t)k_pi(fd, FUTEXLAB_IOC_LOCK_PI, &p[0],
				      now_ns() + 300 * MS);
		p[8] = 2;
		_exit(0);
	}
	*max = 0;
	while (p[8] != 2 && waitpid(waiter, NULL, WNOHANG) == 0) {
		if (p[8] == 1 && !get_attr(owner, &at) &&
		    at.sched_policy == SCHED_FIFO &&
		    (int)at.sched_priority > *max)
			*max = (int)at.sched_priority;
		usleep(2000);
	}
	if (reap_bounded(waiter, now_ns() + SEC, "waiter"))
		goto out;
	get_attr(owner, &at);
	*after = (int)at.sched_policy;
	*kret = (int)p[4];
	*stock = (int)p[5];
	if (p[8] != 2) {
		fail("the waiter did not run (setup)");
		goto out;
	}
	ret = 0;
out:
	kill_and_reap(&owner, 1);
	munmap(p, 4096);
	return ret;
}

int t_pi_other_user(uint32_t design)
{
	int max, after, kret;
	long stock;

	if (pi_two_users(design, 65534, 0, 65533, &max, &after, &kret,
			 &stock))
		return -1;
	if (max)
		return fail("another user's owner became SCHED_FIFO %d", max),
			-1;
	if (after != SCHED_OTHER)
		return fail("owner left with policy %d", after), -1;
	/*
	 * Here the module departs from the stock futex by design (docs/kmod.md,
	 * the PI security model): an owner the waiter could not signal reads
	 * as no task, so the waiter learns nothing of another user's TID;
	 * the stock futex queues it (and times out).
	 */
	if (kret != -ESRCH)
		return fail("LOCK_PI returned %d, not -ESRCH for an owner the waiter may not signal (stock %ld)",
			    kret, stock), -1;
	return 0;
}

int t_pi_rlimit(uint32_t design)
{
	int max, after, kret;
	long stock;

	if (pi_two_users(design, 65534, 10, 65534, &max, &after, &kret,
			 &stock))
		return -1;
	if (max > 10)
		return fail("owner with RLIMIT_RTPRIO 10 boosted to SCHED_FIFO %d by an unprivileged waiter",
			    max), -1;
	if (after != SCHED_OTHER)
		return fail("owner left with policy %d", after), -1;
	if (kret != stock)
		return fail("LOCK_PI returned %d, stock %ld", kret, stock), -1;
	return 0;
}

/* An owner thread: takes @w (TRYLOCK_PI), holds it until @release. */
struct holder {
	int fd;
	uint32_t *w;
	uint64_t flags;		/* sched_setattr flags to set first */
	_Atomic pid_t tid;
	_Atomic int state;	/* 1 holds, 2 release asked, 3 released */
	_Atomic int ret;
};

static void *holder_main(void *p)
{
	struct holder *h = p;
	int zero = 0;

	if (h->flags)
		set_attr(0, SCHED_OTHER, 0, h->flags);
	h->tid = self_tid();
	h->ret = k_pi(h->fd, FUTEXLAB_IOC_TRYLOCK_PI, h->w, 0);
	/* holding, unless the test gave up waiting for it meanwhile */
	if (atomic_compare_exchange_strong(&h->state, &zero, 1))
		while (h->state != 2)
			usleep(1000);
	if (!h->ret)
		h->ret = k_pi(h->fd, FUTEXLAB_IOC_UNLOCK_PI, h->w, 0);
	h->state = 3;
	return NULL;
}

static int start_holder(struct holder *h, pthread_t *th)
{
	uint64_t end = now_ns() + 5 * SEC;

	pthread_create(th, NULL, holder_main, h);
	while (h->state != 1 && now_ns() < end)
		usleep(1000);
	return h->state == 1 && !h->ret ? 0 : -1;
}

static void stop_holder(struct holder *h, pthread_t th)
{
	h->state = 2;
	pthread_join(th, NULL);
}

/* A PI case: a shared page, a file of the design, an owner of p[0]. */
struct pi_case {
	uint32_t *p;
	int fd;
	struct holder h;
	pthread_t th;
};

static void pi_case_free(struct pi_case *c)
{
	if (c->fd >= 0)
		close(c->fd);
	if (c->p)
		munmap(c->p, 4096);
}

/* Set @c up, its owner first given sched_setattr @flags; 0, or -1 with
 * the failure reported and nothing left running. */
static int pi_case_open(struct pi_case *c, uint32_t design, uint64_t flags)
{
	memset(c, 0, sizeof(*c));
	c->p = shared_words();
	c->fd = open_design(design, 0);
	if (c->fd < 0 || !c->p) {
		fail("setup");
		pi_case_free(c);
		return -1;
	}
	c->h.fd = c->fd;
	c->h.w = &c->p[0];
	c->h.flags = flags;
	if (start_holder(&c->h, &c->th)) {
		fail("holder: %d", c->h.ret);
		stop_holder(&c->h, c->th);
		pi_case_free(c);
		return -1;
	}
	return 0;
}

/* A case that failed with its waiter @ta queued: the owner lets go, the
 * waiter ends (owning the word, or at its deadline) and the file's close
 * drops what is left; -1. */
static int pi_case_abandon(struct pi_case *c, pthread_t ta)
{
	stop_holder(&c->h, c->th);
	pthread_join(ta, NULL);
	pi_case_free(c);
	return -1;
}

/* A waiter on @c's word at @prio (0: none, -1: DEADLINE) until @deadline */
static void pi_case_waiter(const struct pi_case *c, struct pi_waiter *a,
			   int prio, uint64_t deadline)
{
	memset(a, 0, sizeof(*a));
	a->fd = c->fd;
	a->w = &c->p[0];
	a->prio = prio;
	a->deadline = deadline;
}

int t_pi_reset_on_fork(uint32_t design)
{
	struct pi_waiter a;
	struct sched_attr_k at;
	struct pi_case c;
	pthread_t tw;
	int max, ret = -1;

	if (pi_case_open(&c, design, SCHED_FLAG_RESET_ON_FORK))
		return -1;
	pi_case_waiter(&c, &a, 50, now_ns() + WAITER_BOUND);
	start_pi_waiter(&a, &tw);
	watch_policy(&a, c.h.tid, &max);
	pthread_join(tw, NULL);
	get_attr(c.h.tid, &at);
	if (max != 50)
		fail("owner not boosted (FIFO %d)", max);
	else if (at.sched_policy != SCHED_OTHER ||
		 !(at.sched_flags & SCHED_FLAG_RESET_ON_FORK))
		fail("owner restored to policy %u flags %#llx, was SCHED_OTHER with RESET_ON_FORK",
		     at.sched_policy, (unsigned long long)at.sched_flags);
	else
		ret = 0;
	stop_holder(&c.h, c.th);
	pi_case_free(&c);
	return ret;
}

/* ------------------------------------------------------------ finding 7 */
/* A waiter raised from FIFO 20 to 40 while queued: the boost follows. */
int t_pi_live_prio(uint32_t design)
{
	struct pi_waiter a, b;
	struct pi_case c;
	pthread_t ta, tb;
	int ret = -1;

	if (pi_case_open(&c, design, 0))
		return -1;
	pi_case_waiter(&c, &a, 20, now_ns() + 5 * SEC);
	pi_case_waiter(&c, &b, 10, a.deadline);
	start_pi_waiter(&a, &ta);
	if (wait_fifo(c.h.tid, 20)) {
		fail("owner not boosted to 20 by the first waiter");
		goto out_a;
	}
	set_fifo(a.tid, 40);
	start_pi_waiter(&b, &tb);	/* a new waiter: the boost is redone */
	if (wait_fifo(c.h.tid, 40))
		fail("owner not boosted to 40 after its waiter was raised to 40");
	else
		ret = 0;
	stop_holder(&c.h, c.th);	/* hands over to a, then a times out... */
	pthread_join(ta, NULL);
	k_pi(c.fd, FUTEXLAB_IOC_UNLOCK_PI, &c.p[0], 0);
	pthread_join(tb, NULL);
	pi_case_free(&c);
	return ret;
out_a:
	return pi_case_abandon(&c, ta);
}

/* A SCHED_DEADLINE waiter boosts the owner to the top real-time priority. */
int t_pi_dl_waiter(uint32_t design)
{
	struct pi_waiter a;
	struct sched_attr_k at;
	struct pi_case c;
	pthread_t ta;
	int max, ret = -1;

	if (pi_case_open(&c, design, 0))
		return -1;
	pi_case_waiter(&c, &a, -1, now_ns() + WAITER_BOUND);
	start_pi_waiter(&a, &ta);
	watch_policy(&a, c.h.tid, &max);
	pthread_join(ta, NULL);
	get_attr(c.h.tid, &at);
	if (a.ret <= -1000) {
		fail("could not become SCHED_DEADLINE: %s",
		     strerror(-(a.ret + 1000)));
	} else if (max != 99) {
		fail("a SCHED_DEADLINE waiter boosted the owner to FIFO %d, want 99",
		     max);
	} else if (at.sched_policy != SCHED_OTHER) {
		fail("owner left with policy %u", at.sched_policy);
	} else {
		ret = 0;
	}
	stop_holder(&c.h, c.th);
	pi_case_free(&c);
	return ret;
}

/*
 * LOCK_PI on a word found free while a waiter is queued and its owner
 * holds the lock in the kernel: user space wrote the word, so EINVAL, the
 * word left free and the owner's boost kept, as the stock futex's
 * attach_to_pi_state() answers (the module used to take the lock and
 * move the boost to the caller).
 */
int t_pi_free_take(uint32_t design)
{
	struct sched_attr_k at;
	struct pi_waiter a;
	struct pi_case c;
	uint32_t *w;
	pthread_t ta;
	int r, ret = -1;

	if (pi_case_open(&c, design, 0))
		return -1;
	w = &c.p[0];
	pi_case_waiter(&c, &a, 30, now_ns() + 5 * SEC);
	start_pi_waiter(&a, &ta);
	if (wait_fifo(c.h.tid, 30)) {
		fail("owner not boosted");
		goto out_a;
	}
	*w = 0;			/* the word is free, the waiter still queued */
	r = k_pi(c.fd, FUTEXLAB_IOC_LOCK_PI, w, now_ns() + SEC);
	if (r != -EINVAL || *w) {
		fail("LOCK_PI of the free word: %d, word %#x; want EINVAL, word 0",
		     r, *w);
		goto out_a;
	}
	if (get_attr(c.h.tid, &at) || at.sched_policy != SCHED_FIFO ||
	    at.sched_priority != 30)
		fail("the owner lost its boost: policy %u prio %u",
		     at.sched_policy, at.sched_priority);
	else
		ret = 0;
	*w = (uint32_t)c.h.tid | FUTEXLAB_WAITERS;	/* given back */
	stop_holder(&c.h, c.th);
	pthread_join(ta, NULL);
	if (!ret && (c.h.ret || a.ret)) {
		fail("the owner's UNLOCK_PI %d, the waiter's LOCK_PI %d",
		     c.h.ret, a.ret);
		ret = -1;
	}
	pi_case_free(&c);
	return ret;
out_a:
	return pi_case_abandon(&c, ta);
}

/* Requeue-PI onto the same word through a second mapping of its page. */
int t_requeue_pi_alias(uint32_t design)
{
	int mfd = memfd_create("rqpi", 0), fd = open_design(design, 0), ret = -1;
	uint32_t *m1, *m2;
	struct futexlab_wait_requeue_pi wr;
	struct futexlab_requeue rq;
	struct timespec ts = { 0, 200000000 };
	long stock, stock2;
	int r, r2;

	if (mfd < 0 || fd < 0 || ftruncate(mfd, 4096))
		return fail("setup"), -1;
	m1 = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	m2 = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	close(mfd);
	if (m1 == MAP_FAILED || m2 == MAP_FAILED)
		return fail("mmap"), close(fd), -1;
	m1[1] = NO_NODE;
	stock = sfutex(m1, FUTEX_WAIT_REQUEUE_PI, 0, &ts, m2, 0);
	stock2 = sfutex(m1, FUTEX_CMP_REQUEUE_PI, 1, (void *)(uintptr_t)0, m2,
			0);
	memset(&wr, 0, sizeof(wr));
	wr.uaddr = (uintptr_t)m1;
	wr.uaddr2 = (uintptr_t)m2;
	wr.flags = FUTEXLAB_F_SHARED | FUTEXLAB_F_DEADLINE;
	wr.deadline_ns = now_ns() + 200 * MS;
	r = xioctl(fd, FUTEXLAB_IOC_WAIT_REQUEUE_PI, &wr);
	memset(&rq, 0, sizeof(rq));
	rq.uaddr = (uintptr_t)m1;
	rq.uaddr2 = (uintptr_t)m2;
	rq.nr_wake = 1;
	rq.flags = FUTEXLAB_F_SHARED;
	r2 = xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE_PI, &rq);
	if (r != stock)
		fail("WAIT_REQUEUE_PI with both words one page's word: %d, stock %ld",
		     r, stock);
	else if (r2 != stock2)
		fail("CMP_REQUEUE_PI with both words one page's word: %d, stock %ld",
		     r2, stock2);
	else
		ret = 0;
	close(fd);
	munmap(m1, 4096);
	munmap(m2, 4096);
	return ret;
}
