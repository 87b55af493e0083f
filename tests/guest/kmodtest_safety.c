// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest's safety family: one test per finding of issue 15, each the
 * scenario the review reproduced, each expecting what the stock futex does
 * in the same guest where it defines a behaviour:
 *   dead-owner        (1) LOCK_PI on a dead owner's word with the adaptive
 *                     lock on: ESRCH like stock, no task outlives its
 *                     deadline;
 *   pi-kthread, pi-other-user, pi-rlimit, pi-reset-on-fork
 *                     (2) the PI security model of docs/kmod.md;
 *   shared-alias      (3) a closed file's waiter is not woken through a new
 *                     file (stock: never);
 *   numa-move         (4) a wake after a COW moved the word to another node
 *                     finds the waiter (stock: it does);
 *   stats-huge        (5) STATS with a huge count is clamped, no WARN;
 *   table-cap         (6) private tables are capped per file and per user;
 *   pi-live-prio, pi-dl-waiter, pi-free-take, requeue-pi-alias
 *                     (7) the smaller findings.
 * Every futex word is a pair {value, node}: the numa design reads the node
 * next to the word (FUTEX2_NUMA's rule), ~0 letting the module choose.
 */
#include <linux/futex.h>
#include <sys/resource.h>

#include "kmodtest.h"

#define NO_NODE		0xffffffffu
#define SEC		1000000000ull
#define MS		1000000ull
/*
 * How long a PI waiter stays queued while the test watches the owner's
 * policy: long enough for the watcher to see the boost on the slowest
 * guest (a KASAN and lockdep kernel under TCG missed it at 300 ms).
 */
#define WAITER_BOUND	(1000 * MS)
#ifndef SCHED_FLAG_RESET_ON_FORK
#define SCHED_FLAG_RESET_ON_FORK	0x01
#endif
#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE	6
#endif

static const uint32_t all_designs[] = {
	FUTEXLAB_DESIGN_GLOBAL, FUTEXLAB_DESIGN_PRIVATE, FUTEXLAB_DESIGN_NUMA,
};

/* A shared anonymous page of word pairs, every node word ~0. */
static uint32_t *shared_words(void)
{
	uint32_t *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int i;

	if (p == MAP_FAILED)
		return NULL;
	for (i = 0; i < 1024; i += 2) {
		p[i] = 0;
		p[i + 1] = NO_NODE;
	}
	return p;
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* The stock futex, -errno on failure. */
static long sfutex(uint32_t *w, int op, uint32_t val, const struct timespec *ts,
		   uint32_t *w2, uint32_t val3)
{
	long r = syscall(SYS_futex, w, op, val, ts, w2, val3);

	return r < 0 ? -errno : r;
}

/* An absolute CLOCK_REALTIME time @ns from now (LOCK_PI's clock). */
static struct timespec realtime_in(uint64_t ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += (long)(ns % SEC);
	ts.tv_sec += (time_t)(ns / SEC) + ts.tv_nsec / 1000000000;
	ts.tv_nsec %= 1000000000;
	return ts;
}

static int set_fifo(pid_t tid, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	return sched_setscheduler(tid, prio ? SCHED_FIFO : SCHED_OTHER, &sp);
}

static int set_attr(pid_t tid, uint32_t policy, uint32_t prio, uint64_t flags)
{
	struct sched_attr_k a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sched_policy = policy;
	a.sched_priority = prio;
	a.sched_flags = flags;
	if (policy == SCHED_DEADLINE) {
		a.sched_runtime = 2 * MS;
		a.sched_deadline = 10 * MS;
		a.sched_period = 10 * MS;
	}
	return (int)syscall(SYS_sched_setattr, tid, &a, 0);
}

/*
 * Wait for child @kid, whose operation ends by @deadline (ns, CLOCK_MONOTONIC)
 * at the latest. A child alive 5 s after it is SIGKILLed, and then 3 s after
 * SIGKILL, is a task that outlived its deadline: fail and return -1 (it is
 * left behind: it cannot be reaped).
 */
static int reap_bounded(pid_t kid, uint64_t deadline, const char *what)
{
	uint64_t end = deadline + 5 * SEC;
	int st;

	while (now_ns() < end) {
		if (waitpid(kid, &st, WNOHANG) == kid)
			return 0;
		usleep(10000);
	}
	kill(kid, SIGKILL);
	end = now_ns() + 3 * SEC;
	while (now_ns() < end) {
		if (waitpid(kid, &st, WNOHANG) == kid) {
			fail("%s: still running 5 s after its deadline", what);
			return -1;
		}
		usleep(10000);
	}
	fail("%s: still running 5 s after its deadline and 3 s after SIGKILL",
	     what);
	return -1;
}

/* ------------------------------------------------------------ finding 1 */
static const char *SPIN = "adaptive_spin_us";

static void *exit_holding(void *p)
{
	uint32_t *w = p;

	*w = (uint32_t)gettid_();	/* taken with the user-space fast path */
	return NULL;
}

/* A word naming a reaped process's TID, or a thread that exited holding it. */
static int dead_word(uint32_t *w, int exited_thread)
{
	pthread_t th;
	pid_t c;

	if (exited_thread) {
		pthread_create(&th, NULL, exit_holding, w);
		pthread_join(th, NULL);
		return 0;
	}
	c = fork();
	if (c == 0)
		_exit(0);
	waitpid(c, NULL, 0);
	*w = (uint32_t)c;
	return 0;
}

int t_dead_owner(void)
{
	uint32_t *p = shared_words();
	int ret = -1, i, kcase;
	long stock;

	if (!p)
		return fail("mmap"), -1;
	if (module_param_write(SPIN, 50)) {
		fail("%s not writable", SPIN);
		goto out;
	}
	for (kcase = 0; kcase < 2; kcase++) {
		struct timespec ts = realtime_in(SEC);
		const char *name = kcase ? "exited owner" : "no such TID";

		dead_word(&p[0], kcase);
		p[2] = p[0];
		stock = sfutex(&p[2], FUTEX_LOCK_PI_PRIVATE, 0, &ts, NULL, 0);
		for (i = 0; i < 3; i++) {
			uint64_t dl = now_ns() + SEC;
			pid_t kid;

			p[4] = 1;
			kid = fork();
			if (kid == 0) {
				int fd = open_design(all_designs[i], 0);

				p[4] = (uint32_t)k_pi(fd, FUTEXLAB_IOC_LOCK_PI,
						      &p[0], dl);
				_exit(0);
			}
			if (reap_bounded(kid, dl, name))
				goto out;
			if ((int)p[4] != (int)stock) {
				fail("%s, %s: LOCK_PI returned %d, stock %ld",
				     name, design_name(all_designs[i]),
				     (int)p[4], stock);
				goto out;
			}
		}
	}
	ret = 0;
out:
	module_param_write(SPIN, 0);
	munmap(p, 4096);
	return ret;
}

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
	a->tid = gettid_();
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

/* Wait until the FIFO priority of @tid is @prio (0: not FIFO), 5 s at most */
static int wait_fifo(pid_t tid, int prio)
{
	uint64_t end = now_ns() + 5 * SEC;
	struct sched_attr_k at;

	while (now_ns() < end) {
		if (!get_attr(tid, &at) &&
		    (prio ? at.sched_policy == SCHED_FIFO &&
			    (int)at.sched_priority == prio :
			    at.sched_policy == SCHED_OTHER))
			return 0;
		usleep(2000);
	}
	return -1;
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
		p[0] = (uint32_t)gettid_();
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
	if (kret != stock)
		return fail("LOCK_PI returned %d, stock %ld", kret, stock), -1;
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

	if (h->flags)
		set_attr(0, SCHED_OTHER, 0, h->flags);
	h->tid = gettid_();
	h->ret = k_pi(h->fd, FUTEXLAB_IOC_TRYLOCK_PI, h->w, 0);
	h->state = 1;
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

int t_pi_reset_on_fork(uint32_t design)
{
	uint32_t *p = shared_words();
	struct holder h = { 0 };
	struct pi_waiter a = { 0 };
	struct sched_attr_k at;
	pthread_t th, tw;
	int fd = open_design(design, 0), max, ret = -1;

	if (fd < 0 || !p)
		return fail("setup"), -1;
	h.fd = fd;
	h.w = &p[0];
	h.flags = SCHED_FLAG_RESET_ON_FORK;
	if (start_holder(&h, &th)) {
		fail("holder: %d", h.ret);
		goto out_holder;
	}
	a.fd = fd;
	a.w = &p[0];
	a.prio = 50;
	a.deadline = now_ns() + WAITER_BOUND;
	start_pi_waiter(&a, &tw);
	watch_policy(&a, h.tid, &max);
	pthread_join(tw, NULL);
	get_attr(h.tid, &at);
	if (max != 50) {
		fail("owner not boosted (FIFO %d)", max);
		goto out_holder;
	}
	if (at.sched_policy != SCHED_OTHER ||
	    !(at.sched_flags & SCHED_FLAG_RESET_ON_FORK)) {
		fail("owner restored to policy %u flags %#llx, was SCHED_OTHER with RESET_ON_FORK",
		     at.sched_policy, (unsigned long long)at.sched_flags);
		goto out_holder;
	}
	ret = 0;
out_holder:
	stop_holder(&h, th);
	close(fd);
	munmap(p, 4096);
	return ret;
}

static void pin_to(int cpu);

/* ------------------------------------------------------------ finding 3 */
/*
 * A waiter (a thread of child A) sleeps on a memfd page whose mapping and
 * file are then closed; the parent creates new memfds and wakes their
 * first word. Waking the old waiter through a new file is the alias.
 */
struct alias_waiter {
	int fd;			/* -1: the stock futex */
	uint32_t *w;
	uint32_t *res;
	_Atomic pid_t tid;
};

static void *alias_waiter_main(void *p)
{
	struct alias_waiter *aw = p;

	aw->tid = gettid_();
	if (aw->fd < 0) {
		struct timespec ts = { 2, 0 };

		*aw->res = (uint32_t)sfutex(aw->w, FUTEX_WAIT, 0, &ts, NULL, 0);
	} else {
		*aw->res = (uint32_t)k_wait(aw->fd, aw->w, 0,
					    now_ns() + 2 * SEC, ~0u,
					    FUTEXLAB_F_SHARED);
	}
	return NULL;
}

static int alias_once(uint32_t design, int stock, int *woken)
{
	uint32_t *ctl = shared_words();
	pid_t a;
	int i, ret = -1;

	*woken = 0;
	if (!ctl)
		return fail("mmap"), -1;
	ctl[0] = 0;
	/*
	 * Everything on one CPU: the old inode is freed (after RCU) into
	 * that CPU's slab freelist, where the next new inode comes from.
	 */
	pin_to(1);
	a = fork();
	if (a == 0) {
		int mfd = memfd_create("alias-old", 0);
		struct alias_waiter aw = { .res = &ctl[4] };
		pthread_t th;

		if (mfd < 0 || ftruncate(mfd, 4096))
			_exit(1);
		aw.w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
			    mfd, 0);
		close(mfd);
		if (aw.w == MAP_FAILED)
			_exit(1);
		aw.w[1] = NO_NODE;
		aw.fd = stock ? -1 : open_design(design, 0);
		if (start_sleeper(&th, alias_waiter_main, &aw, &aw.tid))
			_exit(1);
		/* the sleeping thread's mapping was the file's last user */
		munmap(aw.w, 4096);
		ctl[0] = 1;
		pthread_join(th, NULL);
		_exit(0);
	}
	while (!ctl[0] && waitpid(a, NULL, WNOHANG) == 0)
		usleep(1000);
	for (i = 0; i < 200 && !*woken && ctl[0]; i++) {
		int mfd = memfd_create("alias-new", 0), fd = -1, r;
		uint32_t *w;

		usleep(5000);	/* let RCU free the old inode */
		if (mfd < 0 || ftruncate(mfd, 4096))
			break;
		w = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, mfd,
			 0);
		close(mfd);
		if (w == MAP_FAILED)
			break;
		w[1] = NO_NODE;
		if (stock) {
			r = (int)sfutex(w, FUTEX_WAKE, 1, NULL, NULL, 0);
		} else {
			fd = open_design(design, 0);
			r = k_wake(fd, w, 1, ~0u, FUTEXLAB_F_SHARED);
			close(fd);
		}
		if (r > 0)
			*woken = i + 1;
		munmap(w, 4096);
	}
	if (reap_bounded(a, now_ns() + 3 * SEC, "the old file's waiter"))
		goto out;
	{
		cpu_set_t all;

		CPU_ZERO(&all);
		for (i = 0; i < 64; i++)
			CPU_SET(i, &all);
		sched_setaffinity(0, sizeof(all), &all);
	}
	ret = 0;
out:
	munmap(ctl, 4096);
	return ret;
}

int t_shared_alias(uint32_t design)
{
	int woken, swoken;

	if (alias_once(design, 1, &swoken) || alias_once(design, 0, &woken))
		return -1;
	if (woken != swoken)
		return fail("a wake on a new memfd woke the closed file's waiter (try %d; stock: %s)",
			    woken, swoken ? "woke too" : "never"), -1;
	return 0;
}

/* ------------------------------------------------------------ finding 4 */
static int cpu_of_node(int node)
{
	char path[64], buf[64];

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist",
		 node);
	if (read_first_line(path, buf, sizeof(buf)))
		return -1;
	return buf[0] >= '0' && buf[0] <= '9' ? atoi(buf) : -1;
}

