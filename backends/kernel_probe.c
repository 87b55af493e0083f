// SPDX-License-Identifier: GPL-2.0
/* The futex features of the running kernel, probed by calling them. */
#include "backends/kernel_probe.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NR_futex_wake	454
#define FUTEX2_SIZE_U32	0x02
#define FUTEX2_NUMA	0x04
#define FUTEX2_PRIVATE	128

/* Waking nobody is harmless: ENOSYS says the call is missing. The mask
 * must fit the futex's size, so 32 bits for a U32 futex. */
int fl_probe_futex2(void)
{
	uint32_t word = 0;

	return syscall(NR_futex_wake, &word, 0xfffffffful, 1,
		       FUTEX2_SIZE_U32 | FUTEX2_PRIVATE) >= 0;
}

/* With FUTEX2_NUMA the word is followed by a node; old kernels: EINVAL. */
int fl_probe_futex2_numa(void)
{
	uint32_t pair[2] __attribute__((aligned(8))) = { 0, ~0u };

	return syscall(NR_futex_wake, pair, 0xfffffffful, 1,
		       FUTEX2_SIZE_U32 | FUTEX2_PRIVATE | FUTEX2_NUMA) >= 0;
}

/* LOCK_PI2 on a word we already own answers EDEADLK when it exists. */
int fl_probe_lock_pi2(void)
{
	uint32_t word = (uint32_t)syscall(SYS_gettid);

	long r = syscall(SYS_futex, &word, 13 | FUTEX_PRIVATE_FLAG, 0, NULL,
			 NULL, 0);
	return r < 0 && errno == EDEADLK;
}

long fl_probe_hash_slots(void)
{
	long r = prctl(FL_PR_FUTEX_HASH, FL_PR_FUTEX_HASH_GET_SLOTS, 0, 0, 0);

	return r < 0 ? -1 : r;
}

int fl_probe_set_hash_slots(long slots, char *why, size_t len)
{
	if (prctl(FL_PR_FUTEX_HASH, FL_PR_FUTEX_HASH_SET_SLOTS, slots, 0,
		  0) == 0)
		return 0;
	int err = errno;

	if (fl_probe_hash_slots() < 0)
		snprintf(why, len, "the private futex hash prctl "
			 "(PR_FUTEX_HASH, 6.16+) is not in this kernel");
	else
		snprintf(why, len, "PR_FUTEX_HASH_SET_SLOTS %ld: %s", slots,
			 strerror(err));
	return -err;
}
