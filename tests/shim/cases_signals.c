// SPDX-License-Identifier: GPL-2.0
/*
 * A signal during a wait, as the kernel has it: a handler without
 * SA_RESTART ends an untimed wait with EINTR; with SA_RESTART the wait
 * goes on; a timed SYS_futex wait ends with EINTR either way (the kernel's
 * restart block is never restarted after a handler), futex2's futex_wait
 * restarts; LOCK_PI and WAIT_REQUEUE_PI before its requeue restart always.
 *
 * The module restarts every interrupted wait when SA_RESTART is set, so
 * the timed SYS_futex waits are where the shim differs: they go on to
 * their deadline (ETIMEDOUT). docs/kmod.md names the module flag that
 * would fix it.
 */
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <string.h>

#include "tests/shim/shimtest.h"

static uint32_t word, lock;
static _Atomic int handled;

static void on_signal(int sig)
{
	(void)sig;
	atomic_fetch_add(&handled, 1);
}

static void handler(int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = flags;
	sigaction(SIGUSR1, &sa, NULL);
}

/* signal w once asleep, wait for the handler, see it asleep again or not */
static void interrupt(struct waiter *w, char *out)
{
	waiter_asleep(w);
	pthread_kill(w->thread, SIGUSR1);
	while (!atomic_load(&handled))
		;
	note(out, "handled", "%d", atomic_load(&handled));
}

static void signalled_wait(char *out, int sa_flags, int op, long timeout_ms,
			   int wake)
{
	struct waiter w = { .fn = wait_bitset_fn, .word = &word, .op = op,
			    .bitset = ~0u };

	word = 0;
	if (timeout_ms) {
		w.ts = (op & FUTEX_CMD_MASK) == FUTEX_WAIT
			? interval_ms(timeout_ms)
			: after_ms(CLOCK_MONOTONIC, timeout_ms);
		w.timeout = &w.ts;
	}
	handler(sa_flags);
	waiter_start(&w);
	interrupt(&w, out);
	if (wake)
		record(out, "woken", wake_until_one(&word, FUTEX_WAKE_PRIVATE));
	waiter_join(&w, out, "waiter");
}

static void eintr(char *out)
{
	signalled_wait(out, 0, FUTEX_WAIT_PRIVATE, 0, 0);
}

static void sa_restart(char *out)
{
	signalled_wait(out, SA_RESTART, FUTEX_WAIT_PRIVATE, 0, 1);
}

/*
 * The timeout must outlast the waiter's start and the signal's delivery on
 * the slowest guest (a KASAN and lockdep kernel under TCG needs more than
 * 300 ms), or the signal finds the wait already timed out.
 */
#define TIMED_WAIT_MS	1500

static void timed_sa_restart(char *out)
{
	signalled_wait(out, SA_RESTART, FUTEX_WAIT_PRIVATE, TIMED_WAIT_MS, 0);
}

static void timed_bitset_sa_restart(char *out)
{
	signalled_wait(out, SA_RESTART, FUTEX_WAIT_BITSET_PRIVATE,
		       TIMED_WAIT_MS, 0);
}

static void futex2_timed_sa_restart(char *out)
{
	struct waiter w = { .fn = futex2_wait_fn, .word = &word,
			    .bitset = ~0u };

	word = 0;
	w.ts = after_ms(CLOCK_MONOTONIC, 10000);
	w.timeout = &w.ts;
	handler(SA_RESTART);
	waiter_start(&w);
	interrupt(&w, out);
	record(out, "woken", wake_until_one(&word, FUTEX_WAKE_PRIVATE));
	waiter_join(&w, out, "waiter");
}

static void lock_pi_restarts(char *out)
{
	struct waiter w = { .fn = lock_pi_fn, .word = &lock,
			    .op = FUTEX_LOCK_PI_PRIVATE };

	lock = 0;
	handler(0);
	record(out, "lock", futex(&lock, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL,
				  0));
	waiter_start(&w);
	interrupt(&w, out);
	note(out, "asleep-again", "%d", waiter_asleep(&w) == 0);
	record(out, "unlock", futex(&lock, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL,
				    NULL, 0));
	waiter_join(&w, out, "waiter");
}

static void wait_requeue_pi_restarts(char *out)
{
	struct waiter w = { .fn = wait_requeue_pi_fn, .word = &word,
			    .word2 = &lock, .op = FUTEX_WAIT_REQUEUE_PI_PRIVATE };

	word = 0;
	lock = 0;
	handler(0);
	waiter_start(&w);
	interrupt(&w, out);
	note(out, "asleep-again", "%d", waiter_asleep(&w) == 0);
	record(out, "requeue", futex(&word, FUTEX_CMP_REQUEUE_PI_PRIVATE, 1,
				     (void *)0, &lock, 0));
	waiter_join(&w, out, "waiter");
}

const struct shim_case cases_signals[] = {
	{ .name = "signal-eintr", .run = eintr, .flags = CASE_DEVICE },
	{ .name = "signal-sa-restart", .run = sa_restart,
	  .flags = CASE_DEVICE },
	{ .name = "signal-timed-wait-sa-restart", .run = timed_sa_restart,
	  .flags = CASE_DEVICE,
	  .shim_outcome = "handled=1 waiter=-1 ETIMEDOUT",
	  .why = "the module restarts a timed wait after an SA_RESTART "
		 "handler; the kernel returns EINTR" },
	{ .name = "signal-timed-bitset-sa-restart",
	  .run = timed_bitset_sa_restart, .flags = CASE_DEVICE,
	  .shim_outcome = "handled=1 waiter=-1 ETIMEDOUT",
	  .why = "as signal-timed-wait-sa-restart" },
	{ .name = "signal-futex2-timed-sa-restart",
	  .run = futex2_timed_sa_restart, .flags = CASE_DEVICE },
	{ .name = "signal-lock-pi-restarts", .run = lock_pi_restarts,
	  .flags = CASE_DEVICE },
	{ .name = "signal-wait-requeue-pi-restarts",
	  .run = wait_requeue_pi_restarts, .flags = CASE_DEVICE },
	{ .name = NULL },
};
