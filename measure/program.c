// SPDX-License-Identifier: GPL-2.0
/*
 * Running a program for the app workload (measure/program.h).
 *
 * The program's stdout and stderr share one pipe; this process reads it
 * with poll() until the program exits (a child it left holding the pipe
 * does not keep the run waiting) or the deadline passes, keeping the first
 * and the last FL_KEEP_MAX / 2 bytes. The program is spawned in a new
 * process group with the default signal dispositions and an empty mask,
 * so a kill of the group ends it and what it started there; what left
 * the group (setsid, a daemon) is found as an orphan this process adopts
 * (fl_program_adopt_orphans()) and ended with the rest
 * (fl_program_end_children()).
 */
#include "measure/program.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/say.h"
#include "measure/cell.h"

extern char **environ;

#define HALF		(FL_KEEP_MAX / 2)
#define MAX_ENV		1024
/* --metric's search: a plain expression takes under a millisecond over
 * FL_KEEP_MAX bytes */
#define METRIC_SEARCH_NS	1000000000ull
#define KILL_BATCH	64

struct output {
	char head[HALF];
	char tail[HALF];		/* a ring: the last HALF bytes */
	size_t nhead, ntail_total;	/* bytes in head; bytes past it */
	uint64_t total;
};

static void take(struct output *o, const char *data, size_t len)
{
	o->total += len;
	while (len && o->nhead < HALF) {
		o->head[o->nhead++] = *data++;
		len--;
	}
	for (; len; len--)
		o->tail[o->ntail_total++ % HALF] = *data++;
}

/* head, a line for what was left out, tail: into buf (FL_KEEP_MAX + 128) */
static size_t flatten(const struct output *o, char *buf)
{
	size_t n = o->nhead, kept = o->ntail_total < HALF ? o->ntail_total :
				    HALF;
	size_t start = o->ntail_total - kept;

	memcpy(buf, o->head, o->nhead);
	if (o->ntail_total > kept)
		n += (size_t)sprintf(buf + n, "\n[futexlab: %zu bytes left "
				     "out]\n", o->ntail_total - kept);
	for (size_t i = 0; i < kept; i++)
		buf[n++] = o->tail[(start + i) % HALF];
	return n;
}

