// SPDX-License-Identifier: GPL-2.0
/*
 * failwait-cost: the cost of one failing wait (a wait whose word does not
 * hold the expected value: EAGAIN at once) on the stock futex and on each
 * design of the futexlab module, with the cost of merely entering the
 * module beside it. Run in the QEMU guest by docs/notebook/failwait_icount.py,
 * under -icount, where guest time counts executed instructions (one a
 * nanosecond): the figures are instruction counts per call, not times.
 *
 *   failwait-cost [--passes P] [--ops N] [--single-thread] [--trace]
 *
 * Cases (each a loop of N calls over 1024 futex words, as `futexlab run
 * hash` and `perf bench futex hash` walk them):
 *   loop           the loop alone (no call): subtracted from nothing,
 *                  shown so that it can be seen to be small
 *   futex-enosys   futex(2) with an unknown operation: the system call's
 *                  entry and exit and futex's decoding, no futex work
 *   futex-private  FUTEX_WAIT_PRIVATE on a word that differs: the stock
 *                  failing wait (key, hash, bucket lock, value read)
 *   ioctl-enotty   an ioctl the module does not know: the fixed cost of
 *                  getting into the module (fdget, the LSM file_ioctl
 *                  hook, vfs_ioctl, the call through f_op)
 *   ioctl-einval   FUTEXLAB_IOC_WAIT with an unknown flag: the same plus
 *                  the argument's copy_from_user and the flag check
 *   kmod-global, kmod-private   FUTEXLAB_IOC_WAIT, private key, that design
 *   kmod-numa      the numa design with node words ({value, node} pairs,
 *                  node FUTEXLAB_NO_NODE filled in at first use), as the
 *                  kmod-numa backend uses it
 *   kmod-numa-plain  the numa design on plain u32 words (FUTEXLAB_F_NODE
 *                  with FUTEXLAB_NO_NODE, what the preload shim passes)
 *
 * A pass runs every case once, in an order rotated by one from the pass
 * before, so that no case always follows the same one. By default an idle
 * second thread is alive, as in futexlab's cell processes (a worker thread
 * beside the main one): the descriptor table is then shared and fdget()
 * takes a reference on the file, as it does in the harness;
 * --single-thread measures without it.
 *
 * Output: one line per pass and case, "pass P CASE NS_PER_CALL", then
 * "done". With --trace, the ftrace function_graph tracer records two
 * calls of each case (tracefs must be mounted or reachable through
 * debugfs), and the trace is printed between "trace CASE" lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kmod/uapi/futexlab.h"

#define NWORDS		1024
#define BAD_VAL		1234u	/* never held by a word: every wait fails */
#define BAD_IOCTL	_IOWR(FUTEXLAB_IOC_MAGIC, 0x7f, struct futexlab_wait)

enum fd_design { FD_GLOBAL, FD_PRIVATE, FD_NUMA, FD_N };

static int fds[FD_N];
static uint32_t plain_words[NWORDS];
static uint32_t pair_words[2 * NWORDS];	/* {value, node} pairs */

struct fw_case {
	const char *name;
	/* one call on word i; returns what the call returned (-errno) */
	long (*call)(unsigned int i);
	long expect;
};

static long call_loop(unsigned int i)
{
	/* the loop's own cost: a read of the word, no call */
	return -(long)(plain_words[i] == BAD_VAL) - EAGAIN;
}

static long call_futex_enosys(unsigned int i)
{
	long r = syscall(SYS_futex, &plain_words[i], 0x7f, BAD_VAL, NULL,
			 NULL, 0);

	return r < 0 ? -errno : r;
}

static long call_futex_private(unsigned int i)
{
	long r = syscall(SYS_futex, &plain_words[i], FUTEX_WAIT_PRIVATE,
			 BAD_VAL, NULL, NULL, 0);

	return r < 0 ? -errno : r;
}

static long kmod_ioctl(enum fd_design d, unsigned long cmd,
		       struct futexlab_wait *a)
{
	long r = ioctl(fds[d], cmd, a);

