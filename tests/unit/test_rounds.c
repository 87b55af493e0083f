// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the rounds shared by wake, wake-parallel and requeue
 * (workloads/lib/rounds.h): the per-round count check names the waiter that
 * was woken too often or not at all, the end-of-repetition check allows
 * one extra wake-up (the interrupted round) and no more and fails when no
 * round finished, the gate holds a waiter until its round opens or the
 * repetition quits, and the controller's wait for sleeping waiters
 * returns once a thread armed for the round sleeps in a futex, or at once
 * when the repetition stops.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include <cmocka.h>

#include "workloads/lib/rounds.h"

#define NW 3

static struct fl_rep *new_rep(struct fl_thread *threads, unsigned int n)
{
	struct fl_rep *rep = aligned_alloc(FL_CACHELINE, sizeof(*rep) +
					   FL_CACHELINE);

	memset(rep, 0, sizeof(*rep));
	memset(threads, 0, n * sizeof(*threads));
	rep->nthreads = n;
	rep->threads = threads;
	for (unsigned int i = 0; i < n; i++) {
		threads[i].rep = rep;
		threads[i].index = i;
	}
	/* a deadline far enough that no test reaches it */
	rep->hard_deadline_ns = fl_now_ns() + 60 * FL_NSEC_PER_SEC;
	rep->hard_deadline = fl_ns_to_ts(rep->hard_deadline_ns);
	return rep;
}

static struct fl_rounds *new_rounds(struct fl_rep *rep, unsigned int n)
{
	size_t size = (fl_rounds_size(n) + FL_CACHELINE - 1) &
		      ~(size_t)(FL_CACHELINE - 1);
	void *mem = aligned_alloc(FL_CACHELINE, size);

	memset(mem, 0, size);
	return fl_rounds_place(mem, rep, n);
}

static void test_check_names_the_waiter(void **state)
{
	_Alignas(FL_CACHELINE) static struct fl_thread threads[NW];
	struct fl_rep *rep = new_rep(threads, NW);
	struct fl_rounds *rs = new_rounds(rep, NW);

	(void)state;
	assert_int_equal(rs->gate, 1);
	assert_int_equal(fl_rounds_check(rs, 1), -1);
	fl_rounds_woken(rs, 0);
	fl_rounds_woken(rs, 1);
	fl_rounds_woken(rs, 2);
	assert_int_equal(fl_rounds_check(rs, 2), -1);
	/* waiter 1 woken twice in round 2, waiter 2 not at all */
	fl_rounds_woken(rs, 0);
	fl_rounds_woken(rs, 1);
	fl_rounds_woken(rs, 1);
	assert_int_equal(fl_rounds_check(rs, 3), 1);
	free(rs);
	free(rep);
}

static void test_verify(void **state)
{
	_Alignas(FL_CACHELINE) static struct fl_thread threads[NW];
	struct fl_rep *rep = new_rep(threads, NW);
	struct fl_rounds *rs = new_rounds(rep, NW);
	char why[256];

	(void)state;
	assert_int_equal(fl_rounds_verify(rs, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no round"));
	rs->done = 2;
	rs->w[0].wakes = 2;
	rs->w[1].wakes = 3;	/* woken in the round the stop cut short */
	rs->w[2].wakes = 2;
	assert_int_equal(fl_rounds_verify(rs, why, sizeof(why)), 0);
	rs->w[2].wakes = 4;
	assert_int_equal(fl_rounds_verify(rs, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "waiter 2"));
	rs->w[2].wakes = 1;
	assert_int_equal(fl_rounds_verify(rs, why, sizeof(why)), -1);
	free(rs);
	free(rep);
}

struct gate_arg {
	struct fl_rounds *rs;
	struct fl_rep *rep;
	uint32_t round;
	int ret;
	int returned;
};

static void *gate_thread(void *p)
{
	struct gate_arg *a = p;

	a->ret = fl_rounds_gate_wait(a->rs, a->rep, a->round);
	__atomic_store_n(&a->returned, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_gate(void **state)
{
	_Alignas(FL_CACHELINE) static struct fl_thread threads[1];
	struct fl_rep *rep = new_rep(threads, 1);
	struct fl_rounds *rs = new_rounds(rep, 1);
	struct gate_arg a = { rs, rep, 1, -2, 0 };
	pthread_t t;

	(void)state;
	/* round 1 is open from the start */
	gate_thread(&a);
	assert_int_equal(a.ret, 0);
	/* round 2 opens when round 1 finishes */
	a = (struct gate_arg){ rs, rep, 2, -2, 0 };
	pthread_create(&t, NULL, gate_thread, &a);
	assert_int_equal(__atomic_load_n(&a.returned, __ATOMIC_ACQUIRE), 0);
	fl_rounds_finish(rs, 1);
	pthread_join(t, NULL);
	assert_int_equal(a.ret, 0);
	assert_int_equal(rs->done, 1);
	/* a waiter held for round 3 is released by quit, with -1 */
	a = (struct gate_arg){ rs, rep, 3, -2, 0 };
	pthread_create(&t, NULL, gate_thread, &a);
	fl_rounds_quit(rs);
	pthread_join(t, NULL);
	assert_int_equal(a.ret, -1);
	free(rs);
	free(rep);
}

struct sleeper_arg {
	struct fl_thread *t;
	struct fl_rounds *rs;
	uint32_t word;
};

/* Arm for round 1, then sleep in a futex until the word changes. */
static void *sleeper(void *p)
{
	struct sleeper_arg *a = p;

	__atomic_store_n(&a->t->tid, (pid_t)syscall(SYS_gettid),
			 __ATOMIC_RELEASE);
	fl_rounds_arm(a->rs, 0, 1);
	while (__atomic_load_n(&a->word, __ATOMIC_ACQUIRE) == 0)
		fl_rounds_futex(&a->word, FUTEX_WAIT_BITSET, 0, NULL);
	return NULL;
}

static void test_await(void **state)
{
	_Alignas(FL_CACHELINE) static struct fl_thread threads[1];
	struct fl_rep *rep = new_rep(threads, 1);
	struct fl_rounds *rs = new_rounds(rep, 1);
	struct sleeper_arg a = { &threads[0], rs, 0 };
	pthread_t t;

	(void)state;
	pthread_create(&t, NULL, sleeper, &a);
	/* returns only once the thread armed and sleeps */
	assert_int_equal(fl_rounds_await(rs, rep, 1), 0);
	assert_int_equal(rs->w[0].armed, 1);
	__atomic_store_n(&a.word, 1, __ATOMIC_RELEASE);
	fl_rounds_futex(&a.word, FUTEX_WAKE, 1, NULL);
	pthread_join(t, NULL);
	/* nobody will arm for round 2: stop ends the wait */
	atomic_store(&rep->stop, 1);
	assert_int_equal(fl_rounds_await(rs, rep, 2), 1);
	free(rs);
	free(rep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_names_the_waiter),
		cmocka_unit_test(test_verify),
		cmocka_unit_test(test_gate),
		cmocka_unit_test(test_await),
	};

	return cmocka_run_group_tests_name("rounds", tests, NULL, NULL);
}
