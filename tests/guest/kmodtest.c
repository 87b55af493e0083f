// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest: the futexlab module's tests that only make sense in a guest
 * with the module loaded (run by tests/guest/run-all.sh under vm/run).
 *
 *   kmodtest [--stress-seconds N] [TEST...]     (default: every test)
 *   kmodtest --list
 *   kmodtest --op-smoke      (one failing wait: used by the load cycles)
 *
 * Each test prints "PASS name" or "FAIL name: why"; the exit status is the
 * number of failures (capped at 100). Like ntsync's selftest, the error
 * paths check the exact errno, with argument buffers prefilled.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../kmod/uapi/futexlab.h"

#define DEV "/dev/futexlab"

static int failures;
static char why[256];

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const char *design_name(uint32_t d)
{
	return d == FUTEXLAB_DESIGN_GLOBAL ? "global" :
	       d == FUTEXLAB_DESIGN_PRIVATE ? "private" :
	       d == FUTEXLAB_DESIGN_NUMA ? "numa" : "?";
}

static int xioctl(int fd, unsigned long cmd, void *arg)
{
	int r = ioctl(fd, cmd, arg);

	return r < 0 ? -errno : r;
}

static int open_design(uint32_t design, uint32_t slots)
{
	struct futexlab_design d = { .design = design, .slots = slots };
	int fd = open(DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (xioctl(fd, FUTEXLAB_IOC_SET_DESIGN, &d)) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

static int k_wait(int fd, uint32_t *w, uint32_t val, uint64_t deadline,
		  uint32_t bitset, uint32_t flags)
{
	struct futexlab_wait a = {
		.uaddr = (uintptr_t)w, .val = val, .bitset = bitset,
		.flags = flags, .deadline_ns = deadline,
	};

	if (deadline)
		a.flags |= FUTEXLAB_F_DEADLINE;
	return xioctl(fd, FUTEXLAB_IOC_WAIT, &a);
}

static int k_wake(int fd, uint32_t *w, int nr, uint32_t bitset,
		  uint32_t flags)
{
	struct futexlab_wake a = {
		.uaddr = (uintptr_t)w, .nr_wake = (uint32_t)nr,
		.bitset = bitset, .flags = flags,
	};

	return xioctl(fd, FUTEXLAB_IOC_WAKE, &a);
}

static int k_requeue(int fd, uint32_t *w, uint32_t *w2, int nr_wake,
		     int nr_requeue, uint32_t val)
{
	struct futexlab_requeue a = {
		.uaddr = (uintptr_t)w, .uaddr2 = (uintptr_t)w2,
		.nr_wake = (uint32_t)nr_wake,
		.nr_requeue = (uint32_t)nr_requeue, .val = val,
	};

	return xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE, &a);
}

static int k_pi(int fd, unsigned long cmd, uint32_t *w, uint64_t deadline)
{
	struct futexlab_pi a = { .uaddr = (uintptr_t)w };

	if (deadline) {
		a.deadline_ns = deadline;
		a.flags = FUTEXLAB_F_DEADLINE;
	}
	return xioctl(fd, cmd, &a);
}

static int k_stats(int fd, struct futexlab_stats *s, uint64_t *counts,
		   uint32_t n)
{
	memset(s, 0, sizeof(*s));
	s->counts_ptr = (uintptr_t)counts;
	s->nr_counts = n;
	return xioctl(fd, FUTEXLAB_IOC_STATS, s);
}

/* Wait until thread tid sleeps (state S), at most 5 s. */
static int wait_sleeping(pid_t tid)
{
	char path[64], buf[256];
	uint64_t end = now_ns() + 5000000000ull;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	while (now_ns() < end) {
		FILE *f = fopen(path, "r");
		char *p;

		if (f) {
			size_t n = fread(buf, 1, sizeof(buf) - 1, f);

			fclose(f);
			buf[n] = '\0';
			p = strrchr(buf, ')');
			if (p && p[1] == ' ' && p[2] == 'S')
				return 0;
		}
		usleep(1000);
	}
	return -1;
}

/* Start @fn(@arg), which stores its TID in *@tid, and wait until it sleeps. */
static int start_sleeper(pthread_t *th, void *(*fn)(void *), void *arg,
			 _Atomic pid_t *tid)
{
	if (pthread_create(th, NULL, fn, arg))
		return -1;
	while (!*tid)
		usleep(100);
	return wait_sleeping(*tid);
}

/* ------------------------------------------------------------ waiters */
/* A thread blocked in one wait: waiter_main, or rqpi_waiter with @w2. */
struct waiter {
	pthread_t th;
	int fd;
	uint32_t *w;
	uint32_t *w2;
	uint32_t val;
	uint32_t bitset;
	uint64_t deadline;
	_Atomic pid_t tid;
	_Atomic int ret;
	_Atomic int done;
};

static void *waiter_main(void *arg)
{
	struct waiter *wt = arg;

	wt->tid = (pid_t)syscall(SYS_gettid);
	wt->ret = k_wait(wt->fd, wt->w, wt->val, wt->deadline,
			 wt->bitset ? wt->bitset : FUTEXLAB_BITSET_ANY, 0);
	wt->done = 1;
	return NULL;
}

static int start_waiter(struct waiter *wt, int fd, uint32_t *w, uint32_t val,
			uint32_t bitset)
{
	memset(wt, 0, sizeof(*wt));
	wt->fd = fd;
	wt->w = w;
	wt->val = val;
	wt->bitset = bitset;
	wt->deadline = now_ns() + 20000000000ull;	/* a bound, never hit */
	return start_sleeper(&wt->th, waiter_main, wt, &wt->tid);
}

static int join_waiter(struct waiter *wt)
{
	pthread_join(wt->th, NULL);
	return wt->ret;
}

/* Three waiters on @w, each asleep before the next starts. */
static int start_three(struct waiter wt[3], int fd, uint32_t *w, uint32_t val)
{
	int i;

	for (i = 0; i < 3; i++)
		if (start_waiter(&wt[i], fd, w, val, 0))
			return -1;
	return 0;
}

/* Join the three waiters: non-zero if one of them returned non-zero. */
static int join_three(struct waiter wt[3])
{
	int i, r = 0;

	for (i = 0; i < 3; i++)
		r |= join_waiter(&wt[i]);
	return r;
}

/* ------------------------------------------------------------ tests */
static const uint32_t designs[] = {
	FUTEXLAB_DESIGN_GLOBAL, FUTEXLAB_DESIGN_PRIVATE, FUTEXLAB_DESIGN_NUMA,
};

static int t_wait_wake(uint32_t design)
{
	static uint32_t w;
	struct waiter wt[3];
	int fd = open_design(design, 0), r;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	w = 0;
	if (k_wait(fd, &w, 1, 0, FUTEXLAB_BITSET_ANY, 0) != -EAGAIN)
		return fail("mismatch did not give EAGAIN"), close(fd), -1;
	if (k_wake(fd, &w, 1, FUTEXLAB_BITSET_ANY, 0) != 0)
		return fail("wake without waiters != 0"), close(fd), -1;
	if (start_three(wt, fd, &w, 0))
		return fail("waiters did not sleep"), close(fd), -1;
	r = k_wake(fd, &w, 2, FUTEXLAB_BITSET_ANY, 0);
	if (r != 2)
		return fail("wake 2 of 3 returned %d", r), close(fd), -1;
	r = k_wake(fd, &w, INT_MAX, FUTEXLAB_BITSET_ANY, 0);
	if (r != 1)
		return fail("wake all of 1 returned %d", r), close(fd), -1;
	if (join_three(wt))
		return fail("a woken waiter returned non-zero"), close(fd), -1;
	close(fd);
	return 0;
}

static int t_timeout(uint32_t design)
{
	uint32_t w = 5;
	int fd = open_design(design, 0), r;
	uint64_t t0 = now_ns();

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	r = k_wait(fd, &w, 5, t0 + 50000000, FUTEXLAB_BITSET_ANY, 0);
	if (r != -ETIMEDOUT)
		return fail("timed wait returned %d", r), close(fd), -1;
	if (now_ns() - t0 < 50000000)
		return fail("returned before the deadline"), close(fd), -1;
	r = k_wait(fd, &w, 5, 1, FUTEXLAB_BITSET_ANY, 0);
	if (r != -ETIMEDOUT)
		return fail("past deadline returned %d", r), close(fd), -1;
	close(fd);
	return 0;
}

static int t_bitset(uint32_t design)
{
	static uint32_t w;
	struct waiter a;
	int fd = open_design(design, 0), r;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	if (start_waiter(&a, fd, &w, 0, 0x1))
		return fail("waiter did not sleep"), close(fd), -1;
	r = k_wake(fd, &w, 1, 0x2, 0);
	if (r != 0)
		return fail("disjoint bitset woke %d", r), close(fd), -1;
	r = k_wake(fd, &w, 1, 0x3, 0);
	if (r != 1)
		return fail("matching bitset woke %d", r), close(fd), -1;
	join_waiter(&a);
	close(fd);
	return 0;
}

static int t_requeue(uint32_t design)
{
	static uint32_t w, w2;
	struct waiter wt[3];
	int fd = open_design(design, 0), r;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	w = 7;
	if (k_requeue(fd, &w, &w2, 1, 1, 8) != -EAGAIN)
		return fail("requeue mismatch not EAGAIN"), close(fd), -1;
	if (start_three(wt, fd, &w, 7))
		return fail("waiters did not sleep"), close(fd), -1;
	r = k_requeue(fd, &w, &w2, 1, 1, 7);
	if (r != 2)
		return fail("requeue(1,1) returned %d", r), close(fd), -1;
	r = k_wake(fd, &w2, INT_MAX, FUTEXLAB_BITSET_ANY, 0);
	if (r != 1)
		return fail("wake of the target woke %d", r), close(fd), -1;
	r = k_wake(fd, &w, INT_MAX, FUTEXLAB_BITSET_ANY, 0);
	if (r != 1)
		return fail("wake of the source woke %d", r), close(fd), -1;
	if (join_three(wt))
		return fail("a waiter returned non-zero"), close(fd), -1;
	close(fd);
	return 0;
}

static void on_usr1(int sig)
{
	(void)sig;
}

/* SIGUSR1 without SA_RESTART: the wait it interrupts ends. */
static void catch_usr1(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
}

static int t_eintr(uint32_t design)
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
static int t_shared(uint32_t design)
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

/* 0 if no waiter is left queued in @fd's tables, else fail saying when. */
static int check_no_waiters(int fd, const char *when)
{
	struct futexlab_stats s;

	k_stats(fd, &s, NULL, 0);
	if (!s.live_waiters)
		return 0;
	fail("%llu live waiters %s", (unsigned long long)s.live_waiters, when);
	return -1;
}

/* Is process @pid asleep (state S)? */
static int sleeping_pid(pid_t pid)
{
	char path[64], buf[256] = "";
	FILE *f;
	int r = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(buf, sizeof(buf), f) && strstr(buf, ") S "))
			r = 1;
		fclose(f);
	}
	return r;
}

