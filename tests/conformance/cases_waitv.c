// SPDX-License-Identifier: GPL-2.0
/*
 * Conformance cases, futex_waitv: the vectored wait that Wine's fsync
 * uses. The answers are the system call's (kernel/futex/syscalls.c,
 * futex_parse_waitv): EAGAIN when any word differs, the index of the futex
 * that woke the waiter, ETIMEDOUT at an absolute deadline, EINVAL for bad
 * flags, sizes, counts and alignment, EFAULT for a bad vector or word.
 */
#include "tests/conformance/conformance.h"

/* Futexes of a vector: one per cache line of the page, after word_b. */
#define NV	4

static uint32_t *vword(unsigned int i)
{
	return fl_word_at(page, (128 + 64 * i) / FL_WORD_BYTES);
}

static void fill(struct fl_waitv *v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		v[i] = (struct fl_waitv){ .val = 0, .flags = FL_WAITV_FLAGS,
			.uaddr = (uintptr_t)vword(i % NV) };
	}
}

/* One word of the vector no longer holds its value: EAGAIN at once. */
static void test_waitv_eagain(void **state)
{
	struct fl_waitv v[NV];
	struct timespec dl = in_ns(FL_NSEC_PER_SEC);

	(void)state;
	require(FL_CAP_WAITV);
	fill(v, NV);
	*vword(2) = 7;
	assert_ret(fl_waitv(v, NV, &dl), -EAGAIN);
}

/*
 * A sleeper on four words woken through the third: returns 2.
 *
 * Showing as asleep does not mean queued on every word: futex_waitv sets
 * the task's state first and then queues on the words one by one, each
 * under its own bucket's lock (futex_wait_multiple_setup). So the third
 * word is woken, unchanged, until a wake finds the sleeper there. Storing
 * a new value first would let a sleeper still queueing see it and return
 * EAGAIN, which is right but not what this case is about.
 */
static void test_waitv_index(void **state)
{
	const struct timespec pause = { .tv_sec = 0, .tv_nsec = 100000 };
	struct fl_waitv v[NV];
	uint64_t limit;
	int woken;

	(void)state;
	require(FL_CAP_WAITV | FL_CAP_SLEEP);
	fill(v, NV);
	start_waitv(0, v, NV);
	wait_blocked(0, 1);
	limit = deadline_in(WAIT_LIMIT_NS);
	while ((woken = fl_wake(vword(2), 1)) == 0) {
		if (fl_now_ns() > limit)
			fail_msg("no wake of the third word found the sleeper");
		nanosleep(&pause, NULL);
	}
	assert_ret(woken, 1);
	assert_ret(join_waiter(0), 2);
}

/*
 * The spin backend cannot sleep, so nothing shows that the helper is past
 * its first look at the words: a store that lands before it is EAGAIN, one
 * after it ends the spin with that word's index. Either is right; anything
 * else is wrong, and the index must come up within a thousand tries.
 */
static void test_waitv_index_spin(void **state)
{
	struct fl_waitv v[NV];

	(void)state;
	require(FL_CAP_WAITV);
	if (caps & FL_CAP_SLEEP)
		skip();		/* test_waitv_index covers it */
	for (int tries = 0; tries < 1000; tries++) {
		int r;

		*vword(3) = 0;
		fill(v, NV);
		start_waitv(0, v, NV);
		uint64_t limit = deadline_in(WAIT_LIMIT_NS);

		while (!__atomic_load_n(&waiters[0].started, __ATOMIC_ACQUIRE))
			if (fl_now_ns() > limit)
				fail_msg("the helper never started");
		__atomic_store_n(vword(3), 1, __ATOMIC_SEQ_CST);
		r = join_waiter(0);
		if (r == 3)
			return;
		assert_ret(r, -EAGAIN);
	}
	fail_msg("a changed word never ended the spin with its index");
}

/* An absolute CLOCK_MONOTONIC deadline: ETIMEDOUT, not before it. */
static void test_waitv_timeout(void **state)
{
	struct fl_waitv v[NV];
	uint64_t t0 = fl_now_ns();
	struct timespec dl = fl_ns_to_ts(t0 + 20000000);	/* 20 ms */

	(void)state;
	require(FL_CAP_WAITV | FL_CAP_TIMEOUT);
	fill(v, NV);
	assert_ret(fl_waitv(v, NV, &dl), -ETIMEDOUT);
	assert_true(fl_now_ns() >= fl_ts_to_ns(&dl));
}

/* Bad vectors: EINVAL, each for its own reason. */
static void test_waitv_einval(void **state)
{
	struct fl_waitv v[FL_WAITV_MAX + 1];
	struct timespec dl = in_ns(FL_NSEC_PER_SEC);

	(void)state;
	require(FL_CAP_WAITV);
	fill(v, FL_WAITV_MAX + 1);
	assert_ret(fl_waitv(v, 0, &dl), -EINVAL);
	assert_ret(fl_waitv(v, FL_WAITV_MAX + 1, &dl), -EINVAL);
	v[1].flags |= 0x40;		/* a bit no futex2 flag uses */
	assert_ret(fl_waitv(v, 2, &dl), -EINVAL);
	fill(v, 2);
	v[1].flags = (v[1].flags & ~FL_WAITV_SIZE_MASK) | 0x01; /* U16 */
	assert_ret(fl_waitv(v, 2, &dl), -EINVAL);
	fill(v, 2);
	v[1].reserved = 1;
	assert_ret(fl_waitv(v, 2, &dl), -EINVAL);
	fill(v, 2);
	v[1].val = 1ull << 32;		/* does not fit the 32-bit size */
	assert_ret(fl_waitv(v, 2, &dl), -EINVAL);
	fill(v, 2);
	v[1].uaddr += 1;
	assert_ret(fl_waitv(v, 2, &dl), -EINVAL);
}

/* A vector or a word in no readable page: EFAULT, not a crash. */
static void test_waitv_efault(void **state)
{
	struct fl_waitv v[NV];
	struct timespec dl = in_ns(FL_NSEC_PER_SEC);
	void *hole = mmap(NULL, page_size, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)state;
	require(FL_CAP_WAITV | FL_CAP_EFAULT);
	assert_true(hole != MAP_FAILED);
	assert_ret(fl_waitv(hole, NV, &dl), -EFAULT);
	fill(v, NV);
	v[2].uaddr = (uintptr_t)hole;
	assert_ret(fl_waitv(v, NV, &dl), -EFAULT);
	munmap(hole, page_size);
}

const struct CMUnitTest waitv_cases[] = {
	CASE(test_waitv_eagain),
	CASE(test_waitv_index),
	CASE(test_waitv_index_spin),
	CASE(test_waitv_timeout),
	CASE(test_waitv_einval),
	CASE(test_waitv_efault),
};
const size_t waitv_ncases = sizeof(waitv_cases) / sizeof(waitv_cases[0]);
