// SPDX-License-Identifier: GPL-2.0
/* CPU hogs beside a side's runs: busy loops at nice -5, one pinned to
 * each of the first CPUs, started before the run and ended after it, so
 * a campaign can ask what a loaded machine does to one side only. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "campaign/internal.h"

#define HOG_NICE	(-5)

static void hog(int cpu, pid_t parent)
{
	cpu_set_t set;
	volatile unsigned long n = 0;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* best effort: a machine with fewer CPUs gets the hog unpinned */
	sched_setaffinity(0, sizeof(set), &set);
	setpriority(PRIO_PROCESS, 0, HOG_NICE);
	/* ended by its parent; a parent gone (killed) ends it too */
	while (getppid() == parent)
		for (int i = 0; i < 1000000; i++)
			n++;
	_exit(0);
}

int campaign_hogs_start(int n, pid_t *pid, char *err, size_t errlen)
{
	pid_t parent = getpid();

	for (int i = 0; i < n; i++) {
		pid[i] = fork();
		if (pid[i] == 0)
			hog(i, parent);
		if (pid[i] < 0) {
			snprintf(err, errlen, "cannot start a CPU hog: %s",
				 strerror(errno));
			campaign_hogs_stop(i, pid);
			return -1;
		}
	}
	return 0;
}

void campaign_hogs_stop(int n, const pid_t *pid)
{
	for (int i = 0; i < n; i++)
		kill(pid[i], SIGKILL);
	for (int i = 0; i < n; i++)
		waitpid(pid[i], NULL, 0);
}
