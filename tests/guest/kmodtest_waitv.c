// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest's futex_waitv family (FUTEXLAB_IOC_WAITV), once per hash
 * design: the woken index, a full 128-entry vector (distinct words, and
 * every entry on one word), EAGAIN with the earlier entries unqueued, a
 * word that faults after others were queued, the deadline, a signal, and
 * the argument checks with their exact errno. Entries are plain u32
 * words (no FUTEXLAB_WAITV_NUMA) except in numa-word, which gives the
 * numa design's node words. After each test no waiter is left queued.
 */
#include "kmodtest.h"

#define NW	FUTEXLAB_WAITV_MAX
#define PLAIN	(FUTEXLAB_WAITV_SIZE_U32 | FUTEXLAB_WAITV_PRIVATE)

static uint32_t words[NW];

struct vwaiter {
	pthread_t th;
	int fd;
	struct futexlab_waitv *v;
	unsigned int n;
	uint64_t deadline;
	_Atomic pid_t tid;
	_Atomic int ret;
};

static int k_waitv(int fd, struct futexlab_waitv *v, unsigned int n,
		   uint64_t deadline)
{
	struct futexlab_waitv_args a = {
		.waiters = (uintptr_t)v, .nr = n, .deadline_ns = deadline,
		.flags = deadline ? FUTEXLAB_F_DEADLINE : 0,
	};

	return xioctl(fd, FUTEXLAB_IOC_WAITV, &a);
}

/* a wake of a plain word, in every design */
static int k_wake_plain(int fd, uint32_t *w, int nr)
{
	struct futexlab_wake a = {
		.uaddr = (uintptr_t)w, .nr_wake = (uint32_t)nr,
		.bitset = FUTEXLAB_BITSET_ANY, .flags = FUTEXLAB_F_NODE,
		.node = FUTEXLAB_NO_NODE,
	};

	return xioctl(fd, FUTEXLAB_IOC_WAKE, &a);
}

static void fill(struct futexlab_waitv *v, unsigned int n, int one_word)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		words[i] = 0;
		v[i] = (struct futexlab_waitv){
			.uaddr = (uintptr_t)&words[one_word ? 0 : i],
			.flags = PLAIN,
		};
	}
}

static void *vwaiter_main(void *arg)
{
	struct vwaiter *vw = arg;

	vw->tid = (pid_t)syscall(SYS_gettid);
	vw->ret = k_waitv(vw->fd, vw->v, vw->n, vw->deadline);
	return NULL;
}

static int start_vwaiter(struct vwaiter *vw, int fd,
			 struct futexlab_waitv *v, unsigned int n)
{
	memset(vw, 0, sizeof(*vw));
	vw->fd = fd;
	vw->v = v;
	vw->n = n;
	vw->deadline = now_ns() + 20000000000ull;	/* a bound, never hit */
	return start_sleeper(&vw->th, vwaiter_main, vw, &vw->tid);
}

static int join_vwaiter(struct vwaiter *vw)
{
	pthread_join(vw->th, NULL);
	return vw->ret;
}

/* Woken through entry @i of an @n-entry vector: returns @i. */
static int woken_through(int fd, unsigned int n, unsigned int i,
			 int one_word)
{
	static struct futexlab_waitv v[NW];
	struct vwaiter vw;
	int r;

	fill(v, n, one_word);
	if (start_vwaiter(&vw, fd, v, n))
		return fail("waitv of %u did not sleep", n), -1;
	r = k_wake_plain(fd, &words[one_word ? 0 : i], 1);
	if (r != 1)
		return fail("wake of entry %u woke %d", i, r), -1;
	r = join_vwaiter(&vw);
	if (r != (int)i)
		return fail("waitv of %u woken through %u returned %d", n, i,
			    r), -1;
	return check_no_waiters(fd, "after the wake");
}

int t_waitv_wake(uint32_t design)
{
	int fd = open_design(design, 0), r = -1;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	if (woken_through(fd, 4, 2, 0) || woken_through(fd, 1, 0, 0) ||
	    woken_through(fd, NW, NW - 1, 0) || woken_through(fd, NW, 0, 0))
		goto out;
	/* 128 entries on one word, one bucket: the first queued wakes */
	if (woken_through(fd, NW, 0, 1))
		goto out;
	r = 0;
out:
	close(fd);
	return r;
}

