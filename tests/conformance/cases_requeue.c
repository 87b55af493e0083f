// SPDX-License-Identifier: GPL-2.0
/* Conformance cases, cmp_requeue counts and limits, and shared keys across processes. */
#include "tests/conformance/conformance.h"

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

const struct CMUnitTest requeue_cases[] = {
	CASE(test_cmp_requeue_eagain),
	CASE(test_cmp_requeue_counts),
	CASE(test_shared_across_processes),
	CASE(test_cmp_requeue_limit),
};
const size_t requeue_ncases = sizeof(requeue_cases) / sizeof(requeue_cases[0]);
