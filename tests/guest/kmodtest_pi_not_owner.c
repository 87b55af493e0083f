// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest's not-owner family: a PI lock word is a number any task that
 * maps it may write, so writing it must not let a task hand over a lock
 * it does not own in the kernel, nor end the boost of its owner. Each
 * case builds one scene, on the stock futex and then on the module in
 * the same guest: O, a process with RLIMIT_RTPRIO 30,
 * holds a word on a shared page; W, of O's uid at SCHED_FIFO 12, blocks
 * in LOCK_PI on it, so the module boosts O to FIFO 12. Then X, a process
 * of uid 65534 that may write the page, acts on the word: in each test
 * O and W are of uid 65533 (another user), in its -same-uid twin of
 * 65534. Afterwards the word must be what X left in it, W still queued
 * and O still at FIFO 12; then O unlocks normally, W gets the lock and O
 * ends SCHED_OTHER.
 *   pi-not-owner-unlock   UNLOCK_PI while the word names O: EPERM; after
 *                         storing its own TID | WAITERS: EINVAL (the
 *                         stock futex's answers: the kernel's PI state
 *                         names O);
 *   pi-not-owner-take     the word stored 0, the waiter still queued:
 *                         TRYLOCK_PI and LOCK_PI are EINVAL, as stock;
 *   pi-not-owner-requeue  X's thread Y waits in WAIT_REQUEUE_PI for the
 *                         word; CMP_REQUEUE_PI onto it stored 0, then
 *                         naming X: EINVAL both, Y left to its deadline;
 *   pi-not-owner-leave    X (SCHED_FIFO 20) waits in LOCK_PI until its
 *                         deadline, then with FUTEXLAB_F_INTERRUPTIBLE
 *                         until a signal: of O's uid it boosts O to 20
 *                         and leaves it at W's 12 (ETIMEDOUT, ECANCELED);
 *                         of another uid it queues behind W too (the word
 *                         agrees with the kernel's owner, whom the module
 *                         then never looks up) but boosts nothing;
 *   pi-not-owner-exit     X stores its TID | WAITERS and exits: W, which
 *                         checks for a dead owner every pi_owner_check_ms,
 *                         must not take the lock over;
 *   pi-not-owner-adaptive LOCK_ADAPTIVE on the PI word (another uid's
 *                         owner reads as dead: taken over, EOWNERDEAD;
 *                         O's uid: ETIMEDOUT), then UNLOCK_PI (EINVAL
 *                         where the word names X, else EPERM) and
 *                         UNLOCK_ADAPTIVE: no stock counterpart.
 */
#include <grp.h>
#include <linux/futex.h>
#include <sys/resource.h>

#include "kmodtest_safety.h"

#define W_PRIO		12	/* W's SCHED_FIFO priority */
#define X_PRIO		20	/* X's, in pi-not-owner-leave */
#define O_RTPRIO	30	/* O's RLIMIT_RTPRIO: W and X may boost it */
#define W_BOUND		(20 * SEC)	/* W's deadline: never reached */
#define X_BOUND		(300 * MS)	/* X's own waits */

/* Shared between the test and O, W and X (a page of its own). */
struct scene_ctl {
	_Atomic pid_t o_tid, w_tid, x_tid;
	_Atomic int o_ret, o_go, o_unlock;
	_Atomic int w_ret, w_unlock, w_done;
	_Atomic uint32_t w_seen;
	_Atomic int x_ret[3];
};

/* p[0] is the lock, p[4] a condition word (p[1], p[5]: node words). */
struct scene {
	int stock;		/* the stock futex, else the module */
	uid_t uid;		/* O's and W's */
	uint32_t design;
	uint32_t *p;
	struct scene_ctl *c;
	pid_t o, w;
	int o_max;		/* O's highest FIFO priority while X ran */
};

enum { PI_LOCK, PI_TRYLOCK, PI_UNLOCK };

/*
 * LOCK_PI, TRYLOCK_PI or UNLOCK_PI on a shared word, stock or module,
 * with a deadline @ns from now (0: none) and the module's extra @flags.
 */