/* How many of the @n processes in @kids are asleep. */
static int count_sleeping(const pid_t *kids, int n)
{
	int i, asleep = 0;

	for (i = 0; i < n; i++)
		asleep += sleeping_pid(kids[i]);
	return asleep;
}

static void kill_and_reap(const pid_t *kids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	for (i = 0; i < n; i++)
		waitpid(kids[i], NULL, 0);
}

/* ------------------------------------------------------------ bad input */
#define EXPECT(expr, err, what) do {					\
	int _r = (expr);						\
	if (_r != (err)) {						\
		fail("%s: got %d (%s), want %d", what, _r,		\
		     _r < 0 ? strerror(-_r) : "ok", err);		\
		goto out;						\
	}								\
} while (0)

static int t_bad_input(void)
{
	uint32_t w[2] = { 0, 0 };
	struct futexlab_design d;
	struct futexlab_wait wa;
	struct futexlab_wake wk;
	struct futexlab_requeue rq;
	struct futexlab_pi pi;
	struct futexlab_stats st;
	void *unmapped = mmap(NULL, 4096, PROT_NONE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open(DEV, O_RDWR), ret = -1;

	munmap(unmapped, 4096);
	if (fd < 0)
		return fail("open: %s", strerror(errno)), -1;

	EXPECT(xioctl(fd, _IOWR(FUTEXLAB_IOC_MAGIC, 0x7f, struct futexlab_wait),
		      &wa), -ENOTTY, "unknown command");
	EXPECT(xioctl(fd, 0x1234, &wa), -ENOTTY, "foreign command");
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT, unmapped), -EFAULT,
	       "unmapped argument");

	memset(&d, 0xa5, sizeof(d));
	EXPECT(xioctl(fd, FUTEXLAB_IOC_SET_DESIGN, &d), -EINVAL,
	       "design with garbage fields");
	memset(&d, 0, sizeof(d));
	d.design = 0;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_SET_DESIGN, &d), -EINVAL, "design 0");
	d.design = 99;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_SET_DESIGN, &d), -EINVAL, "design 99");
	d.design = FUTEXLAB_DESIGN_PRIVATE;
	d.slots = 3;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_SET_DESIGN, &d), -EINVAL,
	       "3 slots (not a power of two)");
	d.slots = 1u << 31;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_SET_DESIGN, &d), -EINVAL,
	       "2^31 slots (too many)");
	d.slots = 0;
	d.design = FUTEXLAB_DESIGN_GLOBAL;
	d.slots = 64;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_SET_DESIGN, &d), -EINVAL,
	       "slots for the global design");
	memset(&d, 0, sizeof(d));
	d.design = FUTEXLAB_DESIGN_PRIVATE;
	d.slots = 16;
	d.flags = 1;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_SET_DESIGN, &d), -EINVAL,
	       "design flags");
	d.flags = 0;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_SET_DESIGN, &d), 0, "private 16");
	if (d.slots != 16 || d.design != FUTEXLAB_DESIGN_PRIVATE ||
	    d.version != FUTEXLAB_VERSION) {
		fail("SET_DESIGN reported %u/%u/v%u", d.design, d.slots,
		     d.version);
		goto out;
	}

	memset(&wa, 0, sizeof(wa));
	wa.uaddr = (uintptr_t)w;
	wa.val = 1;
	wa.bitset = ~0u;
	wa.flags = 1u << 7;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT, &wa), -EINVAL, "wait flag 1<<7");
	wa.flags = FUTEXLAB_F_NODE;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT, &wa), -EINVAL,
	       "wait with a node outside the numa design");
	wa.flags = 0;
	wa.bitset = 0;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT, &wa), -EINVAL, "wait bitset 0");
	wa.bitset = ~0u;
	wa.uaddr = (uintptr_t)w + 1;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT, &wa), -EINVAL,
	       "misaligned wait");
	wa.uaddr = (uintptr_t)unmapped;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT, &wa), -EFAULT, "unmapped wait");
	wa.uaddr = 0;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT, &wa), -EFAULT, "NULL wait");
	wa.uaddr = ~0ull & ~3ull;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT, &wa), -EFAULT,
	       "kernel-address wait");
	wa.uaddr = (uintptr_t)w;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT, &wa), -EAGAIN, "mismatch");

	/* the design is fixed now */
	memset(&d, 0, sizeof(d));
	d.design = FUTEXLAB_DESIGN_GLOBAL;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_SET_DESIGN, &d), -EBUSY,
	       "design change after first use");
	memset(&d, 0, sizeof(d));
	EXPECT(xioctl(fd, FUTEXLAB_IOC_GET_DESIGN, &d), 0, "get design");
	if (d.design != FUTEXLAB_DESIGN_PRIVATE || d.slots != 16) {
		fail("GET_DESIGN reported %u/%u", d.design, d.slots);
		goto out;
	}

	memset(&wk, 0, sizeof(wk));
	wk.uaddr = (uintptr_t)w;
	wk.nr_wake = 1;
	wk.bitset = ~0u;
	wk.flags = 1u << 9;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAKE, &wk), -EINVAL, "wake flag 1<<9");
	wk.flags = FUTEXLAB_F_DEADLINE;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAKE, &wk), -EINVAL,
	       "wake with a deadline flag");
	wk.flags = 0;
	wk.bitset = 0;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAKE, &wk), -EINVAL, "wake bitset 0");
	wk.bitset = ~0u;
	wk.uaddr = (uintptr_t)w + 2;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAKE, &wk), -EINVAL, "misaligned wake");
	wk.uaddr = (uintptr_t)unmapped;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAKE, &wk), 0,
	       "private wake of an unmapped word (stock: 0)");
	wk.flags = FUTEXLAB_F_SHARED;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAKE, &wk), -EFAULT,
	       "shared wake of an unmapped word");

	memset(&rq, 0, sizeof(rq));
	rq.uaddr = (uintptr_t)&w[0];
	rq.uaddr2 = (uintptr_t)&w[1];
	rq.flags = 1u << 5;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE, &rq), -EINVAL,
	       "requeue flag 1<<5");
	rq.flags = 0;
	rq.pad = 1;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE, &rq), -EINVAL,
	       "requeue padding");
	rq.pad = 0;
	rq.nr_wake = (uint32_t)-1;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE, &rq), -EINVAL,
	       "requeue nr_wake -1");
	rq.nr_wake = 0;
	rq.uaddr2 = (uintptr_t)unmapped;
	rq.val = 1;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE, &rq), -EAGAIN,
	       "requeue mismatch");
	rq.uaddr = (uintptr_t)unmapped;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE, &rq), -EFAULT,
	       "requeue from unmapped");

	memset(&pi, 0, sizeof(pi));
	pi.uaddr = (uintptr_t)w;
	pi.flags = 1u << 4;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_LOCK_PI, &pi), -EINVAL,
	       "lock_pi flag 1<<4");
	pi.flags = FUTEXLAB_F_DEADLINE;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_UNLOCK_PI, &pi), -EINVAL,
	       "unlock_pi with a deadline flag");
	pi.flags = 0;
	pi.uaddr = (uintptr_t)unmapped;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_LOCK_PI, &pi), -EFAULT,
	       "lock_pi unmapped");
	pi.uaddr = (uintptr_t)w + 1;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_TRYLOCK_PI, &pi), -EINVAL,
	       "trylock_pi misaligned");

	memset(&st, 0, sizeof(st));
	st.flags = 2;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_STATS, &st), -EINVAL, "stats flags");
	st.flags = 0;
	st.nr_counts = 4;
	st.counts_ptr = (uintptr_t)unmapped;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_STATS, &st), -EFAULT,
	       "stats to unmapped counts");
	ret = 0;
