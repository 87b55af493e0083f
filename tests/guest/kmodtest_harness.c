// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest's shared harness: the PASS/FAIL reporting, typed wrappers of
 * the module's ioctls, waiters started and known asleep (state S) before
 * a test goes on, and helpers for tests that fork and kill -9 children.
 */
#include <grp.h>
#include <sys/prctl.h>

#include "kmodtest.h"

int failures;
static char why[256];

void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The first line of a (sysfs) file into buf: 0, or -1 when unreadable
 * or empty. */
int read_first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	return buf[0] ? 0 : -1;
}

/* A module parameter by name: its value, or -1 when unreadable. */
long module_param_read(const char *name)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), "/sys/module/futexlab/parameters/%s",
		 name);
	return read_first_line(path, buf, sizeof(buf)) ? -1 : atol(buf);
}

/* Set a writable module parameter: 0 or -errno. */
int module_param_write(const char *name, long v)
{
	char path[128];
	FILE *f;
	int r;

	snprintf(path, sizeof(path), "/sys/module/futexlab/parameters/%s",
		 name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	r = fprintf(f, "%ld\n", v) < 0 ? -EIO : 0;
	if (fclose(f) && !r)
		r = -errno;
	return r;
}

const char *design_name(uint32_t d)
{
	return d == FUTEXLAB_DESIGN_GLOBAL ? "global" :
	       d == FUTEXLAB_DESIGN_PRIVATE ? "private" :
	       d == FUTEXLAB_DESIGN_NUMA ? "numa" : "?";
}

int xioctl(int fd, unsigned long cmd, void *arg)
{
	int r = ioctl(fd, cmd, arg);

	return r < 0 ? -errno : r;
}

int open_design(uint32_t design, uint32_t slots)
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

int k_wait(int fd, uint32_t *w, uint32_t val, uint64_t deadline,
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

int k_wake(int fd, uint32_t *w, int nr, uint32_t bitset, uint32_t flags)
{
	struct futexlab_wake a = {
		.uaddr = (uintptr_t)w, .nr_wake = (uint32_t)nr,
		.bitset = bitset, .flags = flags,
	};

	return xioctl(fd, FUTEXLAB_IOC_WAKE, &a);
}

int k_requeue(int fd, uint32_t *w, uint32_t *w2, int nr_wake,
	      int nr_requeue, uint32_t val)
{
	struct futexlab_requeue a = {
		.uaddr = (uintptr_t)w, .uaddr2 = (uintptr_t)w2,
		.nr_wake = (uint32_t)nr_wake,
		.nr_requeue = (uint32_t)nr_requeue, .val = val,
	};

	return xioctl(fd, FUTEXLAB_IOC_CMP_REQUEUE, &a);
}

int k_pi(int fd, unsigned long cmd, uint32_t *w, uint64_t deadline)
{
	struct futexlab_pi a = { .uaddr = (uintptr_t)w };

	if (deadline) {
		a.deadline_ns = deadline;
		a.flags = FUTEXLAB_F_DEADLINE;
	}
	return xioctl(fd, cmd, &a);
}

int k_stats(int fd, struct futexlab_stats *s, uint64_t *counts, uint32_t n)
{
	memset(s, 0, sizeof(*s));
	s->counts_ptr = (uintptr_t)counts;
	s->nr_counts = n;
	return xioctl(fd, FUTEXLAB_IOC_STATS, s);
}

/* Wait until thread tid sleeps (state S), at most 5 s. */
int wait_sleeping(pid_t tid)
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
int start_sleeper(pthread_t *th, void *(*fn)(void *), void *arg,
		  _Atomic pid_t *tid)
{
	if (pthread_create(th, NULL, fn, arg))
		return -1;
	while (!*tid)
		usleep(100);
	return wait_sleeping(*tid);
}

static void *waiter_main(void *arg)
{
	struct waiter *wt = arg;

	wt->tid = (pid_t)syscall(SYS_gettid);
	wt->ret = k_wait(wt->fd, wt->w, wt->val, wt->deadline,
			 wt->bitset ? wt->bitset : FUTEXLAB_BITSET_ANY, 0);
	wt->done = 1;
	return NULL;
}

int start_waiter(struct waiter *wt, int fd, uint32_t *w, uint32_t val,
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

int join_waiter(struct waiter *wt)
{
	pthread_join(wt->th, NULL);
	return wt->ret;
}

/* Three waiters on @w, each asleep before the next starts. */
int start_three(struct waiter wt[3], int fd, uint32_t *w, uint32_t val)
{
	int i;

	for (i = 0; i < 3; i++)
		if (start_waiter(&wt[i], fd, w, val, 0))
			return -1;
	return 0;
}

/* Join the three waiters: non-zero if one of them returned non-zero. */
int join_three(struct waiter wt[3])
{
	int i, r = 0;

	for (i = 0; i < 3; i++)
		r |= join_waiter(&wt[i]);
	return r;
}

static void on_usr1(int sig)
{
	(void)sig;
}

/* SIGUSR1 without SA_RESTART: the wait it interrupts ends. */
void catch_usr1(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
}

/* 0 if no waiter is left queued in @fd's tables, else fail saying when. */
int check_no_waiters(int fd, const char *when)
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
int count_sleeping(const pid_t *kids, int n)
{
	int i, asleep = 0;

	for (i = 0; i < n; i++)
		asleep += sleeping_pid(kids[i]);
	return asleep;
}

void kill_and_reap(const pid_t *kids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	for (i = 0; i < n; i++)
		waitpid(kids[i], NULL, 0);
}

int get_attr(pid_t tid, struct sched_attr_k *a)
{
	memset(a, 0, sizeof(*a));
	return (int)syscall(SYS_sched_getattr, tid, a, sizeof(*a), 0);
}

int set_fifo(pid_t tid, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	return sched_setscheduler(tid, prio ? SCHED_FIFO : SCHED_OTHER, &sp);
}

int set_attr(pid_t tid, uint32_t policy, uint32_t prio, uint64_t flags)
{
	struct sched_attr_k a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sched_policy = policy;
	a.sched_priority = prio;
	a.sched_flags = flags;
	if (policy == SCHED_DEADLINE) {
		a.sched_runtime = 2 * MS;
		a.sched_deadline = 10 * MS;
		a.sched_period = 10 * MS;
	}
	return (int)syscall(SYS_sched_setattr, tid, &a, 0);
}

/* Wait until the FIFO priority of @tid is @prio (0: not FIFO), 5 s at most */
int wait_fifo(pid_t tid, int prio)
{
	uint64_t end = now_ns() + 5 * SEC;
	struct sched_attr_k at;

	while (now_ns() < end) {
		if (!get_attr(tid, &at) &&
		    (prio ? at.sched_policy == SCHED_FIFO &&
			    (int)at.sched_priority == prio :
			    at.sched_policy == SCHED_OTHER))
			return 0;
		usleep(2000);
	}
	return -1;
}

void report(const char *name, const char *design, int r)
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

/* Write @s to /proc/self/@file (uid_map, gid_map, setgroups). */
static int write_proc_self(const char *file, const char *s)
{
	char path[64];
	int fd, ok;

	snprintf(path, sizeof(path), "/proc/self/%s", file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

/*
 * Become uid 65534 with no groups, then the root of a user namespace and a
 * mount namespace of its own (where it may mount a tmpfs).
 */
int become_userns_nobody(void)
{
	char map[64];

	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return printf("# setresuid: %s\n", strerror(errno)), -1;
	/*
	 * A process that gave up root is not dumpable, so its /proc/self
	 * files stay root's; a user's own login process is dumpable.
	 */
	if (prctl(PR_SET_DUMPABLE, 1))
		return printf("# PR_SET_DUMPABLE: %s\n", strerror(errno)), -1;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return printf("# unshare(CLONE_NEWUSER|CLONE_NEWNS): %s\n",
			      strerror(errno)), -1;
	snprintf(map, sizeof(map), "0 %d 1\n", NOBODY);
	if (write_proc_self("setgroups", "deny") ||
	    write_proc_self("uid_map", map) ||
	    write_proc_self("gid_map", map))
		return printf("# uid_map: %s\n", strerror(errno)), -1;
	return 0;
}