	return r < 0 ? -errno : r;
}

static long kmod_wait(enum fd_design d, uint32_t *w, uint32_t flags,
		      uint32_t node)
{
	struct futexlab_wait a = {
		.uaddr = (uintptr_t)w,
		.val = BAD_VAL,
		.bitset = FUTEXLAB_BITSET_ANY,
		.flags = flags,
		.node = node,
	};

	return kmod_ioctl(d, FUTEXLAB_IOC_WAIT, &a);
}

static long call_ioctl_enotty(unsigned int i)
{
	struct futexlab_wait a = { .uaddr = (uintptr_t)&plain_words[i] };

	return kmod_ioctl(FD_GLOBAL, BAD_IOCTL, &a);
}

static long call_ioctl_einval(unsigned int i)
{
	return kmod_wait(FD_GLOBAL, &plain_words[i], 1u << 31, 0);
}

static long call_kmod_global(unsigned int i)
{
	return kmod_wait(FD_GLOBAL, &plain_words[i], 0, 0);
}

static long call_kmod_private(unsigned int i)
{
	return kmod_wait(FD_PRIVATE, &plain_words[i], 0, 0);
}

static long call_kmod_numa(unsigned int i)
{
	return kmod_wait(FD_NUMA, &pair_words[2 * i], 0, 0);
}

static long call_kmod_numa_plain(unsigned int i)
{
	return kmod_wait(FD_NUMA, &plain_words[i], FUTEXLAB_F_NODE,
			 FUTEXLAB_NO_NODE);
}

static const struct fw_case cases[] = {
	{ "loop", call_loop, -EAGAIN },
	{ "futex-enosys", call_futex_enosys, -ENOSYS },
	{ "futex-private", call_futex_private, -EAGAIN },
	{ "ioctl-enotty", call_ioctl_enotty, -ENOTTY },
	{ "ioctl-einval", call_ioctl_einval, -EINVAL },
	{ "kmod-global", call_kmod_global, -EAGAIN },
	{ "kmod-private", call_kmod_private, -EAGAIN },
	{ "kmod-numa", call_kmod_numa, -EAGAIN },
	{ "kmod-numa-plain", call_kmod_numa_plain, -EAGAIN },
};

#define NCASES	(sizeof(cases) / sizeof(cases[0]))

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* N calls of case @c; exits on a result other than the expected one. */
static uint64_t run_case(const struct fw_case *c, unsigned long ops)
{
	uint64_t t0, t1;
	unsigned long n;
	unsigned int i = 0;

	t0 = now_ns();
	for (n = 0; n < ops; n++) {
		long r = c->call(i);

		if (r != c->expect) {
			fprintf(stderr, "failwait-cost: %s returned %ld, "
				"expected %ld\n", c->name, r, c->expect);
			exit(1);
		}
		i = (i + 1) % NWORDS;
	}
	t1 = now_ns();
	return t1 - t0;
}

static int open_design(uint32_t design)
{
	struct futexlab_design d = { .design = design };
	int fd = open("/dev/futexlab", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		perror("failwait-cost: /dev/futexlab");
		exit(1);
	}
	if (ioctl(fd, FUTEXLAB_IOC_SET_DESIGN, &d)) {
		perror("failwait-cost: SET_DESIGN");
		exit(1);
	}
	return fd;
}