out:
	close(fd);
	return ret;
}

static int t_numa_node(void)
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

/* kill -9 of blocked waiters leaves no waiter queued. */
static int t_kill9(void)
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
			uint32_t mine = 0;

			if (i % 2)
				k_wait(cfd, &w[0], 0, 0, ~0u,
				       FUTEXLAB_F_SHARED);
			else
				k_wait(cfd, &mine, 0, 0, ~0u, 0);
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

/* ------------------------------------------------------------ PI */
struct sched_attr_k {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
	uint32_t util_min, util_max;
};

static int get_attr(pid_t tid, struct sched_attr_k *a)
{
	memset(a, 0, sizeof(*a));
	return (int)syscall(SYS_sched_getattr, tid, a, sizeof(*a), 0);
}

struct pi_arg {
	int fd;
	uint32_t *w;
	_Atomic int stage;
	_Atomic pid_t tid;
	_Atomic int ret;
};

static void *pi_owner(void *p)
{
	struct pi_arg *a = p;

	a->tid = (pid_t)syscall(SYS_gettid);
	a->ret = k_pi(a->fd, FUTEXLAB_IOC_LOCK_PI, a->w, 0);
	a->stage = 1;
	while (a->stage != 2)
		usleep(1000);
	a->ret = k_pi(a->fd, FUTEXLAB_IOC_UNLOCK_PI, a->w, 0);
	a->stage = 3;
	return NULL;
}