static int pi_op(const struct scene *s, int fd, int op, uint32_t *w,
		 uint64_t ns, uint32_t flags)
{
	static const int stock_op[] = { FUTEX_LOCK_PI, FUTEX_TRYLOCK_PI,
					 FUTEX_UNLOCK_PI };
	static const unsigned long cmd[] = { FUTEXLAB_IOC_LOCK_PI,
					     FUTEXLAB_IOC_TRYLOCK_PI,
					     FUTEXLAB_IOC_UNLOCK_PI };
	struct futexlab_pi a = { .uaddr = (uintptr_t)w,
				 .flags = FUTEXLAB_F_SHARED | flags };
	struct timespec ts = realtime_in(ns);

	if (s->stock)
		return (int)sfutex(w, stock_op[op], 0, ns ? &ts : NULL, NULL, 0);
	if (ns) {
		a.deadline_ns = now_ns() + ns;
		a.flags |= FUTEXLAB_F_DEADLINE;
	}
	return xioctl(fd, cmd[op], &a);
}

static int scene_fd(const struct scene *s)
{
	return s->stock ? -1 : open_design(s->design, 0);
}

static int drop_to(uid_t uid)
{
	return setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	       setresuid(uid, uid, uid) ? -1 : 0;
}

/* Wait (5 s at most) until @cond holds; 0, or -1. */
#define AWAIT(cond) ({							\
	uint64_t end_ = now_ns() + 5 * SEC;				\
	while (!(cond) && now_ns() < end_)				\
		usleep(1000);						\
	(cond) ? 0 : -1;						\
})

static void __attribute__((noreturn)) owner_main(struct scene *s)
{
	struct scene_ctl *c = s->c;
	uint64_t end = now_ns() + 60 * SEC;
	int fd;

	struct rlimit rl = { O_RTPRIO, O_RTPRIO };

	if (setrlimit(RLIMIT_RTPRIO, &rl) || drop_to(s->uid))
		_exit(1);
	fd = scene_fd(s);
	c->o_ret = pi_op(s, fd, PI_TRYLOCK, &s->p[0], 0, 0);
	c->o_tid = self_tid();
	while (!c->o_go && now_ns() < end)
		usleep(1000);
	c->o_unlock = pi_op(s, fd, PI_UNLOCK, &s->p[0], 0, 0);
	_exit(0);
}

static void __attribute__((noreturn)) waiter_main(struct scene *s)
{
	struct scene_ctl *c = s->c;
	int fd;

	if (set_fifo(0, W_PRIO) || drop_to(s->uid))
		_exit(1);
	fd = scene_fd(s);
	c->w_tid = self_tid();
	c->w_ret = pi_op(s, fd, PI_LOCK, &s->p[0], W_BOUND, 0);
	if (!c->w_ret) {
		c->w_seen = s->p[0];
		c->w_unlock = pi_op(s, fd, PI_UNLOCK, &s->p[0], 0, 0);
	}
	c->w_done = 1;
	_exit(0);
}

static void scene_kill(struct scene *s)
{
	if (s->w > 0)
		kill_and_reap(&s->w, 1);
	if (s->o > 0)
		kill_and_reap(&s->o, 1);
	munmap(s->p, 4096);
	munmap(s->c, 4096);
}

/* O holds the word, W blocks on it (and O is boosted, on the module). */
static int scene_start(struct scene *s, uint32_t design, int stock,
		       uid_t uid)
{
	memset(s, 0, sizeof(*s));
	s->stock = stock;
	s->uid = uid;
	s->design = design;
	s->p = shared_words();
	s->c = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!s->p || s->c == MAP_FAILED)
		return fail("mmap"), -1;
	memset(s->c, 0, sizeof(*s->c));
	s->c->o_ret = 1;
	s->o = fork();
	if (s->o == 0)
		owner_main(s);
	if (AWAIT(s->c->o_tid) || s->c->o_ret) {
		fail("%s: O could not take the word: %d",
		     stock ? "stock" : "kmod", s->c->o_ret);
		goto out;
	}
	s->w = fork();
	if (s->w == 0)
		waiter_main(s);
	if (AWAIT(count_sleeping(&s->w, 1) &&
		  (s->p[0] & FUTEXLAB_WAITERS)) ||
	    (!stock && wait_fifo(s->c->o_tid, W_PRIO))) {
		fail("%s: W did not block on O's word (word %#x), or O was not boosted to FIFO %d",
		     stock ? "stock" : "kmod", s->p[0], W_PRIO);
		goto out;
	}
	return 0;