static void *idle_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* Write @s to the tracefs file @name (appending with @append); 0 or -1. */
static int trace_write_to(const char *dir, const char *name, const char *s,
			  int append)
{
	char path[256];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | (append ? O_APPEND : O_TRUNC));
	if (fd < 0) {
		fprintf(stderr, "failwait-cost: %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	if (!ok)
		fprintf(stderr, "failwait-cost: writing %s to %s: %s\n", s,
			path, strerror(errno));
	close(fd);
	return ok ? 0 : -1;
}

static int trace_write(const char *dir, const char *name, const char *s)
{
	return trace_write_to(dir, name, s, 0);
}

static void trace_dump(const char *dir)
{
	char path[256], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/trace", dir);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	close(fd);
}

/* Two calls of every case under function_graph, limited to this pid. */
static int trace_cases(void)
{
	const char *dirs[] = { "/sys/kernel/tracing",
			       "/sys/kernel/debug/tracing" };
	const char *dir = NULL;
	char pid[32];
	size_t k;

	for (k = 0; k < 2 && !dir; k++) {
		char on[256];

		snprintf(on, sizeof(on), "%s/tracing_on", dirs[k]);
		if (access(on, W_OK) == 0)
			dir = dirs[k];
	}
	if (!dir) {
		fprintf(stderr, "failwait-cost: no tracefs\n");
		return 1;
	}
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (trace_write(dir, "tracing_on", "0") ||
	    trace_write(dir, "current_tracer", "function_graph") ||
	    trace_write(dir, "set_ftrace_pid", pid))
		return 1;
	/* the two system calls' entry points, or the whole dispatch */
	if (trace_write(dir, "set_graph_function", "__x64_sys_futex") ||
	    trace_write_to(dir, "set_graph_function", "__x64_sys_ioctl", 1)) {
		if (trace_write(dir, "set_graph_function", "x64_sys_call"))
			return 1;
	}
	for (k = 1; k < NCASES; k++) {
		trace_write(dir, "trace", "");
		trace_write(dir, "tracing_on", "1");
		run_case(&cases[k], 2);
		trace_write(dir, "tracing_on", "0");
		printf("trace %s\n", cases[k].name);
		trace_dump(dir);
	}
	trace_write(dir, "current_tracer", "nop");
	printf("trace end\n");
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long ops = 20000, passes = 9, p;
	int single = 0, trace = 0;
	pthread_t idle;
	size_t k;
	int a;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--passes") && a + 1 < argc)
			passes = strtoul(argv[++a], NULL, 10);
		else if (!strcmp(argv[a], "--ops") && a + 1 < argc)
			ops = strtoul(argv[++a], NULL, 10);
		else if (!strcmp(argv[a], "--single-thread"))
			single = 1;
		else if (!strcmp(argv[a], "--trace"))
			trace = 1;
		else {
			fprintf(stderr, "usage: failwait-cost [--passes P] "
				"[--ops N] [--single-thread] [--trace]\n");
			return 2;
		}
	}
	if (!passes || !ops) {
		fprintf(stderr, "failwait-cost: --passes and --ops must be "
			"positive\n");
		return 2;
	}
	for (k = 0; k < NWORDS; k++) {
		pair_words[2 * k] = 0;
		pair_words[2 * k + 1] = FUTEXLAB_NO_NODE;
	}
	fds[FD_GLOBAL] = open_design(FUTEXLAB_DESIGN_GLOBAL);
	fds[FD_PRIVATE] = open_design(FUTEXLAB_DESIGN_PRIVATE);
	fds[FD_NUMA] = open_design(FUTEXLAB_DESIGN_NUMA);
	if (!single && pthread_create(&idle, NULL, idle_thread, NULL)) {
		fprintf(stderr, "failwait-cost: pthread_create failed\n");
		return 1;
	}
	/* warm-up: every word of every case touched, numa nodes filled in */
	for (k = 0; k < NCASES; k++)
		run_case(&cases[k], NWORDS);
	if (trace)
		return trace_cases();
	printf("failwait-cost: %lu passes of %lu calls per case, %s\n",
	       passes, ops, single ? "single thread" :
	       "an idle second thread alive");
	for (p = 0; p < passes; p++) {
		for (k = 0; k < NCASES; k++) {
			const struct fw_case *c = &cases[(k + p) % NCASES];
			uint64_t ns = run_case(c, ops);

			printf("pass %lu %s %.1f\n", p + 1, c->name,
			       (double)ns / (double)ops);
		}
		fflush(stdout);
	}
	printf("done\n");
	return 0;
}
