// SPDX-License-Identifier: GPL-2.0
/* Running another program for a campaign, with a deadline (spawn.h). */
#include "campaign/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/say.h"
#include "campaign/campaign.h"

volatile sig_atomic_t fl_campaign_stop;
const struct fl_say *fl_campaign_say;

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

/* a child's stdout passed on, a line at a time, but those beginning with
 * drop */
struct relay {
	int from, to;
	const char *drop;
	char buf[8192];
	size_t n;
};

static void pass_on(const struct relay *r, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(r->to, p, len);

		if (n <= 0 && errno != EINTR)
			return;	/* a reader gone: the rest is dropped */
		if (n > 0) {
			p += n;
			len -= (size_t)n;
		}
	}
}

/* what the pipe holds now (never waiting); at the end, a last line
 * without its newline too */
static void relay(struct relay *r, int end)
{
	ssize_t got;

	do {
		char *p = r->buf, *nl;

		got = read(r->from, r->buf + r->n, sizeof(r->buf) - r->n);
		r->n += got > 0 ? (size_t)got : 0;
		while ((nl = memchr(p, '\n', r->n - (size_t)(p - r->buf)))) {
			if (strncmp(p, r->drop, strlen(r->drop)))
				pass_on(r, p, (size_t)(nl + 1 - p));
			p = nl + 1;
		}
		r->n -= (size_t)(p - r->buf);
		memmove(r->buf, p, r->n);
		/* a line longer than the buffer goes on in pieces */
		if (r->n == sizeof(r->buf) || (end && got <= 0 && r->n)) {
			pass_on(r, r->buf, r->n);
			r->n = 0;
		}
	} while (got > 0 || (got < 0 && errno == EINTR));
}

/* The forked child: argv exec'd, stdout on out_fd (made blocking when
 * it is the relay's pipe, so the child's writes wait for the relay and
 * never fail). */
static void child(char *const *argv, int exe_fd, const char *cwd, int nice,
		  int out_fd, int piped)
{
	if (piped && fcntl(out_fd, F_SETFL, 0))
		_exit(127);
	if (cwd && chdir(cwd)) {
		fl_say(fl_campaign_say, "futexlab campaign: cannot enter %s: %s",
		       cwd, strerror(errno));
		_exit(127);
	}
	if (out_fd >= 0 && dup2(out_fd, STDOUT_FILENO) < 0)
		_exit(127);
	if (nice && setpriority(PRIO_PROCESS, 0, nice)) {
		fl_say(fl_campaign_say, "futexlab campaign: cannot set "
		       "niceness %d: %s", nice, strerror(errno));
		_exit(127);
	}
	/* kept open through the exec: a script's interpreter reads it
	 * as /dev/fd/N */
	if (exe_fd >= 0 && fcntl(exe_fd, F_SETFD, 0) == 0)
		fexecve(exe_fd, argv, environ);
	else
		execvp(argv[0], argv);
	fl_say(fl_campaign_say, "futexlab campaign: cannot run %s: %s",
	       argv[0], strerror(errno));
	_exit(127);
}

int fl_campaign_spawn(char *const *argv, int exe_fd, const char *cwd,
		      int nice, int out_fd, const char *drop,
		      double deadline_s, char *err, size_t errlen)
{
	double end = now_s() + deadline_s, killed_at = 0;
	struct relay r = { .from = -1, .drop = drop,
			   .to = out_fd >= 0 ? out_fd : STDOUT_FILENO };
	int status, sent = 0, pipefd[2] = { -1, -1 }, pidfd;
	pid_t pid;

	if (drop && pipe2(pipefd, O_CLOEXEC | O_NONBLOCK)) {
		snprintf(err, errlen, "cannot start %s: %s", argv[0],
			 strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "cannot start %s: %s", argv[0],
			 strerror(errno));
		if (drop) {
			close(pipefd[0]);
			close(pipefd[1]);
		}
		return -1;
	}
	if (pid == 0)	/* with drop, the pipe's write end as stdout */
		child(argv, exe_fd, cwd, nice, drop ? pipefd[1] : out_fd,
		      drop != NULL);
	if (drop) {
		close(pipefd[1]);
		r.from = pipefd[0];
	}
	/* readable when the child ends: a campaign's visits, each a
	 * program, are not each kept up to a poll's period longer */
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
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
		struct pollfd p[2] = {
			{ .fd = drop ? r.from : -1, .events = POLLIN },
			{ .fd = pidfd, .events = POLLIN },
		};

		poll(p, 2, 50);
		if (drop)
			relay(&r, 0);
	}
	if (pidfd >= 0)
		close(pidfd);
	if (drop) {
		relay(&r, 1);
		close(r.from);
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
