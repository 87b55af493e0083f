// SPDX-License-Identifier: GPL-2.0
/*
 * Interruptible waits: each operation that sleeps, with
 * FUTEXLAB_F_INTERRUPTIBLE (a signal ends it with ECANCELED, whatever
 * SA_RESTART says) and without (the stock futex's result, checked beside
 * it on the stock futex in intr-stock: FUTEX_WAIT ends with EINTR or
 * restarts per SA_RESTART, FUTEX_LOCK_PI always restarts). A cancelled PI
 * waiter must leave the lock's chain and undo the boost it gave the
 * owner, which is the test's main thread.
 */
#include <linux/futex.h>

#include "kmodtest_intr.h"

static uint32_t words[16] __attribute__((aligned(64)));

/* The test's thread back to SCHED_OTHER, its TID. */
static pid_t intr_me(void)
{
	set_fifo(0, 0);
	return (pid_t)syscall(SYS_gettid);
}

static int intr_open(uint32_t design)
{
	int fd = open_design(design, 0);

	if (fd < 0)
		fail("open: %s", strerror(-fd));
	memset(words, 0, sizeof(words));
	intr_handlers();
	return fd;
}

/*
 * The end of a PI test: the word names us (no cancelled waiter took it),
 * our unlock works, nobody is left queued. 0, or fail() and -1.
 */
static int intr_pi_release(int fd, uint32_t *w, pid_t me, const char *when)
{
	if ((*w & FUTEXLAB_TID_MASK) != (uint32_t)me) {
		fail("%s: word %#x, owner %d", when, *w, me);
		return -1;
	}
	if (intr_pi(fd, FUTEXLAB_IOC_UNLOCK_PI, w, 0)) {
		fail("%s: unlock_pi failed", when);
		return -1;
	}
	return check_no_waiters(fd, when);
}

/*
 * The way out of a PI test, passed or failed: a failed check may leave
 * the lock ours (unlocked here; EPERM if it is not), our policy back to
 * SCHED_OTHER, the file closed. Returns @ret.
 */
static int intr_pi_done(int fd, uint32_t *w, int ret)
{
	intr_pi(fd, FUTEXLAB_IOC_UNLOCK_PI, w, 0);
	intr_me();
	close(fd);
	return ret;
}

/* Our FIFO priority is @prio (0: SCHED_OTHER) within 5 s: 0, or -1. */
static int intr_prio(pid_t me, int prio, const char *what)
{
	if (!wait_fifo(me, prio))
		return 0;
	fail("%s: the owner's priority is not %s %d", what,
	     prio ? "SCHED_FIFO" : "SCHED_OTHER", prio);
	return -1;
}

int t_intr_wait(uint32_t design)
{
	struct intr_thread t = { .op = I_WAIT, .w = &words[0] };
	int fd = intr_open(design), ret = -1;

	if (fd < 0)
		return -1;
	t.fd = fd;
	/* without the flag: SA_RESTART restarts, no SA_RESTART is EINTR */
	if (intr_restarted(&t, SIG_RESTART, "SA_RESTART, no flag"))
		goto out;
	EXPECT(intr_wake(fd, t.w, 1), 1, "wake after the restart");
	if (intr_expect(&t, 0, "woken after the restart") ||
	    intr_signalled(&t, SIG_NORESTART, -EINTR, "no SA_RESTART, no flag"))
		goto out;
	/* with the flag: ECANCELED, whatever SA_RESTART says */
	t.flags = FUTEXLAB_F_INTERRUPTIBLE;
	if (intr_signalled(&t, SIG_RESTART, -ECANCELED, "SA_RESTART, flag") ||
	    intr_signalled(&t, SIG_NORESTART, -ECANCELED, "no SA_RESTART, flag"))
		goto out;
	/* with a deadline too: ECANCELED before it, ETIMEDOUT at it */
	t.deadline = now_ns() + 20 * SEC;
	if (intr_signalled(&t, SIG_RESTART, -ECANCELED, "flag and deadline"))
		goto out;
	t.deadline = now_ns() + 100 * MS;
	if (intr_start_nowait(&t) ||
	    intr_expect(&t, -ETIMEDOUT, "the flag, no signal, a deadline"))
		goto out;
	ret = check_no_waiters(fd, "after the cancelled waits");
out:
	close(fd);
	return ret;
}

