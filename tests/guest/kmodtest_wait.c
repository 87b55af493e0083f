// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest's wait/wake family, once per hash design: wait and wake counts,
 * deadlines, wake bitsets, cmp_requeue, a wait ended by a signal, a shared
 * (MAP_SHARED, two processes) key, and the numa design's explicit node.
 */
#include "kmodtest.h"

int t_wait_wake(uint32_t design)
{
	static uint32_t w[2];
	struct waiter wt[3];
	int fd = open_design(design, 0), r;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	w[1] = FUTEXLAB_NO_NODE;
	w[0] = 0;
	if (k_wait(fd, w, 1, 0, FUTEXLAB_BITSET_ANY, 0) != -EAGAIN)
		return fail("mismatch did not give EAGAIN"), close(fd), -1;
	if (k_wake(fd, w, 1, FUTEXLAB_BITSET_ANY, 0) != 0)
		return fail("wake without waiters != 0"), close(fd), -1;
	if (start_three(wt, fd, w, 0))
		return fail("waiters did not sleep"), close(fd), -1;
	r = k_wake(fd, w, 2, FUTEXLAB_BITSET_ANY, 0);
	if (r != 2)
		return fail("wake 2 of 3 returned %d", r), close(fd), -1;
	r = k_wake(fd, w, INT_MAX, FUTEXLAB_BITSET_ANY, 0);
	if (r != 1)
		return fail("wake all of 1 returned %d", r), close(fd), -1;
	if (join_three(wt))
		return fail("a woken waiter returned non-zero"), close(fd), -1;
	close(fd);
	return 0;
}

int t_timeout(uint32_t design)
{
	uint32_t w[2] = { 5, FUTEXLAB_NO_NODE };
	int fd = open_design(design, 0), r;
	uint64_t t0 = now_ns();

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	r = k_wait(fd, w, 5, t0 + 50000000, FUTEXLAB_BITSET_ANY, 0);
	if (r != -ETIMEDOUT)
		return fail("timed wait returned %d", r), close(fd), -1;
	if (now_ns() - t0 < 50000000)
		return fail("returned before the deadline"), close(fd), -1;
	r = k_wait(fd, w, 5, 1, FUTEXLAB_BITSET_ANY, 0);
	if (r != -ETIMEDOUT)
		return fail("past deadline returned %d", r), close(fd), -1;
	close(fd);
	return 0;
}

int t_bitset(uint32_t design)
{
	static uint32_t w[2];
	struct waiter a;
	int fd = open_design(design, 0), r;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	w[1] = FUTEXLAB_NO_NODE;
	if (start_waiter(&a, fd, w, 0, 0x1))
		return fail("waiter did not sleep"), close(fd), -1;
	r = k_wake(fd, w, 1, 0x2, 0);
	if (r != 0)
		return fail("disjoint bitset woke %d", r), close(fd), -1;
	r = k_wake(fd, w, 1, 0x3, 0);
	if (r != 1)
		return fail("matching bitset woke %d", r), close(fd), -1;
	join_waiter(&a);
	close(fd);
	return 0;
}

int t_requeue(uint32_t design)
{
	static uint32_t w[2], w2[2];
	struct waiter wt[3];
	int fd = open_design(design, 0), r;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	w[1] = FUTEXLAB_NO_NODE;
	w2[1] = FUTEXLAB_NO_NODE;
	w[0] = 7;
	if (k_requeue(fd, w, w2, 1, 1, 8) != -EAGAIN)
		return fail("requeue mismatch not EAGAIN"), close(fd), -1;
	if (start_three(wt, fd, w, 7))
		return fail("waiters did not sleep"), close(fd), -1;
	r = k_requeue(fd, w, w2, 1, 1, 7);
	if (r != 2)
		return fail("requeue(1,1) returned %d", r), close(fd), -1;
	r = k_wake(fd, w2, INT_MAX, FUTEXLAB_BITSET_ANY, 0);
	if (r != 1)
		return fail("wake of the target woke %d", r), close(fd), -1;
	r = k_wake(fd, w, INT_MAX, FUTEXLAB_BITSET_ANY, 0);
	if (r != 1)
		return fail("wake of the source woke %d", r), close(fd), -1;
	if (join_three(wt))
		return fail("a waiter returned non-zero"), close(fd), -1;
	close(fd);
	return 0;
}

int t_eintr(uint32_t design)
{
	static uint32_t w;
	struct waiter a;
	int fd = open_design(design, 0), r;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	catch_usr1();
	if (start_waiter(&a, fd, &w, 0, 0))
		return fail("waiter did not sleep"), close(fd), -1;
	pthread_kill(a.th, SIGUSR1);
	r = join_waiter(&a);
	if (r != -EINTR)
		return fail("signalled wait returned %d", r), close(fd), -1;
	close(fd);
	return 0;
}

/* Two processes, each with its own file, meet on a MAP_SHARED word. */
int t_shared(uint32_t design)
{
	uint32_t *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int fd, status, r = -1, i;
	pid_t child;

	if (w == MAP_FAILED)
		return fail("mmap"), -1;
	w[0] = 0;
	w[1] = 0;
	child = fork();
	if (child == 0) {
		int cfd = open_design(design, 0);

		__atomic_store_n(&w[1], 1, __ATOMIC_SEQ_CST);
		_exit(k_wait(cfd, &w[0], 0, now_ns() + 20000000000ull,
			     FUTEXLAB_BITSET_ANY, FUTEXLAB_F_SHARED) == 0 ?
		      0 : 1);
	}
	fd = open_design(design, 0);
	while (!__atomic_load_n(&w[1], __ATOMIC_SEQ_CST))
		usleep(1000);
	for (i = 0; i < 5000 && r != 1; i++) {
		/* wait for the child to queue: a private wake must not match */
		if (k_wake(fd, &w[0], 1, FUTEXLAB_BITSET_ANY, 0) != 0) {
			fail("a private-key wake matched a shared waiter");
			kill(child, SIGKILL);
			waitpid(child, &status, 0);
			close(fd);
			return -1;
		}
		r = k_wake(fd, &w[0], 1, FUTEXLAB_BITSET_ANY,
			   FUTEXLAB_F_SHARED);
		if (r != 1)
			usleep(1000);
	}
	waitpid(child, &status, 0);
	close(fd);
	munmap(w, 4096);
	if (r != 1)
		return fail("shared wake woke %d", r), -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return fail("child's wait failed"), -1;
	return 0;
}

