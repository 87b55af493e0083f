// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest's chained-PI family, once per hash design: a boost
 * passes down a chain of owners blocked on module PI locks and unwinds as
 * they unlock; a cycle fails with EDEADLK and leaves nobody boosted; a
 * chain longer than pi_max_chain fails with EDEADLK; a waiter that times
 * out in the middle of a chain deboosts the owners below it; an owner that
 * unlocks and queues on its lock again is no cycle. Priorities are read
 * back with sched_getattr(); every wait has a deadline.
 *
 * The chain: T3 owns L3; T2 owns L2 and blocks on L3; T1 owns L1 and
 * blocks on L2; T0, SCHED_FIFO CHAIN_PRIO, blocks on L1.
 */
#include "kmodtest.h"

#include <sys/resource.h>

#define CHAIN_PRIO	40
#define PARAM_DEPTH	"pi_max_chain"
#define PARAM_DELAY	"pi_chain_test_delay_ms"
#define RELOCK_DELAY_MS	500

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

static int wait_flag(_Atomic int *flag, int want, uint64_t ns)
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
static int link_start(struct link *l, int fd, uint32_t *own, uint32_t *want,
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
static int link_unlock(struct link *l)
{
	l->release = 1;
	if (wait_flag(&l->stage, 3, 20 * SEC))
		return fail("tid %d did not unlock", l->tid), -1;
	return l->err;
}

/* Let @l unlock and return; join it. Non-zero on an unlock error. */
static int link_finish(struct link *l)
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
static int expect_attr(pid_t tid, const char *who, uint32_t policy,
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

static void init_words(uint32_t w[][2], int n)
{
	int i;

	for (i = 0; i < n; i++) {
		w[i][0] = 0;
		w[i][1] = FUTEXLAB_NO_NODE;
	}
}

/* T3 owns L3, T2 owns L2 and waits on L3, T1 owns L1 and waits on L2. */
static int start_chain(struct link t[4], int fd, uint32_t w[][2],
		       uint64_t t1_want_ns)
{
	if (link_start(&t[3], fd, w[3], NULL, 0, 0) ||
	    link_start(&t[2], fd, w[2], w[3], 0, 0) ||
	    link_start(&t[1], fd, w[1], w[2], 0, t1_want_ns))
		return -1;
	return 0;
}

static void finish_all(struct link t[4])
{
	int i;

	for (i = 3; i >= 0; i--)
		link_finish(&t[i]);
}

/*
 * The 3-deep chain, boosted then unwound; task i uses @fd[i], lock i has
 * node word @node[i] (NULL: FUTEXLAB_NO_NODE).
 */
static int chain_run(const int fd[4], const uint32_t *node)
{
	static uint32_t w[4][2];
	struct link t[4];
	int i, ret = -1;

	memset(t, 0, sizeof(t));
	init_words(w, 4);
	for (i = 0; node && i < 4; i++)
		w[i][1] = node[i];
	if (link_start(&t[3], fd[3], w[3], NULL, 0, 0) ||
	    link_start(&t[2], fd[2], w[2], w[3], 0, 0) ||
	    link_start(&t[1], fd[1], w[1], w[2], 0, 0) ||
	    link_start(&t[0], fd[0], NULL, w[1], CHAIN_PRIO, 0))
		goto out;
	if (expect_attr(t[1].tid, "T1 (owns L1, T0 waits)", SCHED_FIFO,
			CHAIN_PRIO) ||
	    expect_attr(t[2].tid, "T2 (owns L2, T1 waits)", SCHED_FIFO,
			CHAIN_PRIO) ||
	    expect_attr(t[3].tid, "T3 (owns L3, T2 waits)", SCHED_FIFO,
			CHAIN_PRIO))
		goto out;

	/*
	 * unwind: Tk unlocks Lk, which goes to T(k-1); Tk is deboosted, and
	 * the owners still between T0 and the lock keep T0's priority
	 */
	for (i = 3; i >= 1; i--) {
		char who[64];

		if (link_unlock(&t[i]))
			goto out_unlock;
		if (wait_flag(&t[i - 1].stage, 2, 10 * SEC) || t[i - 1].ret) {
			fail("T%d did not get L%d: %d", i - 1, i, t[i - 1].ret);
			goto out;
		}
		snprintf(who, sizeof(who), "T%d after unlocking L%d", i, i);
		if (expect_attr(t[i].tid, who, SCHED_OTHER, 0))
			goto out;
		snprintf(who, sizeof(who), "T%d owning L%d, L%d", i - 1,
			 i - 1, i);
		if (i >= 2 &&
		    expect_attr(t[i - 1].tid, who, SCHED_FIFO, CHAIN_PRIO))
			goto out;
		snprintf(who, sizeof(who), "T%d still waiting", i - 2);
		if (i >= 3 &&
		    expect_attr(t[i - 2].tid, who, SCHED_FIFO, CHAIN_PRIO))
			goto out;
	}
	if (link_unlock(&t[0]))
		goto out_unlock;
	ret = check_no_waiters(fd[0], "after the chain unwound");
	goto out;
out_unlock:
	fail("unlock failed");
out:
	finish_all(t);
	return ret;
}

int t_pi_chain(uint32_t design)
{
	int fd = open_design(design, 0), ret;
	const int fds[4] = { fd, fd, fd, fd };

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	ret = chain_run(fds, NULL);
	close(fd);
	return ret;
}

/*
 * The chain across files: each task on its own file of @design, global or
 * numa (their tables last as long as the module, so a walk may enter
 * them; with @node, the locks alternate between nodes 0 and 1, so the walk
 * crosses tables). Not the private design: there each file is its own
 * namespace, and the tasks would not even meet on one lock.
 */
static int chain_files(uint32_t design, const uint32_t *node)
{
	int fd[4], i, ret = 0;

	for (i = 0; i < 4; i++) {
		fd[i] = open_design(design, 0);
		if (fd[i] < 0) {
			fail("open: %s", strerror(-fd[i]));
			ret = -1;
		}
	}
	if (!ret)
		ret = chain_run(fd, node);
	for (i = 0; i < 4; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	return ret;
}

int t_pi_chain_files_global(void)
{
	return chain_files(FUTEXLAB_DESIGN_GLOBAL, NULL);
}

int t_pi_chain_files_numa(void)
{
	static const uint32_t node[4] = { 0, 1, 0, 1 };

	return chain_files(FUTEXLAB_DESIGN_NUMA, node);
}

/*
 * A owns L1 and waits on L2; B, SCHED_FIFO, owns L2 and asks for L1:
 * EDEADLK for B (not a sleep until its deadline), A back to SCHED_OTHER,
 * B at its own priority, and A still gets L2 once B lets it go.
 */
int t_pi_cycle(uint32_t design)
{
	static uint32_t w[2][2];
	struct link a, b;
	int fd = open_design(design, 0), ret = -1;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	init_words(w, 2);
	b.gated = 1;
	if (link_start(&b, fd, w[1], w[0], CHAIN_PRIO, 5 * SEC) ||
	    link_start(&a, fd, w[0], w[1], 0, 0))
		goto out;
	b.go = 1;
	if (wait_flag(&b.stage, 2, 15 * SEC)) {
		fail("B still in LOCK_PI on L1 15 s later");
		goto out;
	}
	if (b.ret != -EDEADLK) {
		fail("B's LOCK_PI closing the cycle: %d (%s), want EDEADLK",
		     b.ret, strerror(-b.ret));
		goto out;
	}
	if (expect_attr(a.tid, "A after B's EDEADLK", SCHED_OTHER, 0) ||
	    expect_attr(b.tid, "B after its EDEADLK", SCHED_FIFO, CHAIN_PRIO))
		goto out;
	if (a.stage != 1) {
		fail("A left its wait on L2: %d", a.ret);
		goto out;
	}
	if (link_finish(&b)) {
		fail("B's unlock: %d", b.err);
		goto out;
	}
	if (wait_flag(&a.stage, 2, 10 * SEC) || a.ret) {
		fail("A did not get L2 after B unlocked: %d", a.ret);
		goto out;
	}
	if (link_finish(&a)) {
		fail("A's unlocks: %d", a.err);
		goto out;
	}
	ret = check_no_waiters(fd, "after the cycle");
out:
	link_finish(&a);
	link_finish(&b);
	close(fd);
	return ret;
}

/*
 * With pi_max_chain 1, T1 may block on L2 (one lock beyond the first),
 * but T0 on L1 makes a chain two locks deep: EDEADLK, and nobody stays
 * boosted.
 */
int t_pi_chain_limit(uint32_t design)
{
	static uint32_t w[4][2];
	long old = module_param_read(PARAM_DEPTH);
	struct link t[4];
	int fd, r, ret = -1;

	if (old < 0)
		return fail("%s missing", PARAM_DEPTH), -1;
	r = module_param_write(PARAM_DEPTH, 1);
	if (r)
		return fail("write %s: %s", PARAM_DEPTH, strerror(-r)), -1;
	fd = open_design(design, 0);
	if (fd < 0) {
		fail("open: %s", strerror(-fd));
		goto out_param;
	}
	memset(t, 0, sizeof(t));
	init_words(w, 4);
	if (start_chain(t, fd, w, 0))
		goto out;
	if (link_start(&t[0], fd, NULL, w[1], CHAIN_PRIO, 10 * SEC) ||
	    wait_flag(&t[0].stage, 2, 15 * SEC)) {
		fail("T0 still in LOCK_PI");
		goto out;
	}
	if (t[0].ret != -EDEADLK) {
		fail("T0's LOCK_PI 2 locks deep with limit 1: %d (%s), want EDEADLK",
		     t[0].ret, strerror(-t[0].ret));
		goto out;
	}
	if (expect_attr(t[1].tid, "T1 after T0's EDEADLK", SCHED_OTHER, 0) ||
	    expect_attr(t[2].tid, "T2 after T0's EDEADLK", SCHED_OTHER, 0) ||
	    expect_attr(t[3].tid, "T3 after T0's EDEADLK", SCHED_OTHER, 0))
		goto out;
	if (t[1].stage != 1 || t[2].stage != 1) {
		fail("T1/T2 left their waits: %d %d", t[1].ret, t[2].ret);
		goto out;
	}
	finish_all(t);
	if (t[1].ret || t[2].ret) {
		fail("T1/T2 did not get their locks: %d %d", t[1].ret,
		     t[2].ret);
		goto out;
	}
	ret = check_no_waiters(fd, "after the limited chain");
out:
	finish_all(t);
	close(fd);
out_param:
	r = module_param_write(PARAM_DEPTH, old);
	if (r && !ret) {
		fail("restore %s: %s", PARAM_DEPTH, strerror(-r));
		ret = -1;
	}
	return ret;
}

/*
 * T1's wait on L2 times out while T0 waits on L1: T2 and T3 lose the
 * boost that came through T1, T1 keeps the one T0 gives it.
 */
int t_pi_chain_timeout(uint32_t design)
{
	static uint32_t w[4][2];
	struct link t[4];
	int fd = open_design(design, 0), ret = -1;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	memset(t, 0, sizeof(t));
	init_words(w, 4);
	if (start_chain(t, fd, w, 4 * SEC) ||
	    link_start(&t[0], fd, NULL, w[1], CHAIN_PRIO, 0))
		goto out;
	if (expect_attr(t[1].tid, "T1", SCHED_FIFO, CHAIN_PRIO) ||
	    expect_attr(t[2].tid, "T2", SCHED_FIFO, CHAIN_PRIO) ||
	    expect_attr(t[3].tid, "T3", SCHED_FIFO, CHAIN_PRIO))
		goto out;
	if (t[1].stage != 1) {
		fail("T1's 4 s wait ended before the boosts were seen (%d)",
		     t[1].ret);
		goto out;
	}
	if (wait_flag(&t[1].stage, 2, 15 * SEC) || t[1].ret != -ETIMEDOUT) {
		fail("T1's wait on L2: %d, want ETIMEDOUT", t[1].ret);
		goto out;
	}
	if (expect_attr(t[2].tid, "T2 after T1's timeout", SCHED_OTHER, 0) ||
	    expect_attr(t[3].tid, "T3 after T1's timeout", SCHED_OTHER, 0) ||
	    expect_attr(t[1].tid, "T1 (T0 still waits)", SCHED_FIFO,
			CHAIN_PRIO))
		goto out;
	finish_all(t);
	if (t[0].ret) {
		fail("T0 did not get L1: %d", t[0].ret);
		goto out;
	}
	ret = check_no_waiters(fd, "after the timeout");
out:
	finish_all(t);
	close(fd);
	return ret;
}

/*
 * Every step keeps the PI security model (docs/kmod.md) for every waiter
 * on the way: T0 (uid 1000, no CAP_SYS_NICE) may boost T1 (real uid
 * 1000, effective root), so it does; T1 could boost anyone, but T0
 * could not boost T2 (uid 2000), so the boost stops at T1.
 */
int t_pi_chain_rights(uint32_t design)
{
	static uint32_t w[3][2];
	struct rlimit old_rl, rl = { 99, 99 };
	struct link t[4];
	int fd = open_design(design, 0), ret = -1;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	/* per process: lets uid 1000's T0 be SCHED_FIFO CHAIN_PRIO */
	getrlimit(RLIMIT_RTPRIO, &old_rl);
	if (setrlimit(RLIMIT_RTPRIO, &rl)) {
		fail("setrlimit: %s", strerror(errno));
		close(fd);
		return -1;
	}
	memset(t, 0, sizeof(t));
	init_words(w, 3);
	t[2].set_uid = 1;
	t[2].ruid = t[2].euid = 2000;
	t[1].set_uid = 1;
	t[1].ruid = 1000;
	t[1].euid = 0;
	t[0].set_uid = 1;
	t[0].ruid = t[0].euid = 1000;
	if (link_start(&t[2], fd, w[2], NULL, 0, 0) ||
	    link_start(&t[1], fd, w[1], w[2], 0, 0) ||
	    link_start(&t[0], fd, NULL, w[1], CHAIN_PRIO, 0))
		goto out;
	if (expect_attr(t[1].tid, "T1 (uid 1000, euid 0)", SCHED_FIFO,
			CHAIN_PRIO) ||
	    expect_attr(t[2].tid, "T2 (uid 2000: T0 may not boost it)",
			SCHED_OTHER, 0))
		goto out;
	finish_all(t);
	if (t[0].ret || t[1].ret || t[0].err || t[1].err || t[2].err) {
		fail("lock results: T0 %d T1 %d, errors %d %d %d", t[0].ret,
		     t[1].ret, t[0].err, t[1].err, t[2].err);
		goto out;
	}
	ret = check_no_waiters(fd, "after the chain");
out:
	finish_all(t);
	setrlimit(RLIMIT_RTPRIO, &old_rl);
	close(fd);
	return ret;
}

/* The owner of pi-chain-relock: takes L, then on @go unlocks and relocks */
struct relocker {
	pthread_t th;
	int fd;
	uint32_t *w;
	_Atomic pid_t tid;
	_Atomic int stage;	/* 1: owns L; 2: unlocked it; 3: relocked */
	_Atomic int go;
	_Atomic int ret;	/* the second LOCK_PI */
	_Atomic int err;
};

static void *relocker_main(void *p)
{
	struct relocker *o = p;
	int r;

	o->tid = (pid_t)syscall(SYS_gettid);
	r = k_pi(o->fd, FUTEXLAB_IOC_LOCK_PI, o->w, now_ns() + 10 * SEC);
	if (r)
		o->err = r;
	o->stage = 1;
	if (r)
		return NULL;
	wait_flag(&o->go, 1, 30 * SEC);
	r = k_pi(o->fd, FUTEXLAB_IOC_UNLOCK_PI, o->w, 0);
	if (r)
		o->err = r;
	o->stage = 2;
	if (r)
		return NULL;
	o->ret = k_pi(o->fd, FUTEXLAB_IOC_LOCK_PI, o->w, now_ns() + 30 * SEC);
	if (!o->ret && (r = k_pi(o->fd, FUTEXLAB_IOC_UNLOCK_PI, o->w, 0)))
		o->err = r;
	o->stage = 3;
	return NULL;
}

/*
 * One lock, no chain: O owns L; X (SCHED_FIFO) and then W wait on it. W's
 * LOCK_PI walk reads O as L's owner and, with pi_chain_test_delay_ms, sleeps
 * before its next step; meanwhile O unlocks (L goes to X, the top waiter)
 * and queues on L again. The walk must not take O, now queued on L, for
 * L's owner blocked on L: W gets L (after X), not EDEADLK. Without the
 * delay this is the rare interleaving that failed pi-stress.
 */
int t_pi_chain_relock(uint32_t design)
{
	static uint32_t w[1][2];
	long old = module_param_read(PARAM_DELAY);
	struct relocker o;
	struct link x, wl;
	int fd, r, ret = -1;

	if (old < 0)
		return fail("%s missing", PARAM_DELAY), -1;
	fd = open_design(design, 0);
	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	memset(&o, 0, sizeof(o));
	memset(&x, 0, sizeof(x));
	memset(&wl, 0, sizeof(wl));
	init_words(w, 1);
	o.fd = fd;
	o.w = w[0];
	if (pthread_create(&o.th, NULL, relocker_main, &o)) {
		fail("pthread_create");
		close(fd);
		return -1;
	}
	if (wait_flag(&o.stage, 1, 10 * SEC) || o.err) {
		fail("O's LOCK_PI on the free L: %d", o.err);
		goto out;
	}
	if (link_start(&x, fd, NULL, w[0], CHAIN_PRIO, 0))
		goto out;
	r = module_param_write(PARAM_DELAY, RELOCK_DELAY_MS);
	if (r) {
		fail("write %s: %s", PARAM_DELAY, strerror(-r));
		goto out;
	}
	/* W sleeps in its walk's delay, O read as L's owner */
	if (link_start(&wl, fd, NULL, w[0], 0, 0))
		goto out;
	o.go = 1;
	if (wait_flag(&o.stage, 2, 10 * SEC) || o.err) {
		fail("O's UNLOCK_PI: %d", o.err);
		goto out;
	}
	if (wait_sleeping(o.tid)) {
		fail("O never slept in its second LOCK_PI (stage %d)",
		     o.stage);
		goto out;
	}
	/* W's walk goes on now; then no more delays */
	usleep(2 * RELOCK_DELAY_MS * 1000);
	r = module_param_write(PARAM_DELAY, old);
	if (r) {
		fail("restore %s: %s", PARAM_DELAY, strerror(-r));
		goto out;
	}
	if (wl.stage >= 2) {
		fail("W's LOCK_PI returned %d (%s) while X held L, O queued again on it%s",
		     wl.ret, strerror(-wl.ret),
		     wl.ret == -EDEADLK ? ": a false deadlock" : "");
		goto out;
	}
	if (wait_flag(&x.stage, 2, 10 * SEC) || x.ret) {
		fail("X did not get L from O's unlock: %d", x.ret);
		goto out;
	}
	/* X hands L to W (queued before O, the same priority), W to O */
	if (link_finish(&x) || wait_flag(&wl.stage, 2, 10 * SEC) || wl.ret) {
		fail("W did not get L after X: %d (X %d)", wl.ret, x.err);
		goto out;
	}
	if (link_finish(&wl) || wait_flag(&o.stage, 3, 10 * SEC) || o.ret ||
	    o.err) {
		fail("O did not get L again after W: %d (W %d, O %d)", o.ret,
		     wl.err, o.err);
		goto out;
	}
	ret = check_no_waiters(fd, "after the relock");
out:
	r = module_param_write(PARAM_DELAY, old);
	if (r && !ret) {
		fail("restore %s: %s", PARAM_DELAY, strerror(-r));
		ret = -1;
	}
	link_finish(&x);
	link_finish(&wl);
	o.go = 1;
	pthread_join(o.th, NULL);
	close(fd);
	return ret;
}
