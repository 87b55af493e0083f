// SPDX-License-Identifier: GPL-2.0
/*
 * The start gate (start_gate.h) on two private futex words. A wait is
 * FUTEX_WAIT_BITSET, whose timeout is an absolute CLOCK_MONOTONIC time,
 * so waking early for any reason and waiting again never moves the
 * deadline. A word that changed before the wait makes it return at
 * once (EAGAIN), and the loop reads it again: no wake-up is lost.
 */
#include "measure/start_gate.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/clock.h"

static void wait_word(uint32_t *word, uint32_t val, uint64_t deadline_ns)
{
	struct timespec ts = fl_ns_to_ts(deadline_ns);

	syscall(SYS_futex, word, FUTEX_WAIT_BITSET_PRIVATE, val, &ts, NULL,
		FUTEX_BITSET_MATCH_ANY);
}

static void wake_word(uint32_t *word, int n)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

void fl_start_gate_init(struct fl_start_gate *g, unsigned int n,
			uint64_t deadline_ns)
{
	g->arrived = 0;
	g->open = 0;
	g->n = n;
	g->deadline_ns = deadline_ns;
}

int fl_start_gate_pass(struct fl_start_gate *g)
{
	if (__atomic_add_fetch(&g->arrived, 1, __ATOMIC_ACQ_REL) == g->n)
		wake_word(&g->arrived, 1);
	while (!__atomic_load_n(&g->open, __ATOMIC_ACQUIRE)) {
		if (fl_now_ns() >= g->deadline_ns)
			return -1;
		wait_word(&g->open, 0, g->deadline_ns);
	}
	return 0;
}

unsigned int fl_start_gate_gather(struct fl_start_gate *g)
{
	uint32_t a;

	while ((a = __atomic_load_n(&g->arrived, __ATOMIC_ACQUIRE)) < g->n &&
	       fl_now_ns() < g->deadline_ns)
		wait_word(&g->arrived, a, g->deadline_ns);
	return a;
}

uint64_t fl_start_gate_open(struct fl_start_gate *g)
{
	uint64_t start = fl_now_ns();

	__atomic_store_n(&g->open, 1, __ATOMIC_RELEASE);
	wake_word(&g->open, INT_MAX);
	return start;
}
