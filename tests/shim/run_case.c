// SPDX-License-Identifier: GPL-2.0
/*
 * One case in a fresh process: this binary executed again with --case
 * NAME, with LD_PRELOAD naming the shim or not. A fresh process is what
 * the shim meets in a real program (nothing opened yet) and keeps a
 * case's threads, signals and locks from touching the next. Its stdout is
 * the outcome line, its stderr what the shim said; a case that does not
 * end within CASE_SECONDS is killed and fails.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/shim/shimtest.h"

#define CASE_SECONDS	30

const struct shim_case *const *shim_case_tables(void)
{
	static const struct shim_case *const all[] = {
		cases_checks, cases_waitwake, cases_waitv, cases_pi,
		cases_signals, cases_process, NULL,
	};
	return all;
}

static const struct shim_case *find_case(const char *name)
{
	for (const struct shim_case *const *t = shim_case_tables(); *t;
	     t++)
		for (const struct shim_case *c = *t; c->name; c++)
			if (!strcmp(c->name, name))
				return c;
	return NULL;
}

/* The child's side: run the case, print its outcome, exit 0. */
int case_main(const char *name)
{
	const struct shim_case *c = find_case(name);
	char out[OUTCOME_LEN] = "";

	if (!c) {
		fprintf(stderr, "no case %s\n", name);
		return 2;
	}
	alarm(CASE_SECONDS);
	c->run(out);
	printf("%s\n", out);
	return 0;
}

static void exec_case(const struct shim_case *c, const char *shim,
		      const char *design, int out_fd, int err_fd)
{
	dup2(out_fd, STDOUT_FILENO);
	dup2(err_fd, STDERR_FILENO);
	unsetenv("FUTEXLAB_SLOTS");
	unsetenv("FUTEXLAB_SHIM_VERBOSE");
	if (shim) {
		setenv("LD_PRELOAD", shim, 1);
		setenv("FUTEXLAB_DESIGN", design, 1);
		if (c->env)
			putenv((char *)c->env);
	} else {
		unsetenv("LD_PRELOAD");
	}
	execl("/proc/self/exe", "test_shim", "--case", c->name, (char *)NULL);
	_exit(127);
}

/* Reads both pipes to their ends (or the deadline); -1 on timeout. */
static int drain(int fds[2], char *bufs[2], size_t lens[2])
{
	size_t used[2] = { 0, 0 };
	int open_fds = 2;

	for (int i = 0; i < 2; i++)
		bufs[i][0] = '\0';
	while (open_fds) {
		struct pollfd p[2] = { { fds[0], POLLIN, 0 },
				       { fds[1], POLLIN, 0 } };
		int r = poll(p, 2, CASE_SECONDS * 1000);

		if (r <= 0)
			return -1;
		for (int i = 0; i < 2; i++) {
			char sink[256];
			char *dst = used[i] + 1 < lens[i] ? bufs[i] + used[i]
							  : sink;
			size_t room = used[i] + 1 < lens[i]
				? lens[i] - used[i] - 1 : sizeof(sink);
			ssize_t n;

			if (!(p[i].revents & (POLLIN | POLLHUP)))
				continue;
			n = read(fds[i], dst, room);
			if (n <= 0) {
				p[i].fd = -1;
				fds[i] = -1;
				open_fds--;
				continue;
			}
			if (dst != sink) {
				used[i] += n;
				bufs[i][used[i]] = '\0';
			}
		}
	}
	return 0;
}

int run_case(const struct shim_case *c, const char *shim, const char *design,
	     char *out, size_t out_len, char *err, size_t err_len)
{
	int out_pipe[2], err_pipe[2], status = 0;
	pid_t pid;

	if (pipe(out_pipe) || pipe(err_pipe))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(out_pipe[0]);
		close(err_pipe[0]);
		exec_case(c, shim, design, out_pipe[1], err_pipe[1]);
	}
	close(out_pipe[1]);
	close(err_pipe[1]);
	int fds[2] = { out_pipe[0], err_pipe[0] };
	char *bufs[2] = { out, err };
	size_t lens[2] = { out_len, err_len };
	int timed_out = drain(fds, bufs, lens);

	if (timed_out)
		kill(pid, SIGKILL);
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	waitpid(pid, &status, 0);
	out[strcspn(out, "\n")] = '\0';
	if (timed_out || !WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(out, out_len, "(the case %s)", timed_out ? "hung"
			 : WIFSIGNALED(status) ? strsignal(WTERMSIG(status))
			 : "failed");
		return -1;
	}
	return 0;
}
