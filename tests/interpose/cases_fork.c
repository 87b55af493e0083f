// SPDX-License-Identifier: GPL-2.0
/*
 * The conformance cases of a process that forks, of a PI mutex whose
 * owner is in another process or gone, and of a destroyed mutex (the
 * table of every case is cases.c's). Each writes what its calls returned,
 * or the signal that ended a forked child, into its outcome line.
 */
#include <errno.h>
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/interpose/conform.h"

/* fork() holding a normal and an errorcheck mutex: the child inherits
 * both held, may unlock the normal one, and is refused the other */
void fork_held(char *out)
{
	static pthread_mutex_t normal = PTHREAD_MUTEX_INITIALIZER;
	static pthread_mutex_t checked =
		PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
	int status = -1;
	pid_t pid;

	pthread_mutex_lock(&normal);
	pthread_mutex_lock(&checked);
	pid = fork();
	if (pid == 0) {
		int a = pthread_mutex_trylock(&normal);
		int b = pthread_mutex_unlock(&normal);
		int c = pthread_mutex_lock(&normal);
		int d = pthread_mutex_unlock(&checked);

		pthread_mutex_unlock(&normal);
		_exit(a == EBUSY && b == 0 && c == 0 && d == EPERM ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	add(out, "%d %d %d", status, pthread_mutex_unlock(&normal),
	    pthread_mutex_unlock(&checked));
}

/* how a forked child that makes one call ended: its result, or the
 * signal that ended it (an abort, or its alarm: still blocked) */
static void in_child(pthread_mutex_t *m, char op, char *out)
{
	struct timespec soon;
	int status = -1, r = -1;
	pid_t pid = fork();

	if (pid == 0) {
		alarm(1);
		soon = in_ms(CLOCK_REALTIME, 20);
		if (op == 'l')
			r = pthread_mutex_lock(m);
		else if (op == 't')
			r = pthread_mutex_timedlock(m, &soon);
		else if (op == 'y')
			r = pthread_mutex_trylock(m);
		else
			r = pthread_mutex_unlock(m);
		_exit(r);
	}
	waitpid(pid, &status, 0);
	if (WIFSIGNALED(status))
		add(out, "%c:signal %d ", op, WTERMSIG(status));
	else
		add(out, "%c:%d ", op, WEXITSTATUS(status));
}

static void *hold_pi(void *arg)
{
	struct holder *h = arg;
	char c = 0;

	pthread_mutex_lock(h->m);
	if (write(h->fd[1], &c, 1) != 1)
		return NULL;
	if (h->fd[0] >= 0 && read(h->fd[0], &c, 1) != 1)
		c = 1;
	return NULL;
}

/*
 * fork() while another thread holds a PI mutex: in the child the word
 * names a thread of the parent. Kernel 6.18 refuses to attach to it and
 * glibc aborts the child's lock and timedlock ("The futex facility
 * returned an unexpected error code."); 6.12 attaches and the lock blocks
 * (the alarm ends it), the timedlock says ETIMEDOUT. Either way it never
 * goes on unlocked. The same when the forking thread holds it: the child
 * is not its owner.
 */
void fork_pi_live_owner(char *out)
{
	static pthread_mutex_t m, mine, plain = PTHREAD_MUTEX_INITIALIZER;
	struct holder h = { .m = &m };
	int back[2];
	pthread_t t;
	char c = 0;

	init_type(&m, PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_INHERIT);
	if (pipe(h.fd) || pipe(back))
		return;
	int to_holder = h.fd[1];

	h.fd[1] = back[1];
	pthread_create(&t, NULL, hold_pi, &h);
	if (read(back[0], &c, 1) != 1)
		add(out, "holder? ");
	in_child(&m, 'y', out);
	in_child(&m, 'u', out);
	in_child(&m, 'l', out);
	in_child(&m, 't', out);
	if (write(to_holder, &c, 1) != 1)
		add(out, "holder? ");
	pthread_join(t, NULL);
	init_type(&mine, PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_INHERIT);
	add(out, "| %d ", pthread_mutex_lock(&mine));
	in_child(&mine, 'y', out);
	in_child(&mine, 'u', out);
	in_child(&mine, 'l', out);
	add(out, "%d", pthread_mutex_unlock(&mine));
	/* a plain mutex held so waits in the child, as glibc's does (on
	 * the PI lock with FUTEXLAB_ALGO=pi or adaptive) */
	add(out, " | %d ", pthread_mutex_lock(&plain));
	in_child(&plain, 'l', out);
	in_child(&plain, 't', out);
	add(out, "%d", pthread_mutex_unlock(&plain));
}

/*
 * A PI mutex whose owner is gone (a thread that ended holding it): the
 * kernel finds no owner and glibc waits for ever, a timedlock until its
 * deadline (ETIMEDOUT), in this process and in a forked child; so does
 * a normal PI mutex's owner locking it again (a deadlock, as POSIX
 * has a normal mutex do).
 */
void pi_dead_owner(char *out)
{
	static pthread_mutex_t m, self;
	struct holder h = { .m = &m };
	struct timespec soon;
	int said[2];
	pthread_t t;

	init_type(&m, PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_INHERIT);
	if (pipe(said))
		return;
	h.fd[0] = -1;		/* it ends at once, holding m */
	h.fd[1] = said[1];
	pthread_create(&t, NULL, hold_pi, &h);
	pthread_join(t, NULL);
	close(said[0]);
	close(said[1]);
	soon = in_ms(CLOCK_REALTIME, 20);
	add(out, "%d ", pthread_mutex_timedlock(&m, &soon));
	add(out, "%d ", pthread_mutex_trylock(&m));
	in_child(&m, 'l', out);
	in_child(&m, 't', out);
	in_child(&m, 'u', out);
	init_type(&self, PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_INHERIT);
	add(out, "| %d ", pthread_mutex_lock(&self));
	soon = in_ms(CLOCK_REALTIME, 20);
	add(out, "%d ", pthread_mutex_timedlock(&self, &soon));
	add(out, "%d", pthread_mutex_unlock(&self));
}

/* a mutex used after pthread_mutex_destroy: glibc's destroy leaves an
 * invalid kind, and every later call but init and destroy says EINVAL */
static void use_destroyed(pthread_mutex_t *m, int type, char *out)
{
	struct timespec soon = in_ms(CLOCK_REALTIME, 10);

	(void)type;
	add(out, "%d:", pthread_mutex_destroy(m));
	add(out, "%d,", pthread_mutex_lock(m));
	add(out, "%d,", pthread_mutex_trylock(m));
	add(out, "%d,", pthread_mutex_timedlock(m, &soon));
	add(out, "%d,", pthread_mutex_clocklock(m, CLOCK_MONOTONIC, &soon));
	add(out, "%d,", pthread_mutex_unlock(m));
	add(out, "%d ", pthread_mutex_destroy(m));
}

void destroyed(char *out)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;

	each_kind(use_destroyed, out);
	pthread_mutex_lock(&fresh);
	add(out, "| %d ", pthread_mutex_destroy(&fresh));
	pthread_mutex_unlock(&fresh);
	add(out, "%d ", pthread_mutex_destroy(&fresh));
	add(out, "%d ", pthread_mutex_lock(&fresh));
	add(out, "%d ", pthread_mutex_unlock(&fresh));
	/* initialised again, it is a mutex again */
	add(out, "%d ", pthread_mutex_init(&fresh, NULL));
	add(out, "%d ", pthread_mutex_lock(&fresh));
	add(out, "%d", pthread_mutex_unlock(&fresh));
}
