// SPDX-License-Identifier: GPL-2.0
/*
 * The interposer's conformance cases. Each case makes pthread calls and
 * writes what they returned into its outcome line; the expectation is
 * glibc's own outcome for the same calls (conform.c runs every case with
 * and without the interposer and compares the lines). A case records only
 * what glibc defines: return values, counts, which thread holds a lock,
 * never a time. The cases that fork, find a PI owner elsewhere or gone,
 * or use a destroyed mutex are cases_fork.c's; the table of every case
 * is at the end of this file.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/interpose/conform.h"

void add(char *out, const char *fmt, ...)
{
	size_t n = strlen(out);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out + n, OUTCOME_LEN - n, fmt, ap);
	va_end(ap);
}

struct timespec in_ms(clockid_t clock, long ms)
{
	struct timespec t;

	clock_gettime(clock, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_nsec -= 1000000000L;
		t.tv_sec++;
	}
	return t;
}

static void run_thread(void *(*fn)(void *), void *arg, void **ret)
{
	pthread_t t;

	pthread_create(&t, NULL, fn, arg);
	pthread_join(t, ret);
}

static void *unlock_other(void *m)
{
	return (void *)(long)pthread_mutex_unlock(m);
}

static void *trylock_other(void *m)
{
	int r = pthread_mutex_trylock(m);

	if (r == 0)
		pthread_mutex_unlock(m);
	return (void *)(long)r;
}

/* lock, relock, trylock, other thread's trylock and unlock, unlocks */
static void type_rules(pthread_mutex_t *m, char *out)
{
	void *r;

	add(out, "%d ", pthread_mutex_lock(m));
	add(out, "%d ", pthread_mutex_trylock(m));
	run_thread(trylock_other, m, &r);
	add(out, "%ld ", (long)r);
	run_thread(unlock_other, m, &r);
	add(out, "%ld ", (long)r);
	add(out, "%d ", pthread_mutex_unlock(m));
	add(out, "%d ", pthread_mutex_trylock(m));
	add(out, "%d", pthread_mutex_unlock(m));
}

static void static_normal(char *out)
{
	static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

	add(out, "%d ", pthread_mutex_lock(&m));
	add(out, "%d ", pthread_mutex_trylock(&m));
	add(out, "%d ", pthread_mutex_destroy(&m));
	add(out, "%d ", pthread_mutex_unlock(&m));
	add(out, "%d", pthread_mutex_destroy(&m));
}

static void static_recursive(char *out)
{
	static pthread_mutex_t m = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

	add(out, "%d ", pthread_mutex_lock(&m));
	type_rules(&m, out);
	add(out, " %d ", pthread_mutex_unlock(&m));
	add(out, "%d", pthread_mutex_unlock(&m));
}

static void static_errorcheck(char *out)
{
	static pthread_mutex_t m = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;

	type_rules(&m, out);
	add(out, " %d ", pthread_mutex_lock(&m));
	add(out, "%d ", pthread_mutex_lock(&m));
	add(out, "%d ", pthread_mutex_unlock(&m));
	add(out, "%d", pthread_mutex_unlock(&m));
}

void init_type(pthread_mutex_t *m, int type, int protocol)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, type);
	pthread_mutexattr_setprotocol(&a, protocol);
	pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
}

/* one(m) on a mutex of each type, without and with PRIO_INHERIT */
void each_kind(void (*one)(pthread_mutex_t *m, int type, char *out),
	       char *out)
{
	static const int types[] = { PTHREAD_MUTEX_NORMAL,
		PTHREAD_MUTEX_RECURSIVE, PTHREAD_MUTEX_ERRORCHECK,
		PTHREAD_MUTEX_ADAPTIVE_NP };
	pthread_mutex_t m;

	for (int p = 0; p < 2; p++)
		for (unsigned int i = 0; i < 4; i++) {
			init_type(&m, types[i], p ? PTHREAD_PRIO_INHERIT :
						    PTHREAD_PRIO_NONE);
			one(&m, types[i], out);
		}
}

