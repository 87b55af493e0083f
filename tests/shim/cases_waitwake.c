// SPDX-License-Identifier: GPL-2.0
/*
 * Waits, wakes and requeues through the module, private and shared keys,
 * SYS_futex and futex2: EAGAIN, timeouts on each clock, EFAULT and EINVAL
 * from the word and the bitset, exact woken and requeued counts with
 * waiters seen asleep first.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>

#include "tests/shim/shimtest.h"

static uint32_t words[4];

static void eagain(char *out)
{
	words[0] = 1;
	record(out, "private", futex(&words[0], FUTEX_WAIT_PRIVATE, 0, NULL,
				     NULL, 0));
	record(out, "shared", futex(&words[0], FUTEX_WAIT, 0, NULL, NULL, 0));
	record(out, "bitset", futex(&words[0], FUTEX_WAIT_BITSET, 0, NULL,
				    NULL, 1));
	record(out, "futex2", futex2_wait(&words[0], 0, ~0u, FUTEX2_SIZE_U32,
					  NULL, 0));
}

static void timeouts(char *out)
{
	struct timespec rel = interval_ms(20);
	struct timespec mono = after_ms(CLOCK_MONOTONIC, 20);
	struct timespec real = after_ms(CLOCK_REALTIME, 20);
	struct timespec past = after_ms(CLOCK_MONOTONIC, -1000);
	struct timespec real_past = after_ms(CLOCK_REALTIME, -1000);
	uint32_t *w = &words[1];

	record(out, "wait-relative", futex(w, FUTEX_WAIT_PRIVATE, 0, &rel,
					   NULL, 0));
	record(out, "wait-shared", futex(w, FUTEX_WAIT, 0, &rel, NULL, 0));
	record(out, "bitset-monotonic", futex(w, FUTEX_WAIT_BITSET_PRIVATE, 0,
					      &mono, NULL, ~0u));
	record(out, "bitset-realtime", futex(w, FUTEX_WAIT_BITSET_PRIVATE |
					     FUTEX_CLOCK_REALTIME, 0, &real,
					     NULL, ~0u));
	record(out, "bitset-past", futex(w, FUTEX_WAIT_BITSET_PRIVATE, 0,
					 &past, NULL, ~0u));
	record(out, "bitset-realtime-past", futex(w, FUTEX_WAIT_BITSET |
		FUTEX_CLOCK_REALTIME, 0, &real_past, NULL, ~0u));
	mono = after_ms(CLOCK_MONOTONIC, 20);
	real = after_ms(CLOCK_REALTIME, 20);
	record(out, "futex2-monotonic", futex2_wait(w, 0, ~0u, FUTEX2_SIZE_U32
		| FUTEX2_PRIVATE, &mono, CLOCK_MONOTONIC));
	record(out, "futex2-realtime", futex2_wait(w, 0, ~0u, FUTEX2_SIZE_U32,
						   &real, CLOCK_REALTIME));
	record(out, "futex2-past", futex2_wait(w, 0, ~0u, FUTEX2_SIZE_U32,
					       &past, CLOCK_MONOTONIC));
}

static void word_errors(char *out)
{
	uint32_t *odd = (uint32_t *)((char *)&words[2] + 1);

	record(out, "wait-unmapped", futex((uint32_t *)8, FUTEX_WAIT_PRIVATE,
					   0, NULL, NULL, 0));
	record(out, "wait-shared-unmapped", futex((uint32_t *)8, FUTEX_WAIT,
						  0, NULL, NULL, 0));
	record(out, "wait-misaligned", futex(odd, FUTEX_WAIT_PRIVATE, 0, NULL,
					     NULL, 0));
	record(out, "wake-misaligned", futex(odd, FUTEX_WAKE, 1, NULL, NULL,
					     0));
	record(out, "wait-bitset-0", futex(&words[2],
		FUTEX_WAIT_BITSET_PRIVATE, 0, NULL, NULL, 0));
	record(out, "wake-bitset-0", futex(&words[2],
		FUTEX_WAKE_BITSET_PRIVATE, 1, NULL, NULL, 0));
	record(out, "futex2-wait-mask-0", futex2_wait(&words[2], 0, 0,
		FUTEX2_SIZE_U32, NULL, 0));
	record(out, "futex2-wake-mask-0", futex2_wake(&words[2], 0, 1,
		FUTEX2_SIZE_U32));
	record(out, "wake-nobody", futex(&words[2], FUTEX_WAKE_PRIVATE, 1,
					 NULL, NULL, 0));
	record(out, "cmp-requeue-negative", futex(&words[2],
		FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)(long)-1, &words[3], 0));
	record(out, "requeue-negative", futex(&words[2], FUTEX_REQUEUE, -1,
		(void *)1, &words[3], 0));
	record(out, "cmp-requeue-eagain", futex(&words[2], FUTEX_CMP_REQUEUE,
		1, (void *)1, &words[3], 5));
}

/* n waiters of kind op on w (which holds val), all seen asleep */
static void start_waiters(struct waiter *ws, int n, uint32_t *w, int op,
			  long (*fn)(struct waiter *), uint32_t bitset)
{
	for (int i = 0; i < n; i++) {
		ws[i] = (struct waiter){ .fn = fn, .word = w, .op = op,
					 .bitset = bitset, .val = *w };
		waiter_start(&ws[i]);
		waiter_asleep(&ws[i]);
	}
}

