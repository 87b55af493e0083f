// SPDX-License-Identifier: GPL-2.0
/*
 * What the shim's cases share: the futex calls made the way programs make
 * them (libc's syscall(), which the shim interposes), the text an outcome
 * is written in, and waiter threads seen asleep before they are woken
 * (measure/'s fl_thread_state(), never a guessed sleep).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "spec/workload.h"
#include "measure/sleeping.h"
#include "tests/shim/shimtest.h"

long futex(uint32_t *uaddr, int op, uint32_t val, const void *timeout,
	   uint32_t *uaddr2, uint32_t val3)
{
	return syscall(SYS_futex, uaddr, op, val, timeout, uaddr2, val3);
}

long futex2_wait(void *uaddr, unsigned long val, unsigned long mask,
		 unsigned int flags, const struct timespec *timeout,
		 clockid_t clockid)
{
	return syscall(455, uaddr, val, mask, flags, timeout, clockid);
}

long futex2_wake(void *uaddr, unsigned long mask, int nr, unsigned int flags)
{
	return syscall(454, uaddr, mask, nr, flags);
}

long futex2_requeue(void *waiters, unsigned int flags, int nr_wake,
		    int nr_requeue)
{
	return syscall(456, waiters, flags, nr_wake, nr_requeue);
}

long futex_waitv(void *waiters, unsigned int nr, unsigned int flags,
		 const struct timespec *timeout, clockid_t clockid)
{
	return syscall(449, waiters, nr, flags, timeout, clockid);
}

static void append(char *out, const char *text)
{
	size_t n = strlen(out);

	snprintf(out + n, OUTCOME_LEN - n, "%s%s", n ? " " : "", text);
}

void record(char *out, const char *name, long r)
{
	char buf[96];

	if (r < 0)
		snprintf(buf, sizeof(buf), "%s=-1 %s", name,
			 strerrorname_np(errno) ? strerrorname_np(errno)
						: "E?");
	else
		snprintf(buf, sizeof(buf), "%s=%ld", name, r);
	append(out, buf);
}

void note(char *out, const char *name, const char *fmt, ...)
{
	char value[128], buf[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	snprintf(buf, sizeof(buf), "%s=%s", name, value);
	append(out, buf);
}

const char *word_text(uint32_t word, pid_t main_tid, pid_t other_tid,
		      char *buf)
{
	uint32_t tid = word & FUTEX_TID_MASK;
	const char *who = tid == 0 ? "0" : tid == (uint32_t)main_tid ? "main"
		: tid == (uint32_t)other_tid ? "other" : "someone";

	snprintf(buf, 48, "%s%s%s", who,
		 word & FUTEX_WAITERS ? "|WAITERS" : "",
		 word & FUTEX_OWNER_DIED ? "|OWNER_DIED" : "");
	return buf;
}

struct timespec after_ms(clockid_t clk, long ms)
{
	struct timespec t;

	clock_gettime(clk, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	} else if (t.tv_nsec < 0) {
		t.tv_sec--;
		t.tv_nsec += 1000000000L;
	}
	return t;
}

struct timespec interval_ms(long ms)
{
	return (struct timespec){ ms / 1000, (ms % 1000) * 1000000L };
}

static void *waiter_thread(void *arg)
{
	struct waiter *w = arg;

	atomic_store(&w->tid, gettid());
	atomic_store(&w->calling, 1);
	w->ret = w->fn(w);
	w->err = errno;
	atomic_store(&w->calling, 2);
	return NULL;
}

void waiter_start(struct waiter *w)
{
	pthread_create(&w->thread, NULL, waiter_thread, w);
}

int waiter_asleep(struct waiter *w)
{
	const struct timespec pause = { 0, 200000 };

	for (int i = 0; i < 50000; i++) {	/* 10 s */
		int calling = atomic_load(&w->calling);

		if (calling == 2)
			return -1;
		if (calling == 1 && fl_thread_state(atomic_load(&w->tid)) == 'S')
			return 0;
		nanosleep(&pause, NULL);
	}
	return -1;
}

void waiter_join(struct waiter *w, char *out, const char *name)
{
	pthread_join(w->thread, NULL);
	errno = w->err;
	record(out, name, w->ret);
}

long wait_fn(struct waiter *w)
{
	return futex(w->word, w->op, w->val, w->timeout, NULL, 0);
}

long wait_bitset_fn(struct waiter *w)
{
	return futex(w->word, w->op, w->val, w->timeout, NULL, w->bitset);
}

long futex2_wait_fn(struct waiter *w)
{
	return futex2_wait(w->word, w->val, w->bitset,
			   FUTEX2_SIZE_U32 | FUTEX2_PRIVATE, w->timeout,
			   CLOCK_MONOTONIC);
}

long lock_pi_fn(struct waiter *w)
{
	return futex(w->word, w->op, 0, w->timeout, NULL, 0);
}

long wait_requeue_pi_fn(struct waiter *w)
{
	return futex(w->word, w->op, w->val, w->timeout, w->word2, 0);
}

int device_fds(int *first)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	*first = -1;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[64], target[PATH_MAX];
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (!strcmp(target, "/dev/futexlab")) {
			if (*first < 0)
				*first = atoi(e->d_name);
			n++;
		}
	}
	closedir(d);
	return n;
}

long wake_until_one(uint32_t *word, int op)
{
	const struct timespec pause = { 0, 1000000 };
	long r = 0;

	for (int i = 0; i < 5000; i++) {
		r = futex(word, op, 1, NULL, NULL, 0);
		if (r != 0)
			return r;
		nanosleep(&pause, NULL);
	}
	return r;
}