static void *pi_waiter(void *p)
{
	struct pi_arg *a = p;
	struct sched_param sp = { .sched_priority = 50 };

	a->tid = (pid_t)syscall(SYS_gettid);
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		a->ret = -errno;
		a->stage = 9;
		return NULL;
	}
	a->stage = 1;
	a->ret = k_pi(a->fd, FUTEXLAB_IOC_LOCK_PI, a->w,
		      now_ns() + 20000000000ull);
	a->stage = 2;
	while (a->stage != 3)
		usleep(1000);
	a->ret = k_pi(a->fd, FUTEXLAB_IOC_UNLOCK_PI, a->w, 0);
	a->stage = 4;
	return NULL;
}

static int wait_stage(_Atomic int *stage, int want)
{
	uint64_t end = now_ns() + 10000000000ull;

	while (*stage < want && now_ns() < end)
		usleep(1000);
	return *stage >= want ? 0 : -1;
}

static int t_pi(uint32_t design)
{
	static uint32_t w;
	struct pi_arg o = { 0 }, wt = { 0 };
	struct sched_attr_k at;
	pthread_t to, tw;
	uint64_t end;
	int fd = open_design(design, 0), ret = -1, r;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	w = 0;
	/* errors first: EDEADLK, EPERM, EAGAIN */
	if ((r = k_pi(fd, FUTEXLAB_IOC_TRYLOCK_PI, &w, 0)) != 0 ||
	    w != (uint32_t)syscall(SYS_gettid)) {
		fail("trylock of a free lock: %d, word %#x", r, w);
		goto out_fd;
	}
	if ((r = k_pi(fd, FUTEXLAB_IOC_LOCK_PI, &w, 0)) != -EDEADLK) {
		fail("self-deadlock returned %d", r);
		goto out_fd;
	}
	if ((r = k_pi(fd, FUTEXLAB_IOC_UNLOCK_PI, &w, 0)) != 0 || w != 0) {
		fail("uncontended unlock: %d, word %#x", r, w);
		goto out_fd;
	}
	if ((r = k_pi(fd, FUTEXLAB_IOC_UNLOCK_PI, &w, 0)) != -EPERM) {
		fail("unlock of a free lock returned %d", r);
		goto out_fd;
	}

	o.fd = wt.fd = fd;
	o.w = wt.w = &w;
	pthread_create(&to, NULL, pi_owner, &o);
	if (wait_stage(&o.stage, 1) || o.ret) {
		fail("owner lock_pi: %d", o.ret);
		goto out_join_o;
	}
	if ((r = k_pi(fd, FUTEXLAB_IOC_UNLOCK_PI, &w, 0)) != -EPERM) {
		fail("unlock by a non-owner returned %d", r);
		goto out_join_o;
	}
	if ((r = k_pi(fd, FUTEXLAB_IOC_TRYLOCK_PI, &w, 0)) != -EAGAIN) {
		fail("trylock of a held lock returned %d", r);
		goto out_join_o;
	}
	pthread_create(&tw, NULL, pi_waiter, &wt);
	if (wait_stage(&wt.stage, 1) || wt.stage == 9) {
		fail("waiter could not become SCHED_FIFO: %d", wt.ret);
		goto out_join;
	}
	/* the owner must become SCHED_FIFO 50 */
	end = now_ns() + 10000000000ull;
	do {
		usleep(2000);
		get_attr(o.tid, &at);
	} while (!(at.sched_policy == SCHED_FIFO && at.sched_priority == 50) &&
		 now_ns() < end);
	if (at.sched_policy != SCHED_FIFO || at.sched_priority != 50) {
		fail("owner not boosted: policy %u prio %u", at.sched_policy,
		     at.sched_priority);
		goto out_join;
	}
	if (!(w & FUTEXLAB_WAITERS)) {
		fail("WAITERS bit not set under contention: %#x", w);
		goto out_join;
	}
	o.stage = 2;		/* owner unlocks: hand-over to the waiter */
	if (wait_stage(&o.stage, 3) || o.ret) {
		fail("owner unlock_pi: %d", o.ret);
		goto out_join;
	}
	if (wait_stage(&wt.stage, 2) || wt.ret) {
		fail("waiter lock_pi: %d", wt.ret);
		goto out_join;
	}
	if ((w & FUTEXLAB_TID_MASK) != (uint32_t)wt.tid) {
		fail("word after hand-over %#x, waiter %d", w, wt.tid);
		goto out_join;
	}
	get_attr(o.tid, &at);
	if (at.sched_policy != SCHED_OTHER) {
		fail("owner not deboosted: policy %u", at.sched_policy);
		goto out_join;
	}
	wt.stage = 3;
	if (wait_stage(&wt.stage, 4) || wt.ret || w != 0) {
		fail("waiter unlock: %d, word %#x", wt.ret, w);
		goto out_join;
	}
	ret = 0;
out_join:
	wt.stage = 3;
	o.stage = 2;
	pthread_join(tw, NULL);
out_join_o:
	o.stage = 2;
	pthread_join(to, NULL);
out_fd:
	close(fd);
	return ret;
}

