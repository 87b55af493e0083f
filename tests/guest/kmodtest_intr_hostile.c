// SPDX-License-Identifier: GPL-2.0
/*
 * FUTEXLAB_F_INTERRUPTIBLE under hostile use: the flag on every operation
 * that does not sleep (EINVAL, nothing done), a storm of signals at
 * waiters with and without it (no waiter left queued, no lock lost, the
 * kernel log checked by run-all.sh), and a signal racing a wake: a wake
 * that reached the cancelled waiter first counts it (the waiter returns
 * 0, as the stock futex's does when EINTR loses the same race), else it
 * goes to the next waiter; either way no wake is lost.
 */
#include "kmodtest_intr.h"

static uint32_t hw[16] __attribute__((aligned(64)));

/* @cmd with @arg is EINVAL while it carries the flag. */
static int refused(int fd, unsigned long cmd, void *arg, const char *what)
{
	int r = xioctl(fd, cmd, arg);

	if (r == -EINVAL)
		return 0;
	fail("%s with FUTEXLAB_F_INTERRUPTIBLE: got %d, want EINVAL", what, r);
	return -1;
}

int t_intr_refused(uint32_t design)
{
	const uint32_t I = FUTEXLAB_F_INTERRUPTIBLE;
	const uint32_t N = FUTEXLAB_F_NODE;
	uint32_t me = (uint32_t)syscall(SYS_gettid);
	struct futexlab_wake wk = {
		.uaddr = (uintptr_t)&hw[0], .nr_wake = 1,
		.bitset = FUTEXLAB_BITSET_ANY, .flags = N | I,
		.node = FUTEXLAB_NO_NODE,
	};
	struct futexlab_requeue rq = {
		.uaddr = (uintptr_t)&hw[0], .uaddr2 = (uintptr_t)&hw[8],
		.nr_wake = 1, .flags = N | I, .node = FUTEXLAB_NO_NODE,
		.node2 = FUTEXLAB_NO_NODE,
	};
	struct futexlab_pi pi = {
		.uaddr = (uintptr_t)&hw[8], .flags = N | I,
		.node = FUTEXLAB_NO_NODE,
	};
	struct futexlab_adaptive ad = {
		.uaddr = (uintptr_t)&hw[4], .flags = N | I,
		.node = FUTEXLAB_NO_NODE,
	};
	struct futexlab_waitv v = {
		.uaddr = (uintptr_t)&hw[0],
		.flags = FUTEXLAB_WAITV_SIZE_U32 | FUTEXLAB_WAITV_PRIVATE | I,
	};
	struct futexlab_waitv_args va = { .waiters = (uintptr_t)&v, .nr = 1 };
	struct futexlab_design d = { .flags = I };
	struct futexlab_stats s = { .flags = I };
	int fd = open_design(design, 0), ret = -1;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	memset(hw, 0, sizeof(hw));
	if (refused(fd, FUTEXLAB_IOC_WAKE, &wk, "WAKE") ||
	    refused(fd, FUTEXLAB_IOC_CMP_REQUEUE, &rq, "CMP_REQUEUE") ||
	    refused(fd, FUTEXLAB_IOC_CMP_REQUEUE_PI, &rq, "CMP_REQUEUE_PI") ||
	    refused(fd, FUTEXLAB_IOC_TRYLOCK_PI, &pi, "TRYLOCK_PI"))
		goto out;
	if (hw[8] != 0) {
		fail("TRYLOCK_PI with the flag took the lock: %#x", hw[8]);
		goto out;
	}
	EXPECT(intr_pi(fd, FUTEXLAB_IOC_LOCK_PI, &hw[8], 0), 0, "lock_pi");
	if (refused(fd, FUTEXLAB_IOC_UNLOCK_PI, &pi, "UNLOCK_PI"))
		goto out;
	EXPECT(intr_pi(fd, FUTEXLAB_IOC_UNLOCK_PI, &hw[8], 0), 0,
	       "unlock_pi without the flag");
	hw[4] = me;
	if (refused(fd, FUTEXLAB_IOC_UNLOCK_ADAPTIVE, &ad, "UNLOCK_ADAPTIVE"))
		goto out;
	if (hw[4] != me) {
		fail("UNLOCK_ADAPTIVE with the flag released: %#x", hw[4]);
		goto out;
	}
	/* an entry's flags are futex_waitv's: the bit is not one of them */
	if (refused(fd, FUTEXLAB_IOC_WAITV, &va, "a WAITV entry") ||
	    refused(fd, FUTEXLAB_IOC_GET_DESIGN, &d, "GET_DESIGN") ||
	    refused(fd, FUTEXLAB_IOC_STATS, &s, "STATS") ||
	    refused(fd, FUTEXLAB_IOC_SET_DESIGN, &d, "SET_DESIGN"))
		goto out;
	/* the same calls without the flag work: the flag was the fault */
	wk.flags = N;
	rq.flags = N;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAKE, &wk), 0, "WAKE without it");
	EXPECT(xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE, &rq), 0,
	       "CMP_REQUEUE without it");
	EXPECT(xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE_PI, &rq), 0,
	       "CMP_REQUEUE_PI without it");
	memset(&d, 0, sizeof(d));
	EXPECT(xioctl(fd, FUTEXLAB_IOC_GET_DESIGN, &d), 0, "GET_DESIGN");
	if (d.version != FUTEXLAB_VERSION) {
		fail("module version %u, this test speaks %u", d.version,
		     FUTEXLAB_VERSION);
		goto out;
	}
	ret = check_no_waiters(fd, "after the refused calls");
