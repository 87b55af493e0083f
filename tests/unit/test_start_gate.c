// SPDX-License-Identifier: GPL-2.0
/*
 * The start gate (measure/start_gate.c): the controller's gathering ends
 * by the deadline with the count that arrived, a thread at a gate that
 * never opens leaves by the deadline without running, an opened
 * gate lets every waiting thread through, and the start it returns
 * comes before any thread is through. The deadlines are short so a
 * wait that ignored them would hang the test past its suite's limit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>

#include <cmocka.h>

#include "measure/start_gate.h"

#define MS 1000000ull

struct passer {
	struct fl_start_gate *gate;
	int rc;
	uint64_t through_ns;	/* the clock once through */
};

static void *pass(void *arg)
{
	struct passer *p = arg;

	p->rc = fl_start_gate_pass(p->gate);
	p->through_ns = fl_now_ns();
	return NULL;
}

/* One thread of two arrives: the controller gathers one, by the
 * deadline; the thread, never let through, leaves with -1. */
static void test_missing_thread_ends_by_deadline(void **state)
{
	static struct fl_start_gate gate;
	struct passer p = { &gate, 0, 0 };
	pthread_t t;

	(void)state;
	fl_start_gate_init(&gate, 2, fl_now_ns() + 50 * MS);
	assert_int_equal(pthread_create(&t, NULL, pass, &p), 0);
	assert_int_equal(fl_start_gate_gather(&gate), 1);
	assert_true(fl_now_ns() >= gate.deadline_ns);
	pthread_join(t, NULL);
	assert_int_equal(p.rc, -1);
}

/* n threads at a gate: each arrives, the controller gathers all n and
 * opens it, each passes (rc 0). The start the opening returned. */
static uint64_t pass_all(struct fl_start_gate *gate, struct passer *p,
			 pthread_t *t, int n)
{
	fl_start_gate_init(gate, n, fl_now_ns() + 60000 * MS);
	for (int i = 0; i < n; i++) {
		p[i] = (struct passer){ gate, -2, 0 };
		assert_int_equal(pthread_create(&t[i], NULL, pass, &p[i]), 0);
	}
	assert_int_equal(fl_start_gate_gather(gate), n);
	uint64_t start = fl_start_gate_open(gate);

	for (int i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(p[i].rc, 0);
	}
	return start;
}

/* Every thread arrives, the gate opens, every one passes. */
static void test_open_gate_lets_all_through(void **state)
{
	static struct fl_start_gate gate;
	struct passer p[8];
	pthread_t t[8];

	(void)state;
	pass_all(&gate, p, t, 8);
}

/*
 * The start the opening returns is the repetition's clock: a thread's
 * work once through must not precede it, or a controller kept from its
 * CPU by the threads it released would count work it did not time. Many
 * threads to wake make a late read likely; each round must hold.
 */
static void test_start_precedes_every_thread(void **state)
{
	enum { N = 64, ROUNDS = 20 };
	static struct fl_start_gate gate;
	static struct passer p[N];
	pthread_t t[N];

	(void)state;
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t start = pass_all(&gate, p, t, N);

		for (int i = 0; i < N; i++)
			assert_true(p[i].through_ns >= start);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_thread_ends_by_deadline),
		cmocka_unit_test(test_open_gate_lets_all_through),
		cmocka_unit_test(test_start_precedes_every_thread),
	};

	return cmocka_run_group_tests_name("start_gate", tests, NULL, NULL);
}