/*
 * A SCHED_FIFO 50 waiter on the lock we hold: with the flag a signal ends
 * it with ECANCELED and our boost ends with it; without, it restarts
 * (boosting us again) and takes the lock when we unlock.
 */
int t_intr_lock_pi(uint32_t design)
{
	struct intr_thread t = { .op = I_LOCK_PI, .w = &words[0], .prio = 50 };
	static const int sigs[2] = { SIG_NORESTART, SIG_RESTART };
	int fd = intr_open(design), ret = -1, i;
	pid_t me = intr_me();

	if (fd < 0)
		return -1;
	t.fd = fd;
	EXPECT(intr_pi(fd, FUTEXLAB_IOC_LOCK_PI, t.w, 0), 0, "lock_pi");
	t.flags = FUTEXLAB_F_INTERRUPTIBLE;
	for (i = 0; i < 2; i++) {
		if (intr_start(&t) || intr_prio(me, 50, "boosted") ||
		    intr_signal(&t, sigs[i]) ||
		    intr_expect(&t, -ECANCELED, "lock_pi, the flag") ||
		    intr_prio(me, 0, "after the cancel"))
			goto out;
	}
	/* the flag and a deadline that passes: ETIMEDOUT, as before */
	t.deadline = now_ns() + 100 * MS;
	if (intr_start_nowait(&t) ||
	    intr_expect(&t, -ETIMEDOUT, "the flag, no signal, a deadline") ||
	    intr_prio(me, 0, "after the timeout"))
		goto out;
	t.deadline = 0;
	t.flags = 0;
	for (i = 0; i < 2; i++) {
		if (intr_start(&t) || intr_prio(me, 50, "boosted") ||
		    intr_signal(&t, sigs[i]) ||
		    intr_still_waiting(&t, "lock_pi, no flag") ||
		    intr_prio(me, 50, "boosted again after the restart"))
			goto out;
		EXPECT(intr_pi(fd, FUTEXLAB_IOC_UNLOCK_PI, t.w, 0), 0,
		       "unlock to the restarted waiter");
		if (intr_expect(&t, 0, "lock_pi after the restart") ||
		    intr_prio(me, 0, "after the hand-over"))
			goto out;
		EXPECT(intr_pi(fd, FUTEXLAB_IOC_LOCK_PI, t.w, 0), 0,
		       "lock_pi again");
	}
	ret = intr_pi_release(fd, t.w, me, "after the cancelled PI waiters");
out:
	return intr_pi_done(fd, t.w, ret);
}

/*
 * WAIT_REQUEUE_PI: before the requeue a signal ends it with the flag and
 * restarts it without; once requeued onto the PI lock we hold, the flag
 * makes it leave the lock's chain as a timeout does (our boost ends).
 */
int t_intr_requeue_pi(uint32_t design)
{
	struct intr_thread t = {
		.op = I_WAIT_REQUEUE_PI, .w = &words[0], .w2 = &words[8],
		.prio = 50,
	};
	int fd = intr_open(design), ret = -1;
	pid_t me = intr_me();

	if (fd < 0)
		return -1;
	t.fd = fd;
	t.flags = FUTEXLAB_F_INTERRUPTIBLE;
	if (intr_signalled(&t, SIG_RESTART, -ECANCELED, "not requeued, flag"))
		goto out;
	t.flags = 0;
	if (intr_restarted(&t, SIG_NORESTART, "not requeued, no flag"))
		goto out;
	EXPECT(intr_requeue_pi(fd, t.w, t.w2, 0, 0), 1,
	       "cmp_requeue_pi onto the free lock");
	if (intr_expect(&t, 0, "requeue-PI after the restart"))
		goto out;

	EXPECT(intr_pi(fd, FUTEXLAB_IOC_LOCK_PI, t.w2, 0), 0, "lock_pi");
	t.flags = FUTEXLAB_F_INTERRUPTIBLE;
	if (intr_start(&t))
		goto out;
	EXPECT(intr_requeue_pi(fd, t.w, t.w2, 1, 0), 1,
	       "cmp_requeue_pi onto the held lock");
	if (intr_prio(me, 50, "boosted by the requeued waiter") ||
	    intr_signal(&t, SIG_RESTART) ||
	    intr_expect(&t, -ECANCELED, "requeued, the flag") ||
	    intr_prio(me, 0, "after the requeued waiter's cancel"))
		goto out;
	ret = intr_pi_release(fd, t.w2, me, "after the requeued cancel");
out:
	return intr_pi_done(fd, t.w2, ret);
}

