/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Descriptor pieces that several backends share, for their
 * FL_BACKEND_DESCRIBE part: a probe for a backend that always works here,
 * the set-up of a backend with no futex hash of its own to size, and an
 * empty teardown.
 */
#ifndef FUTEXLAB_BACKENDS_DESCRIBE_COMMON_H
#define FUTEXLAB_BACKENDS_DESCRIBE_COMMON_H

#include <errno.h>
#include <stdio.h>

#include "backends/backend.h"

/* Always available: the calls exist on every kernel futexlab supports. */
static inline int fl_probe_always(char *why, size_t len)
{
	(void)why;
	(void)len;
	return 0;
}

/* --hash-slots means nothing here: leave it, or refuse the cell. */
static inline int fl_setup_no_hash(long hash_slots, char *why, size_t len)
{
	if (hash_slots < 0)
		return 0;
	snprintf(why, len, "%s has no futex hash to size", FL_BACKEND_NAME);
	return -EINVAL;
}

static inline void fl_teardown_nothing(void)
{
}

#endif
