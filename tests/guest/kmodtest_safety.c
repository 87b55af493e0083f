// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest's safety family: one test per finding of the module's
 * security review, each the scenario the review reproduced, each
 * expecting what the stock futex does in the same guest where it defines
 * a behaviour. The PI findings (2 and
 * 7) are in kmodtest_safety_pi.c; here:
 *   dead-owner        (1) LOCK_PI on a dead owner's word with the adaptive
 *                     lock on: ESRCH like stock, no task outlives its
 *                     deadline;
 *   shared-alias      (3) a closed file's waiter is not woken through a new
 *                     file (stock: never);
 *   numa-move         (4) a wake after a COW moved the word to another node
 *                     finds the waiter (stock: it does);
 *   stats-huge        (5) STATS with a huge count is clamped, no WARN;
 *   table-cap         (6) private tables are capped per file and per user.
 * Every futex word is a pair {value, node}: the numa design reads the node
 * next to the word (FUTEX2_NUMA's rule), ~0 letting the module choose.
 */
#include <linux/futex.h>

#include "kmodtest_safety.h"

static const uint32_t all_designs[] = {
	FUTEXLAB_DESIGN_GLOBAL, FUTEXLAB_DESIGN_PRIVATE, FUTEXLAB_DESIGN_NUMA,
};

/* A shared anonymous page of word pairs, every node word ~0. */
uint32_t *shared_words(void)
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

pid_t self_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* The stock futex, -errno on failure. */
long sfutex(uint32_t *w, int op, uint32_t val, const struct timespec *ts,
		   uint32_t *w2, uint32_t val3)
{
	long r = syscall(SYS_futex, w, op, val, ts, w2, val3);

	return r < 0 ? -errno : r;
}

/* An absolute CLOCK_REALTIME time @ns from now (LOCK_PI's clock). */
struct timespec realtime_in(uint64_t ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += (long)(ns % SEC);
	ts.tv_sec += (time_t)(ns / SEC) + ts.tv_nsec / 1000000000;
	ts.tv_nsec %= 1000000000;
	return ts;
}

/*
 * Wait for child @kid, whose operation ends by @deadline (ns, CLOCK_MONOTONIC)
 * at the latest. A child alive 5 s after it is SIGKILLed, and then 3 s after
 * SIGKILL, is a task that outlived its deadline: fail and return -1 (it is
 * left behind: it cannot be reaped).
 */
int reap_bounded(pid_t kid, uint64_t deadline, const char *what)
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

	*w = (uint32_t)self_tid();	/* taken with the user-space fast path */
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

	aw->tid = self_tid();
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
	m->tid = self_tid();
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