static void attr_type(pthread_mutex_t *m, int type, char *out)
{
	struct timespec soon;

	add(out, "%d:", pthread_mutex_lock(m));
	add(out, "%d,", pthread_mutex_trylock(m));
	if (type == PTHREAD_MUTEX_RECURSIVE ||
	    type == PTHREAD_MUTEX_ERRORCHECK) {
		soon = in_ms(CLOCK_REALTIME, 10);
		add(out, "%d,", pthread_mutex_timedlock(m, &soon));
		add(out, "%d,", pthread_mutex_lock(m));
		pthread_mutex_unlock(m);
		pthread_mutex_unlock(m);
	}
	add(out, "%d,", pthread_mutex_unlock(m));
	add(out, "%d ", pthread_mutex_destroy(m));
}

static void attr_types(char *out)
{
	each_kind(attr_type, out);
}

/* another thread holds the mutex while the main thread tries deadlines */
static void *hold(void *arg)
{
	struct holder *h = arg;
	char c = 0;

	pthread_mutex_lock(h->m);
	if (write(h->fd[1], &c, 1) != 1 || read(h->fd[0], &c, 1) != 1)
		c = 1;
	pthread_mutex_unlock(h->m);
	return NULL;
}

static void deadlines_on(pthread_mutex_t *m, char *out)
{
	struct holder h = { .m = m };
	struct timespec t, bad = { .tv_sec = 0, .tv_nsec = 1000000000L };
	struct timespec past = { .tv_sec = -1 };
	pthread_t th;
	char c;
	int fd[2];

	if (pipe(h.fd) || pipe(fd))
		return;
	/* the holder reads what the main thread writes: one pipe each way */
	int to_holder = h.fd[1], from_holder = fd[0];

	h.fd[1] = fd[1];
	pthread_create(&th, NULL, hold, &h);
	if (read(from_holder, &c, 1) != 1)
		add(out, "holder? ");
	t = in_ms(CLOCK_REALTIME, 20);
	add(out, "%d ", pthread_mutex_timedlock(m, &t));
	add(out, "%d ", pthread_mutex_timedlock(m, &past));
	add(out, "%d ", pthread_mutex_timedlock(m, &bad));
	t = in_ms(CLOCK_MONOTONIC, 20);
	add(out, "%d ", pthread_mutex_clocklock(m, CLOCK_MONOTONIC, &t));
	add(out, "%d ", pthread_mutex_clocklock(m, CLOCK_PROCESS_CPUTIME_ID,
						&t));
	add(out, "%d ", pthread_mutex_trylock(m));
	if (write(to_holder, &c, 1) != 1)
		add(out, "holder? ");
	pthread_join(th, NULL);
	/* free: the deadline is not looked at */
	add(out, "%d ", pthread_mutex_timedlock(m, &bad));
	add(out, "%d", pthread_mutex_unlock(m));
}

static void deadlines(char *out)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

	deadlines_on(&m, out);
	add(out, " | ");
	init_type(&m, PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_INHERIT);
	deadlines_on(&m, out);
}

/* mutual exclusion: a plain counter under the lock, exact at the end */
#define COUNT_THREADS	4
#define COUNT_EACH	20000

struct counted {
	pthread_mutex_t m;
	unsigned long n;
};

static void *count_up(void *arg)
{
	struct counted *c = arg;

	for (int i = 0; i < COUNT_EACH; i++) {
		pthread_mutex_lock(&c->m);
		c->n++;
		pthread_mutex_unlock(&c->m);
	}
	return NULL;
}

static void exclusion(char *out)
{
	static struct counted c = { .m = PTHREAD_MUTEX_INITIALIZER };
	pthread_t t[COUNT_THREADS];

	for (int i = 0; i < COUNT_THREADS; i++)
		pthread_create(&t[i], NULL, count_up, &c);
	for (int i = 0; i < COUNT_THREADS; i++)
		pthread_join(t[i], NULL);
	add(out, "%lu", c.n);
}

/* a handoff back and forth through one condition variable: a lost wakeup
 * hangs it, and the case's alarm fails it */
#define HANDOFFS	2000

struct pingpong {
	pthread_mutex_t m;
	pthread_cond_t c;
	int turn;
	int rounds;
};

