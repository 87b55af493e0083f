// SPDX-License-Identifier: GPL-2.0
/*
 * Cases that never reach the module, so they run on the host too: the
 * kernel's checks of a call's arguments (timespecs, clock flags, futex2
 * flags and sizes, in the kernel's order), the operations the module
 * lacks, and system calls that must pass through the shim untouched.
 */
#include <errno.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tests/shim/shimtest.h"

#ifndef FUTEX_LOCK_PI2
#define FUTEX_LOCK_PI2	13
#endif

static uint32_t word;

static void timespec_checks(char *out)
{
	struct timespec nsec = { 0, 1000000000L }, neg = { -1, 0 };
	struct timespec neg_nsec = { 0, -1 };

	record(out, "wait-nsec", futex(&word, FUTEX_WAIT_PRIVATE, 0, &nsec,
				      NULL, 0));
	record(out, "wait-negative", futex(&word, FUTEX_WAIT_PRIVATE, 0, &neg,
					  NULL, 0));
	record(out, "wait-negative-nsec", futex(&word, FUTEX_WAIT, 0,
					       &neg_nsec, NULL, 0));
	record(out, "wait-bad-pointer", futex(&word, FUTEX_WAIT_PRIVATE, 0,
					     (void *)8, NULL, 0));
	record(out, "bitset-nsec", futex(&word, FUTEX_WAIT_BITSET_PRIVATE, 0,
					&nsec, NULL, ~0u));
	record(out, "lock-pi-nsec", futex(&word, FUTEX_LOCK_PI_PRIVATE, 0,
					 &nsec, NULL, 0));
	record(out, "lock-pi2-bad-pointer", futex(&word, FUTEX_LOCK_PI2, 0,
						 (void *)8, NULL, 0));
	record(out, "requeue-pi-wait-nsec", futex(&word,
		FUTEX_WAIT_REQUEUE_PI_PRIVATE, 0, &nsec, &word + 1, 0));
}

/* FUTEX_CLOCK_REALTIME: only WAIT_BITSET, WAIT_REQUEUE_PI and LOCK_PI2,
 * checked after the timespec (kernel/futex/syscalls.c) */
static void clock_realtime_checks(char *out)
{
	struct timespec ok = interval_ms(1), bad = { 0, -5 };
	int rt = FUTEX_CLOCK_REALTIME;

	record(out, "wait", futex(&word, FUTEX_WAIT_PRIVATE | rt, 0, &ok,
				  NULL, 0));
	record(out, "wait-bad-ts", futex(&word, FUTEX_WAIT_PRIVATE | rt, 0,
					 &bad, NULL, 0));
	record(out, "wake", futex(&word, FUTEX_WAKE_PRIVATE | rt, 1, NULL,
				  NULL, 0));
	record(out, "lock-pi", futex(&word, FUTEX_LOCK_PI_PRIVATE | rt, 0,
				     NULL, NULL, 0));
	record(out, "trylock-pi", futex(&word, FUTEX_TRYLOCK_PI | rt, 0, NULL,
					NULL, 0));
	record(out, "unlock-pi", futex(&word, FUTEX_UNLOCK_PI | rt, 0, NULL,
				       NULL, 0));
	record(out, "cmp-requeue", futex(&word, FUTEX_CMP_REQUEUE | rt, 1,
					 NULL, &word + 1, 0));
}

static void unknown_ops(char *out)
{
	record(out, "op-14", futex(&word, 14, 0, NULL, NULL, 0));
	record(out, "op-14-again", futex(&word, 14 | FUTEX_PRIVATE_FLAG, 0,
					 NULL, NULL, 0));
	record(out, "futex-fd", futex(&word, 2, 0, NULL, NULL, 0));
}

/* FUTEX_WAKE_OP on a word nobody waits on: 0 for the kernel */
static void wake_op(char *out)
{
	uint32_t two[2] = { 0, 0 };

	record(out, "wake-op", futex(&two[0], FUTEX_WAKE_OP_PRIVATE, 1,
				     (void *)1, &two[1],
				     FUTEX_OP(FUTEX_OP_SET, 1, FUTEX_OP_CMP_EQ,
					      0)));
	record(out, "again", futex(&two[0], FUTEX_WAKE_OP_PRIVATE, 1,
				   (void *)1, &two[1], 0));
}

static void futex2_wait_checks(char *out)
{
	struct timespec ok = after_ms(CLOCK_MONOTONIC, 1), bad = { 0, -1 };
	unsigned int u32p = FUTEX2_SIZE_U32 | FUTEX2_PRIVATE;

	record(out, "unknown-flag", futex2_wait(&word, 0, ~0u, u32p | 0x1000,
					       NULL, 0));
	record(out, "size-u8", futex2_wait(&word, 0, ~0u, FUTEX2_PRIVATE,
					  NULL, 0));
	record(out, "size-u64", futex2_wait(&word, 0, ~0u,
					   FUTEX2_PRIVATE | 3, NULL, 0));
	record(out, "val-64", futex2_wait(&word, 1ul << 32, ~0u, u32p, NULL,
					 0));
	record(out, "mask-64", futex2_wait(&word, 0, 1ul << 33, u32p, NULL,
					  0));
	record(out, "clock-boottime", futex2_wait(&word, 0, ~0u, u32p, &ok,
						 CLOCK_BOOTTIME));
	record(out, "bad-pointer", futex2_wait(&word, 0, ~0u, u32p,
					      (void *)8, CLOCK_MONOTONIC));
	record(out, "bad-ts", futex2_wait(&word, 0, ~0u, u32p, &bad,
					 CLOCK_REALTIME));
	/* the mask is checked after the timeout */
	record(out, "mask-0-bad-pointer", futex2_wait(&word, 0, 0, u32p,
		(void *)8, CLOCK_MONOTONIC));
}