static void pin_to(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

struct move_waiter {
	int fd;		/* -1: the stock futex */
	uint32_t *w;
	int cpu;
	_Atomic pid_t tid;
	_Atomic int ret;
};

static void *move_waiter_main(void *p)
{
	struct move_waiter *m = p;

	pin_to(m->cpu);
	m->tid = gettid_();
	if (m->fd < 0) {
		struct timespec ts = { 2, 0 };

		m->ret = (int)sfutex(m->w, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
	} else {
		m->ret = k_wait(m->fd, m->w, 0, now_ns() + 2 * SEC, ~0u, 0);
	}
	return NULL;
}

/* Wake count after a COW moved the waiter's word to the other node. */
static int numa_move_once(int fd, int cpu0, int cpu1, int *woken)
{
	uint32_t *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct move_waiter m = { .fd = fd, .cpu = cpu0 };
	pthread_t th;
	pid_t kid;

	if (w == MAP_FAILED)
		return fail("mmap"), -1;
	pin_to(cpu0);
	w[0] = 0;		/* first touch: the page is on node 0 */
	w[1] = NO_NODE;
	m.w = w;
	if (start_sleeper(&th, move_waiter_main, &m, &m.tid))
		return fail("waiter did not sleep"), -1;
	kid = fork();
	if (kid == 0) {
		for (;;)
			pause();
	}
	pin_to(cpu1);
	w[100] = 1;		/* COW: our copy of the page is on node 1 */
	*woken = fd < 0 ? (int)sfutex(w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0) :
			  k_wake(fd, w, 1, ~0u, 0);
	if (*woken <= 0) {
		/* let the waiter out anyway */
		w[0] = 1;
		if (fd >= 0)
			k_wake(fd, w, 1, ~0u, 0);
	}
	pthread_join(th, NULL);
	kill_and_reap(&kid, 1);
	munmap(w, 4096);
	return 0;
}

int t_numa_move(void)
{
	int cpu0 = cpu_of_node(0), cpu1 = cpu_of_node(1), woken, swoken, fd;
	cpu_set_t all;

	if (cpu0 < 0 || cpu1 < 0)
		return fail("needs two NUMA nodes with CPUs"), -1;
	sched_getaffinity(0, sizeof(all), &all);
	fd = open_design(FUTEXLAB_DESIGN_NUMA, 0);
	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	if (numa_move_once(-1, cpu0, cpu1, &swoken) ||
	    numa_move_once(fd, cpu0, cpu1, &woken)) {
		close(fd);
		sched_setaffinity(0, sizeof(all), &all);
		return -1;
	}
	close(fd);
	sched_setaffinity(0, sizeof(all), &all);
	if (woken != swoken)
		return fail("wake after the word moved to node 1 returned %d, stock %d",
			    woken, swoken), -1;
	return 0;
}

/* ------------------------------------------------------------ finding 5 */
int t_stats_huge(uint32_t design)
{
	static uint64_t counts[1 << 16];
	struct futexlab_stats s;
	int fd = open_design(design, 0), r;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	memset(&s, 0, sizeof(s));
	s.counts_ptr = (uintptr_t)counts;
	s.nr_counts = 1u << 30;
	r = xioctl(fd, FUTEXLAB_IOC_STATS, &s);
	close(fd);
	if (r)
		return fail("STATS with nr_counts 2^30: %d (%s)", r,
			    strerror(-r)), -1;
	if (s.nr_counts != s.buckets || s.buckets > (1u << 16))
		return fail("STATS wrote %u counts for %u buckets", s.nr_counts,
			    s.buckets), -1;
	return 0;
}

/* ------------------------------------------------------------ finding 6 */
int t_table_cap(void)
{
	long per_user_mib = module_param_read("private_mib_per_user");
	uint32_t *res = shared_words();
	pid_t kid;
	int fd, r, ret = -1;

	if (!res)
		return fail("mmap"), -1;
	fd = open_design(FUTEXLAB_DESIGN_PRIVATE, 1u << 20);
	if (fd >= 0) {
		close(fd);
		fail("a private table of 2^20 buckets (128 MiB) was allowed");
		goto out;
	}
	if (fd != -EINVAL) {
		fail("2^20 buckets: %d, want EINVAL", fd);
		goto out;
	}
	/* one user opens tables of the largest size until refused */
	res[0] = res[2] = res[4] = 0;
	kid = fork();
	if (kid == 0) {
		int fds[64], n = 0, i;

		if (setresuid(65534, 65534, 65534))
			_exit(1);
		for (n = 0; n < 64; n++) {
			fds[n] = open_design(FUTEXLAB_DESIGN_PRIVATE,
					     FUTEXLAB_MAX_PRIVATE_SLOTS);
			if (fds[n] < 0)
				break;
		}
		res[0] = (uint32_t)n;
		res[2] = n < 64 ? (uint32_t)fds[n] : 0;
		for (i = 0; i < n; i++)
			close(fds[i]);
		fds[0] = open_design(FUTEXLAB_DESIGN_PRIVATE,
				     FUTEXLAB_MAX_PRIVATE_SLOTS);
		res[4] = fds[0] >= 0 ? 1 : (uint32_t)fds[0];
		_exit(0);
	}
	waitpid(kid, NULL, 0);
	r = (int)res[2];
	if (per_user_mib < 0) {
		fail("no private_mib_per_user parameter; %u tables of 2^16 buckets then %d",
		     res[0], r);
		goto out;
	}
	if ((long)res[0] * 8 > per_user_mib || r != -ENOMEM) {
		fail("one user got %u tables of 8 MiB (cap %ld MiB), then %d",
		     res[0], per_user_mib, r);
		goto out;
	}
	if (res[4] != 1) {
		fail("after closing them, a table was refused: %d",
		     (int)res[4]);
		goto out;
	}
	ret = 0;
out:
	munmap(res, 4096);
	return ret;
}

/* ------------------------------------------------------------ finding 7 */
/* A waiter raised from FIFO 20 to 40 while queued: the boost follows. */
int t_pi_live_prio(uint32_t design)
{
	uint32_t *p = shared_words();
	struct holder h = { 0 };
	struct pi_waiter a = { 0 }, b = { 0 };
	pthread_t th, ta, tb;
	int fd = open_design(design, 0), ret = -1;

	if (fd < 0 || !p)
		return fail("setup"), -1;
	h.fd = fd;
	h.w = &p[0];
	if (start_holder(&h, &th)) {
		fail("holder");
		goto out;
	}
	a.fd = b.fd = fd;
	a.w = b.w = &p[0];
	a.prio = 20;
	b.prio = 10;
	a.deadline = b.deadline = now_ns() + 5 * SEC;
	start_pi_waiter(&a, &ta);
	if (wait_fifo(h.tid, 20)) {
		fail("owner not boosted to 20 by the first waiter");
		goto out_a;
	}
	set_fifo(a.tid, 40);
	start_pi_waiter(&b, &tb);	/* a new waiter: the boost is redone */
	if (wait_fifo(h.tid, 40)) {
		fail("owner not boosted to 40 after its waiter was raised to 40");
		goto out_b;
	}
	ret = 0;
out_b:
	stop_holder(&h, th);	/* hands over to a, then a times out... */
	pthread_join(ta, NULL);
	k_pi(fd, FUTEXLAB_IOC_UNLOCK_PI, &p[0], 0);
	pthread_join(tb, NULL);
	goto out;
out_a:
	stop_holder(&h, th);
	pthread_join(ta, NULL);
out:
	close(fd);
	munmap(p, 4096);
	return ret;
}

/* A SCHED_DEADLINE waiter boosts the owner to the top real-time priority. */
int t_pi_dl_waiter(uint32_t design)
{
	uint32_t *p = shared_words();
	struct holder h = { 0 };
	struct pi_waiter a = { 0 };
	struct sched_attr_k at;
	pthread_t th, ta;
	int fd = open_design(design, 0), max, ret = -1;

	if (fd < 0 || !p)
		return fail("setup"), -1;
	h.fd = fd;
	h.w = &p[0];
	if (start_holder(&h, &th)) {
		fail("holder");
		goto out;
	}
	a.fd = fd;
	a.w = &p[0];
	a.prio = -1;
	a.deadline = now_ns() + WAITER_BOUND;
	start_pi_waiter(&a, &ta);
	watch_policy(&a, h.tid, &max);
	pthread_join(ta, NULL);
	get_attr(h.tid, &at);
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
	stop_holder(&h, th);
out:
	close(fd);
	munmap(p, 4096);
	return ret;
}

/* LOCK_PI takes a word found free while a waiter is queued: boost moves. */
int t_pi_free_take(uint32_t design)
{
	uint32_t *p = shared_words();
	struct holder h = { 0 };
	struct pi_waiter a = { 0 };
	pthread_t th, ta;
	int fd = open_design(design, 0), r, ret = -1;

	if (fd < 0 || !p)
		return fail("setup"), -1;
	h.fd = fd;
	h.w = &p[0];
	if (start_holder(&h, &th)) {
		fail("holder");
		goto out;
	}
	a.fd = fd;
	a.w = &p[0];
	a.prio = 30;
	a.deadline = now_ns() + 3 * SEC;
	start_pi_waiter(&a, &ta);
	if (wait_fifo(h.tid, 30)) {
		fail("owner not boosted");
		goto out_a;
	}
	p[0] = 0;		/* the word is free, the waiter still queued */
	r = k_pi(fd, FUTEXLAB_IOC_LOCK_PI, &p[0], now_ns() + SEC);
	if (r || (p[0] & FUTEXLAB_TID_MASK) != (uint32_t)gettid_()) {
		fail("LOCK_PI of the free word: %d, word %#x", r, p[0]);
		goto out_a;
	}
	if (wait_fifo(h.tid, 0)) {
		fail("the old owner kept its boost after the lock changed hands");
		goto out_unlock;
	}
	if (wait_fifo(gettid_(), 30)) {
		fail("the new owner was not boosted by the queued waiter");
		goto out_unlock;
	}
	ret = 0;
out_unlock:
	k_pi(fd, FUTEXLAB_IOC_UNLOCK_PI, &p[0], 0);
	pthread_join(ta, NULL);
	if (!a.ret)
		k_pi(fd, FUTEXLAB_IOC_UNLOCK_PI, &p[0], 0);	/* (a's TID) */
	set_fifo(0, 0);
	h.state = 2;
	pthread_join(th, NULL);
	goto out;
out_a:
	stop_holder(&h, th);
	pthread_join(ta, NULL);
out:
	close(fd);
	munmap(p, 4096);
	return ret;
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
