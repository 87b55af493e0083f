// SPDX-License-Identifier: GPL-2.0
/*
 * Every backend sleeps to an absolute CLOCK_MONOTONIC deadline; a pthread
 * deadline is absolute on CLOCK_REALTIME (timedlock, timedwait, a
 * condition variable's default clock) or on the clock the call names.
 * A REALTIME deadline is converted once, at the call, as the preload shim
 * converts FUTEX_CLOCK_REALTIME: a clock step during the wait does not move
 * it (glibc's own wait would follow the step).
 */
#include <errno.h>

#include "interpose/interpose.h"

#define NSEC	1000000000L

/* far enough never to come, near enough that ns of it fit a u64 */
#define FAR_SECONDS	(1LL << 33)

int ip_deadline(clockid_t clock, const struct timespec *abs,
		struct timespec *mono)
{
	struct timespec now_real, now_mono;
	long long sec;
	long nsec;

	if (abs->tv_nsec < 0 || abs->tv_nsec >= NSEC)
		return -EINVAL;
	if (clock == CLOCK_MONOTONIC) {
		sec = abs->tv_sec;
		nsec = abs->tv_nsec;
	} else if (clock == CLOCK_REALTIME) {
		clock_gettime(CLOCK_REALTIME, &now_real);
		clock_gettime(CLOCK_MONOTONIC, &now_mono);
		/* the REALTIME time left, from MONOTONIC's now; subtracting
		 * first cannot overflow */
		sec = ((long long)abs->tv_sec - now_real.tv_sec) +
		      now_mono.tv_sec;
		nsec = abs->tv_nsec - now_real.tv_nsec + now_mono.tv_nsec;
		if (nsec < 0) {
			nsec += NSEC;
			sec--;
		} else if (nsec >= NSEC) {
			nsec -= NSEC;
			sec++;
		}
	} else {
		return -EINVAL;
	}
	/* a deadline before the clock's start has passed already */
	if (sec < 0) {
		sec = 0;
		nsec = 0;
	}
	if (sec > FAR_SECONDS)
		sec = FAR_SECONDS;
	mono->tv_sec = (time_t)sec;
	mono->tv_nsec = nsec;
	return 0;
}
