// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest's chained-PI family (kmodtest_pi_chain.c): its limits, once per
 * hash design: a chain longer than pi_max_chain fails with EDEADLK, a
 * waiter that times out in the middle of a chain deboosts the owners
 * below it, and a boost goes only as far as every waiter on the way may
 * boost (the PI security model).
 */
#include "kmodtest_pi_chain.h"

#include <sys/resource.h>

#define PARAM_DEPTH	"pi_max_chain"

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
