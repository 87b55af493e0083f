// SPDX-License-Identifier: GPL-2.0
/*
 * A futex call's timespec to the module's deadline: the module takes only
 * an absolute CLOCK_MONOTONIC deadline in nanoseconds.
 *
 * The kernel's rules (kernel/futex/syscalls.c, futex_init_timeout()):
 * a timespec with tv_sec < 0 or tv_nsec outside [0, 1e9) is EINVAL; one
 * beyond KTIME_MAX saturates; FUTEX_WAIT's is an interval added to the
 * monotonic clock now; the others are absolute on CLOCK_MONOTONIC, or on
 * CLOCK_REALTIME where the call says so.
 *
 * A CLOCK_REALTIME deadline is turned into a monotonic one at the call,
 * from one reading of each clock: a realtime clock set during the wait
 * moves the kernel's deadline, not this one (docs/kmod.md). A deadline
 * already past becomes 0, which the module treats as expired at once.
 */
#include <errno.h>
#include <stdint.h>
#include <time.h>

#include "shim/shim.h"

#define NSEC_PER_SEC	1000000000LL
#define KTIME_MAX	INT64_MAX
#define KTIME_SEC_MAX	(KTIME_MAX / NSEC_PER_SEC)

/* the kernel's struct __kernel_timespec: 64-bit fields on every ABI */
struct kernel_timespec {
	int64_t tv_sec;
	int64_t tv_nsec;
};

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* a + b for b >= 0, KTIME_MAX where the kernel's ktime_add_safe() would */
static int64_t add_saturating(int64_t a, int64_t b)
{
	return a > KTIME_MAX - b ? KTIME_MAX : a + b;
}

long shim_deadline(const void *user_ts, enum shim_clock clock,
		   uint64_t *deadline_ns)
{
	struct kernel_timespec ts;
	int64_t t, now_mono;
	long r = shim_copy_from_user(&ts, user_ts, sizeof(ts));

	if (r)
		return r;
	if (ts.tv_sec < 0 || (uint64_t)ts.tv_nsec >= (uint64_t)NSEC_PER_SEC)
		return -EINVAL;
	t = ts.tv_sec >= KTIME_SEC_MAX ? KTIME_MAX
		: ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;

	switch (clock) {
	case SHIM_RELATIVE_MONOTONIC:
		t = add_saturating(clock_ns(CLOCK_MONOTONIC), t);
		break;
	case SHIM_ABSOLUTE_MONOTONIC:
		break;
	case SHIM_ABSOLUTE_REALTIME:
		if (t == KTIME_MAX)
			break;		/* never: on every clock */
		now_mono = clock_ns(CLOCK_MONOTONIC);
		t -= clock_ns(CLOCK_REALTIME);
		t = t <= 0 ? 0 : add_saturating(now_mono, t);
		break;
	}
	*deadline_ns = (uint64_t)t;
	return 0;
}

long shim_futex2_deadline(const void *user_ts, int clockid,
			  uint64_t *deadline_ns)
{
	if (clockid != CLOCK_REALTIME && clockid != CLOCK_MONOTONIC)
		return -EINVAL;
	return shim_deadline(user_ts, clockid == CLOCK_REALTIME ?
			     SHIM_ABSOLUTE_REALTIME : SHIM_ABSOLUTE_MONOTONIC,
			     deadline_ns);
}
