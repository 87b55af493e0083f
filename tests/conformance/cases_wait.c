// SPDX-License-Identifier: GPL-2.0
/* Conformance cases, wait/wake: EAGAIN, timeouts, exact wake counts, EINTR, EFAULT, EINVAL, bitsets. */
#include "tests/conformance/conformance.h"

/* A wait on a word that no longer holds the expected value: EAGAIN. */
static void test_eagain_on_mismatch(void **state)
{
	struct timespec dl = in_ns(FL_NSEC_PER_SEC);

	(void)state;
	require(FL_CAP_WAIT);
	*word_a() = 1;
	assert_ret(fl_wait(word_a(), 0, &dl), -EAGAIN);
	assert_ret(fl_wait(word_a(), 2, &dl), -EAGAIN);
	assert_int_equal(*word_a(), 1);
}

static void test_wake_no_waiters(void **state)
{
	(void)state;
	require(FL_CAP_WAIT | FL_CAP_SLEEP);
	assert_ret(fl_wake(word_a(), 1), 0);
	assert_ret(fl_wake(word_a(), ALL), 0);
}

/* An absolute CLOCK_MONOTONIC deadline already past: ETIMEDOUT at once. */
static void test_timeout_past(void **state)
{
	struct timespec dl = fl_ns_to_ts(fl_now_ns() - 1000000);

	(void)state;
	require(FL_CAP_WAIT | FL_CAP_TIMEOUT);
	assert_ret(fl_wait(word_a(), 0, &dl), -ETIMEDOUT);
	assert_int_equal(*word_a(), 0);
}

/* A deadline 20 ms ahead: ETIMEDOUT, and not before the deadline. */
static void test_timeout_future(void **state)
{
	uint64_t deadline = fl_now_ns() + 20000000;
	struct timespec dl = fl_ns_to_ts(deadline);

	(void)state;
	require(FL_CAP_WAIT | FL_CAP_TIMEOUT);
	assert_ret(fl_wait(word_a(), 0, &dl), -ETIMEDOUT);
	assert_true(fl_now_ns() >= deadline);
}

/* N sleepers: wake k returns k and wakes exactly k; then the rest. */
static void test_exact_wake_counts(void **state)
{
	const int n = 5, k = 2;
	uint32_t *w = word_a();

	(void)state;
	require(FL_CAP_WAIT | FL_CAP_SLEEP);
	for (int i = 0; i < n; i++)
		start_waiter(i, OP_WAIT, w, 0, NULL, 0);
	wait_blocked(0, n);
	assert_ret(fl_wake(w, k), k);
	wait_done(0, n, k);
	/* the others were not woken: still asleep in the wait */
	assert_int_equal(count_done(0, n), k);
	for (int i = 0; i < n; i++)
		if (!__atomic_load_n(&waiters[i].done, __ATOMIC_ACQUIRE))
			assert_true(is_blocked(&waiters[i]));
	assert_ret(fl_wake(w, 1), 1);
	assert_ret(fl_wake(w, ALL), n - k - 1);
	assert_ret(fl_wake(w, ALL), 0);
	for (int i = 0; i < n; i++)
		assert_ret(join_waiter(i), 0);
}

/* A wake on another word, even a neighbour in the same page, wakes no
 * one: keys are per word, whatever the hash puts in one bucket. */
static void test_wake_other_word(void **state)
{
	uint32_t *a = word_a(), *b = word_b();
	uint32_t *next = fl_word_at(page, 1);

	(void)state;
	require(FL_CAP_WAIT | FL_CAP_SLEEP);
	start_waiter(0, OP_WAIT, a, 0, NULL, 0);
	wait_blocked(0, 1);
	assert_ret(fl_wake(b, ALL), 0);
	assert_ret(fl_wake(next, ALL), 0);
	assert_true(is_blocked(&waiters[0]));
	assert_ret(fl_wake(a, ALL), 1);
	assert_ret(join_waiter(0), 0);
}

/* A signal (handler without SA_RESTART) ends a blocked wait: EINTR. */
static void test_eintr(void **state)
{
	sig_atomic_t before = signals_seen;

	(void)state;
	require(FL_CAP_WAIT | FL_CAP_SLEEP | FL_CAP_EINTR);
	start_waiter(0, OP_WAIT, word_a(), 0, NULL, 0);
	wait_blocked(0, 1);
	assert_int_equal(pthread_kill(waiters[0].thread, SIGUSR1), 0);
	assert_ret(join_waiter(0), -EINTR);
	assert_true(signals_seen > before);
}

