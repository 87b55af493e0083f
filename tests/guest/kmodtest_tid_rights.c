// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest's TID-rights family: a lock word is a number any user writes,
 * so the TID in it must not let a user reach a task it could not signal.
 * LOCK_PI and LOCK_ADAPTIVE resolve the word's TID to a task only when the
 * caller may send that task a signal (kill(2)'s rule: a matching real or
 * effective uid, or CAP_KILL over it); any other task is treated as no
 * task at all, so its existence, its exit and whether it runs on a CPU
 * stay hidden, and neither call attaches to, spins on or sleeps on it.
 *
 *   tid-rights   as uid 65534, each of these words gives what a word
 *                naming no task gives (LOCK_PI: ESRCH at once;
 *                LOCK_ADAPTIVE: the lock taken over, EOWNERDEAD): pid 1
 *                (root's init; also what TID 1 written in a child PID
 *                namespace names here), kthreadd (pid 2), a running and a
 *                sleeping root task. The caller's own other process is
 *                still an owner: LOCK_PI and LOCK_ADAPTIVE wait for it
 *                until their deadline (ETIMEDOUT).
 */
#include "kmodtest_safety.h"


/* A TID no task has: the highest pid_max allows, checked free. */
static pid_t unused_tid(void)
{
	char path[64];
	pid_t t;

	for (t = 4194000; t > 1000; t -= 7) {
		snprintf(path, sizeof(path), "/proc/%d", t);
		if (access(path, F_OK))
			return t;
	}
	return -1;
}

/* Spin until killed: a root task that is always running. */
static pid_t spinner(void)
{
	pid_t kid = fork();

	if (kid == 0)
		for (;;)
			;
	return kid;
}

static pid_t sleeper(void)
{
	pid_t kid = fork();

	if (kid == 0)
		for (;;)
			pause();
	return kid;
}

/*
 * In a child of uid 65534: LOCK_PI and LOCK_ADAPTIVE on a fresh word
 * naming @tid, each with a deadline @ms from now; results to @res[0..1].
 */
static int try_as_nobody(uint32_t design, pid_t tid, uint64_t ms,
			 _Atomic int *res)
{
	pid_t kid;

	kid = fork();
	if (kid == 0) {
		uint32_t w[4] = { (uint32_t)tid, NO_NODE, (uint32_t)tid,
				  NO_NODE };
		struct futexlab_adaptive ad = {
			.uaddr = (uintptr_t)&w[2],
			.flags = FUTEXLAB_F_DEADLINE,
		};
		int fd;

		if (setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(1);
		fd = open_design(design, 0);
		if (fd < 0)
			_exit(1);
		res[0] = k_pi(fd, FUTEXLAB_IOC_LOCK_PI, &w[0],
			      now_ns() + ms * MS);
		ad.deadline_ns = now_ns() + ms * MS;
		res[1] = xioctl(fd, FUTEXLAB_IOC_LOCK_ADAPTIVE, &ad);
		_exit(0);
	}
	return reap_bounded(kid, now_ns() + 2 * ms * MS + 2 * SEC, "caller");
}

/* Wait until process @pid runs as uid @uid (its /proc status says so). */
static int wait_uid(pid_t pid, uid_t uid)
{
	uint64_t end = now_ns() + 5 * SEC;
	char path[64], line[128];
	unsigned int r, e;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	while (now_ns() < end) {
		FILE *f = fopen(path, "r");

		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "Uid: %u %u", &r, &e) == 2 &&
			    r == uid && e == uid) {
				fclose(f);
				return 0;
			}
		if (f)
			fclose(f);
		usleep(2000);
	}
	return -1;
}

int t_tid_rights(uint32_t design)
{
	_Atomic int *res = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t none = unused_tid(), spin = -1, sleep_kid = -1, own = -1;
	struct {
		const char *what;
		pid_t tid;
	} foreign[4];
	int i, ret = -1, want_pi, want_ad;

	if (res == MAP_FAILED || none < 0)
		return fail("setup"), -1;
	spin = spinner();
	sleep_kid = sleeper();
	foreign[0].what = "init (pid 1)";
	foreign[0].tid = 1;
	foreign[1].what = "kthreadd (pid 2)";
	foreign[1].tid = 2;
	foreign[2].what = "a running root task";
	foreign[2].tid = spin;
	foreign[3].what = "a sleeping root task";
	foreign[3].tid = sleep_kid;

	res[0] = res[1] = 1;
	if (try_as_nobody(design, none, 300, res))
		goto out;
	want_pi = res[0];
	want_ad = res[1];
	if (want_pi != -ESRCH || want_ad != -EOWNERDEAD) {
		fail("a word naming no task: LOCK_PI %d (want ESRCH), LOCK_ADAPTIVE %d (want EOWNERDEAD)",
		     want_pi, want_ad);
		goto out;
	}
	for (i = 0; i < 4; i++) {
		res[0] = res[1] = 1;
		if (try_as_nobody(design, foreign[i].tid, 300, res))
			goto out;
		if (res[0] != want_pi || res[1] != want_ad) {
			fail("a word naming %s: LOCK_PI %d, LOCK_ADAPTIVE %d as uid %d; a word naming no task gives %d, %d",
			     foreign[i].what, res[0], res[1], NOBODY, want_pi,
			     want_ad);
			goto out;
		}
	}
	/* a task of the caller's own uid is still an owner it waits for */
	own = fork();
	if (own == 0) {
		if (setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(1);
		for (;;)
			pause();
	}
	if (wait_uid(own, NOBODY)) {
		fail("the caller's own process did not become uid %d", NOBODY);
		goto out;
	}
	res[0] = res[1] = 1;
	if (try_as_nobody(design, own, 300, res))
		goto out;
	if (res[0] != -ETIMEDOUT || res[1] != -ETIMEDOUT) {
		fail("a word naming the caller's own other process: LOCK_PI %d, LOCK_ADAPTIVE %d, want ETIMEDOUT for both",
		     res[0], res[1]);
		goto out;
	}
	ret = 0;
out:
	if (own > 0)
		kill_and_reap(&own, 1);
	if (spin > 0)
		kill_and_reap(&spin, 1);
	if (sleep_kid > 0)
		kill_and_reap(&sleep_kid, 1);
	munmap((void *)res, 4096);
	return ret;
}
