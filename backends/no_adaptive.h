/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The adaptive lock of a backend that has none (every backend but the
 * module's, which alone can see whether a lock's owner is on a CPU):
 * each operation answers -ENOSYS, and the backend leaves FL_CAP_ADAPTIVE
 * out of its capabilities, so no workload calls them in a cell that runs
 * (mutex's --algo adaptive is skipped with the reason).
 *
 * Every backend header without the operations includes this file
 * (backends/kmod.h defines its own); FL_ADAPTIVE_OPS says they are
 * defined.
 */
#ifndef FUTEXLAB_BACKENDS_NO_ADAPTIVE_H
#define FUTEXLAB_BACKENDS_NO_ADAPTIVE_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

#define FL_ADAPTIVE_OPS	1

static inline int fl_lock_adaptive(uint32_t *w,
				   const struct timespec *deadline)
{
	(void)w;
	(void)deadline;
	return -ENOSYS;
}

static inline int fl_unlock_adaptive(uint32_t *w)
{
	(void)w;
	return -ENOSYS;
}

#endif
