// SPDX-License-Identifier: GPL-2.0
/*
 * Seeing that waiters sleep: a thread blocked in a futex wait is in state
 * S in /proc/self/task/<tid>/stat. Workloads that must know every waiter
 * is asleep before they wake them (condvar, wake) ask here instead of
 * sleeping "long enough" as perf bench futex does.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "measure/sleeping.h"

char fl_thread_state(pid_t tid)
{
	char path[64], buf[512];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = '\0';
	/* the command name may hold spaces and parentheses: use the last ')' */
	char *p = strrchr(buf, ')');

	return p && p[1] == ' ' ? p[2] : '?';
}

int fl_wait_threads_sleeping(struct fl_thread *const *threads, unsigned int n,
			     uint64_t deadline_ns)
{
	const struct timespec pause = { .tv_sec = 0, .tv_nsec = 50000 };

	for (;;) {
		unsigned int asleep = 0;

		for (unsigned int i = 0; i < n; i++) {
			pid_t tid = __atomic_load_n(&threads[i]->tid,
						    __ATOMIC_ACQUIRE);
			if (tid && fl_thread_state(tid) == 'S')
				asleep++;
		}
		if (asleep == n)
			return 0;
		if (fl_now_ns() >= deadline_ns)
			return -ETIMEDOUT;
		nanosleep(&pause, NULL);
	}
}