static void *pong(void *arg)
{
	struct pingpong *p = arg;

	pthread_mutex_lock(&p->m);
	for (int i = 0; i < HANDOFFS; i++) {
		while (p->turn != 1)
			pthread_cond_wait(&p->c, &p->m);
		p->turn = 0;
		p->rounds++;
		pthread_cond_signal(&p->c);
	}
	pthread_mutex_unlock(&p->m);
	return NULL;
}

static void cond_pingpong(char *out)
{
	static struct pingpong p = { PTHREAD_MUTEX_INITIALIZER,
				     PTHREAD_COND_INITIALIZER, 0, 0 };
	pthread_t t;

	pthread_create(&t, NULL, pong, &p);
	pthread_mutex_lock(&p.m);
	for (int i = 0; i < HANDOFFS; i++) {
		p.turn = 1;
		pthread_cond_signal(&p.c);
		while (p.turn != 0)
			pthread_cond_wait(&p.c, &p.m);
	}
	pthread_mutex_unlock(&p.m);
	pthread_join(t, NULL);
	add(out, "%d", p.rounds);
}

#define BROADCAST_WAITERS	3

struct gate {
	pthread_mutex_t m;
	pthread_cond_t c;
	int open, waiting, through;
};

static void *wait_gate(void *arg)
{
	struct gate *g = arg;

	pthread_mutex_lock(&g->m);
	g->waiting++;
	pthread_cond_broadcast(&g->c);
	while (!g->open)
		pthread_cond_wait(&g->c, &g->m);
	g->through++;
	pthread_mutex_unlock(&g->m);
	return NULL;
}

static void cond_broadcast(char *out)
{
	struct gate g = { PTHREAD_MUTEX_INITIALIZER,
			  PTHREAD_COND_INITIALIZER, 0, 0, 0 };
	pthread_t t[BROADCAST_WAITERS];

	for (int i = 0; i < BROADCAST_WAITERS; i++)
		pthread_create(&t[i], NULL, wait_gate, &g);
	pthread_mutex_lock(&g.m);
	while (g.waiting < BROADCAST_WAITERS)
		pthread_cond_wait(&g.c, &g.m);
	g.open = 1;
	add(out, "%d ", pthread_cond_broadcast(&g.c));
	pthread_mutex_unlock(&g.m);
	for (int i = 0; i < BROADCAST_WAITERS; i++)
		pthread_join(t[i], NULL);
	add(out, "%d %d", g.through, pthread_cond_destroy(&g.c));
}

/*
 * Deadlines on each clock: a deadline read on the wrong clock either
 * passes at once (no ETIMEDOUT-after-holding check fails it) or lies
 * decades away and the alarm fails the case. After a timeout the mutex is
 * held again (an errorcheck unlock says 0).
 */
static void cond_clocks(char *out)
{
	pthread_mutex_t m;
	pthread_cond_t real = PTHREAD_COND_INITIALIZER, mono;
	pthread_condattr_t a;
	struct timespec t, bad = { .tv_sec = 0, .tv_nsec = -1 };

	init_type(&m, PTHREAD_MUTEX_ERRORCHECK, PTHREAD_PRIO_NONE);
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&mono, &a);
	pthread_condattr_destroy(&a);

	pthread_mutex_lock(&m);
	t = in_ms(CLOCK_REALTIME, 20);
	add(out, "%d ", pthread_cond_timedwait(&real, &m, &t));
	t = in_ms(CLOCK_MONOTONIC, 20);
	add(out, "%d ", pthread_cond_timedwait(&mono, &m, &t));
	add(out, "%d ", pthread_cond_clockwait(&real, &m, CLOCK_MONOTONIC, &t));
	t = in_ms(CLOCK_REALTIME, 20);
	add(out, "%d ", pthread_cond_clockwait(&mono, &m, CLOCK_REALTIME, &t));
	add(out, "%d ", pthread_cond_timedwait(&real, &m, &bad));
	add(out, "%d ", pthread_cond_clockwait(&real, &m,
					       CLOCK_THREAD_CPUTIME_ID, &t));
	add(out, "%d ", pthread_mutex_unlock(&m));
	/* waiting on an errorcheck mutex the caller does not hold */
	add(out, "%d", pthread_cond_timedwait(&real, &m, &t));
	pthread_cond_destroy(&mono);
	pthread_mutex_destroy(&m);
}