static void futex2_wake_checks(char *out)
{
	unsigned int u32p = FUTEX2_SIZE_U32 | FUTEX2_PRIVATE;

	record(out, "nr-0", futex2_wake(&word, ~0u, 0, u32p));
	record(out, "nr-0-mask-0", futex2_wake(&word, 0, 0, u32p));
	record(out, "nr-0-misaligned", futex2_wake((char *)&word + 1, ~0u, 0,
						   u32p));
	record(out, "unknown-flag", futex2_wake(&word, ~0u, 1, u32p | 0x40));
	record(out, "mask-64", futex2_wake(&word, 1ul << 40, 1, u32p));
}

/* struct futex_waitv */
struct waitv {
	uint64_t val;
	uint64_t uaddr;
	uint32_t flags;
	uint32_t reserved;
};

static void futex2_requeue_checks(char *out)
{
	unsigned int u32p = FUTEX2_SIZE_U32 | FUTEX2_PRIVATE;
	uint32_t w[2] = { 0, 0 };
	struct waitv v[2] = {
		{ 0, (uintptr_t)&w[0], u32p, 0 },
		{ 0, (uintptr_t)&w[1], u32p, 0 },
	};

	record(out, "flags", futex2_requeue(v, 1, 1, 0));
	record(out, "null", futex2_requeue(NULL, 0, 1, 0));
	record(out, "bad-pointer", futex2_requeue((void *)8, 0, 1, 0));
	v[1].flags = u32p | 0x100;
	record(out, "entry-flags", futex2_requeue(v, 0, 1, 0));
	v[1].flags = u32p;
	v[0].reserved = 1;
	record(out, "reserved", futex2_requeue(v, 0, 1, 0));
	v[0].reserved = 0;
	v[0].val = 1ul << 32;
	record(out, "val-64", futex2_requeue(v, 0, 1, 0));
}

/* FUTEX2_NUMA: EINVAL before 6.16; the module lacks it after */
static void futex2_numa(char *out)
{
	uint32_t pair[2] = { 0, UINT32_MAX };

	record(out, "numa-wake", futex2_wake(pair, ~0u, 1, FUTEX2_SIZE_U32 |
					     FUTEX2_PRIVATE | FUTEX2_NUMA));
}

static int numa_agrees(const char *stock, const char *shim)
{
	if (!strcmp(stock, "numa-wake=-1 EINVAL"))
		return !strcmp(shim, stock);
	return !strcmp(shim, "numa-wake=-1 ENOSYS");
}

/* futex_waitv with a word that differs: EAGAIN, from the module too */
static void waitv(char *out)
{
	uint32_t w = 1;
	struct waitv v = { 0, (uintptr_t)&w,
			   FUTEX2_SIZE_U32 | FUTEX2_PRIVATE, 0 };

	record(out, "waitv", futex_waitv(&v, 1, 0, NULL, CLOCK_MONOTONIC));
	record(out, "again", futex_waitv(&v, 1, 0, NULL, CLOCK_MONOTONIC));
}

/* other system calls go through untouched, errno included */
static void pass_through(char *out)
{
	char c = 0;

	note(out, "getpid", "%s", syscall(SYS_getpid) == getpid() ? "same"
								 : "differs");
	note(out, "gettid", "%s", syscall(SYS_gettid) == gettid() ? "same"
								 : "differs");
	record(out, "write-ebadf", syscall(SYS_write, -1, &c, 1));
	record(out, "nr-100000", syscall(100000, 0, 0, 0));
	errno = 1234;
	syscall(SYS_getppid);
	note(out, "errno-kept", "%d", errno);
}

/* a design the module does not have: said, and ENOSYS from then on */
static void bad_design(char *out)
{
	record(out, "wake", futex(&word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL,
				  0));
	record(out, "wake-again", futex(&word, FUTEX_WAKE_PRIVATE, 1, NULL,
					NULL, 0));
}

const struct shim_case cases_checks[] = {
	{ .name = "timespec-checks", .run = timespec_checks },
	{ .name = "clock-realtime-checks", .run = clock_realtime_checks },
	{ .name = "unknown-ops", .run = unknown_ops,
	  .said_once = "an unknown futex op is not an operation" },
	{ .name = "wake-op-lacking", .run = wake_op,
	  .shim_outcome = "wake-op=-1 ENOSYS again=-1 ENOSYS",
	  .why = "the module has no FUTEX_WAKE_OP",
	  .said_once = "FUTEX_WAKE_OP is not an operation" },
	{ .name = "futex2-wait-checks", .run = futex2_wait_checks },
	{ .name = "futex2-wake-checks", .run = futex2_wake_checks },
	{ .name = "futex2-requeue-checks", .run = futex2_requeue_checks },
	{ .name = "futex2-numa-flag", .run = futex2_numa,
	  .agrees = numa_agrees,
	  .why = "EINVAL where the kernel lacks FUTEX2_NUMA, else ENOSYS" },
	{ .name = "futex-waitv-eagain", .run = waitv, .flags = CASE_DEVICE },
	{ .name = "pass-through", .run = pass_through },
	{ .name = "bad-design", .run = bad_design,
	  .env = "FUTEXLAB_DESIGN=bogus",
	  .shim_outcome = "wake=-1 ENOSYS wake-again=-1 ENOSYS",
	  .why = "no such design: futex calls fail rather than go elsewhere",
	  .said_once = "FUTEXLAB_DESIGN=bogus" },
	{ .name = NULL },
};
