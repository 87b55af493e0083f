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
 *
 * Here: the chain and the cycle; the limits (depth, a timeout in the
 * middle, the rights to boost) are kmodtest_pi_chain_limits.c, the owner
 * that relocks kmodtest_pi_chain_relock.c, and the chain's tasks
 * kmodtest_pi_chain_link.c (kmodtest_pi_chain.h).
 */
#include "kmodtest_pi_chain.h"

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