out:
	scene_kill(s);
	return -1;
}

/* After X: the word is @word, W still queued, O still at W's boost. */
static int scene_intact(const struct scene *s, uint32_t word, const char *x)
{
	struct sched_attr_k at;

	if (s->p[0] != word)
		return fail("%s: the word became %#x, want %#x", x, s->p[0],
			    word), -1;
	if (s->c->w_done)
		return fail("%s: W's LOCK_PI returned %d: the lock was handed over",
			    x, s->c->w_ret), -1;
	if (!s->stock && (get_attr(s->c->o_tid, &at) ||
			  at.sched_policy != SCHED_FIFO ||
			  at.sched_priority != W_PRIO))
		return fail("%s: O deboosted to policy %u prio %u, was FIFO %d",
			    x, at.sched_policy, at.sched_priority, W_PRIO), -1;
	return 0;
}

/* Give the word back to O, let O unlock: W gets it, O ends unboosted. */
static int scene_end(struct scene *s)
{
	struct scene_ctl *c = s->c;
	int ret = -1;

	s->p[0] = (uint32_t)c->o_tid | FUTEXLAB_WAITERS;
	c->o_go = 1;
	if (reap_bounded(s->o, now_ns() + 5 * SEC, "O"))
		goto out;
	s->o = -1;
	if (AWAIT(c->w_done))
		fail("O's unlock (%d) did not hand the lock to W", c->o_unlock);
	else if (c->o_unlock || c->w_ret || c->w_unlock ||
		 (c->w_seen & FUTEXLAB_TID_MASK) != (uint32_t)c->w_tid)
		fail("O's UNLOCK_PI %d, W's LOCK_PI %d (word %#x, W is %d), W's UNLOCK_PI %d",
		     c->o_unlock, c->w_ret, c->w_seen, c->w_tid, c->w_unlock);
	else
		ret = 0;
out:
	scene_kill(s);
	return ret;
}

/*
 * Run @fn(@s, fd) in X, a process of uid 65534 at SCHED_FIFO @prio (0:
 * none), watching O's FIFO priority meanwhile.
 */
static int run_x(struct scene *s, int prio,
		 void (*fn)(const struct scene *, int), const char *what)
{
	uint64_t end = now_ns() + 10 * SEC;
	struct sched_attr_k at;
	pid_t kid;

	s->c->x_ret[0] = s->c->x_ret[1] = s->c->x_ret[2] = 1;
	kid = fork();
	if (kid == 0) {
		if ((prio && set_fifo(0, prio)) || drop_to(NOBODY))
			_exit(1);
		s->c->x_tid = self_tid();
		fn(s, scene_fd(s));
		_exit(0);
	}
	s->o_max = 0;
	while (now_ns() < end) {
		if (!get_attr(s->c->o_tid, &at) &&
		    at.sched_policy == SCHED_FIFO &&
		    (int)at.sched_priority > s->o_max)
			s->o_max = (int)at.sched_priority;
		if (waitpid(kid, NULL, WNOHANG) == kid)
			return 0;
		usleep(2000);
	}
	return reap_bounded(kid, now_ns(), what);
}

/* ------------------------------------------------------------ the cases */
static void x_unlock(const struct scene *s, int fd)
{
	uint32_t *w = &s->p[0];

	s->c->x_ret[0] = pi_op(s, fd, PI_UNLOCK, w, 0, 0);
	*w = (uint32_t)self_tid() | FUTEXLAB_WAITERS;
	s->c->x_ret[1] = pi_op(s, fd, PI_UNLOCK, w, 0, 0);
}

static void x_take(const struct scene *s, int fd)
{
	uint32_t *w = &s->p[0];

	*w = 0;
	s->c->x_ret[0] = pi_op(s, fd, PI_TRYLOCK, w, 0, 0);
	s->c->x_ret[1] = pi_op(s, fd, PI_LOCK, w, X_BOUND, 0);
}

/* X's thread Y: WAIT_REQUEUE_PI on p[4] for the lock p[0]. */
struct rq_waiter {
	const struct scene *s;
	int fd;
	_Atomic pid_t tid;
	_Atomic int ret;
};