void fl_program_adopt_orphans(void)
{
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/* Kill this process's children, the first max of them into pid: how many
 * there were (a zombie is one, and its kill is harmless). */
static int kill_children(pid_t *pid, int max)
{
	pid_t self = getpid();
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		char path[64], stat[512], *close_paren;
		long child = strtol(e->d_name, NULL, 10);
		ssize_t len;
		int fd;

		if (child <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", child);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, stat, sizeof(stat) - 1);
		close(fd);
		if (len <= 0)
			continue;
		stat[len] = '\0';
		/* "pid (comm) state ppid": comm may hold anything */
		close_paren = strrchr(stat, ')');
		if (!close_paren || close_paren[1] != ' ' || !close_paren[2] ||
		    close_paren[3] != ' ' ||
		    strtol(close_paren + 4, NULL, 10) != self)
			continue;
		kill((pid_t)child, SIGKILL);
		if (n < max)
			pid[n] = (pid_t)child;
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

/*
 * Whether this process has a child, living or dead, without reaping it.
 * Most cells started no program and leave none: their parent then need
 * not read the stat file of every process on the host (kill_children()).
 */
static int has_children(void)
{
	siginfo_t info;

	return waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT |
		      __WALL) == 0 || errno != ECHILD;
}

/*
 * A killed child's own children come to this process (it adopts orphans)
 * by the time its wait returns: each round kills and reaps one generation
 * until none is left. A dying process cannot fork, so the rounds end.
 */
void fl_program_end_children(void)
{
	pid_t pid[KILL_BATCH];
	int n;

	while (has_children() && (n = kill_children(pid, KILL_BATCH)) > 0)
		for (int i = 0; i < n && i < KILL_BATCH; i++)
			waitpid(pid[i], NULL, 0);
}

/* The interposer beside this binary (build/libfutexlab-interpose.so). */
static int interposer(char *path, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return -1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	snprintf(path, len, "%s/libfutexlab-interpose.so", self);
	return access(path, R_OK);
}

/* this process's environment without LD_PRELOAD and FUTEXLAB_*, then the
 * cell's choice */
static int environment(const struct fl_program *p, char **env, char *preload,
		       char *backend, char *algo, char *why, size_t len)
{
	char lib[PATH_MAX];
	int n = 0;

	for (char **e = environ; *e && n < MAX_ENV - 4; e++)
		if (strncmp(*e, "LD_PRELOAD=", 11) &&
		    strncmp(*e, "FUTEXLAB_", 9))
			env[n++] = *e;
	if (p->algo) {
		if (interposer(lib, sizeof(lib))) {
			snprintf(why, len, "%s missing (ninja builds it)", lib);
			return -1;
		}
		snprintf(preload, PATH_MAX + 16, "LD_PRELOAD=%s", lib);
		snprintf(backend, 64, "FUTEXLAB_BACKEND=%s", p->backend);
		snprintf(algo, 64, "FUTEXLAB_ALGO=%s", p->algo);
		env[n++] = preload;
		env[n++] = backend;
		env[n++] = algo;
	}
	env[n] = NULL;
	return 0;
}

static int spawn(const struct fl_program *p, char **env, int out, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	int r;

	sigemptyset(&none);
	sigfillset(&all);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out, 1);
	posix_spawn_file_actions_adddup2(&fa, out, 2);
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP |
				 POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	r = posix_spawnp(pid, p->argv[0], &fa, &at, p->argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	return r;
}

/* Read the pipe and wait for pid until the deadline: its wait status, or
 * -1 when the deadline passed (the group is then killed). */
static int collect(int fd, pid_t pid, uint64_t deadline, struct output *o)
{
	char chunk[4096];
	int status, open = 1;

	for (;;) {
		uint64_t now = fl_now_ns();
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int ms = now >= deadline ? 0 :
			 (int)((deadline - now) / 1000000 + 1);

		if (ms > 10 || !open)
			ms = 10;
		if (open && poll(&pfd, 1, ms) > 0) {
			ssize_t n = read(fd, chunk, sizeof(chunk));

			if (n > 0)
				take(o, chunk, (size_t)n);
			else if (n == 0 || errno != EINTR)
				open = 0;
		} else if (!open) {
			usleep(1000);
		}
		if (waitpid(pid, &status, WNOHANG) == pid) {
			ssize_t n;

			/* what it wrote before it exited */
			fcntl(fd, F_SETFL, O_NONBLOCK);
			while (open && (n = read(fd, chunk, sizeof(chunk))) > 0)
				take(o, chunk, (size_t)n);
			return status;
		}
		if (fl_now_ns() >= deadline) {
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
	}
}

/*
 * --metric's first group in text, in seconds, as ns: 0, or -1 with why
 * (no number, or a search past its deadline). glibc's regexec is
 * quadratic or worse on some expressions ((a|aa)*c([0-9]) over 64 KiB
 * took 76 s at a load of 19, where a plain one takes a millisecond at
 * most: docs/apps.md), which no check of the text can foresee, and
 * a search cannot be stopped in the middle: a child of this process does
 * it and is killed at the deadline. (glibc takes malloc's locks across
 * fork(), so the child may allocate though this process has threads.)
 */
static int metric(const char *re_text, char *text, uint64_t deadline,
		  uint64_t *ns, char *why, size_t len)
{
	regmatch_t m[2] = { { -1, -1 }, { -1, -1 } };
	int fd[2], ready = 0;
	double s;
	pid_t pid;

	if (pipe2(fd, O_CLOEXEC))
		fd[0] = fd[1] = -1;
	pid = fd[0] < 0 ? -1 : fork();
	if (pid < 0) {
		snprintf(why, len, "cannot start its search: %s",
			 strerror(errno));
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		regex_t re;

		if (!regcomp(&re, re_text, REG_EXTENDED) &&
		    !regexec(&re, text, 2, m, 0) &&
		    write(fd[1], m, sizeof(m)) != sizeof(m))
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	for (;;) {
		uint64_t now = fl_now_ns();
		struct pollfd pfd = { .fd = fd[0], .events = POLLIN };

		if (now >= deadline)
			break;
		ready = poll(&pfd, 1, (int)((deadline - now) / 1000000 + 1));
		if (ready > 0 || (ready < 0 && errno != EINTR))
			break;
	}
	/* a match, or nothing: the child ended without one */
	if (ready > 0 && read(fd[0], m, sizeof(m)) != sizeof(m))
		m[1].rm_so = -1;
	close(fd[0]);
	kill(pid, SIGKILL);	/* past the deadline, or done */
	waitpid(pid, NULL, 0);
	if (ready <= 0) {
		snprintf(why, len, "glibc's regexec, which is that slow on "
			 "some expressions, passed its %.0f s deadline "
			 "searching", METRIC_SEARCH_NS / 1e9);
		return -1;
	}
	if (m[1].rm_so >= 0 && m[1].rm_eo >= m[1].rm_so) {
		text[m[1].rm_eo] = '\0';
		s = strtod(text + m[1].rm_so, NULL);
		if (s >= 0 && s < 1e9) {
			*ns = (uint64_t)(s * 1e9);
			return 0;
		}
	}
	snprintf(why, len, "no number found in");
	return -1;
}

/* METRIC_SEARCH_NS from now, and half of the second the harness leaves
 * past the program's deadline */
static uint64_t search_deadline(const struct fl_program *p)
{
	uint64_t end = fl_now_ns() + METRIC_SEARCH_NS;

	return end < p->deadline_ns + METRIC_SEARCH_NS / 2 ? end :
	       p->deadline_ns + METRIC_SEARCH_NS / 2;
}

/* fl_program_keep_with()'s, set once before any cell runs */
static int (*keeper)(const char *name, const void *data, size_t len,
		     char *err, size_t errlen);

void fl_program_keep_with(int (*keep)(const char *name, const void *data,
				      size_t len, char *err, size_t errlen))
{
	keeper = keep;
}

static void keep(struct fl_program *p, const struct output *o, int status,
		 char *text, size_t len)
{
	static unsigned int runs;
	char name[64], err[256], *file = malloc(len + 1024);
	size_t n = 0;

	p->output_id = (uint64_t)getpid() * 1000 + runs++ % 1000;
	p->output_bytes = o->total;
	if (!file)
		return;
	n += (size_t)snprintf(file, 1024, "# futexlab app: %s on %s, wait "
			      "status %d, %llu bytes of output\n",
			      p->algo ? p->algo : "glibc", p->backend, status,
			      (unsigned long long)o->total);
	memcpy(file + n, text, len);
	snprintf(name, sizeof(name), "run-%llu.txt",
		 (unsigned long long)p->output_id);
	/* said where a failed cell is (cell.h), from the cell's child */
	if (!keeper)
		fl_say(fl_cell_say, "futexlab: app: output not kept: no run "
		       "directory open");
	else if (keeper(name, file, n + len, err, sizeof(err)))
		fl_say(fl_cell_say, "futexlab: app: output not kept: %s", err);
	free(file);
}

int fl_program_run(struct fl_program *p, uint64_t *figure_ns)
{
	static char *env[MAX_ENV];
	static char preload[PATH_MAX + 16], backend[64], algo[64];
	struct output *o = calloc(1, sizeof(*o));
	char *text = malloc(FL_KEEP_MAX + 128);
	int fd[2] = { -1, -1 }, status, r = -1;
	char why[128];
	uint64_t t0;
	size_t len;
	pid_t pid;

	if (!o || !text) {
		snprintf(p->why, sizeof(p->why), "out of memory");
		goto out;
	}
	if (environment(p, env, preload, backend, algo, p->why,
			sizeof(p->why)))
		goto out;
	if (pipe2(fd, O_CLOEXEC)) {
		snprintf(p->why, sizeof(p->why), "pipe: %s", strerror(errno));
		goto out;
	}
	fl_program_adopt_orphans();
	t0 = fl_now_ns();
	errno = spawn(p, env, fd[1], &pid);
	close(fd[1]);
	if (errno) {
		snprintf(p->why, sizeof(p->why), "%s: %s", p->argv[0],
			 strerror(errno));
		goto out;
	}
	status = collect(fd[0], pid, p->deadline_ns, o);
	*figure_ns = fl_now_ns() - t0;
	kill(-pid, SIGKILL);	/* what it left running in its group */
	fl_program_end_children();	/* and what it daemonised */
	len = flatten(o, text);
	for (size_t i = 0; i < len; i++)
		if (!text[i])
			text[i] = '?';	/* a NUL would end the match early */
	text[len] = '\0';
	keep(p, o, status, text, len);
	if (status == -1)
		snprintf(p->why, sizeof(p->why), "%s passed its deadline: "
			 "its process group was killed (programs/run-%llu.txt)",
			 p->argv[0], (unsigned long long)p->output_id);
	else if (!WIFEXITED(status) || WEXITSTATUS(status))
		snprintf(p->why, sizeof(p->why), "%s %s %d (programs/"
			 "run-%llu.txt)", p->argv[0], WIFEXITED(status) ?
			 "exited with status" : "was killed by signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) :
			 WTERMSIG(status), (unsigned long long)p->output_id);
	else if (*p->metric && metric(p->metric, text, search_deadline(p),
				      figure_ns, why, sizeof(why)))
		snprintf(p->why, sizeof(p->why), "--metric '%s': %s %s's "
			 "output (programs/run-%llu.txt)", p->metric, why,
			 p->argv[0], (unsigned long long)p->output_id);
	else
		r = 0;
out:
	if (fd[0] >= 0)
		close(fd[0]);
	free(o);
	free(text);
	return r;
}
