// SPDX-License-Identifier: GPL-2.0
/* Running another program for a campaign, with a deadline (spawn.h). */
#include "campaign/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

volatile sig_atomic_t fl_campaign_stop;

static void on_signal(int sig)
{
	(void)sig;
	fl_campaign_stop = 1;
}

void fl_campaign_catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

extern char **environ;

static void child(char *const *argv, int exe_fd, const char *cwd, int nice,
		  int out_fd)
{
	if (cwd && chdir(cwd)) {
		fprintf(stderr, "futexlab campaign: cannot enter %s: %s\n", cwd,
			strerror(errno));
		_exit(127);
	}
	if (out_fd >= 0 && dup2(out_fd, STDOUT_FILENO) < 0)
		_exit(127);
	if (nice && setpriority(PRIO_PROCESS, 0, nice)) {
		fprintf(stderr, "futexlab campaign: cannot set niceness %d: "
			"%s\n", nice, strerror(errno));
		_exit(127);
	}
	/* kept open through the exec: a script's interpreter reads it
	 * as /dev/fd/N */
	if (exe_fd >= 0 && fcntl(exe_fd, F_SETFD, 0) == 0)
		fexecve(exe_fd, argv, environ);
	else
		execvp(argv[0], argv);
	fprintf(stderr, "futexlab campaign: cannot run %s: %s\n", argv[0],
		strerror(errno));
	_exit(127);
}

int fl_campaign_spawn(char *const *argv, int exe_fd, const char *cwd,
		      int nice, int out_fd, double deadline_s, char *err,
		      size_t errlen)
{
	double end = now_s() + deadline_s, killed_at = 0;
	int status, sent = 0;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "cannot start %s: %s", argv[0],
			 strerror(errno));
		return -1;
	}
	if (pid == 0)
		child(argv, exe_fd, cwd, nice, out_fd);
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			snprintf(err, errlen, "waiting for %s: %s", argv[0],
				 strerror(errno));
			return -1;
		}
		/* an interrupt is passed on once, so the run can end
		 * cleanly; past the deadline it is ended, then killed */
		if (fl_campaign_stop && !sent) {
			kill(pid, SIGTERM);
			sent = 1;
		}
		if (!killed_at && now_s() > end) {
			kill(pid, SIGTERM);
			killed_at = now_s();
		} else if (killed_at && now_s() > killed_at + 10) {
			kill(pid, SIGKILL);
		}
		usleep(50000);
	}
	if (killed_at) {
		snprintf(err, errlen, "%s ran past its deadline of %.0f s and "
			 "was ended", argv[0], deadline_s);
		return -1;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