/*
 * A handler installed with SA_RESTART: an untimed wait is restarted after
 * it and goes on waiting; a wake ends it with 0. (A timed one differs: the
 * stock futex returns EINTR, the module restarts it; docs/kmod.md.)
 */
static void test_sa_restart_untimed(void **state)
{
	sig_atomic_t before = signals_seen;
	uint32_t *w = word_a();

	(void)state;
	require(FL_CAP_WAIT | FL_CAP_SLEEP | FL_CAP_EINTR);
	start_waiter(0, OP_WAIT_UNTIMED, w, 0, NULL, 0);
	wait_blocked(0, 1);
	assert_int_equal(pthread_kill(waiters[0].thread, SIG_RESTART), 0);
	wait_handled(before);
	wait_blocked(0, 1);
	assert_ret(fl_wake(w, 1), 1);
	assert_ret(join_waiter(0), 0);
}

/* A word in no readable page: EFAULT, not a crash. */
static void test_efault(void **state)
{
	struct timespec dl = in_ns(FL_NSEC_PER_SEC);
	char *p;

	(void)state;
	require(FL_CAP_WAIT | FL_CAP_EFAULT);
	p = mmap(NULL, 2 * page_size, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	/* a PROT_NONE page */
	assert_ret(fl_wait((uint32_t *)p, 0, &dl), -EFAULT);
	/* a page that was unmapped */
	assert_int_equal(munmap(p + page_size, page_size), 0);
	assert_ret(fl_wait((uint32_t *)(p + page_size), 0, &dl),
			 -EFAULT);
	munmap(p, page_size);
}

/* A word not aligned to its size: EINVAL for wait and wake. The kernel
 * checks addresses; a backend that does (efault) must check this too. */
static void test_einval_misaligned(void **state)
{
	struct timespec dl = in_ns(FL_NSEC_PER_SEC);
	uint32_t *odd = (uint32_t *)((char *)word_b() + 1);

	(void)state;
	require(FL_CAP_WAIT | FL_CAP_EFAULT);
	assert_ret(fl_wait(odd, 0, &dl), -EINVAL);
	assert_ret(fl_wake(odd, 1), -EINVAL);
}

static void test_einval_zero_bitset(void **state)
{
	struct timespec dl = in_ns(FL_NSEC_PER_SEC);

	(void)state;
	require(FL_CAP_WAIT | FL_CAP_BITSET);
	assert_ret(fl_wait_bitset(word_a(), 0, &dl, 0), -EINVAL);
	assert_ret(fl_wake_bitset(word_a(), 1, 0), -EINVAL);
}

/* A bitset wake wakes only the waiters whose bitset it intersects. */
static void test_bitset_wakes_matching(void **state)
{
	uint32_t *w = word_a();

	(void)state;
	require(FL_CAP_WAIT | FL_CAP_SLEEP | FL_CAP_BITSET);
	start_waiter(0, OP_WAIT_BITSET, w, 0, NULL, 0x1);
	start_waiter(1, OP_WAIT_BITSET, w, 0, NULL, 0x2);
	start_waiter(2, OP_WAIT_BITSET, w, 0, NULL, 0x6);
	wait_blocked(0, 3);
	assert_ret(fl_wake_bitset(w, ALL, 0x8), 0);
	assert_ret(fl_wake_bitset(w, ALL, 0x4), 1);
	assert_ret(join_waiter(2), 0);
	assert_true(is_blocked(&waiters[0]));
	assert_true(is_blocked(&waiters[1]));
	assert_ret(fl_wake_bitset(w, ALL, 0x2), 1);
	assert_ret(join_waiter(1), 0);
	assert_true(is_blocked(&waiters[0]));
	assert_ret(fl_wake_bitset(w, ALL, 0x1), 1);
	assert_ret(join_waiter(0), 0);
}

const struct CMUnitTest wait_cases[] = {
	CASE(test_eagain_on_mismatch),
	CASE(test_wake_no_waiters),
	CASE(test_timeout_past),
	CASE(test_timeout_future),
	CASE(test_exact_wake_counts),
	CASE(test_wake_other_word),
	CASE(test_eintr),
	CASE(test_sa_restart_untimed),
	CASE(test_efault),
	CASE(test_einval_misaligned),
	CASE(test_einval_zero_bitset),
	CASE(test_bitset_wakes_matching),
};
const size_t wait_ncases = sizeof(wait_cases) / sizeof(wait_cases[0]);