int t_numa_node(void)
{
	struct futexlab_stats s;
	uint64_t *c0, *c1;
	uint32_t nb, half, i;
	uint64_t before = 0, after = 0;
	static uint32_t w = 3;
	struct futexlab_wait a;
	struct futexlab_design d = { 0 };
	int fd = open_design(FUTEXLAB_DESIGN_NUMA, 0), ret = -1;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	if (xioctl(fd, FUTEXLAB_IOC_GET_DESIGN, &d) || d.nodes < 2) {
		fail("numa design reports %u nodes (want 2)", d.nodes);
		close(fd);
		return -1;
	}
	nb = d.slots * d.nodes;
	half = d.slots;
	c0 = calloc(nb, sizeof(*c0));
	c1 = calloc(nb, sizeof(*c1));
	k_stats(fd, &s, c0, nb);
	memset(&a, 0, sizeof(a));
	a.uaddr = (uintptr_t)&w;
	a.val = 3;
	a.bitset = ~0u;
	a.flags = FUTEXLAB_F_NODE | FUTEXLAB_F_DEADLINE;
	a.node = 1;
	a.deadline_ns = now_ns() + 1000000;
	if (xioctl(fd, FUTEXLAB_IOC_WAIT, &a) != -ETIMEDOUT) {
		fail("explicit-node wait did not time out");
		goto out;
	}
	a.node = 7;
	if (xioctl(fd, FUTEXLAB_IOC_WAIT, &a) != -EINVAL) {
		fail("node 7 accepted");
		goto out;
	}
	k_stats(fd, &s, c1, nb);
	if (s.nr_counts != nb) {
		fail("stats wrote %u counts, want %u", s.nr_counts, nb);
		goto out;
	}
	for (i = half; i < nb; i++) {
		before += c0[i];
		after += c1[i];
	}
	if (after != before + 1) {
		fail("node 1's table gained %llu waits, want 1",
		     (unsigned long long)(after - before));
		goto out;
	}
	ret = 0;
out:
	free(c0);
	free(c1);
	close(fd);
	return ret;
}

/* A plain u32 futex: FUTEXLAB_F_NODE with FUTEXLAB_NO_NODE, no node word. */
static int plain_wait(int fd, uint32_t *w, uint32_t val, uint64_t deadline)
{
	struct futexlab_wait a = {
		.uaddr = (uintptr_t)w, .val = val, .bitset = FUTEXLAB_BITSET_ANY,
		.flags = FUTEXLAB_F_NODE | FUTEXLAB_F_DEADLINE,
		.node = FUTEXLAB_NO_NODE, .deadline_ns = deadline,
	};

	return xioctl(fd, FUTEXLAB_IOC_WAIT, &a);
}

static void *plain_waiter(void *arg)
{
	struct waiter *wt = arg;

	wt->tid = (pid_t)syscall(SYS_gettid);
	wt->ret = plain_wait(wt->fd, wt->w, wt->val, wt->deadline);
	return NULL;
}

/*
 * The preload shim's futex(2) words have no node word after them: with
 * FUTEXLAB_F_NODE and FUTEXLAB_NO_NODE every design takes the word alone.
 * The word is the last of its page and the next page is not mapped, so a
 * design that read a node word would fail with EFAULT; a waiter is woken
 * through the same flags (the numa design finds it by the word's hash).
 */
int t_plain_word(uint32_t design)
{
	long page = sysconf(_SC_PAGESIZE);
	char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct futexlab_wake k = { .nr_wake = 1, .node = FUTEXLAB_NO_NODE,
				   .bitset = FUTEXLAB_BITSET_ANY,
				   .flags = FUTEXLAB_F_NODE };
	struct waiter wt = { .val = 7 };
	int fd = open_design(design, 0), r, ret = -1, asleep;
	uint32_t *w;

	if (fd < 0 || map == MAP_FAILED)
		return fail("open or mmap failed"), -1;
	munmap(map + page, page);
	w = (uint32_t *)(map + page) - 1;
	*w = 7;
	r = plain_wait(fd, w, 6, now_ns() + 1000000);
	if (r != -EAGAIN) {
		fail("plain word, wrong value: %d (want -EAGAIN)", r);
		goto out;
	}
	wt.fd = fd;
	wt.w = w;
	wt.deadline = now_ns() + 20000000000ull;	/* a bound, never hit */
	if (pthread_create(&wt.th, NULL, plain_waiter, &wt)) {
		fail("pthread_create failed");
		goto out;
	}
	while (!wt.tid)
		usleep(100);
	asleep = !wait_sleeping(wt.tid);
	k.uaddr = (uintptr_t)w;
	r = xioctl(fd, FUTEXLAB_IOC_WAKE, &k);
	pthread_join(wt.th, NULL);
	if (!asleep || r != 1 || wt.ret != 0) {
		fail("plain wake woke %d, its waiter returned %d", r, wt.ret);
		goto out;
	}
	ret = 0;
out:
	munmap(map, page);
	close(fd);
	return ret;
}
