// SPDX-License-Identifier: GPL-2.0
/*
 * The interposer's conformance suite: every case of cases.c run twice in
 * fresh processes, with glibc's own functions and with LD_PRELOAD naming
 * the interposer (on the algorithm and backend FUTEXLAB_ALGO and
 * FUTEXLAB_BACKEND name in this process's environment), and the two
 * outcome lines compared: the expectation is what glibc itself does.
 *
 *   conform --preload LIB [CASE...]   TAP: one "ok" per case that agrees
 *   conform --case CASE               one case, its outcome on stdout
 *
 * A case that does not end within CASE_SECONDS is killed by its alarm and
 * fails (a lost wakeup shows so).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/interpose/conform.h"

#define CASE_SECONDS	30

extern char **environ;

static const struct conform_case *find(const char *name)
{
	for (const struct conform_case *c = conform_cases; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static int run_one(const char *name)
{
	const struct conform_case *c = find(name);
	char out[OUTCOME_LEN] = "";

	if (!c) {
		fprintf(stderr, "conform: no case %s\n", name);
		return 2;
	}
	alarm(CASE_SECONDS);
	c->run(out);
	printf("%s\n", out);
	return 0;
}

/* The case in a fresh process, preloading lib (NULL: none); its outcome
 * line in out, or why it has none. */
static void outcome(const char *name, const char *lib, char *out)
{
	char preload[4096];
	char *env[256];
	int fd[2], n = 0, status;
	size_t len = 0;
	ssize_t r;
	pid_t pid;

	for (char **e = environ; *e && n < 250; e++)
		if (strncmp(*e, "LD_PRELOAD=", 11))
			env[n++] = *e;
	if (lib) {
		snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", lib);
		env[n++] = preload;
	}
	env[n] = NULL;
	if (pipe(fd)) {
		snprintf(out, OUTCOME_LEN, "pipe: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char *argv[] = { "conform", "--case", (char *)name, NULL };

		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		execve("/proc/self/exe", argv, env);
		_exit(127);
	}
	close(fd[1]);
	while (len < OUTCOME_LEN - 1 &&
	       (r = read(fd[0], out + len, OUTCOME_LEN - 1 - len)) > 0)
		len += (size_t)r;
	out[len] = '\0';
	close(fd[0]);
	out[strcspn(out, "\n")] = '\0';
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		snprintf(out + strlen(out), OUTCOME_LEN - strlen(out),
			 " [status %#x]", status);
}

static int compare(const char *lib, char **names, int nnames)
{
	char want[OUTCOME_LEN], got[OUTCOME_LEN];
	int total = 0, failed = 0;

	for (const struct conform_case *c = conform_cases; c->name; c++)
		total++;
	printf("1..%d\n", nnames ? nnames : total);
	total = 0;
	for (const struct conform_case *c = conform_cases; c->name; c++) {
		int wanted = !nnames;

		for (int i = 0; i < nnames; i++)
			wanted |= !strcmp(names[i], c->name);
		if (!wanted)
			continue;
		outcome(c->name, NULL, want);
		outcome(c->name, lib, got);
		total++;
		if (strcmp(want, got)) {
			failed++;
			printf("not ok %d - %s\n# glibc:      %s\n"
			       "# interposed: %s\n", total, c->name, want, got);
		} else {
			printf("ok %d - %s\n", total, c->name);
		}
	}
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--case"))
		return run_one(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "--preload")) {
		for (int i = 3; i < argc; i++)
			if (!find(argv[i])) {
				fprintf(stderr, "conform: no case %s\n",
					argv[i]);
				return 2;
			}
		return compare(argv[2], argv + 3, argc - 3);
	}
	fprintf(stderr, "usage: conform --preload LIB [CASE...] | "
		"conform --case CASE\n");
	return 2;
}
