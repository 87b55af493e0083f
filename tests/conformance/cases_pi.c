// SPDX-License-Identifier: GPL-2.0
/* Conformance cases, PI locking and requeue-PI: ownership, EDEADLK, hand-off, moves. */
#include "tests/conformance/conformance.h"

/* lock_pi on a free word makes the caller the owner: the word is its TID. */
static void test_pi_lock_free(void **state)
{
	struct timespec dl = in_ns(FL_NSEC_PER_SEC);
	uint32_t *w = word_a();

	(void)state;
	require(FL_CAP_PI);
	assert_ret(fl_lock_pi(w, &dl), 0);
	assert_int_equal(*w, (uint32_t)gettid());
	assert_ret(fl_unlock_pi(w), 0);
	assert_int_equal(*w, 0);
	/* without a deadline too */
	assert_ret(fl_lock_pi(w, NULL), 0);
	assert_int_equal(*w & FUTEX_TID_BITS, (uint32_t)gettid());
	assert_ret(fl_unlock_pi(w), 0);
}

/* The owner locking again would deadlock: EDEADLK, for trylock too
 * (what the stock kernel returns: the owner check comes first). */
static void test_pi_owner_relock(void **state)
{
	struct timespec dl = in_ns(FL_NSEC_PER_SEC);
	uint32_t *w = word_a();

	(void)state;
	require(FL_CAP_PI);
	assert_ret(fl_lock_pi(w, &dl), 0);
	assert_ret(fl_lock_pi(w, &dl), -EDEADLK);
	assert_ret(fl_trylock_pi(w), -EDEADLK);
	assert_int_equal(*w, (uint32_t)gettid());
	assert_ret(fl_unlock_pi(w), 0);
}

/* Held by another thread: trylock fails with EAGAIN (EWOULDBLOCK, the
 * stock kernel's answer), unlock by us is EPERM, lock_pi times out. */
static void test_pi_held_by_other(void **state)
{
	uint32_t *w = word_a(), *release = word_b();
	struct timespec dl;
	struct waiter *owner;

	(void)state;
	require(FL_CAP_PI | FL_CAP_SLEEP);
	owner = start_waiter(0, OP_HOLD_PI, w, 0, release, 0);
	wait_blocked(0, 1);
	assert_int_equal(owner->seen & FUTEX_TID_BITS, (uint32_t)owner->tid);
	assert_ret(fl_trylock_pi(w), -EAGAIN);
	assert_ret(fl_unlock_pi(w), -EPERM);
	dl = in_ns(20000000);
	assert_ret(fl_lock_pi(w, &dl), -ETIMEDOUT);
	/* still the owner's */
	assert_int_equal(*w & FUTEX_TID_BITS, (uint32_t)owner->tid);
	__atomic_store_n(release, 1, __ATOMIC_SEQ_CST);
	fl_wake(release, 1);
	assert_ret(join_waiter(0), 0);
	assert_ret(owner->unlock_ret, 0);
	assert_int_equal(*w, 0);
}

/* A contended PI lock: the owner sees FUTEX_WAITERS; unlocking hands the
 * lock to the waiter, which returns owning it. */
static void test_pi_handoff(void **state)
{
	struct timespec dl = in_ns(FL_NSEC_PER_SEC);
	uint32_t *w = word_a();
	struct waiter *wt;

	(void)state;
	require(FL_CAP_PI | FL_CAP_SLEEP);
	assert_ret(fl_lock_pi(w, &dl), 0);
	wt = start_waiter(0, OP_LOCK_PI, w, 0, NULL, 0);
	wait_blocked(0, 1);
	assert_int_equal(*w, (uint32_t)gettid() | FUTEX_WAITERS_BIT);
	assert_ret(fl_unlock_pi(w), 0);
	assert_ret(join_waiter(0), 0);
	assert_int_equal(wt->seen & FUTEX_TID_BITS, (uint32_t)wt->tid);
	assert_ret(wt->unlock_ret, 0);
	assert_int_equal(*w, 0);
}

/*
 * A signal at a lock_pi waiter: its handler runs, installed with
 * SA_RESTART or without, and the waiter goes on waiting (the stock futex
 * restarts LOCK_PI whatever SA_RESTART says): it returns only with the
 * lock, at our unlock.
 */