/* cancelled in pthread_cond_wait: its cleanup handler runs holding the
 * mutex (an errorcheck unlock there says 0) */
struct cancelled {
	pthread_mutex_t m;
	pthread_cond_t c;
	int waiting, unlocked;
};

static void unlock_in_handler(void *arg)
{
	struct cancelled *s = arg;

	s->unlocked = pthread_mutex_unlock(&s->m);
}

static void *wait_forever(void *arg)
{
	struct cancelled *s = arg;

	pthread_mutex_lock(&s->m);
	s->waiting = 1;
	pthread_cond_signal(&s->c);
	pthread_cleanup_push(unlock_in_handler, s);
	for (;;)
		pthread_cond_wait(&s->c, &s->m);
	pthread_cleanup_pop(1);
	return NULL;
}

static void cond_cancel(char *out)
{
	struct cancelled s = { .c = PTHREAD_COND_INITIALIZER, .unlocked = -1 };
	pthread_t t;
	void *r;

	init_type(&s.m, PTHREAD_MUTEX_ERRORCHECK, PTHREAD_PRIO_NONE);
	pthread_create(&t, NULL, wait_forever, &s);
	pthread_mutex_lock(&s.m);
	while (!s.waiting)
		pthread_cond_wait(&s.c, &s.m);
	pthread_mutex_unlock(&s.m);
	pthread_cancel(t);
	pthread_join(t, &r);
	add(out, "%d %d %d", r == PTHREAD_CANCELED, s.unlocked,
	    pthread_mutex_trylock(&s.m));
	pthread_mutex_unlock(&s.m);
}

/* what goes to glibc: robust (owner death) and process-shared objects */
static void *die_holding(void *m)
{
	pthread_mutex_lock(m);
	return NULL;
}

static void routed_robust(char *out)
{
	pthread_mutexattr_t a;
	pthread_mutex_t m;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	add(out, "%d ", pthread_mutex_init(&m, &a));
	pthread_mutexattr_destroy(&a);
	run_thread(die_holding, &m, NULL);
	add(out, "%d ", pthread_mutex_lock(&m));
	add(out, "%d ", pthread_mutex_consistent(&m));
	add(out, "%d ", pthread_mutex_unlock(&m));
	add(out, "%d", pthread_mutex_destroy(&m));
}

struct shared_pair {
	pthread_mutex_t m;
	pthread_cond_t c;
};

static void routed_pshared(char *out)
{
	struct shared_pair *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	int status = -1;
	pid_t pid;

	if (s == MAP_FAILED)
		return;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	add(out, "%d ", pthread_mutex_init(&s->m, &ma));
	add(out, "%d ", pthread_cond_init(&s->c, &ca));
	pthread_mutex_lock(&s->m);
	pid = fork();
	if (pid == 0)
		_exit(pthread_mutex_trylock(&s->m) == EBUSY ? 0 : 1);
	waitpid(pid, &status, 0);
	add(out, "%d ", pthread_cond_signal(&s->c));
	add(out, "%d ", pthread_cond_broadcast(&s->c));
	add(out, "%d ", pthread_mutex_unlock(&s->m));
	add(out, "%d %d %d", status, pthread_cond_destroy(&s->c),
	    pthread_mutex_destroy(&s->m));
	munmap(s, sizeof(*s));
}

const struct conform_case conform_cases[] = {
	{ "static-normal", static_normal },
	{ "static-recursive", static_recursive },
	{ "static-errorcheck", static_errorcheck },
	{ "attr-types", attr_types },
	{ "deadlines", deadlines },
	{ "exclusion", exclusion },
	{ "cond-pingpong", cond_pingpong },
	{ "cond-broadcast", cond_broadcast },
	{ "cond-clocks", cond_clocks },
	{ "cond-cancel", cond_cancel },
	{ "fork-held", fork_held },
	{ "fork-pi-live-owner", fork_pi_live_owner },
	{ "pi-dead-owner", pi_dead_owner },
	{ "destroyed", destroyed },
	{ "routed-robust", routed_robust },
	{ "routed-pshared", routed_pshared },
	{ NULL, NULL },
};
