// SPDX-License-Identifier: GPL-2.0
/*
 * Priority-inheritance locks and requeue-PI through the module: the lock
 * word's TID | WAITERS encoding after each step, EDEADLK, EPERM, ESRCH,
 * timeouts on LOCK_PI's realtime clock and LOCK_PI2's two clocks, a
 * hand-off to a sleeping waiter, and requeue-PI onto a free and a held
 * lock. Lock words are written relative to the threads (main, other).
 */
#include <errno.h>
#include <linux/futex.h>
#include <unistd.h>

#include "tests/shim/shimtest.h"

#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2	13
#endif

static uint32_t lock, cond;

static void show(char *out, const char *name, pid_t other)
{
	char buf[48];

	note(out, name, "%s", word_text(lock, gettid(), other, buf));
}

static void own_lock(char *out)
{
	lock = 0;
	record(out, "lock", futex(&lock, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL,
				  0));
	show(out, "word", 0);
	record(out, "relock", futex(&lock, FUTEX_LOCK_PI_PRIVATE, 0, NULL,
				    NULL, 0));
	record(out, "trylock", futex(&lock, FUTEX_TRYLOCK_PI_PRIVATE, 0, NULL,
				     NULL, 0));
	record(out, "unlock", futex(&lock, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL,
				    NULL, 0));
	show(out, "word", 0);
	record(out, "unlock-free", futex(&lock, FUTEX_UNLOCK_PI_PRIVATE, 0,
					 NULL, NULL, 0));
	record(out, "shared-lock", futex(&lock, FUTEX_LOCK_PI, 0, NULL, NULL,
					 0));
	record(out, "shared-unlock", futex(&lock, FUTEX_UNLOCK_PI, 0, NULL,
					   NULL, 0));
	record(out, "trylock-free", futex(&lock, FUTEX_TRYLOCK_PI, 0, NULL,
					  NULL, 0));
	show(out, "word", 0);
	record(out, "unlock", futex(&lock, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0));
	lock = 0x3ffffff0;	/* a TID nobody has */
	record(out, "lock-dead-owner", futex(&lock, FUTEX_LOCK_PI_PRIVATE, 0,
					     NULL, NULL, 0));
}

/* other takes the lock and keeps it until told */
static _Atomic int release;

static long holder_fn(struct waiter *w)
{
	long r = futex(w->word, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0);

	while (!atomic_load(&release))
		usleep(1000);
	futex(w->word, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0);
	return r;
}

static void held_by_other(char *out)
{
	struct waiter holder = { .fn = holder_fn, .word = &lock };
	struct timespec real = after_ms(CLOCK_REALTIME, 20);
	struct timespec mono = after_ms(CLOCK_MONOTONIC, 20);
	struct timespec real2 = after_ms(CLOCK_REALTIME, 20);
	pid_t other;

	lock = 0;
	waiter_start(&holder);
	while (!__atomic_load_n(&lock, __ATOMIC_ACQUIRE))
		usleep(1000);
	other = atomic_load(&holder.tid);
	record(out, "trylock", futex(&lock, FUTEX_TRYLOCK_PI_PRIVATE, 0, NULL,
				     NULL, 0));
	record(out, "unlock-not-owner", futex(&lock, FUTEX_UNLOCK_PI_PRIVATE,
					      0, NULL, NULL, 0));
	record(out, "lock-pi-realtime", futex(&lock, FUTEX_LOCK_PI_PRIVATE, 0,
					      &real, NULL, 0));
	record(out, "lock-pi2-monotonic", futex(&lock, FUTEX_LOCK_PI2 |
		FUTEX_PRIVATE_FLAG, 0, &mono, NULL, 0));
	record(out, "lock-pi2-realtime", futex(&lock, FUTEX_LOCK_PI2 |
		FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME, 0, &real2, NULL, 0));
	atomic_store(&release, 1);
	waiter_join(&holder, out, "holder");
	show(out, "word", other);
}