static void test_pi_signal_restarts(void **state)
{
	static const int sigs[2] = { SIG_NORESTART, SIG_RESTART };
	struct timespec dl = in_ns(FL_NSEC_PER_SEC);
	uint32_t *w = word_a();
	struct waiter *wt;

	(void)state;
	require(FL_CAP_PI | FL_CAP_SLEEP | FL_CAP_EINTR);
	for (int i = 0; i < 2; i++) {
		sig_atomic_t before = signals_seen;

		assert_ret(fl_lock_pi(w, &dl), 0);
		wt = start_waiter(0, OP_LOCK_PI, w, 0, NULL, 0);
		wait_blocked(0, 1);
		assert_int_equal(pthread_kill(wt->thread, sigs[i]), 0);
		wait_handled(before);
		wait_blocked(0, 1);
		assert_ret(fl_unlock_pi(w), 0);
		assert_ret(join_waiter(0), 0);
		assert_int_equal(wt->seen & FUTEX_TID_BITS, (uint32_t)wt->tid);
		assert_ret(wt->unlock_ret, 0);
		assert_int_equal(*w, 0);
	}
}

/* A waiter in wait_requeue_pi on A is moved onto the free PI word B by
 * cmp_requeue_pi, which takes B for it: it returns owning B. */
static void test_requeue_pi_moves_waiter(void **state)
{
	uint32_t *a = word_a(), *b = word_b();
	struct waiter *wt;

	(void)state;
	require(FL_CAP_REQUEUE_PI | FL_CAP_SLEEP);
	wt = start_waiter(0, OP_WAIT_REQUEUE_PI, a, 0, b, 0);
	wait_blocked(0, 1);
	assert_ret(fl_cmp_requeue_pi(a, b, 0, 0), 1);
	assert_ret(join_waiter(0), 0);
	assert_int_equal(wt->seen & FUTEX_TID_BITS, (uint32_t)wt->tid);
	assert_ret(wt->unlock_ret, 0);
	assert_int_equal(*b, 0);
}

/* Onto a held PI word: both waiters are requeued (none takes it), then
 * each unlock hands it to the next one. */
static void test_requeue_pi_onto_held(void **state)
{
	struct timespec dl = in_ns(FL_NSEC_PER_SEC);
	uint32_t *a = word_a(), *b = word_b();

	(void)state;
	require(FL_CAP_REQUEUE_PI | FL_CAP_PI | FL_CAP_SLEEP);
	assert_ret(fl_lock_pi(b, &dl), 0);
	start_waiter(0, OP_WAIT_REQUEUE_PI, a, 0, b, 0);
	start_waiter(1, OP_WAIT_REQUEUE_PI, a, 0, b, 0);
	wait_blocked(0, 2);
	assert_ret(fl_cmp_requeue_pi(a, b, ALL, 0), 2);
	/* requeued, not woken: still asleep, now on B */
	assert_int_equal(count_done(0, 2), 0);
	assert_true(*b & FUTEX_WAITERS_BIT);
	assert_ret(fl_unlock_pi(b), 0);
	for (int i = 0; i < 2; i++) {
		assert_ret(join_waiter(i), 0);
		assert_int_equal(waiters[i].seen & FUTEX_TID_BITS,
				 (uint32_t)waiters[i].tid);
		assert_ret(waiters[i].unlock_ret, 0);
	}
	assert_int_equal(*b, 0);
}

static void test_requeue_pi_eagain(void **state)
{
	(void)state;
	require(FL_CAP_REQUEUE_PI);
	*word_a() = 1;
	assert_ret(fl_cmp_requeue_pi(word_a(), word_b(), 1, 0),
			 -EAGAIN);
}

/* Waiting to be requeued onto the very word waited on: EINVAL. */
static void test_requeue_pi_same_word(void **state)
{
	struct timespec dl = in_ns(FL_NSEC_PER_SEC);

	(void)state;
	require(FL_CAP_REQUEUE_PI);
	assert_ret(fl_wait_requeue_pi(word_a(), 0, word_a(), &dl),
			 -EINVAL);
}

/*
 * A word that user space wrote while the kernel's PI state names another
 * owner: the word is left as it was, the waiter stays queued and the
 * owner keeps the lock. UNLOCK_PI is EPERM while the word names that
 * owner, EINVAL once it names the caller; LOCK_PI and TRYLOCK_PI of the
 * word stored free are EINVAL (the stock futex's attach_to_pi_state()).
 * Given back, the word unlocks as usual.
 */