out:
	close(fd);
	return ret;
}

/* A waiter that keeps waiting with the flag until told to stop. */
struct storm_loop {
	int fd;
	enum intr_op op;
	uint32_t *w;
	pthread_t th;
	_Atomic pid_t tid;
	_Atomic int stop;
	_Atomic long cancelled;
	_Atomic int bad;	/* a result other than ECANCELED, or 0 */
};

static void *storm_loop_main(void *arg)
{
	struct storm_loop *l = arg;
	int r;

	l->tid = (pid_t)syscall(SYS_gettid);
	while (!l->stop) {
		/* a deadline, so the loop ends even if the last signal missed */
		r = intr_call(l->fd, l->op, l->w, NULL, 0,
			      FUTEXLAB_F_INTERRUPTIBLE, now_ns() + 2 * SEC);
		if (r == -ECANCELED)
			l->cancelled++;
		else if (!(r == -ETIMEDOUT && l->stop))
			l->bad = r ? r : -1000;
	}
	return NULL;
}

#define STORM_MIN	500
#define STORM_MAX_NS	(20 * SEC)

/*
 * For a second, and at least STORM_MIN rounds, signals at three threads:
 * a waiter and a LOCK_PI caller with the flag, looping, and a LOCK_PI
 * waiter without it, which must go on waiting and get the lock at our
 * unlock.
 */
