// SPDX-License-Identifier: GPL-2.0
/*
 * pthread_mutex_*: the type rules glibc keeps (a recursive mutex counts its
 * owner's locks, an errorcheck mutex answers EDEADLK to its owner's second
 * lock and EPERM to an unlock by another thread), the priority-inherit
 * protocol (PTHREAD_PRIO_INHERIT: always the owner-TID word on the
 * backend's PI lock, whatever the algorithm), and deadlines; the word
 * itself is the algorithm's (algos.c).
 *
 * What this library does not implement (robust, process-shared and
 * priority-protect mutexes) is set up by glibc's own pthread_mutex_init,
 * said once, and every later call on that object goes to glibc's function:
 * glibc's kind bits in the object say whose it is, so no object is ever
 * half handled.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>	/* FUTEX_TID_MASK */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "interpose/interpose.h"

_Static_assert(sizeof(struct ip_mutex) <= sizeof(pthread_mutex_t),
	       "struct ip_mutex fits in pthread_mutex_t");
_Static_assert(offsetof(struct ip_mutex, kind) ==
	       offsetof(pthread_mutex_t, __data.__kind),
	       "the kind sits where the static initialisers write it");
_Static_assert(PTHREAD_MUTEX_NORMAL == 0 && PTHREAD_MUTEX_RECURSIVE == 1 &&
	       PTHREAD_MUTEX_ERRORCHECK == 2,
	       "glibc's mutex types are its kind's low bits");

static inline struct ip_mutex *as_ip(pthread_mutex_t *m)
{
	return (struct ip_mutex *)m;
}

static inline int32_t kind_of(const struct ip_mutex *im)
{
	return __atomic_load_n(&im->kind, __ATOMIC_RELAXED);
}

static inline enum ip_algo algo_of(int32_t kind)
{
	return kind & IP_KIND_PI ? IP_PI : ip_config.algo;
}

/* normal and adaptive: no owner kept, as glibc keeps none it checks */
static inline int owner_checked(int32_t kind)
{
	int type = kind & IP_KIND_TYPE_MASK;

	return type == PTHREAD_MUTEX_RECURSIVE ||
	       type == PTHREAD_MUTEX_ERRORCHECK;
}

/* The lock's owner-kept types, for the owner itself: what it gets (-1: the
 * owner does not hold it yet, take the lock). */
static int relock_by_owner(struct ip_mutex *im, int32_t kind, pid_t self,
			   int busy)
{
	if (im->owner != self)
		return -1;
	/* glibc's trylock of a PI errorcheck mutex says EDEADLK too */
	if ((kind & IP_KIND_TYPE_MASK) == PTHREAD_MUTEX_ERRORCHECK)
		return busy && !(kind & IP_KIND_PI) ? EBUSY : EDEADLK;
	if (im->count == UINT_MAX)
		return EAGAIN;
	im->count++;
	return 0;
}

static inline void now_owned(struct ip_mutex *im, int32_t kind, pid_t self)
{
	if (owner_checked(kind)) {
		im->owner = self;
		im->count = 1;
	}
}

static inline uint32_t tid_for(enum ip_algo algo, int32_t kind)
{
	return algo >= IP_PI || owner_checked(kind) ? (uint32_t)ip_tid() : 0;
}

IP_EXPORT
int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr)
{
	int type = PTHREAD_MUTEX_NORMAL, pshared = PTHREAD_PROCESS_PRIVATE;
	int robust = PTHREAD_MUTEX_STALLED, protocol = PTHREAD_PRIO_NONE;
	struct ip_mutex *im = as_ip(m);

	if (attr) {
		pthread_mutexattr_gettype(attr, &type);
		pthread_mutexattr_getpshared(attr, &pshared);
		pthread_mutexattr_getrobust(attr, &robust);
		pthread_mutexattr_getprotocol(attr, &protocol);
	}
	if (robust == PTHREAD_MUTEX_ROBUST)
		ip_routed(IP_ROUTE_ROBUST, "a robust mutex");
	else if (pshared == PTHREAD_PROCESS_SHARED)
		ip_routed(IP_ROUTE_PSHARED, "a process-shared mutex");
	else if (protocol == PTHREAD_PRIO_PROTECT)
		ip_routed(IP_ROUTE_PP, "a priority-protect mutex");
	else
		goto ours;
	return ip_real()->mutex_init(m, attr);
ours:
	memset(m, 0, sizeof(*m));
	__atomic_store_n(&im->kind, (type & IP_KIND_TYPE_MASK) |
			 (protocol == PTHREAD_PRIO_INHERIT ? IP_KIND_PI : 0),
			 __ATOMIC_RELEASE);
	return 0;
}

