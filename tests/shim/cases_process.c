// SPDX-License-Identifier: GPL-2.0
/*
 * The shim's process rules: /dev/futexlab is opened at the first futex
 * call, once however many threads race to it, and a child of fork() gets
 * a descriptor of its own that still meets its parent on shared memory.
 * The stock futex opens nothing, so the descriptor counts are where the
 * outcomes differ, on purpose.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/kcmp.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/shim/shimtest.h"

#define RACERS	8

static uint32_t words[RACERS];
static pthread_barrier_t start;

static void *racer(void *arg)
{
	pthread_barrier_wait(&start);
	futex(arg, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	return NULL;
}

static void open_once(char *out)
{
	pthread_t t[RACERS];
	int first;

	note(out, "before", "%d", device_fds(&first));
	pthread_barrier_init(&start, NULL, RACERS);
	for (int i = 0; i < RACERS; i++)
		pthread_create(&t[i], NULL, racer, &words[i]);
	for (int i = 0; i < RACERS; i++)
		pthread_join(t[i], NULL);
	note(out, "after", "%d", device_fds(&first));
}

/* runs fn in a child of fork(); its exit status, or -1 */
static int in_child(int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn(arg));
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int wake_shared(void *word)
{
	long r = futex(word, FUTEX_WAKE, 1, NULL, NULL, 0);

	return r < 0 ? 100 + errno : (int)r;
}

/* a thread of the parent sleeps on shared memory, the child wakes it */
static void shared_across_fork(char *out)
{
	uint32_t *word = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct waiter w = { .fn = wait_fn, .op = FUTEX_WAIT };

	*word = 0;
	w.word = word;
	waiter_start(&w);
	waiter_asleep(&w);
	note(out, "child-woke", "%d", in_child(wake_shared, word));
	waiter_join(&w, out, "waiter");
}

/* in the child: a private wait and wake between its own two threads */
static int private_in_child(void *arg)
{
	struct waiter w = { .fn = wait_fn, .word = arg,
			    .op = FUTEX_WAIT_PRIVATE };
	long r;

	waiter_start(&w);
	waiter_asleep(&w);
	r = futex(arg, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	pthread_join(w.thread, NULL);
	return r == 1 && w.ret == 0 ? 0 : 1;
}

static void private_after_fork(char *out)
{
	record(out, "parent-wake", futex(&words[0], FUTEX_WAKE_PRIVATE, 1,
					 NULL, NULL, 0));
	note(out, "child", "%d", in_child(private_in_child, &words[1]));
}

/*
 * The child's descriptor is not its parent's: 1 if it holds exactly one
 * /dev/futexlab and kcmp(2) says it is another file description.
 */
static pid_t parent;
static int parent_fd;

static int own_descriptor(void *arg)
{
	int fd, n;

	(void)arg;
	futex(&words[2], FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	n = device_fds(&fd);
	if (n != 1)
		return 10 + n;
	return syscall(SYS_kcmp, parent, getpid(), KCMP_FILE, parent_fd,
		       fd) == 0 ? 2 : 1;
}

static void child_own_descriptor(char *out)
{
	futex(&words[2], FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	parent = getpid();
	note(out, "parent-fds", "%d", device_fds(&parent_fd));
	note(out, "child", "%d", in_child(own_descriptor, NULL));
}

/* errno is left alone by a call that succeeds */
static void errno_kept(char *out)
{
	errno = 1234;
	record(out, "wake", futex(&words[3], FUTEX_WAKE_PRIVATE, 1, NULL,
				  NULL, 0));
	note(out, "errno", "%d", errno);
}

const struct shim_case cases_process[] = {
	{ .name = "open-once-lazily", .run = open_once, .flags = CASE_DEVICE,
	  .shim_outcome = "before=0 after=1",
	  .why = "the shim opens /dev/futexlab once, at the first call" },
	{ .name = "shared-across-fork", .run = shared_across_fork,
	  .flags = CASE_DEVICE },
	{ .name = "private-after-fork", .run = private_after_fork,
	  .flags = CASE_DEVICE },
	{ .name = "child-own-descriptor", .run = child_own_descriptor,
	  .flags = CASE_DEVICE,
	  .shim_outcome = "parent-fds=1 child=1",
	  .why = "a child of fork() opens a descriptor of its own" },
	{ .name = "errno-kept", .run = errno_kept, .flags = CASE_DEVICE },
	{ .name = NULL },
};
