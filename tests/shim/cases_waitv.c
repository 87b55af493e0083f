// SPDX-License-Identifier: GPL-2.0
/*
 * futex_waitv through the module (FUTEXLAB_IOC_WAITV): the index of the
 * futex whose wake ended the wait, a vector mixing private and shared
 * entries, EAGAIN, absolute timeouts on both clocks, and the argument
 * checks of sys_futex_waitv() and futex_parse_waitv() in their order.
 */
#include <errno.h>
#include <linux/futex.h>
#include <stdio.h>

#include "tests/shim/shimtest.h"

/* struct futex_waitv */
struct waitv {
	uint64_t val;
	uint64_t uaddr;
	uint32_t flags;
	uint32_t reserved;
};

#define U32P	(FUTEX2_SIZE_U32 | FUTEX2_PRIVATE)

static uint32_t words[3];
static struct waitv vec[3];

static void fill(void)
{
	for (int i = 0; i < 3; i++)
		vec[i] = (struct waitv){ 0, (uintptr_t)&words[i], U32P, 0 };
	vec[1].flags = FUTEX2_SIZE_U32;		/* a shared key */
}

static long waitv_fn(struct waiter *w)
{
	return futex_waitv(vec, 3, 0, w->timeout, CLOCK_MONOTONIC);
}

/* woken through each futex in turn: its index, whichever key kind */
static void woken_index(char *out)
{
	static const int ops[3] = { FUTEX_WAKE_PRIVATE, FUTEX_WAKE,
				    FUTEX_WAKE_PRIVATE };

	for (int i = 2; i >= 0; i--) {
		struct waiter w = { .fn = waitv_fn };
		char name[16];

		words[0] = words[1] = words[2] = 0;
		fill();
		waiter_start(&w);
		note(out, "asleep", "%s", waiter_asleep(&w) ? "no" : "yes");
		snprintf(name, sizeof(name), "wake-%d", i);
		record(out, name, futex(&words[i], ops[i], 1, NULL, NULL, 0));
		snprintf(name, sizeof(name), "index-%d", i);
		waiter_join(&w, out, name);
	}
}

static void eagain_timeouts(char *out)
{
	struct timespec mono = after_ms(CLOCK_MONOTONIC, 20);
	struct timespec real = after_ms(CLOCK_REALTIME, 20);
	struct timespec past = after_ms(CLOCK_MONOTONIC, -1000);

	words[0] = words[1] = words[2] = 0;
	fill();
	record(out, "monotonic", futex_waitv(vec, 3, 0, &mono,
					     CLOCK_MONOTONIC));
	record(out, "realtime", futex_waitv(vec, 3, 0, &real,
					    CLOCK_REALTIME));
	record(out, "past", futex_waitv(vec, 3, 0, &past, CLOCK_MONOTONIC));
	words[2] = 5;
	record(out, "eagain-last", futex_waitv(vec, 3, 0, NULL, 0));
	words[2] = 0;
	words[0] = 5;
	record(out, "eagain-first", futex_waitv(vec, 3, 0, NULL, 0));
	words[0] = 0;
}

static void checks(char *out)
{
	struct timespec mono = after_ms(CLOCK_MONOTONIC, 10);
	struct timespec bad = { 0, 1000000000L };

	words[0] = 1;
	fill();
	record(out, "flags", futex_waitv(vec, 1, 1, NULL, 0));
	record(out, "nr-0", futex_waitv(vec, 0, 0, NULL, 0));
	record(out, "nr-129", futex_waitv(vec, 129, 0, NULL, 0));
	record(out, "null", futex_waitv(NULL, 1, 0, NULL, 0));
	record(out, "clock-boottime", futex_waitv(vec, 1, 0, &mono,
						  CLOCK_BOOTTIME));
	record(out, "bad-ts", futex_waitv(vec, 1, 0, &bad, CLOCK_MONOTONIC));
	record(out, "ts-pointer", futex_waitv(vec, 1, 0, (void *)8,
					      CLOCK_MONOTONIC));
	record(out, "vector-pointer", futex_waitv((void *)8, 1, 0, NULL, 0));
	vec[1].reserved = 1;
	record(out, "reserved", futex_waitv(vec, 2, 0, NULL, 0));
	fill();
	vec[1].flags |= 0x40;
	record(out, "entry-flags", futex_waitv(vec, 2, 0, NULL, 0));
	fill();
	vec[1].flags = FUTEX2_PRIVATE | 0x01;	/* U16 */
	record(out, "size-u16", futex_waitv(vec, 2, 0, NULL, 0));
	fill();
	vec[1].val = 1ull << 32;
	record(out, "val-64", futex_waitv(vec, 2, 0, NULL, 0));
	fill();
	vec[1].uaddr += 1;
	record(out, "misaligned", futex_waitv(vec, 2, 0, NULL, 0));
	fill();
	words[0] = 0;
	vec[1].uaddr = 8;
	record(out, "word-unmapped", futex_waitv(vec, 2, 0, &mono,
						 CLOCK_MONOTONIC));
}

const struct shim_case cases_waitv[] = {
	{ .name = "waitv-woken-index", .run = woken_index,
	  .flags = CASE_DEVICE },
	{ .name = "waitv-eagain-timeouts", .run = eagain_timeouts,
	  .flags = CASE_DEVICE },
	{ .name = "waitv-checks", .run = checks, .flags = CASE_DEVICE },
	{ .name = NULL },
};