IP_EXPORT
int pthread_mutex_destroy(pthread_mutex_t *m)
{
	struct ip_mutex *im = as_ip(m);

	if (kind_of(im) & IP_KIND_GLIBC)
		return ip_real()->mutex_destroy(m);
	if (__atomic_load_n(&im->word, __ATOMIC_RELAXED))
		return EBUSY;
	/* a use after this is undefined, and glibc answers EINVAL: so do
	 * we, through its functions (interpose.h) */
	memset(m, 0, sizeof(*m));
	__atomic_store_n(&im->kind, IP_KIND_DESTROYED, __ATOMIC_RELEASE);
	return 0;
}

/* One call on one of our mutexes: what every lock path needs. */
struct call {
	struct ip_mutex *im;
	int32_t kind;
	const struct ip_backend *b;
	enum ip_algo algo;
	uint32_t self;		/* our TID where the algorithm or type needs it */
};

/* 0 when the mutex is glibc's (routed); else 1 with c filled in. */
static int ours(pthread_mutex_t *m, const char *name, struct call *c)
{
	c->im = as_ip(m);
	c->kind = kind_of(c->im);
	if (c->kind & IP_KIND_GLIBC)
		return 0;
	c->b = ip_backend_or_die(name);
	c->algo = algo_of(c->kind);
	c->self = tid_for(c->algo, c->kind);
	return 1;
}

/*
 * What glibc does when the kernel will not give it a PI lock: -ESRCH, its
 * owner is gone (a thread that ended holding it), or -EDEADLK, its owner
 * locks it again (a normal mutex): it waits for the deadline, for ever
 * without one, on a word no one wakes; -EPERM, the owner is a thread of
 * another process that the kernel refuses to attach to (owner_elsewhere()):
 * it aborts ("The futex facility returned an unexpected error code."),
 * and so do we, saying why. A mutex without the PI protocol is on a PI
 * word only by FUTEXLAB_ALGO: glibc's would wait, and so does it. Any
 * other answer is the caller's. Cold, out of line: the uncontended lock
 * does not pay for it.
 */
static __attribute__((noinline, cold))
int refused_as_glibc(const struct call *c, int r,
		     const struct timespec *deadline, const char *name)
{
	/* a zeroed mutex's words: kmod-numa reads a node after the word */
	struct ip_mutex never = { 0 };

	if (r == -EPERM && (c->kind & IP_KIND_PI)) {
		ip_say("%s: the PI lock's owner, TID %u, is a thread of "
		       "another process (after fork(), the parent's), where "
		       "glibc's lock aborts too: aborting", name,
		       __atomic_load_n(&c->im->word, __ATOMIC_RELAXED) &
		       FUTEX_TID_MASK);
		abort();
	}
	if (r != -ESRCH && r != -EDEADLK && r != -EPERM)
		return -r;
	do
		r = c->b->wait(&never.word, 0, deadline);
	while (!r || r == -EINTR || r == -EAGAIN);
	return -r;
}

/*
 * Whether the kernel refuses glibc's FUTEX_LOCK_PI_PRIVATE on a word whose
 * owner is a live thread of another process (-EPERM: 6.18 does) or
 * attaches the waiter to it and blocks (-ETIMEDOUT: 6.12 does). Asked
 * once, on a scratch word holding that owner's TID with a deadline already
 * passed, never on the mutex's word; the answer is the kernel's, kept.
 * 0: no answer (the owner has gone meanwhile), ask again next time.
 */
static __attribute__((noinline, cold)) int stock_answer(pid_t owner)
{
	static int answer;
	struct timespec past = { 0, 0 };
	uint32_t scratch = (uint32_t)owner;

	if (answer)
		return answer;
	if (syscall(SYS_futex, &scratch, FUTEX_LOCK_PI_PRIVATE, 0, &past,
		    NULL, 0) && (errno == EPERM || errno == ETIMEDOUT))
		answer = -errno;
	return answer;
}

/*
 * In a child of fork(), what glibc's lock would meet on an owner-TID
 * word, found before the backend's lock is called (0: an owner in this
 * process, or none; the backend's lock answers): on futex-shared the
 * kernel attaches the waiter to another process's thread and blocks, and
 * the module's answer is its own; glibc's is always futex-private's. An
 * owner gone is -ESRCH; a live one in another process is -EPERM if the
 * kernel refuses it (stock_answer()), else -ESRCH too: glibc blocks on a
 * word that no thread of this process will unlock, and waiting on one is
 * the same. System calls in a forked child's contended lock only.
 */
static __attribute__((noinline, cold))
int owner_elsewhere(const struct call *c)
{
	uint32_t word = __atomic_load_n(&c->im->word, __ATOMIC_RELAXED);
	pid_t owner = (pid_t)(word & FUTEX_TID_MASK);
	int saved = errno, r = 0;

	if (owner && owner != (pid_t)c->self &&
	    syscall(SYS_tgkill, getpid(), owner, 0) && errno == ESRCH) {
		r = kill(owner, 0) == 0 || errno == EPERM ? -EPERM : -ESRCH;
		if (r == -EPERM && stock_answer(owner) != -EPERM)
			r = -ESRCH;
	}
	errno = saved;
	return r;
}

