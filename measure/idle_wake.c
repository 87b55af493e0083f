// SPDX-License-Identifier: GPL-2.0
/* The idle-wake probe (idle_wake.h). */
#include "measure/idle_wake.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "measure/busy_loop.h"
#include "stats/stats.h"

/* a wake not seen within this is a lost probe, not a slow one */
#define WAIT_MAX_NS	200000000ull

struct sleeper {
	int cpu;
	unsigned int word;		/* 1: wake up; 2: stop */
	uint64_t woke_ns;		/* when it ran, 0 until then */
};

static long futex(unsigned int *w, int op, unsigned int val,
		  const struct timespec *ts)
{
	return syscall(SYS_futex, w, op, val, ts, NULL, 0);
}

static int pin(pthread_t t, int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return pthread_setaffinity_np(t, sizeof(s), &s);
}

static void *sleeper_main(void *arg)
{
	struct sleeper *s = arg;
	struct timespec ts = fl_ns_to_ts(WAIT_MAX_NS);

	pin(pthread_self(), s->cpu);
	for (;;) {
		unsigned int w = __atomic_load_n(&s->word, __ATOMIC_ACQUIRE);

		if (w == 2)
			return NULL;
		if (w == 1) {
			__atomic_store_n(&s->word, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&s->woke_ns, fl_now_ns(),
					 __ATOMIC_RELEASE);
			continue;
		}
		/* bounded: the waker may have gone */
		futex(&s->word, FUTEX_WAIT_PRIVATE, 0, &ts);
	}
}

/* One wake after idling idle_ns: its latency, or 0 lost. */
static uint64_t one_wake(struct sleeper *s, uint64_t idle_ns)
{
	uint64_t t0, until;

	fl_sleep_until_ns(fl_now_ns() + idle_ns);
	__atomic_store_n(&s->woke_ns, 0, __ATOMIC_RELAXED);
	t0 = fl_now_ns();
	__atomic_store_n(&s->word, 1, __ATOMIC_RELEASE);
	futex(&s->word, FUTEX_WAKE_PRIVATE, 1, NULL);
	until = t0 + WAIT_MAX_NS;
	for (;;) {
		uint64_t woke = __atomic_load_n(&s->woke_ns, __ATOMIC_ACQUIRE);

		if (woke)
			return woke > t0 ? woke - t0 : 1;
		if (fl_now_ns() > until)
			return 0;
		sched_yield();
	}
}

static int first_two_cpus(const cpu_set_t *s, int *a, int *b)
{
	int n = 0;

	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, s))
			*(n++ ? b : a) = c;
	return n == 2 ? 0 : -1;
}

int fl_idle_wake_probe(struct fl_idle_wake *w)
{
	double sh[FL_IDLE_WAKE_SAMPLES], lg[FL_IDLE_WAKE_SAMPLES];
	struct sleeper s = { 0 };
	cpu_set_t mine;
	pthread_t t;
	int waker, rc = -1;

	w->short_ns = w->long_ns = 0;
	if (pthread_getaffinity_np(pthread_self(), sizeof(mine), &mine) ||
	    first_two_cpus(&mine, &waker, &s.cpu) ||
	    pin(pthread_self(), waker))
		return -1;
	if (pthread_create(&t, NULL, sleeper_main, &s))
		goto out;
	/* the sleeper's first wait, its first time on its CPU, is not one
	 * the probe is after */
	if (!one_wake(&s, FL_IDLE_WAKE_SHORT_NS))
		goto stop;
	/*
	 * The short ones first, all together: a host that polls a halted
	 * vCPU adapts how long it polls to the idle periods it saw last
	 * (KVM's halt_poll_ns grows and shrinks), so a long idle between
	 * two short ones would measure the long one's aftermath.
	 */
	for (int i = 0; i < FL_IDLE_WAKE_SAMPLES; i++)
		if (!(sh[i] = (double)one_wake(&s, FL_IDLE_WAKE_SHORT_NS)))
			goto stop;
	for (int i = 0; i < FL_IDLE_WAKE_SAMPLES; i++)
		if (!(lg[i] = (double)one_wake(&s, FL_IDLE_WAKE_LONG_NS)))
			goto stop;
	w->short_ns = (uint64_t)fl_median_sort(sh, FL_IDLE_WAKE_SAMPLES);
	w->long_ns = (uint64_t)fl_median_sort(lg, FL_IDLE_WAKE_SAMPLES);
	rc = 0;
stop:
	__atomic_store_n(&s.word, 2, __ATOMIC_RELEASE);
	futex(&s.word, FUTEX_WAKE_PRIVATE, 1, NULL);
	pthread_join(t, NULL);
out:
	pthread_setaffinity_np(pthread_self(), sizeof(mine), &mine);
	return rc;
}
