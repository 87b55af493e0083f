// SPDX-License-Identifier: GPL-2.0
/*
 * The conformance suite: the futex semantics the kernel's own selftests
 * pin down (tools/testing/selftests/futex), checked against one backend.
 * configure.py compiles this file once per backend with the backend's
 * header force-included, so fl_wait() and friends below are that
 * backend's operations, exactly as the workloads see them; the binary is
 * build/tests/conformance-<backend>.
 *
 * Every case runs against every backend: a case whose capability the
 * backend does not declare is skipped with that reason, and when the
 * backend's probe fails on this machine (futex2 on an old kernel, kmod-*
 * without /dev/futexlab) every case is skipped with the probe's reason.
 * With --require (tests/run.py passes it for every backend that `futexlab
 * list` calls available, the guest script for the module's designs) an
 * unusable backend fails every case instead: a suite that skipped all its
 * cases must not pass where the backend should have run.
 * Every wait has a deadline and every helper thread is joined with one
 * (waiters.h), so a broken backend fails a case instead of hanging.
 * Helpers are known to be blocked because /proc shows them asleep, never
 * because the test slept a while. No case asserts anything about timing
 * beyond "a timeout did not return before its deadline".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spec/workload.h"
#include "tests/conformance/waiters.h"

#define FUTEX_TID_BITS		0x3fffffffu	/* FUTEX_TID_MASK */
#define FUTEX_WAITERS_BIT	0x80000000u	/* FUTEX_WAITERS */
#define ALL			INT_MAX

static const struct fl_backend *backend;
static uint32_t caps;
static char unusable[300];	/* set when the probe fails: skip all */
static int required;		/* --require: unusable fails instead */
static char setup_error[300];	/* set when setup fails: fail all */
static void *page;		/* the futex words, of the backend's kind */
static size_t page_size;
static volatile sig_atomic_t signals_seen;

/* The words a case uses: two, on different cache lines. */
static uint32_t *word_a(void)
{
	return fl_word_at(page, 0);
}

static uint32_t *word_b(void)
{
	return fl_word_at(page, 64 / FL_WORD_BYTES);
}

/* "-EAGAIN" for -11, "3" for 3: what a futex operation returned. */
static const char *ret_name(int r)
{
	static char bufs[4][32];
	static unsigned int next;
	char *b = bufs[next++ % 4];
	const char *name = r < 0 ? strerrorname_np(-r) : NULL;

	if (name)
		snprintf(b, sizeof(bufs[0]), "-%s", name);
	else
		snprintf(b, sizeof(bufs[0]), "%d", r);
	return b;
}

/* An operation's result, with errno names in the failure message. */
#define assert_ret(expr, want) do { \
	int got_ = (expr), want_ = (want); \
	if (got_ != want_) \
		fail_msg("%s returned %s, expected %s", #expr, \
			 ret_name(got_), ret_name(want_)); \
} while (0)

static struct timespec in_ns(uint64_t ns)
{
	return fl_ns_to_ts(fl_now_ns() + ns);
}

static void on_signal(int sig)
{
	(void)sig;
	signals_seen++;
}

/* Skip the case unless the backend runs here and has every cap in need. */
static void require(uint32_t need)
{
	if (setup_error[0])
		fail_msg("%s", setup_error);
	if (unusable[0] && required)
		fail_msg("%s, and --require says it must run", unusable);
	if (unusable[0]) {
		print_message("# skip: %s\n", unusable);
		skip();
	}
	if (need & ~caps) {
		char missing[256];

		fl_caps_format(need & ~caps, missing, sizeof(missing));
		print_message("# skip: %s lacks the capabilities: %s\n",
			      FL_BACKEND_NAME, missing);
		skip();
	}
}

static int group_setup(void **state)
{
	struct sigaction sa;
	char why[256] = "";

	(void)state;
	backend = fl_backend_find(FL_BACKEND_NAME);
	if (!backend) {
		snprintf(setup_error, sizeof(setup_error),
			 "no backend named %s in the registry",
			 FL_BACKEND_NAME);
		return 0;
	}
	caps = backend->caps();
	if (backend->probe(why, sizeof(why))) {
		snprintf(unusable, sizeof(unusable),
			 "%s is not usable here: %s", FL_BACKEND_NAME, why);
		return 0;
	}
	if (backend->setup(-1, why, sizeof(why))) {
		snprintf(setup_error, sizeof(setup_error),
			 "%s setup failed: %s", FL_BACKEND_NAME, why);
		return 0;
	}
	page_size = (size_t)sysconf(_SC_PAGESIZE);
	page = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		    (backend->mem == FL_MEM_SHARED ? MAP_SHARED : MAP_PRIVATE) |
		    MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		snprintf(setup_error, sizeof(setup_error), "mmap: %s",
			 strerror(errno));
		return 0;
	}
	/* no SA_RESTART: a signal must end a wait with EINTR */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	if (backend && !unusable[0] && !setup_error[0])
		backend->teardown();
	return 0;
}

static int case_setup(void **state)
{
	(void)state;
	if (page && page != MAP_FAILED)
		fl_words_init(page, page_size / FL_WORD_BYTES, 0);
	return 0;
}