static void *rq_waiter_main(void *p)
{
	struct rq_waiter *y = p;
	uint32_t *cond = &y->s->p[4], *w = &y->s->p[0];
	uint64_t dl = now_ns() + 3 * X_BOUND;
	struct futexlab_wait_requeue_pi a = {
		.uaddr = (uintptr_t)cond, .uaddr2 = (uintptr_t)w,
		.deadline_ns = dl,
		.flags = FUTEXLAB_F_SHARED | FUTEXLAB_F_DEADLINE,
	};
	struct timespec ts = { (time_t)(dl / SEC), (long)(dl % SEC) };

	y->tid = self_tid();
	if (y->s->stock)
		y->ret = (int)sfutex(cond, FUTEX_WAIT_REQUEUE_PI, 0, &ts, w, 0);
	else
		y->ret = xioctl(y->fd, FUTEXLAB_IOC_WAIT_REQUEUE_PI, &a);
	return NULL;
}

static int cmp_requeue_pi(const struct scene *s, int fd)
{
	struct futexlab_requeue a = {
		.uaddr = (uintptr_t)&s->p[4], .uaddr2 = (uintptr_t)&s->p[0],
		.nr_wake = 1, .nr_requeue = 1, .flags = FUTEXLAB_F_SHARED,
	};

	if (s->stock)
		return (int)sfutex(&s->p[4], FUTEX_CMP_REQUEUE_PI, 1,
				   (void *)(uintptr_t)1, &s->p[0], 0);
	return xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE_PI, &a);
}

static void x_requeue(const struct scene *s, int fd)
{
	struct rq_waiter y = { .s = s, .fd = fd };
	uint32_t *w = &s->p[0];
	pthread_t th;

	if (start_sleeper(&th, rq_waiter_main, &y, &y.tid))
		return;
	*w = 0;
	s->c->x_ret[0] = cmp_requeue_pi(s, fd);
	*w = (uint32_t)self_tid() | FUTEXLAB_WAITERS;
	s->c->x_ret[1] = cmp_requeue_pi(s, fd);
	pthread_join(th, NULL);
	s->c->x_ret[2] = y.ret;		/* its deadline, not the lock */
}

static void on_alarm(int sig)
{
	(void)sig;
}

static void x_leave(const struct scene *s, int fd)
{
	struct sigaction sa = { .sa_handler = on_alarm };

	s->c->x_ret[0] = pi_op(s, fd, PI_LOCK, &s->p[0], X_BOUND, 0);
	if (s->stock)
		return;
	sigaction(SIGALRM, &sa, NULL);
	ualarm((useconds_t)(X_BOUND / 1000), 0);
	s->c->x_ret[1] = pi_op(s, fd, PI_LOCK, &s->p[0], 10 * X_BOUND,
			       FUTEXLAB_F_INTERRUPTIBLE);
}

static void x_exit(const struct scene *s, int fd)
{
	(void)fd;
	s->p[0] = (uint32_t)self_tid() | FUTEXLAB_WAITERS;
}

static void x_adaptive(const struct scene *s, int fd)
{
	struct futexlab_adaptive a = {
		.uaddr = (uintptr_t)&s->p[0],
		.flags = FUTEXLAB_F_SHARED | FUTEXLAB_F_DEADLINE,
		.deadline_ns = now_ns() + X_BOUND,
	};

	s->c->x_ret[0] = xioctl(fd, FUTEXLAB_IOC_LOCK_ADAPTIVE, &a);
	s->c->x_ret[1] = pi_op(s, fd, PI_UNLOCK, &s->p[0], 0, 0);
	a.flags = FUTEXLAB_F_SHARED;
	s->c->x_ret[2] = xioctl(fd, FUTEXLAB_IOC_UNLOCK_ADAPTIVE, &a);
}

/* W's slice between two checks for a dead owner, in ms. */
static long check_ms(void)
{
	long ms = module_param_read("pi_owner_check_ms");

	return ms > 0 && ms <= 1000 ? ms : 100;
}

/* What a case expects of X, for O of another uid [0] and of X's [1]. */
struct not_owner_case {
	const char *name;
	void (*fn)(const struct scene *, int);
	int stock;		/* also run on the stock futex */
	int prio;		/* X's SCHED_FIFO priority */
	int nret;		/* results of X to compare */
	int want[2][3];		/* the module's, after the fix */
	int o_max[2];		/* O's FIFO priority while X ran */
};