/*
 * kill -9 of PI waiters: children block in lock_pi on a shared PI word
 * that this thread owns (one of them SCHED_FIFO, boosting us) and in
 * wait_requeue_pi; after the kill nobody is queued, we are deboosted, and
 * our unlock finds the lock uncontended.
 */
static int t_kill9_pi(void)
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

/*
 * The lock word on a copy-on-write page (after fork): the kernel's
 * cmpxchg faults, and faulting the page in must not write to the word
 * (fault_in_writeable() stores a zero byte: an owner's TID would change).
 */
struct cow_arg {
	int fd;
	uint32_t *w;
	_Atomic int ret;
};

static void *cow_locker(void *p)
{
	struct cow_arg *a = p;

	a->ret = k_pi(a->fd, FUTEXLAB_IOC_LOCK_PI, a->w, now_ns() + 100000000);
	return NULL;
}

static void fork_and_reap(void)
{
	pid_t c = fork();

	if (c == 0)
		_exit(0);
	waitpid(c, NULL, 0);
}

static int t_pi_cow(uint32_t design)
{
	uint32_t *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint32_t me = (uint32_t)syscall(SYS_gettid);
	struct cow_arg a;
	pthread_t th;
	int fd = open_design(design, 0), ret = -1, r;

	if (fd < 0 || w == MAP_FAILED)
		return fail("setup"), -1;
	*w = 0;
	if ((r = k_pi(fd, FUTEXLAB_IOC_TRYLOCK_PI, w, 0)) != 0 || *w != me) {
		fail("trylock: %d, word %#x", r, *w);
		goto out;
	}
	fork_and_reap();	/* the page is copy-on-write now */
	a.fd = fd;
	a.w = w;
	a.ret = 1;
	pthread_create(&th, NULL, cow_locker, &a);
	pthread_join(th, NULL);
	if (a.ret != -ETIMEDOUT || *w != (me | FUTEXLAB_WAITERS)) {
		fail("contended lock on a COW page: %d, word %#x (owner %#x)",
		     a.ret, *w, me);
		goto out;
	}
	fork_and_reap();
	if ((r = k_pi(fd, FUTEXLAB_IOC_UNLOCK_PI, w, 0)) != 0 || *w != 0) {
		fail("unlock on a COW page: %d, word %#x", r, *w);
		goto out;
	}
	ret = 0;
out:
	close(fd);
	munmap(w, 4096);
	return ret;
}

/*
 * Requeue-PI beyond the conformance suite: the exact errors, a plain wake
 * or cmp_requeue refused on a requeue-PI waiter, a requeued waiter that
 * times out on the PI lock (and leaves no waiter and no boost behind).
 */
static void *rqpi_waiter(void *p)
{
	struct waiter *w = p;
	struct futexlab_wait_requeue_pi a = {
		.uaddr = (uintptr_t)w->w, .uaddr2 = (uintptr_t)w->w2,
		.val = 0, .flags = FUTEXLAB_F_DEADLINE,
		.deadline_ns = w->deadline,
	};

	w->tid = (pid_t)syscall(SYS_gettid);
	w->ret = xioctl(w->fd, FUTEXLAB_IOC_WAIT_REQUEUE_PI, &a);
	w->done = 1;
	return NULL;
}