/* LOCK_ADAPTIVE on a lock we hold (asleep, so the contender sleeps). */
int t_intr_adaptive(uint32_t design)
{
	struct intr_thread t = { .op = I_ADAPTIVE, .w = &words[0] };
	struct futexlab_adaptive un = {
		.uaddr = (uintptr_t)&words[0], .flags = FUTEXLAB_F_NODE,
		.node = FUTEXLAB_NO_NODE,
	};
	int fd = intr_open(design), ret = -1;
	pid_t me = intr_me();

	if (fd < 0)
		return -1;
	t.fd = fd;
	words[0] = (uint32_t)me;
	t.flags = FUTEXLAB_F_INTERRUPTIBLE;
	if (intr_signalled(&t, SIG_RESTART, -ECANCELED, "SA_RESTART, flag"))
		goto out;
	t.flags = 0;
	if (intr_signalled(&t, SIG_NORESTART, -EINTR, "no SA_RESTART, no flag") ||
	    intr_restarted(&t, SIG_RESTART, "SA_RESTART, no flag"))
		goto out;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_UNLOCK_ADAPTIVE, &un), 0,
	       "unlock_adaptive to the restarted waiter");
	if (intr_expect(&t, 0, "lock_adaptive after the restart"))
		goto out;
	ret = check_no_waiters(fd, "after the cancelled adaptive waiters");
out:
	close(fd);
	return ret;
}

/* futex_waitv: the call's flag ends the whole wait, nothing left queued. */
int t_intr_waitv(uint32_t design)
{
	struct intr_thread t = { .op = I_WAITV, .w = &words[0] };
	int fd = intr_open(design), ret = -1;

	if (fd < 0)
		return -1;
	t.fd = fd;
	t.flags = FUTEXLAB_F_INTERRUPTIBLE;
	if (intr_signalled(&t, SIG_RESTART, -ECANCELED, "SA_RESTART, flag") ||
	    check_no_waiters(fd, "after the cancelled waitv"))
		goto out;
	t.flags = 0;
	if (intr_signalled(&t, SIG_NORESTART, -EINTR, "no SA_RESTART, no flag") ||
	    intr_restarted(&t, SIG_RESTART, "SA_RESTART, no flag"))
		goto out;
	EXPECT(intr_wake(fd, &words[2], 1), 1, "wake of entry 2");
	if (intr_expect(&t, 2, "waitv after the restart"))
		goto out;
	ret = check_no_waiters(fd, "after the waitv tests");
out:
	close(fd);
	return ret;
}

/* The stock futex in the same guest: what "without the flag" follows. */
int t_intr_stock(void)
{
	struct intr_thread t = { .op = I_STOCK_WAIT, .w = &words[0] };
	static const int sigs[2] = { SIG_NORESTART, SIG_RESTART };
	pid_t me = intr_me();
	int ret = -1, i;

	memset(words, 0, sizeof(words));
	intr_handlers();
	if (intr_restarted(&t, SIG_RESTART, "FUTEX_WAIT, SA_RESTART"))
		goto out;
	if (syscall(SYS_futex, t.w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0) != 1) {
		fail("FUTEX_WAKE after the restart did not wake one");
		goto out;
	}
	if (intr_expect(&t, 0, "FUTEX_WAIT after the restart") ||
	    intr_signalled(&t, SIG_NORESTART, -EINTR, "FUTEX_WAIT, no SA_RESTART"))
		goto out;
	t.op = I_STOCK_LOCK_PI;
	for (i = 0; i < 2; i++) {
		words[0] = (uint32_t)me;
		if (intr_restarted(&t, sigs[i], "FUTEX_LOCK_PI after a handler"))
			goto out;
		if (syscall(SYS_futex, t.w, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL,
			    NULL, 0)) {
			fail("FUTEX_UNLOCK_PI: %s", strerror(errno));
			goto out;
		}
		if (intr_expect(&t, 0, "FUTEX_LOCK_PI after the restart"))
			goto out;
	}
	ret = 0;
out:
	words[0] = 0;
	return ret;
}