/* The word X leaves for case @k (by X's TID and O's). */
static uint32_t word_after(const struct scene *s, const struct not_owner_case *k,
			   int same_uid)
{
	uint32_t x = (uint32_t)s->c->x_tid, o = (uint32_t)s->c->o_tid;

	if (k->fn == x_take)
		return 0;
	if (k->fn == x_unlock || k->fn == x_requeue || k->fn == x_exit)
		return x | FUTEXLAB_WAITERS;
	if (k->fn == x_adaptive && !same_uid)
		return 0;	/* taken over, then UNLOCK_ADAPTIVE'd */
	return o | FUTEXLAB_WAITERS;
}

static int run_case(uint32_t design, const struct not_owner_case *k,
		    int same_uid)
{
	uid_t uid = same_uid ? NOBODY : NOBODY - 1;
	int stock_ret[3] = { 0 }, j, b;
	struct scene s;
	char what[96], stock[32] = "";

	for (b = k->stock; b >= 0; b--) {
		snprintf(what, sizeof(what), "%s O of uid %u",
			 b ? "stock:" : "kmod:", uid);
		if (scene_start(&s, design, b, uid))
			return -1;
		if (run_x(&s, k->prio, k->fn, what))
			return scene_kill(&s), -1;
		for (j = 0; j < k->nret && b; j++)
			stock_ret[j] = s.c->x_ret[j];
		for (j = 0; j < k->nret && !b; j++) {
			if (s.c->x_ret[j] == k->want[same_uid][j])
				continue;
			if (k->stock)
				snprintf(stock, sizeof(stock), "; stock %d",
					 stock_ret[j]);
			fail("%s: X's result %d is %d (%s), want %d%s", what,
			     j, s.c->x_ret[j], strerror(-s.c->x_ret[j]),
			     k->want[same_uid][j], stock);
			return scene_kill(&s), -1;
		}
		if (k->fn == x_exit)	/* W's owner checks */
			usleep(3000 * (useconds_t)check_ms());
		if (scene_intact(&s, word_after(&s, k, same_uid), what))
			return scene_kill(&s), -1;
		if (!b && s.o_max != k->o_max[same_uid])
			return fail("%s: O reached FIFO %d while X ran, want %d",
				    what, s.o_max, k->o_max[same_uid]),
				scene_kill(&s), -1;
		if (scene_end(&s))
			return -1;
	}
	return 0;
}

static const struct not_owner_case cases[] = {
	{ "unlock", x_unlock, 1, 0, 2,
	  { { -EPERM, -EINVAL }, { -EPERM, -EINVAL } }, { W_PRIO, W_PRIO } },
	{ "take", x_take, 1, 0, 2,
	  { { -EINVAL, -EINVAL }, { -EINVAL, -EINVAL } }, { W_PRIO, W_PRIO } },
	{ "requeue", x_requeue, 1, 0, 3,
	  { { -EINVAL, -EINVAL, -ETIMEDOUT },
	    { -EINVAL, -EINVAL, -ETIMEDOUT } }, { W_PRIO, W_PRIO } },
	{ "leave", x_leave, 1, X_PRIO, 2,
	  { { -ETIMEDOUT, -ECANCELED }, { -ETIMEDOUT, -ECANCELED } },
	  { W_PRIO, X_PRIO } },
	{ "exit", x_exit, 1, 0, 0, { { 0 } }, { W_PRIO, W_PRIO } },
	{ "adaptive", x_adaptive, 0, 0, 3,
	  { { -EOWNERDEAD, -EINVAL, 0 }, { -ETIMEDOUT, -EPERM, -EPERM } },
	  { W_PRIO, W_PRIO } },
};

/* Each case twice: O of another uid than X's, and of X's. */
#define NOT_OWNER_TEST(n, i)						\
int t_pi_not_owner_##n(uint32_t design)					\
{									\
	return run_case(design, &cases[i], 0);				\
}									\
int t_pi_not_owner_##n##_same_uid(uint32_t design)			\
{									\
	return run_case(design, &cases[i], 1);				\
}
NOT_OWNER_TEST(unlock, 0)
NOT_OWNER_TEST(take, 1)
NOT_OWNER_TEST(requeue, 2)
NOT_OWNER_TEST(leave, 3)
NOT_OWNER_TEST(exit, 4)
NOT_OWNER_TEST(adaptive, 5)
