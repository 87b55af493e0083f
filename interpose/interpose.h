/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libfutexlab-interpose.so: an unmodified program's pthread mutexes and
 * condition variables, locked with one of futexlab's lock algorithms on
 * one of its backends, both named by the environment (docs/interpose.md):
 *
 *   FUTEXLAB_ALGO=mutex3|spin-then-wait|pi|adaptive   (unset: mutex3)
 *   FUTEXLAB_BACKEND=futex-private|futex-shared|kmod-global|kmod-private|
 *                    kmod-numa                        (unset: futex-private)
 *                    (configure.py's INTERPOSE_BACKENDS, the first unset)
 *   FUTEXLAB_INTERPOSE_VERBOSE=1   say the choice once, at the first call
 *
 * Any other value, an empty one too, is said at load and aborts the
 * program's first lock.
 *
 * The flow of one call:
 *   mutex.c    pthread_mutex_*: types, owners and deadlines, then the
 *              algorithm's word through the chosen backend
 *   cond.c     pthread_cond_*: a sequence word the waiters sleep on
 *   algos.c    the algorithms on one backend's inline operations, compiled
 *              once per backend into a table (struct ip_backend)
 *   config.c   the environment's choice, made once, and the module's
 *              descriptor; what cannot be used is said once
 *   real.c     glibc's own functions, for the objects routed to them
 *   clock.c    a deadline on a pthread clock to the backends' MONOTONIC
 *
 * Where the word lives: in the pthread object itself, as glibc's own does
 * (struct ip_mutex, struct ip_cond overlay pthread_mutex_t and
 * pthread_cond_t). A zeroed object is a valid unlocked one, so static
 * initialisers and objects set up before the first call work without a
 * lookup; glibc's own fields keep their offsets where the initialisers
 * write them (the mutex's kind, the condition variable's flags), and the
 * objects routed to glibc are told apart by those same fields.
 */
#ifndef FUTEXLAB_INTERPOSE_H
#define FUTEXLAB_INTERPOSE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* The lock algorithms, as the mutex workload's --algo names them. */
enum ip_algo { IP_MUTEX3, IP_SPIN_THEN_WAIT, IP_PI, IP_ADAPTIVE, IP_NALGOS };

/*
 * One backend's operations (algos.c), every one returning 0 or -errno.
 * A deadline is absolute CLOCK_MONOTONIC, NULL for none.
 */
struct ip_backend {
	const char *name;
	int needs_device;		/* the module's: /dev/futexlab */
	int design;			/* its FUTEXLAB_DESIGN_* */
	int has_adaptive;
	int (*lock)(uint32_t *w, enum ip_algo algo, uint32_t tid,
		    const struct timespec *deadline);
	int (*trylock)(uint32_t *w, enum ip_algo algo, uint32_t tid);
	int (*unlock)(uint32_t *w, enum ip_algo algo, uint32_t tid);
	int (*wait)(uint32_t *w, uint32_t val, const struct timespec *deadline);
	int (*wake)(uint32_t *w, int nr);
};

/* Every backend algos.c was compiled for, NULL-terminated, the default
 * first: configure.py's INTERPOSE_BACKENDS writes the list
 * (build/gen/interpose_backends.c). */
extern const struct ip_backend *const ip_backends[];

/* spin-then-wait's spins before it sleeps: glibc's adaptive-mutex limit
 * (glibc.pthread.mutex_spin_count), the mutex workload's default */
#define IP_SPINS	100

/*
 * A mutex: glibc's struct __pthread_mutex_s with its fields given our
 * meaning. kind keeps glibc's offset and encoding, which the static
 * initialisers write (PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP and friends).
 */
struct ip_mutex {
	uint32_t word;		/* the algorithm's word (glibc's __lock) */
	uint32_t node;		/* kmod-numa's node word, read by the module */
	int32_t owner;		/* recursive and errorcheck: the owner's TID */
	uint32_t count;		/* recursive: how deep */
	int32_t kind;		/* glibc's __kind: the type, IP_KIND_* bits */
};

/* glibc's kind bits (its nptl's private header): an object carrying one of the
 * GLIBC ones was set up by glibc's pthread_mutex_init and is its own */
#define IP_KIND_TYPE_MASK	3
#define IP_KIND_ROBUST		16
#define IP_KIND_PI		32
#define IP_KIND_PP		64
#define IP_KIND_PSHARED		128
#define IP_KIND_GLIBC		(IP_KIND_ROBUST | IP_KIND_PP | IP_KIND_PSHARED)
/* what glibc's pthread_mutex_destroy leaves, and ours: glibc's kind bits
 * route every later call to glibc's function, which says EINVAL */
#define IP_KIND_DESTROYED	(-1)

/*
 * A condition variable: waiters sleep on seq while it holds the value they
 * read under the mutex; a signal or broadcast changes it first, so a wait
 * that begins after it finds a new value and returns (no lost wakeup).
 * flags keeps glibc's __wrefs offset and its two low bits' meaning.
 */
struct ip_cond {
	uint32_t seq;		/* bumped by every signal and broadcast */
	uint32_t node;		/* kmod-numa's node word */
	uint32_t waiters;	/* threads between their read of seq and
				 * their return: a signal with none skips
				 * the wake call */
};

#define IP_COND_GLIBC		1	/* __PTHREAD_COND_SHARED_MASK */
#define IP_COND_MONOTONIC	2	/* __PTHREAD_COND_CLOCK_MONOTONIC_MASK */

static inline uint32_t *ip_cond_flags(pthread_cond_t *c)
{
	return (uint32_t *)((char *)c + offsetof(pthread_cond_t,
						 __data.__wrefs));
}

/* config.c: the backend and algorithm; ip_ready() is the fast check */
struct ip_config {
	const struct ip_backend *backend;
	enum ip_algo algo;
	int usable;
};

extern struct ip_config ip_config;
void ip_setup(void);
/* the chosen backend, or (a program that locks on a bad configuration)
 * said and aborted: never a silent fallback to another lock */
const struct ip_backend *ip_backend_or_die(const char *call);
pid_t ip_tid(void);
/* 0, or in a child of fork() the TID the forking thread had: an
 * owner-TID word it held still names that TID */
pid_t ip_parent_tid(void);
/* 1 in a child of fork() (or its children): a lock word may name a
 * thread of another process; a variable, read on every lock */
extern int ip_forked_child __attribute__((visibility("hidden")));
void ip_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* say what goes to glibc's own function, once per reason */
void ip_routed(unsigned int reason, const char *what);
enum { IP_ROUTE_ROBUST, IP_ROUTE_PSHARED, IP_ROUTE_PP, IP_ROUTE_COND_SHARED,
       IP_ROUTE_MIXED };

/* mutex.c, for cond.c: unlock and relock around a wait */
int ip_mutex_unlock(pthread_mutex_t *m);
void ip_mutex_relock(pthread_mutex_t *m);
static inline int ip_mutex_is_glibc(const pthread_mutex_t *m)
{
	const struct ip_mutex *im = (const struct ip_mutex *)m;

	return __atomic_load_n(&im->kind, __ATOMIC_RELAXED) & IP_KIND_GLIBC;
}

/* clock.c: an absolute deadline on clock to CLOCK_MONOTONIC; -EINVAL for
 * a clock or timespec glibc refuses */
int ip_deadline(clockid_t clock, const struct timespec *abs,
		struct timespec *mono);

/* real.c: glibc's own functions */
struct ip_real {
	int (*mutex_init)(pthread_mutex_t *, const pthread_mutexattr_t *);
	int (*mutex_destroy)(pthread_mutex_t *);
	int (*mutex_lock)(pthread_mutex_t *);
	int (*mutex_trylock)(pthread_mutex_t *);
	int (*mutex_timedlock)(pthread_mutex_t *, const struct timespec *);
	int (*mutex_clocklock)(pthread_mutex_t *, clockid_t,
			       const struct timespec *);
	int (*mutex_unlock)(pthread_mutex_t *);
	int (*cond_init)(pthread_cond_t *, const pthread_condattr_t *);
	int (*cond_destroy)(pthread_cond_t *);
	int (*cond_wait)(pthread_cond_t *, pthread_mutex_t *);
	int (*cond_timedwait)(pthread_cond_t *, pthread_mutex_t *,
			      const struct timespec *);
	int (*cond_clockwait)(pthread_cond_t *, pthread_mutex_t *, clockid_t,
			      const struct timespec *);
	int (*cond_signal)(pthread_cond_t *);
	int (*cond_broadcast)(pthread_cond_t *);
};

const struct ip_real *ip_real(void);

#define IP_EXPORT	__attribute__((visibility("default")))

#endif /* FUTEXLAB_INTERPOSE_H */
