/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fl_waitv() of a backend that has no vectored wait: -ENOSYS, and the
 * backend leaves FL_CAP_WAITV out of its capabilities, so no workload
 * calls it in a cell that runs.
 */
#ifndef FUTEXLAB_BACKENDS_NO_WAITV_H
#define FUTEXLAB_BACKENDS_NO_WAITV_H

#include <errno.h>
#include <time.h>

#include "backends/backend.h"

#define FL_WAITV_FLAGS	FL_WAITV_SIZE_U32

static inline int fl_waitv(const struct fl_waitv *v, unsigned int n,
			   const struct timespec *deadline)
{
	(void)v;
	(void)n;
	(void)deadline;
	return -ENOSYS;
}

#endif