int t_intr_storm(uint32_t design)
{
	struct storm_loop lw = { .op = I_WAIT, .w = &hw[0] };
	struct storm_loop lp = { .op = I_LOCK_PI, .w = &hw[8] };
	struct intr_thread t = { .op = I_LOCK_PI, .w = &hw[8] };
	int fd = open_design(design, 0), ret = -1, started = 0;
	struct futexlab_stats before, after;
	uint64_t start;
	long sent = 0;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	memset(hw, 0, sizeof(hw));
	intr_handlers();
	lw.fd = lp.fd = t.fd = fd;
	k_stats(fd, &before, NULL, 0);
	EXPECT(intr_pi(fd, FUTEXLAB_IOC_LOCK_PI, &hw[8], 0), 0, "lock_pi");
	if (intr_start(&t))
		goto out_unlock;
	if (pthread_create(&lw.th, NULL, storm_loop_main, &lw))
		goto out_unlock;
	started = 1;
	if (pthread_create(&lp.th, NULL, storm_loop_main, &lp))
		goto out_stop;
	started = 2;
	while (!lw.tid || !lp.tid)
		usleep(100);
	/* a second and STORM_MIN signals each (a debug kernel is slow) */
	start = now_ns();
	while ((now_ns() < start + SEC || sent < STORM_MIN) &&
	       now_ns() < start + STORM_MAX_NS) {
		pthread_kill(lw.th, SIG_RESTART);
		pthread_kill(lp.th, SIG_NORESTART);
		pthread_kill(t.th, sent & 1 ? SIG_RESTART : SIG_NORESTART);
		sent++;
		usleep(50);
	}
	printf("# intr-storm/%s: %ld signals each, %ld + %ld cancelled\n",
	       design_name(design), sent, (long)lw.cancelled,
	       (long)lp.cancelled);
	ret = 0;
out_stop:
	lw.stop = lp.stop = 1;
	if (started > 0) {
		pthread_kill(lw.th, SIG_RESTART);
		pthread_join(lw.th, NULL);
	}
	if (started > 1) {
		pthread_kill(lp.th, SIG_RESTART);
		pthread_join(lp.th, NULL);
	}
	if (ret)
		goto out_unlock;
	ret = -1;
	if (lw.bad || lp.bad) {
		fail("a looping waiter returned %d / %d, not ECANCELED",
		     (int)lw.bad, (int)lp.bad);
		goto out_unlock;
	}
	if (!lw.cancelled || !lp.cancelled) {
		fail("the storm cancelled nothing (%ld, %ld)",
		     (long)lw.cancelled, (long)lp.cancelled);
		goto out_unlock;
	}
	/* the waiter without the flag went on waiting, and gets the lock */
	if (intr_still_waiting(&t, "LOCK_PI without the flag in the storm"))
		goto out_unlock;
	EXPECT(intr_pi(fd, FUTEXLAB_IOC_UNLOCK_PI, &hw[8], 0), 0,
	       "unlock to the waiter without the flag");
	if (intr_expect(&t, 0, "LOCK_PI without the flag after the storm"))
		goto out;
	ret = check_no_waiters(fd, "after the storm");
	k_stats(fd, &after, NULL, 0);
	if (!ret && after.signals <= before.signals) {
		fail("the signals counter did not move");
		ret = -1;
	}
	goto out;
out_unlock:
	intr_pi(fd, FUTEXLAB_IOC_UNLOCK_PI, &hw[8], 0);
	/* a failed test's waiter takes the lock now: let it finish here */
	if (t.tid)
		intr_join(&t);
out:
	close(fd);
	return ret;
}

#define RACE_ROUNDS	100

/*
 * Two waiters, the first with the flag; a signal to it and a wake of one
 * at once. The wake must return 1 and exactly one waiter must return 0
 * from it: the first (the wake counted it; its signal is handled after)
 * or, if it was cancelled, the second.
 */
int t_intr_wake_race(uint32_t design)
{
	struct intr_thread a = { .op = I_WAIT, .w = &hw[0] };
	struct intr_thread b = { .op = I_WAIT, .w = &hw[0] };
	int fd = open_design(design, 0), ret = -1, i;
	int counted = 0, passed = 0;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	memset(hw, 0, sizeof(hw));
	intr_handlers();
	a.fd = b.fd = fd;
	a.flags = FUTEXLAB_F_INTERRUPTIBLE;
	for (i = 0; i < RACE_ROUNDS; i++) {
		if (intr_start(&a) || intr_start(&b))
			goto out;
		pthread_kill(a.th, SIG_RESTART);
		EXPECT(intr_wake(fd, &hw[0], 1), 1, "the racing wake");
		if (intr_join(&a))
			goto out;
		if (a.ret == 0) {
			counted++;
			if (intr_still_waiting(&b, "the second waiter"))
				goto out;
			EXPECT(intr_wake(fd, &hw[0], 1), 1, "the second wake");
		} else if (a.ret == -ECANCELED) {
			passed++;
		} else {
			fail("round %d: the flagged waiter returned %d", i,
			     (int)a.ret);
			goto out;
		}
		if (intr_expect(&b, 0, "the second waiter"))
			goto out;
	}
	printf("# intr-wake-race/%s: %d wakes counted the cancelled waiter, "
	       "%d passed on\n", design_name(design), counted, passed);
	ret = check_no_waiters(fd, "after the races");
out:
	close(fd);
	return ret;
}