static int case_teardown(void **state)
{
	(void)state;
	reap_waiters();
	return 0;
}

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

static void test_cmp_requeue_eagain(void **state)
{
	(void)state;
	require(FL_CAP_REQUEUE);
	*word_a() = 1;
	assert_ret(fl_cmp_requeue(word_a(), word_b(), 1, 1, 0),
			 -EAGAIN);
}

/* N sleepers on A: wake 1, requeue N-1 to B returns N; B then holds
 * the N-1, and A none. */
static void test_cmp_requeue_counts(void **state)
{
	const int n = 4;
	uint32_t *a = word_a(), *b = word_b();

	(void)state;
	require(FL_CAP_WAIT | FL_CAP_SLEEP | FL_CAP_REQUEUE);
	for (int i = 0; i < n; i++)
		start_waiter(i, OP_WAIT, a, 0, NULL, 0);
	wait_blocked(0, n);
	assert_ret(fl_cmp_requeue(a, b, 1, n - 1, 0), n);
	wait_done(0, n, 1);
	assert_int_equal(count_done(0, n), 1);
	assert_ret(fl_wake(a, ALL), 0);
	for (int i = 0; i < n; i++)
		if (!__atomic_load_n(&waiters[i].done, __ATOMIC_ACQUIRE))
			assert_true(is_blocked(&waiters[i]));
	assert_ret(fl_wake(b, ALL), n - 1);
	for (int i = 0; i < n; i++)
		assert_ret(join_waiter(i), 0);
}

/* The state letter of a process, '?' if unknown. */
static char process_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/* Shared keys: a waiter in another process, on the same MAP_SHARED word,
 * is woken by this one. */
static void test_shared_across_processes(void **state)
{
	uint32_t *w = word_a();
	uint64_t limit;
	int status = 0;
	pid_t pid, got = 0;

	(void)state;
	require(FL_CAP_WAIT | FL_CAP_SLEEP | FL_CAP_SHARED);
	assert_int_equal(backend->mem, FL_MEM_SHARED);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct timespec dl = in_ns(WAIT_LIMIT_NS);

		_exit(fl_wait(w, 0, &dl) == 0 ? 0 : 1);
	}
	limit = fl_now_ns() + WAIT_LIMIT_NS;
	while (process_state(pid) != 'S' && fl_now_ns() < limit)
		usleep(100);
	if (process_state(pid) != 'S') {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		fail_msg("the child process never blocked in its wait");
	}
	__atomic_store_n(w, 1, __ATOMIC_SEQ_CST);
	int woken = fl_wake(w, 1);

	limit = fl_now_ns() + JOIN_LIMIT_NS;
	while ((got = waitpid(pid, &status, WNOHANG)) == 0 &&
	       fl_now_ns() < limit)
		usleep(1000);
	if (got != pid) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		fail_msg("the child process did not finish its wait");
	}
	assert_ret(woken, 1);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* cmp_requeue moves no more than nr_requeue: the rest stay on A. */
static void test_cmp_requeue_limit(void **state)
{
	const int n = 4;
	uint32_t *a = word_a(), *b = word_b();

	(void)state;
	require(FL_CAP_WAIT | FL_CAP_SLEEP | FL_CAP_REQUEUE);
	for (int i = 0; i < n; i++)
		start_waiter(i, OP_WAIT, a, 0, NULL, 0);
	wait_blocked(0, n);
	/* wake none, move one */
	assert_ret(fl_cmp_requeue(a, b, 0, 1, 0), 1);
	assert_int_equal(count_done(0, n), 0);
	assert_ret(fl_wake(a, ALL), n - 1);
	wait_done(0, n, n - 1);
	assert_ret(fl_wake(b, ALL), 1);
	for (int i = 0; i < n; i++)
		assert_ret(join_waiter(i), 0);
}

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

#define CASE(fn) cmocka_unit_test_setup_teardown(fn, case_setup, \
						 case_teardown)

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--require") == 0) {
		required = 1;
	} else if (argc != 1) {
		fprintf(stderr, "usage: %s [--require]\n", argv[0]);
		return 2;
	}
	const struct CMUnitTest tests[] = {
		CASE(test_eagain_on_mismatch),
		CASE(test_wake_no_waiters),
		CASE(test_timeout_past),
		CASE(test_timeout_future),
		CASE(test_exact_wake_counts),
		CASE(test_wake_other_word),
		CASE(test_eintr),
		CASE(test_efault),
		CASE(test_einval_misaligned),
		CASE(test_einval_zero_bitset),
		CASE(test_bitset_wakes_matching),
		CASE(test_cmp_requeue_eagain),
		CASE(test_cmp_requeue_counts),
		CASE(test_cmp_requeue_limit),
		CASE(test_shared_across_processes),
		CASE(test_pi_lock_free),
		CASE(test_pi_owner_relock),
		CASE(test_pi_held_by_other),
		CASE(test_pi_handoff),
		CASE(test_requeue_pi_moves_waiter),
		CASE(test_requeue_pi_onto_held),
		CASE(test_requeue_pi_eagain),
		CASE(test_requeue_pi_same_word),
	};

	return cmocka_run_group_tests_name("conformance-" FL_BACKEND_NAME,
					   tests, group_setup, group_teardown);
}
