// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest's kill -9 family: children blocked in plain waits, in lock_pi
 * (one of them boosting the owner) and in wait_requeue_pi are killed; no
 * waiter is left queued and no boost is left behind. (Unloading the module
 * with files open is tested by tests/guest/run-all.sh.)
 */
#include "kmodtest.h"

/* kill -9 of blocked waiters leaves no waiter queued. */
int t_kill9(void)
{
	uint32_t *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct futexlab_stats s;
	pid_t kids[8];
	int fd = open_design(FUTEXLAB_DESIGN_GLOBAL, 0), i, n, ret = -1;
	uint64_t end;

	if (fd < 0 || w == MAP_FAILED)
		return fail("setup"), -1;
	w[0] = 0;
	for (i = 0; i < 8; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			int cfd = open_design(i % 3 + 1, 0);
			uint32_t mine[2] = { 0, FUTEXLAB_NO_NODE };

			if (i % 2)
				k_wait(cfd, &w[0], 0, 0, ~0u,
				       FUTEXLAB_F_SHARED);
			else
				k_wait(cfd, mine, 0, 0, ~0u, 0);
			_exit(0);
		}
	}
	/* all eight asleep: the shared ones are in the global table */
	end = now_ns() + 10000000000ull;
	do {
		usleep(10000);
		n = count_sleeping(kids, 8);
	} while (n < 8 && now_ns() < end);
	usleep(100000);
	k_stats(fd, &s, NULL, 0);
	if (s.live_waiters < 4) {
		fail("only %llu live waiters before the kill",
		     (unsigned long long)s.live_waiters);
		goto out;
	}
	kill_and_reap(kids, 8);
	if (check_no_waiters(fd, "after kill -9"))
		goto out;
	ret = 0;
out:
	close(fd);
	munmap(w, 4096);
	return ret;
}

/*
 * kill -9 of PI waiters: children block in lock_pi on a shared PI word
 * that this thread owns (one of them SCHED_FIFO, boosting us) and in
 * wait_requeue_pi; after the kill nobody is queued, we are deboosted, and
 * our unlock finds the lock uncontended.
 */
int t_kill9_pi(void)
{
	uint32_t *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint32_t me = (uint32_t)syscall(SYS_gettid);
	struct futexlab_pi pi = { .uaddr = (uintptr_t)w,
				  .flags = FUTEXLAB_F_SHARED };
	struct sched_attr_k at;
	pid_t kids[4];
	uint64_t end;
	int fd = open_design(FUTEXLAB_DESIGN_GLOBAL, 0), i, n, ret = -1, r;

	if (fd < 0 || w == MAP_FAILED)
		return fail("setup"), -1;
	w[0] = 0;
	w[1] = 0;
	w[2] = 0;
	if ((r = xioctl(fd, FUTEXLAB_IOC_LOCK_PI, &pi)) != 0) {
		fail("lock_pi: %d", r);
		goto out;
	}
	for (i = 0; i < 4; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			int cfd = open_design(FUTEXLAB_DESIGN_GLOBAL, 0);
			struct futexlab_pi cp = pi;
			struct futexlab_wait_requeue_pi wr = {
				.uaddr = (uintptr_t)&w[1],
				.uaddr2 = (uintptr_t)&w[2],
			};

			if (i == 0) {
				struct sched_param sp = { .sched_priority = 30 };

				sched_setscheduler(0, SCHED_FIFO, &sp);
			}
			if (i < 2)
				xioctl(cfd, FUTEXLAB_IOC_LOCK_PI, &cp);
			else
				xioctl(cfd, FUTEXLAB_IOC_WAIT_REQUEUE_PI, &wr);
			_exit(0);
		}
	}
	end = now_ns() + 10000000000ull;
	do {
		usleep(10000);
		n = count_sleeping(kids, 4);
		get_attr(0, &at);
	} while ((n < 4 || at.sched_policy != SCHED_FIFO) && now_ns() < end);
	if (at.sched_policy != SCHED_FIFO) {
		fail("owner not boosted by the SCHED_FIFO child");
		goto out_kill;
	}
	kill_and_reap(kids, 4);
	get_attr(0, &at);
	if (at.sched_policy != SCHED_OTHER) {
		fail("owner still policy %u after its waiters died",
		     at.sched_policy);
		goto out;
	}
	if (check_no_waiters(fd, "after kill -9"))
		goto out;
	if ((r = xioctl(fd, FUTEXLAB_IOC_UNLOCK_PI, &pi)) != 0 || w[0]) {
		fail("unlock after the kill: %d, word %#x (me %#x)", r, w[0],
		     me);
		goto out;
	}
	ret = 0;
	goto out;
out_kill:
	kill_and_reap(kids, 4);
out:
	close(fd);
	munmap(w, 4096);
	return ret;
}