int t_waitv_eagain(uint32_t design)
{
	static struct futexlab_waitv v[NW];
	int fd = open_design(design, 0), r = -1;
	uint32_t pair[2] = { 0, FUTEXLAB_NO_NODE };

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	fill(v, NW, 0);
	words[NW - 1] = 1;
	EXPECT(k_waitv(fd, v, NW, 0), -EAGAIN, "last word differs");
	if (check_no_waiters(fd, "after EAGAIN on entry 127"))
		goto out;
	/* a word that faults after 127 were queued */
	fill(v, NW, 0);
	v[NW - 1].uaddr = 8;
	EXPECT(k_waitv(fd, v, NW, now_ns() + 1000000000ull), -EFAULT,
	       "unmapped last word");
	if (check_no_waiters(fd, "after EFAULT on entry 127"))
		goto out;
	/* numa-word: the numa design reads the node word after the value */
	v[0] = (struct futexlab_waitv){ .uaddr = (uintptr_t)pair,
		.flags = PLAIN | FUTEXLAB_WAITV_NUMA, .val = 1 };
	EXPECT(k_waitv(fd, v, 1, 0), -EAGAIN, "node-word entry differs");
	r = check_no_waiters(fd, "after the node-word entry");
out:
	close(fd);
	return r;
}

int t_waitv_timeout(uint32_t design)
{
	static struct futexlab_waitv v[4];
	int fd = open_design(design, 0), r = -1;
	struct futexlab_stats s0, s1;
	uint64_t dl;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	fill(v, 4, 0);
	k_stats(fd, &s0, NULL, 0);
	dl = now_ns() + 20000000;
	EXPECT(k_waitv(fd, v, 4, dl), -ETIMEDOUT, "deadline");
	if (now_ns() < dl) {
		fail("ETIMEDOUT before the deadline");
		goto out;
	}
	EXPECT(k_waitv(fd, v, 4, 1), -ETIMEDOUT, "deadline in the past");
	k_stats(fd, &s1, NULL, 0);
	if (s1.timeouts - s0.timeouts < 2) {
		fail("timeouts counted %llu, want 2",
		     (unsigned long long)(s1.timeouts - s0.timeouts));
		goto out;
	}
	r = check_no_waiters(fd, "after the timeouts");
out:
	close(fd);
	return r;
}

int t_waitv_eintr(uint32_t design)
{
	static struct futexlab_waitv v[8];
	int fd = open_design(design, 0), r;
	struct vwaiter vw;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	catch_usr1();
	fill(v, 8, 0);
	if (start_vwaiter(&vw, fd, v, 8))
		return fail("waitv did not sleep"), close(fd), -1;
	pthread_kill(vw.th, SIGUSR1);
	r = join_vwaiter(&vw);
	if (r != -EINTR)
		return fail("signalled waitv returned %d", r), close(fd), -1;
	r = check_no_waiters(fd, "after the signal");
	close(fd);
	return r;
}

/* The argument checks, each with its errno, nothing left queued. */
int t_waitv_bad_input(uint32_t design)
{
	static struct futexlab_waitv v[NW + 1];
	struct futexlab_waitv_args a;
	int fd = open_design(design, 0), r = -1;

	if (fd < 0)
		return fail("open: %s", strerror(-fd)), -1;
	fill(v, NW, 0);
	words[0] = 1;		/* so a vector that passes is EAGAIN */
	EXPECT(k_waitv(fd, v, 0, 0), -EINVAL, "nr 0");
	EXPECT(k_waitv(fd, v, NW + 1, 0), -EINVAL, "nr 129");
	EXPECT(k_waitv(fd, NULL, 1, 0), -EINVAL, "NULL vector");
	EXPECT(k_waitv(fd, (void *)8, 1, 0), -EFAULT, "unmapped vector");
	memset(&a, 0, sizeof(a));
	a.waiters = (uintptr_t)v;
	a.nr = 1;
	a.flags = FUTEXLAB_F_SHARED;
	EXPECT(xioctl(fd, FUTEXLAB_IOC_WAITV, &a), -EINVAL, "call flags");
	v[1].flags |= 0x40;
	EXPECT(k_waitv(fd, v, 2, 0), -EINVAL, "unknown entry flag");
	v[1].flags = FUTEXLAB_WAITV_PRIVATE | 0x01;
	EXPECT(k_waitv(fd, v, 2, 0), -EINVAL, "size u16");
	v[1].flags = PLAIN;
	v[1].reserved = 1;
	EXPECT(k_waitv(fd, v, 2, 0), -EINVAL, "reserved");
	v[1].reserved = 0;
	v[1].val = 1ull << 32;
	EXPECT(k_waitv(fd, v, 2, 0), -EINVAL, "64-bit value");
	v[1].val = 0;
	v[1].uaddr += 2;
	EXPECT(k_waitv(fd, v, 2, 0), -EINVAL, "misaligned word");
	v[1].uaddr -= 2;
	v[1].uaddr = 8;
	v[1].flags = FUTEXLAB_WAITV_SIZE_U32;		/* shared: by page */
	EXPECT(k_waitv(fd, v, 2, 0), -EFAULT, "unmapped shared word");
	v[1].uaddr = (uintptr_t)&words[1];
	v[1].flags = PLAIN;
	EXPECT(k_waitv(fd, v, 2, 0), -EAGAIN, "the vector that passes");
	r = check_no_waiters(fd, "after the bad input");
out:
	close(fd);
	return r;
}
