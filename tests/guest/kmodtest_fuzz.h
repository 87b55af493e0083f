/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmodtest's fuzzer (kmodtest_fuzz.c): what its files share. The
 * operations and the results documented for each are
 * kmodtest_fuzz_ops.c; what a worker does to itself (its own tmpfs, its
 * own scheduling) kmodtest_fuzz_self.c; the workers' processes and
 * threads, the main process's signals and kills, and the verdict
 * kmodtest_fuzz.c.
 */
#ifndef FUTEXLAB_KMODTEST_FUZZ_H
#define FUTEXLAB_KMODTEST_FUZZ_H

#include "kmodtest.h"

#define FZ_PROCS	3
#define FZ_THREADS	2
#define FZ_WORKERS	(FZ_PROCS * FZ_THREADS)
#define FZ_WORDS	16		/* word pairs the workers share */
#define FZ_SLACK	5000000000ull	/* ns an operation may overrun */

enum { OP_WAIT, OP_WAKE, OP_REQUEUE, OP_LOCK, OP_TRYLOCK, OP_UNLOCK,
       OP_WRPI, OP_RQPI, OP_STATS, OP_DESIGN, OP_BOGUS, OP_SCHED, OP_REMOUNT,
       OP_STORE, OP_NR };

/* A worker process's own tmpfs (unprivileged processes only). */
struct fz_mount {
	pthread_mutex_t lock;	/* one remount at a time */
	const char *dir;
	uint32_t *words;	/* FZ_WORDS pairs at a fixed address */
};

/* One worker's slot in the shared control page. */
struct fz_slot {
	_Atomic pid_t tid;
	_Atomic uint64_t op_end;	/* the running op's deadline, 0: none */
	_Atomic int op;
};

struct fz_ctl {
	_Atomic unsigned long ops;		/* issued, all workers */
	_Atomic int stop;
	_Atomic int bad;			/* undocumented results */
	_Atomic unsigned long results[OP_NR][2];	/* ok, error */
	_Atomic unsigned long forks;
	_Atomic unsigned long remounts;
	char first_bad[160];
	char dir[64];		/* where unprivileged workers mount a tmpfs */
	struct fz_slot slot[FZ_WORKERS];
	uint32_t words[FZ_WORDS * 2] __attribute__((aligned(64)));
};

struct fz_worker {
	struct fz_ctl *c;
	uint32_t design;
	int fd;
	int id;
	uint64_t rng;
	void *unmapped;		/* an address with no mapping */
	struct fz_mount *mnt;	/* its process's tmpfs, or NULL */
	int unpriv;		/* uid 65534, RLIMIT_RTPRIO 0 */
	int child;		/* a forked child: does not remount */
	struct sched_attr_k own; /* what it may run with on its own rights */
};

static inline uint64_t fz_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static inline unsigned int fz_pick(uint64_t *s, unsigned int n)
{
	return (unsigned int)(fz_rand(s) % n);
}

/* kmodtest_fuzz_ops.c: one random operation, and whether its result is
 * one documented for it */
int fz_one(struct fz_worker *w, void *unmapped, int op);
int fz_documented(int op, int r);

/* kmodtest_fuzz_self.c: a worker's own tmpfs and scheduling */
int fz_map_file(struct fz_mount *m);
int fz_remount(struct fz_worker *w);
int fz_sched(struct fz_worker *w);
int fz_sched_check(struct fz_worker *w, char *why, size_t n);
struct fz_mount *fz_unprivileged(struct fz_ctl *c);

#endif /* FUTEXLAB_KMODTEST_FUZZ_H */