static int t_requeue_pi(uint32_t design)
{
	static uint32_t a, b;
	struct futexlab_wait_requeue_pi wr;
	struct futexlab_requeue rq;
	struct waiter w;
	int fd = open_design(design, 0), ret = -1, r;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	a = 0;
	b = 0;
	memset(&wr, 0, sizeof(wr));
	wr.uaddr = wr.uaddr2 = (uintptr_t)&a;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT_REQUEUE_PI, &wr), -EINVAL,
	       "wait_requeue_pi onto the same word");
	wr.uaddr2 = (uintptr_t)&b;
	wr.flags = 1u << 8;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT_REQUEUE_PI, &wr), -EINVAL,
	       "wait_requeue_pi flag 1<<8");
	wr.flags = 0;
	wr.val = 1;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAIT_REQUEUE_PI, &wr), -EAGAIN,
	       "wait_requeue_pi mismatch");
	memset(&rq, 0, sizeof(rq));
	rq.uaddr = (uintptr_t)&a;
	rq.uaddr2 = (uintptr_t)&b;
	rq.nr_wake = 2;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE_PI, &rq), -EINVAL,
	       "cmp_requeue_pi with nr_wake 2");
	rq.nr_wake = 1;
	rq.uaddr2 = (uintptr_t)&a;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE_PI, &rq), -EINVAL,
	       "cmp_requeue_pi onto the same word");
	rq.uaddr2 = (uintptr_t)&b;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE_PI, &rq), 0,
	       "cmp_requeue_pi without waiters");

	/* a requeue-PI waiter refuses plain wakes and plain requeues */
	memset(&w, 0, sizeof(w));
	w.fd = fd;
	w.w = &a;
	w.w2 = &b;
	w.deadline = now_ns() + 20000000000ull;
	if (start_sleeper(&w.th, rqpi_waiter, &w, &w.tid)) {
		fail("requeue-PI waiter did not sleep");
		goto out_join;
	}
	if ((r = k_wake(fd, &a, 1, ~0u, 0)) != -EINVAL) {
		fail("plain wake of a requeue-PI waiter: %d", r);
		goto out_join;
	}
	if ((r = k_requeue(fd, &a, &b, 1, 1, 0)) != -EINVAL) {
		fail("plain requeue of a requeue-PI waiter: %d", r);
		goto out_join;
	}
	/* b held by us: the waiter is queued on b, then times out there */
	if ((r = k_pi(fd, FUTEXLAB_IOC_LOCK_PI, &b, 0)) != 0) {
		fail("lock_pi of b: %d", r);
		goto out_join;
	}
	w.deadline = 0;		/* (the waiter's own deadline is 20 s) */
	rq.nr_requeue = 0;
	if ((r = xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE_PI, &rq)) != 1) {
		fail("cmp_requeue_pi onto a held lock: %d", r);
		goto out_unlock;
	}
	if (!(b & FUTEXLAB_WAITERS) || w.done) {
		fail("after requeue: word %#x, waiter done %d", b, w.done);
		goto out_unlock;
	}
	/* the waiter leaves the PI queue on a signal: -EAGAIN, as stock */
	catch_usr1();
	wait_sleeping(w.tid);
	pthread_kill(w.th, SIGUSR1);
	pthread_join(w.th, NULL);
	if (w.ret != -EAGAIN) {
		fail("signalled requeued waiter returned %d", w.ret);
		goto out_unlock;
	}
	if (check_no_waiters(fd, "left"))
		goto out_unlock;
	if ((r = k_pi(fd, FUTEXLAB_IOC_UNLOCK_PI, &b, 0)) != 0 || b != 0) {
		fail("unlock after the waiter left: %d, word %#x", r, b);
		goto out_fd;
	}
	ret = 0;
	goto out_fd;
out_unlock:
	k_pi(fd, FUTEXLAB_IOC_UNLOCK_PI, &b, 0);
out_join:
	a = 1;			/* the restarted wait then fails with EAGAIN */
	pthread_kill(w.th, SIGUSR1);
	pthread_join(w.th, NULL);
	goto out_fd;
out:
	ret = -1;
out_fd:
	close(fd);
	return ret;
}

/* ------------------------------------------------------------ stress */
/*
 * Four threads, two games, every wait bounded by a 3 s deadline:
 *  - ping-pong: threads 0 and 1 pass a turn through word T0 with
 *    wait/wake_bitset; a thread whose wait times out while the turn is
 *    its own was not woken: a lost wakeup;
 *  - requeue: threads 2 and 3 pass a turn through T1, the switcher moving
 *    the sleeper to U with cmp_requeue and then waking U (or waking
 *    directly through cmp_requeue every other round).
 * The watchdog (the main thread) fails the test when a thread makes no
 * progress for 10 s or any lost wakeup is seen.
 */
struct stress {
	int fd;
	_Atomic int stop;
	_Atomic uint32_t t0, t1, u;
	_Atomic unsigned long progress[4];
	_Atomic int lost;
	_Atomic int errors;
	_Atomic int last_err;
};

/* A stress thread's argument: its game's state (struct stress or pistress) */
struct stress_arg {
	void *s;
	int id;
};

/*
 * Run four threads of @fn, each given @s and its id, for @secs seconds
 * under the watchdog: it fails when a thread's counter in @progress stays
 * still for 10 s, or when *@lost (unless NULL) is non-zero. Then *@stop is
 * set and the threads are joined; @last holds the counts last seen.
 */
static int run_stress(void *(*fn)(void *), void *s, int secs,
		      _Atomic unsigned long progress[4], _Atomic int *lost,
		      _Atomic int *stop, unsigned long last[4])
{
	struct stress_arg args[4];
	pthread_t th[4];
	uint64_t stalled_since[4], end, t;
	int i, ret = 0;

	for (i = 0; i < 4; i++) {
		args[i].s = s;
		args[i].id = i;
		pthread_create(&th[i], NULL, fn, &args[i]);
		stalled_since[i] = now_ns();
	}
	end = now_ns() + (uint64_t)secs * 1000000000ull;
	while ((t = now_ns()) < end && !ret) {
		usleep(200000);
		for (i = 0; i < 4; i++) {
			if (progress[i] != last[i]) {
				last[i] = progress[i];
				stalled_since[i] = t;
			} else if (t - stalled_since[i] > 10000000000ull) {
				fail("thread %d made no progress for 10 s", i);
				ret = -1;
			}
		}
		if (lost && *lost) {
			fail("%d lost wakeups", *lost);
			ret = -1;
		}
	}
	*stop = 1;
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	return ret;
}