static void join_all(struct waiter *ws, int n, char *out)
{
	int ok = 0;

	for (int i = 0; i < n; i++) {
		char one[OUTCOME_LEN] = "";

		waiter_join(&ws[i], one, "w");
		ok += ws[i].ret == 0;
	}
	note(out, "waiters-returned-0", "%d/%d", ok, n);
}

static void wake_counts(char *out, int op_wait, int op_wake)
{
	struct waiter ws[3];

	words[0] = 0;
	start_waiters(ws, 3, &words[0], op_wait, wait_fn, 0);
	record(out, "wake-0", futex(&words[0], op_wake, 0, NULL, NULL, 0));
	record(out, "wake-1", futex(&words[0], op_wake, 1, NULL, NULL, 0));
	record(out, "wake-all", futex(&words[0], op_wake, INT_MAX, NULL, NULL,
				      0));
	record(out, "wake-none-left", futex(&words[0], op_wake, 1, NULL, NULL,
					    0));
	join_all(ws, 3, out);
}

static void wake_private(char *out)
{
	wake_counts(out, FUTEX_WAIT_PRIVATE, FUTEX_WAKE_PRIVATE);
}

static void wake_shared(char *out)
{
	wake_counts(out, FUTEX_WAIT, FUTEX_WAKE);
}

/* a private wake does not find a shared waiter, nor the other way */
static void private_shared_apart(char *out)
{
	struct waiter ws[1];

	words[0] = 0;
	start_waiters(ws, 1, &words[0], FUTEX_WAIT, wait_fn, 0);
	record(out, "private-wake", futex(&words[0], FUTEX_WAKE_PRIVATE, 1,
					  NULL, NULL, 0));
	record(out, "shared-wake", futex(&words[0], FUTEX_WAKE, 1, NULL, NULL,
					 0));
	join_all(ws, 1, out);
}

static void bitsets(char *out)
{
	struct waiter ws[1];

	words[0] = 0;
	start_waiters(ws, 1, &words[0], FUTEX_WAIT_BITSET_PRIVATE,
		      wait_bitset_fn, 0x1);
	record(out, "wake-0x2", futex(&words[0], FUTEX_WAKE_BITSET_PRIVATE, 1,
				      NULL, NULL, 0x2));
	record(out, "wake-0x3", futex(&words[0], FUTEX_WAKE_BITSET_PRIVATE, 1,
				      NULL, NULL, 0x3));
	join_all(ws, 1, out);
}

static void requeues(char *out, int op)
{
	struct waiter ws[3];

	words[0] = 7;
	words[1] = 0;
	start_waiters(ws, 3, &words[0], FUTEX_WAIT_PRIVATE, wait_fn, 0);
	record(out, "requeue", futex(&words[0], op, 1, (void *)1, &words[1],
				     7));
	record(out, "wake-source", futex(&words[0], FUTEX_WAKE_PRIVATE,
					 INT_MAX, NULL, NULL, 0));
	record(out, "wake-target", futex(&words[1], FUTEX_WAKE_PRIVATE,
					 INT_MAX, NULL, NULL, 0));
	join_all(ws, 3, out);
}

static void cmp_requeue(char *out)
{
	requeues(out, FUTEX_CMP_REQUEUE_PRIVATE);
}

static void plain_requeue(char *out)
{
	requeues(out, FUTEX_REQUEUE_PRIVATE);
}

static void futex2_calls(char *out)
{
	struct waiter ws[2];
	struct {
		uint64_t val, uaddr;
		uint32_t flags, reserved;
	} pair[2] = {
		{ 0, (uintptr_t)&words[0], FUTEX2_SIZE_U32 | FUTEX2_PRIVATE, 0 },
		{ 0, (uintptr_t)&words[1], FUTEX2_SIZE_U32 | FUTEX2_PRIVATE, 0 },
	};

	words[0] = words[1] = 0;
	start_waiters(ws, 2, &words[0], 0, futex2_wait_fn, 0x4);
	record(out, "wake-nr-0", futex2_wake(&words[0], ~0u, 0,
		FUTEX2_SIZE_U32 | FUTEX2_PRIVATE));
	record(out, "wake-mask-0x1", futex2_wake(&words[0], 0x1, 1,
		FUTEX2_SIZE_U32 | FUTEX2_PRIVATE));
	record(out, "requeue", futex2_requeue(pair, 0, 1, 1));
	record(out, "wake-target", futex2_wake(&words[1], 0x4, INT_MAX,
		FUTEX2_SIZE_U32 | FUTEX2_PRIVATE));
	pair[0].val = 9;
	record(out, "requeue-eagain", futex2_requeue(pair, 0, 1, 1));
	join_all(ws, 2, out);
}

const struct shim_case cases_waitwake[] = {
	{ .name = "eagain", .run = eagain, .flags = CASE_DEVICE },
	{ .name = "timeouts", .run = timeouts, .flags = CASE_DEVICE },
	{ .name = "word-errors", .run = word_errors, .flags = CASE_DEVICE },
	{ .name = "wake-private", .run = wake_private, .flags = CASE_DEVICE },
	{ .name = "wake-shared", .run = wake_shared, .flags = CASE_DEVICE },
	{ .name = "private-shared-apart", .run = private_shared_apart,
	  .flags = CASE_DEVICE },
	{ .name = "bitsets", .run = bitsets, .flags = CASE_DEVICE },
	{ .name = "cmp-requeue", .run = cmp_requeue, .flags = CASE_DEVICE },
	{ .name = "plain-requeue", .run = plain_requeue,
	  .flags = CASE_DEVICE },
	{ .name = "futex2-calls", .run = futex2_calls, .flags = CASE_DEVICE },
	{ .name = NULL },
};