/* Lock with an optional MONOTONIC deadline: 0 or an errno. */
static int lock(const struct call *c, const struct timespec *deadline,
		const char *name)
{
	int r = 0;

	if (owner_checked(c->kind)) {
		r = relock_by_owner(c->im, c->kind, (pid_t)c->self, 0);
		if (r >= 0)
			return r;
		r = 0;
	}
	if (c->algo >= IP_PI && __builtin_expect(ip_forked_child, 0))
		r = owner_elsewhere(c);
	if (!r)
		r = c->b->lock(&c->im->word, c->algo, c->self, deadline);
	if (r && c->algo >= IP_PI)
		return refused_as_glibc(c, r, deadline, name);
	if (r)
		return -r;
	now_owned(c->im, c->kind, (pid_t)c->self);
	return 0;
}

IP_EXPORT
int pthread_mutex_lock(pthread_mutex_t *m)
{
	struct call c;

	if (!ours(m, "pthread_mutex_lock", &c))
		return ip_real()->mutex_lock(m);
	return lock(&c, NULL, "pthread_mutex_lock");
}

IP_EXPORT
int pthread_mutex_trylock(pthread_mutex_t *m)
{
	struct call c;
	int r;

	if (!ours(m, "pthread_mutex_trylock", &c))
		return ip_real()->mutex_trylock(m);
	if (owner_checked(c.kind)) {
		r = relock_by_owner(c.im, c.kind, (pid_t)c.self, 1);
		if (r >= 0)
			return r;
	}
	if (c.b->trylock(&c.im->word, c.algo, c.self))
		return EBUSY;
	now_owned(c.im, c.kind, (pid_t)c.self);
	return 0;
}

/*
 * A lock with a deadline on clock. As glibc does, the deadline is looked
 * at only when the mutex is taken: a free mutex is locked whatever the
 * timespec says, the owner's relock is answered first.
 */
static int clocklock(pthread_mutex_t *m, clockid_t clock,
		     const struct timespec *abs, const char *name)
{
	struct timespec mono;
	struct call c;
	int r;

	ours(m, name, &c);
	r = pthread_mutex_trylock(m);
	if (r != EBUSY)
		return r;
	if (owner_checked(c.kind) && c.im->owner == (pid_t)c.self)
		return EDEADLK;		/* errorcheck: trylock said EBUSY */
	/* a PI lock's deadline goes to the kernel as it is, which refuses
	 * a negative one: glibc's answer is then EINVAL, not ETIMEDOUT */
	if (ip_deadline(clock, abs, &mono) ||
	    ((c.kind & IP_KIND_PI) && abs->tv_sec < 0))
		return EINVAL;
	return lock(&c, &mono, name);
}

IP_EXPORT
int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abs)
{
	if (kind_of(as_ip(m)) & IP_KIND_GLIBC)
		return ip_real()->mutex_timedlock(m, abs);
	return clocklock(m, CLOCK_REALTIME, abs, "pthread_mutex_timedlock");
}

IP_EXPORT
int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clock,
			    const struct timespec *abs)
{
	if (kind_of(as_ip(m)) & IP_KIND_GLIBC)
		return ip_real()->mutex_clocklock(m, clock, abs);
	if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC)
		return EINVAL;
	return clocklock(m, clock, abs, "pthread_mutex_clocklock");
}

IP_EXPORT
int pthread_mutex_unlock(pthread_mutex_t *m)
{
	struct call c;
	int r;

	if (!ours(m, "pthread_mutex_unlock", &c))
		return ip_real()->mutex_unlock(m);
	if (owner_checked(c.kind)) {
		if (c.im->owner != (pid_t)c.self)
			return EPERM;
		if (--c.im->count)
			return 0;
		c.im->owner = 0;
	}
	r = c.b->unlock(&c.im->word, c.algo, c.self);
	/* the forking thread's lock, in the child: the word names the TID
	 * the thread had in the parent (glibc's word holds no TID there;
	 * a PTHREAD_PRIO_INHERIT one's does, and glibc says EPERM) */
	if (r == -EPERM && ip_parent_tid() && !(c.kind & IP_KIND_PI))
		r = c.b->unlock(&c.im->word, c.algo,
				(uint32_t)ip_parent_tid());
	return -r;
}

int ip_mutex_unlock(pthread_mutex_t *m)
{
	return pthread_mutex_unlock(m);
}

void ip_mutex_relock(pthread_mutex_t *m)
{
	int saved = errno;

	pthread_mutex_lock(m);
	errno = saved;
}