static void handoff(char *out)
{
	struct waiter w = { .fn = lock_pi_fn, .word = &lock,
			    .op = FUTEX_LOCK_PI_PRIVATE };

	lock = 0;
	record(out, "lock", futex(&lock, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL,
				  0));
	waiter_start(&w);
	waiter_asleep(&w);
	show(out, "word-contended", 0);
	record(out, "unlock", futex(&lock, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL,
				    NULL, 0));
	pthread_join(w.thread, NULL);
	errno = w.err;
	record(out, "waiter", w.ret);
	show(out, "word", atomic_load(&w.tid));
}

static void requeue_pi_errors(char *out)
{
	struct timespec mono = after_ms(CLOCK_MONOTONIC, 20);

	lock = 0;
	cond = 1;
	record(out, "wait-eagain", futex(&cond, FUTEX_WAIT_REQUEUE_PI_PRIVATE,
					 0, NULL, &lock, 0));
	record(out, "wait-same-word", futex(&cond,
		FUTEX_WAIT_REQUEUE_PI_PRIVATE, 1, NULL, &cond, 0));
	record(out, "wait-timeout", futex(&cond, FUTEX_WAIT_REQUEUE_PI_PRIVATE,
					  1, &mono, &lock, 0));
	record(out, "requeue-nr-wake-2", futex(&cond,
		FUTEX_CMP_REQUEUE_PI_PRIVATE, 2, (void *)0, &lock, 1));
	record(out, "requeue-eagain", futex(&cond,
		FUTEX_CMP_REQUEUE_PI_PRIVATE, 1, (void *)0, &lock, 5));
	record(out, "requeue-nobody", futex(&cond,
		FUTEX_CMP_REQUEUE_PI_PRIVATE, 1, (void *)0, &lock, 1));
}

static void requeue_pi(char *out, int lock_held)
{
	struct waiter w = { .fn = wait_requeue_pi_fn, .word = &cond,
			    .word2 = &lock, .val = 0,
			    .op = FUTEX_WAIT_REQUEUE_PI_PRIVATE };

	lock = 0;
	cond = 0;
	if (lock_held)
		record(out, "lock", futex(&lock, FUTEX_LOCK_PI_PRIVATE, 0,
					  NULL, NULL, 0));
	waiter_start(&w);
	waiter_asleep(&w);
	record(out, "requeue", futex(&cond, FUTEX_CMP_REQUEUE_PI_PRIVATE, 1,
				     (void *)1, &lock, 0));
	if (lock_held) {
		waiter_asleep(&w);
		show(out, "word-queued", 0);
		record(out, "unlock", futex(&lock, FUTEX_UNLOCK_PI_PRIVATE, 0,
					    NULL, NULL, 0));
	}
	pthread_join(w.thread, NULL);
	errno = w.err;
	record(out, "waiter", w.ret);
	show(out, "word", atomic_load(&w.tid));
}

static void requeue_pi_free(char *out)
{
	requeue_pi(out, 0);
}

static void requeue_pi_held(char *out)
{
	requeue_pi(out, 1);
}

const struct shim_case cases_pi[] = {
	{ .name = "pi-own-lock", .run = own_lock, .flags = CASE_DEVICE },
	{ .name = "pi-held-by-other", .run = held_by_other,
	  .flags = CASE_DEVICE },
	{ .name = "pi-handoff", .run = handoff, .flags = CASE_DEVICE },
	{ .name = "requeue-pi-errors", .run = requeue_pi_errors,
	  .flags = CASE_DEVICE },
	{ .name = "requeue-pi-free-lock", .run = requeue_pi_free,
	  .flags = CASE_DEVICE,
	  .shim_outcome = "requeue=1 waiter=0 word=other",
	  .why = "the module hands a free lock over as TID alone; the kernel "
		 "sets FUTEX_WAITERS too (futex_proxy_trylock_atomic)" },
	{ .name = "requeue-pi-held-lock", .run = requeue_pi_held,
	  .flags = CASE_DEVICE },
	{ .name = NULL },
};