static void *stress_main(void *p)
{
	struct stress_arg *sa = p;
	struct stress *s = sa->s;
	int id = sa->id, me = id & 1;
	_Atomic uint32_t *turn = id < 2 ? &s->t0 : &s->t1;
	unsigned long round = 0;

	while (!s->stop) {
		uint32_t v = atomic_load(turn);

		if ((v & 1) == (uint32_t)me) {
			/* our turn: pass it on and wake the partner */
			atomic_store(turn, v + 1);
			if (id < 2) {
				k_wake(s->fd, (uint32_t *)turn, 1,
				       1u << (me ^ 1), 0);
			} else if (round & 1) {
				k_requeue(s->fd, (uint32_t *)turn,
					  (uint32_t *)&s->u, 1, 0, v + 1);
			} else {
				int r = k_requeue(s->fd, (uint32_t *)turn,
						  (uint32_t *)&s->u, 0, 1,
						  v + 1);

				if (r < 0 && r != -EAGAIN) {
					s->errors++;
					s->last_err = r;
				}
				k_wake(s->fd, (uint32_t *)&s->u, 1, ~0u, 0);
			}
			s->progress[id]++;
			round++;
			continue;
		}
		{
			int r = k_wait(s->fd, (uint32_t *)turn, v,
				       now_ns() + 3000000000ull,
				       id < 2 ? 1u << me : ~0u, 0);

			if (r == -ETIMEDOUT && !s->stop &&
			    atomic_load(turn) != v)
				s->lost++;
			else if (r && r != -EAGAIN && r != -ETIMEDOUT) {
				s->errors++;
				s->last_err = r;
			}
		}
	}
	/* let the partner out */
	atomic_fetch_add(turn, 1);
	k_wake(s->fd, (uint32_t *)turn, INT_MAX, ~0u, 0);
	k_wake(s->fd, (uint32_t *)&s->u, INT_MAX, ~0u, 0);
	return NULL;
}

static int stress_seconds = 10;

static int t_stress(uint32_t design)
{
	struct stress s;
	unsigned long last[4] = { 0 };
	struct futexlab_stats st;
	int ret;

	memset(&s, 0, sizeof(s));
	s.fd = open_design(design, 0);
	if (s.fd < 0)
		return fail("open: %s", strerror(-s.fd)), -1;
	ret = run_stress(stress_main, &s, stress_seconds, s.progress, &s.lost,
			 &s.stop, last);
	if (!ret && s.lost)
		fail("%d lost wakeups", s.lost), ret = -1;
	if (!ret && s.errors)
		fail("%d unexpected errors (last %d)", s.errors, s.last_err),
			ret = -1;
	k_stats(s.fd, &st, NULL, 0);
	if (!ret && st.live_waiters)
		fail("%llu waiters left queued",
		     (unsigned long long)st.live_waiters), ret = -1;
	printf("# stress %s: %lu+%lu ping-pong, %lu+%lu requeue rounds, waits %llu, woken %llu, timeouts %llu (at the stop), requeued %llu, contended %llu, longest chain %llu\n",
	       design_name(design), last[0], last[1], last[2], last[3],
	       (unsigned long long)st.waits, (unsigned long long)st.woken,
	       (unsigned long long)st.timeouts,
	       (unsigned long long)st.requeued,
	       (unsigned long long)st.contended,
	       (unsigned long long)st.longest_chain);
	close(s.fd);
	return ret;
}

/*
 * PI stress: four threads (two SCHED_FIFO, two SCHED_OTHER) take one PI
 * lock with the user-space fast path (cmpxchg 0 -> TID) and lock_pi /
 * unlock_pi under contention, checking mutual exclusion inside. The
 * watchdog fails on a thread without progress for 10 s, and at the end
 * every thread must be back to its own policy (no boost left behind).
 */
struct pistress {
	int fd;
	_Atomic uint32_t word;
	_Atomic int inside;
	_Atomic int stop;
	_Atomic int violations;
	_Atomic int errors;
	_Atomic int last_err;
	_Atomic unsigned long timeouts;
	_Atomic unsigned long progress[4];
	_Atomic pid_t tid[4];
};

static void *pistress_main(void *p)
{
	struct stress_arg *pa = p;
	struct pistress *s = pa->s;
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	int id = pa->id;

	s->tid[id] = (pid_t)tid;
	if (id < 2) {
		struct sched_param sp = { .sched_priority = 10 + id * 10 };

		sched_setscheduler(0, SCHED_FIFO, &sp);
	}
	while (!s->stop) {
		uint32_t zero = 0;
		int r = 0;

		/* the SCHED_OTHER threads give up after 200 us: waiters
		 * leave the PI queue by timeout all the time */
		if (!atomic_compare_exchange_strong(&s->word, &zero, tid))
			r = k_pi(s->fd, FUTEXLAB_IOC_LOCK_PI, (uint32_t *)&s->word,
				 now_ns() + (id < 2 ? 5000000000ull : 200000));
		if (r == -ETIMEDOUT && id >= 2) {
			s->timeouts++;
			s->progress[id]++;
			continue;
		}
		if (r) {
			s->errors++;
			s->last_err = r;
			continue;
		}
		{
			uint32_t seen = atomic_load(&s->word);
			int in = atomic_fetch_add(&s->inside, 1);

			if ((seen & FUTEXLAB_TID_MASK) != tid || in != 0) {
				if (s->violations++ < 3)
					printf("# pi-stress: thread %d (tid %u, %s path) saw word %#x, %d inside\n",
					       id, tid, zero ? "kernel" : "fast",
					       seen, in);
			}
		}
		for (volatile int i = 0; i < 50; i++)
			;
		atomic_fetch_sub(&s->inside, 1);
		{
			uint32_t mine = tid;

			if (!atomic_compare_exchange_strong(&s->word, &mine, 0)) {
				r = k_pi(s->fd, FUTEXLAB_IOC_UNLOCK_PI,
					 (uint32_t *)&s->word, 0);
				if (r) {
					if (s->errors++ < 3)
						printf("# pi-stress: thread %d (tid %u) unlock: %d, word %#x (was %#x)\n",
						       id, tid, r,
						       atomic_load(&s->word),
						       mine);
					s->last_err = r;
				}
			}
		}
		s->progress[id]++;
		if (id >= 2)
			sched_yield();
	}
	return NULL;
}

