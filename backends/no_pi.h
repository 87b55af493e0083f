/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PI and requeue-PI operations of a backend that has none (futex2,
 * spin): each answers -ENOSYS, and the backend leaves FL_CAP_PI and
 * FL_CAP_REQUEUE_PI out of its capabilities, so no workload calls them in
 * a cell that runs.
 */
#ifndef FUTEXLAB_BACKENDS_NO_PI_H
#define FUTEXLAB_BACKENDS_NO_PI_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

static inline int fl_lock_pi(uint32_t *w, const struct timespec *deadline)
{
	(void)w;
	(void)deadline;
	return -ENOSYS;
}

static inline int fl_trylock_pi(uint32_t *w)
{
	(void)w;
	return -ENOSYS;
}

static inline int fl_unlock_pi(uint32_t *w)
{
	(void)w;
	return -ENOSYS;
}

static inline int fl_wait_requeue_pi(uint32_t *w, uint32_t val, uint32_t *w2,
				     const struct timespec *deadline)
{
	(void)w;
	(void)val;
	(void)w2;
	(void)deadline;
	return -ENOSYS;
}

static inline int fl_cmp_requeue_pi(uint32_t *w, uint32_t *w2, int nr_requeue,
				    uint32_t val)
{
	(void)w;
	(void)w2;
	(void)nr_requeue;
	(void)val;
	return -ENOSYS;
}

#endif