static void test_pi_word_not_owner(void **state)
{
	struct timespec dl = in_ns(FL_NSEC_PER_SEC);
	uint32_t *w = word_a(), *release = word_b(), held;
	uint32_t mine = (uint32_t)gettid() | FUTEX_WAITERS_BIT;
	struct waiter *owner;

	(void)state;
	require(FL_CAP_PI | FL_CAP_SLEEP);
	owner = start_waiter(0, OP_HOLD_PI, w, 0, release, 0);
	wait_blocked(0, 1);
	start_waiter(1, OP_LOCK_PI, w, 0, NULL, 0);
	wait_blocked(1, 1);
	held = (uint32_t)owner->tid | FUTEX_WAITERS_BIT;
	assert_int_equal(*w, held);
	assert_ret(fl_unlock_pi(w), -EPERM);
	assert_int_equal(*w, held);
	*w = mine;
	assert_ret(fl_unlock_pi(w), -EINVAL);
	assert_int_equal(*w, mine);
	*w = 0;
	assert_ret(fl_trylock_pi(w), -EINVAL);
	assert_ret(fl_lock_pi(w, &dl), -EINVAL);
	assert_int_equal(*w, 0);
	assert_int_equal(count_done(1, 1), 0);
	*w = held;
	__atomic_store_n(release, 1, __ATOMIC_SEQ_CST);
	fl_wake(release, 1);
	assert_ret(join_waiter(0), 0);
	assert_ret(owner->unlock_ret, 0);
	assert_ret(join_waiter(1), 0);
	assert_int_equal(waiters[1].seen & FUTEX_TID_BITS,
			 (uint32_t)waiters[1].tid);
	assert_ret(waiters[1].unlock_ret, 0);
	assert_int_equal(*w, 0);
}

/*
 * cmp_requeue_pi onto a PI word that disagrees with the kernel's owner
 * (us, with a waiter queued): stored free, or naming that waiter, it is
 * EINVAL and nobody moves; given back, the requeue queues its waiter.
 */
static void test_requeue_pi_word_not_owner(void **state)
{
	struct timespec dl = in_ns(FL_NSEC_PER_SEC);
	uint32_t *a = word_a(), *b = word_b(), held;

	(void)state;
	require(FL_CAP_REQUEUE_PI | FL_CAP_PI | FL_CAP_SLEEP);
	assert_ret(fl_lock_pi(b, &dl), 0);
	start_waiter(0, OP_LOCK_PI, b, 0, NULL, 0);
	start_waiter(1, OP_WAIT_REQUEUE_PI, a, 0, b, 0);
	wait_blocked(0, 2);
	held = *b;
	assert_int_equal(held, (uint32_t)gettid() | FUTEX_WAITERS_BIT);
	*b = 0;
	assert_ret(fl_cmp_requeue_pi(a, b, 1, 0), -EINVAL);
	assert_int_equal(*b, 0);
	*b = (uint32_t)waiters[0].tid | FUTEX_WAITERS_BIT;
	assert_ret(fl_cmp_requeue_pi(a, b, 1, 0), -EINVAL);
	assert_int_equal(*b, (uint32_t)waiters[0].tid | FUTEX_WAITERS_BIT);
	assert_int_equal(count_done(0, 2), 0);
	*b = held;
	assert_ret(fl_cmp_requeue_pi(a, b, 1, 0), 1);
	assert_ret(fl_unlock_pi(b), 0);
	for (int i = 0; i < 2; i++) {
		assert_ret(join_waiter(i), 0);
		assert_ret(waiters[i].unlock_ret, 0);
	}
	assert_int_equal(*b, 0);
}

const struct CMUnitTest pi_cases[] = {
	CASE(test_pi_lock_free),
	CASE(test_pi_owner_relock),
	CASE(test_pi_held_by_other),
	CASE(test_pi_handoff),
	CASE(test_pi_signal_restarts),
	CASE(test_requeue_pi_moves_waiter),
	CASE(test_requeue_pi_onto_held),
	CASE(test_requeue_pi_eagain),
	CASE(test_requeue_pi_same_word),
	CASE(test_pi_word_not_owner),
	CASE(test_requeue_pi_word_not_owner),
};
const size_t pi_ncases = sizeof(pi_cases) / sizeof(pi_cases[0]);