static int t_pi_stress(uint32_t design)
{
	struct pistress s;
	unsigned long last[4] = { 0 };
	struct sched_attr_k at;
	struct futexlab_stats st;
	int ret;
	int secs = stress_seconds / 2 > 1 ? stress_seconds / 2 : 1;

	memset(&s, 0, sizeof(s));
	s.fd = open_design(design, 0);
	if (s.fd < 0)
		return fail("open: %s", strerror(-s.fd)), -1;
	ret = run_stress(pistress_main, &s, secs, s.progress, NULL, &s.stop,
			 last);
	if (!ret && s.violations)
		fail("%d mutual-exclusion violations", s.violations), ret = -1;
	if (!ret && s.errors)
		fail("%d errors (last %d)", s.errors, s.last_err), ret = -1;
	if (!ret && atomic_load(&s.word))
		fail("lock word left at %#x", atomic_load(&s.word)), ret = -1;
	/* no boost left behind on this (the main) thread */
	get_attr(0, &at);
	if (!ret && at.sched_policy != SCHED_OTHER)
		fail("main thread left with policy %u", at.sched_policy),
			ret = -1;
	k_stats(s.fd, &st, NULL, 0);
	if (!ret && st.live_waiters)
		fail("%llu waiters left queued",
		     (unsigned long long)st.live_waiters), ret = -1;
	printf("# pi-stress %s: %lu/%lu (FIFO) %lu/%lu (OTHER) rounds, %lu timed out, kernel pi_locks %llu, boosts %llu\n",
	       design_name(design), last[0], last[1], last[2], last[3],
	       (unsigned long)s.timeouts, (unsigned long long)st.pi_locks,
	       (unsigned long long)st.pi_boosts);
	close(s.fd);
	return ret;
}

/* ------------------------------------------------------------ driver */
struct test {
	const char *name;
	int (*fn)(uint32_t design);
	int per_design;
	int (*fn0)(void);
};

static const struct test tests[] = {
	{ "wait-wake", t_wait_wake, 1, NULL },
	{ "timeout", t_timeout, 1, NULL },
	{ "bitset", t_bitset, 1, NULL },
	{ "requeue", t_requeue, 1, NULL },
	{ "eintr", t_eintr, 1, NULL },
	{ "shared-key", t_shared, 1, NULL },
	{ "bad-input", NULL, 0, t_bad_input },
	{ "numa-node", NULL, 0, t_numa_node },
	{ "kill9", NULL, 0, t_kill9 },
	{ "kill9-pi", NULL, 0, t_kill9_pi },
	{ "pi-boost", t_pi, 1, NULL },
	{ "pi-cow", t_pi_cow, 1, NULL },
	{ "requeue-pi", t_requeue_pi, 1, NULL },
	{ "stress", t_stress, 1, NULL },
	{ "pi-stress", t_pi_stress, 1, NULL },
};

static void report(const char *name, const char *design, int r)
{
	if (r) {
		failures++;
		printf("FAIL %s%s%s: %s\n", name, design ? "/" : "",
		       design ? design : "", why);
	} else {
		printf("PASS %s%s%s\n", name, design ? "/" : "",
		       design ? design : "");
	}
	fflush(stdout);
	why[0] = '\0';
}

static int selected(const char *name, int argc, char **argv, int first)
{
	int i;

	if (first >= argc)
		return 1;
	for (i = first; i < argc; i++)
		if (!strcmp(argv[i], name))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	int first = 1;
	size_t i, j;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (first < argc && !strncmp(argv[first], "--", 2)) {
		if (!strcmp(argv[first], "--list")) {
			for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
				printf("%s\n", tests[i].name);
			return 0;
		}
		if (!strcmp(argv[first], "--op-smoke")) {
			uint32_t w = 1;
			int fd = open_design(FUTEXLAB_DESIGN_PRIVATE, 64), r;

			if (fd < 0)
				return 1;
			r = k_wait(fd, &w, 2, 0, ~0u, 0);
			close(fd);
			return r == -EAGAIN ? 0 : 1;
		}
		if (!strcmp(argv[first], "--stress-seconds") &&
		    first + 1 < argc) {
			stress_seconds = atoi(argv[first + 1]);
			first += 2;
			continue;
		}
		fprintf(stderr, "kmodtest: unknown option %s\n", argv[first]);
		return 100;
	}
	if (access(DEV, F_OK)) {
		printf("FAIL setup: %s missing (module not loaded)\n", DEV);
		return 1;
	}
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		const struct test *t = &tests[i];

		if (!selected(t->name, argc, argv, first))
			continue;
		if (!t->per_design) {
			report(t->name, NULL, t->fn0());
			continue;
		}
		for (j = 0; j < 3; j++)
			report(t->name, design_name(designs[j]),
			       t->fn(designs[j]));
	}
	return failures > 100 ? 100 : failures;
}
