/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The argument checks of futex_waitv(2), for a backend that implements the
 * vectored wait itself (spin): the same -EINVAL cases as the kernel's
 * futex_parse_waitv(), in the same order, so the conformance suite can
 * hold every backend to the system call's answers.
 */
#ifndef FUTEXLAB_BACKENDS_WAITV_CHECK_H
#define FUTEXLAB_BACKENDS_WAITV_CHECK_H

#include <errno.h>
#include <stdint.h>

#include "backends/backend.h"

static inline int fl_waitv_check(const struct fl_waitv *v, unsigned int n)
{
	if (n == 0 || n > FL_WAITV_MAX)
		return -EINVAL;
	for (unsigned int i = 0; i < n; i++) {
		if (v[i].flags & ~(FL_WAITV_SIZE_MASK | FL_WAITV_PRIVATE) ||
		    v[i].reserved)
			return -EINVAL;
		if ((v[i].flags & FL_WAITV_SIZE_MASK) != FL_WAITV_SIZE_U32)
			return -EINVAL;
		if (v[i].val >> 32)
			return -EINVAL;
		if (v[i].uaddr % sizeof(uint32_t))
			return -EINVAL;
	}
	return 0;
}

#endif
