// SPDX-License-Identifier: GPL-2.0
/* Absolute sleeps on the one clock. */
#include "base/clock.h"

#include <errno.h>

void fl_sleep_until_ns(uint64_t when)
{
	struct timespec ts = fl_ns_to_ts(when);

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}
