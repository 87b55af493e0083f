// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest's seeded random-operation fuzzer, once per hash design.
 *
 * Three worker processes of two threads each issue random ioctls on
 * /dev/futexlab with random, partly invalid arguments: words shared by all
 * (so they contend), misaligned, NULL, unmapped and kernel addresses,
 * bogus TIDs and WAITERS/OWNER_DIED bits stored into PI words, random
 * flags and nodes, designs and sizes, unknown commands. Among them the
 * main process sends signals (no SA_RESTART: EINTR paths), kills a worker
 * process now and then (and starts a new one), and workers fork children
 * that run a few operations and exit. Every blocking operation carries a
 * deadline of at most 20 ms.
 *
 * Half the worker processes run as a hostile user would: uid 65534 with
 * RLIMIT_RTPRIO 0, in a user and mount namespace of their own with a
 * tmpfs mounted there, a page of whose file they map shared and use as
 * more lock words, and which they unmap and unmount (then mount and map
 * again) while their own and others' waiters may sleep on it. Workers
 * change their own scheduling (SCHED_FIFO, SCHED_IDLE, nice, reset-on-
 * fork), and hold several PI locks at once, so boosts start and end in
 * every order while the owner changes its own policy; at the end each
 * thread gives back every lock it holds and, once every waiter's deadline
 * has passed, must run with what it could have set on its own rights.
 *
 * It passes when every call returned a result documented for it, no
 * operation outlived its deadline (by more than 5 s of slack for TCG), no
 * killed worker outlived its SIGKILL, no waiter is left queued, and the
 * kernel log gained no BUG, WARNING, lockup or stall. The seed and the
 * operation count are printed, so a failure can be replayed:
 *   kmodtest --seed S --fuzz-ops N fuzz
 */
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "kmodtest.h"

#define FZ_PROCS	3
#define FZ_THREADS	2
#define FZ_WORKERS	(FZ_PROCS * FZ_THREADS)
#define FZ_WORDS	16		/* word pairs the workers share */
#define FZ_SLACK	5000000000ull	/* ns an operation may overrun */

unsigned long fuzz_ops = 20000;		/* per design (--fuzz-ops) */
unsigned long fuzz_seed = 1;		/* --seed */
unsigned int fuzz_seconds = 7;		/* per design at most (--fuzz-seconds) */

enum { OP_WAIT, OP_WAKE, OP_REQUEUE, OP_LOCK, OP_TRYLOCK, OP_UNLOCK,
       OP_WRPI, OP_RQPI, OP_STATS, OP_DESIGN, OP_BOGUS, OP_SCHED, OP_REMOUNT,
       OP_STORE, OP_NR };

static const char *const op_names[OP_NR] = {
	"wait", "wake", "cmp_requeue", "lock_pi", "trylock_pi", "unlock_pi",
	"wait_requeue_pi", "cmp_requeue_pi", "stats", "design", "bogus",
	"sched", "remount", "store",
};

/* errnos each operation may return besides success (a count or 0) */
static const int ok_errs[OP_NR][10] = {
	[OP_WAIT] = { EAGAIN, ETIMEDOUT, EINTR, EFAULT, EINVAL },
	[OP_WAKE] = { EFAULT, EINVAL },
	[OP_REQUEUE] = { EAGAIN, EFAULT, EINVAL, EINTR },
	[OP_LOCK] = { ETIMEDOUT, EDEADLK, EPERM, ESRCH, EFAULT, EINVAL,
		      ENOMEM },
	[OP_TRYLOCK] = { EAGAIN, EDEADLK, EFAULT, EINVAL, ENOMEM, EINTR },
	[OP_UNLOCK] = { EPERM, EFAULT, EINVAL, EINTR },
	[OP_WRPI] = { EAGAIN, ETIMEDOUT, EINTR, EFAULT, EINVAL, ENOMEM },
	[OP_RQPI] = { EAGAIN, EINVAL, EFAULT, EDEADLK, ESRCH, EPERM, ENOMEM,
		      EINTR },
	[OP_STATS] = { EINVAL, EFAULT, ENOMEM },
	[OP_DESIGN] = { EBUSY, EINVAL, ENOMEM, EFAULT },
	[OP_BOGUS] = { ENOTTY },
	[OP_SCHED] = { EPERM },
	[OP_REMOUNT] = { },		/* an unmount never finds it busy */
};


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

static uint64_t fz_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static unsigned int fz_pick(uint64_t *s, unsigned int n)
{
	return (unsigned int)(fz_rand(s) % n);
}

/* Mount the tmpfs and map its file's page at m->words (fixed). */
static int fz_map_file(struct fz_mount *m)
{
	char path[96];
	int fd, i, ret = 0;

	if (mount("none", m->dir, "tmpfs", 0, "size=16k"))
		return -errno;
	snprintf(path, sizeof(path), "%s/words", m->dir);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, 4096) ||
	    mmap(m->words, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		 fd, 0) == MAP_FAILED)
		ret = -errno;
	close(fd);
	for (i = 0; !ret && i < FZ_WORDS; i++)
		m->words[2 * i + 1] = FUTEXLAB_NO_NODE;
	return ret;
}

/*
 * Unmount @dir: EBUSY is retried for a second, as the last reference to
 * a file unmapped a moment ago may still be on its way out (a deferred
 * fput()); the module holds no file, so a tmpfs busy for longer is a
 * failure.
 */
static int fz_umount(const char *dir)
{
	uint64_t end = now_ns() + SEC;

	while (umount2(dir, 0)) {
		if (errno != EBUSY || now_ns() > end)
			return -errno;
		usleep(10000);
	}
	return 0;
}

/*
 * Unmap the file and unmount its tmpfs under whatever waits on its words
 * (a waiter pins neither), then mount and map it again. The page is
 * replaced by an inaccessible one, never left a hole (see fz_process()).
 */
static int fz_remount(struct fz_worker *w)
{
	struct fz_mount *m = w->mnt;
	int ret = 0;

	if (!m || w->child || fz_pick(&w->rng, 10))
		return 0;
	pthread_mutex_lock(&m->lock);
	if (mmap(m->words, 4096, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		ret = -errno;
	else
		ret = fz_umount(m->dir);
	if (!ret)
		ret = fz_map_file(m);
	pthread_mutex_unlock(&m->lock);
	if (!ret)
		w->c->remounts++;
	return ret;
}

/*
 * May @w, running on w->own, set @a on its own rights? Root: anything.
 * Uid 65534 with RLIMIT_RTPRIO 0 and RLIMIT_NICE 0: no real-time policy
 * and no way out of SCHED_IDLE (the kernel refuses both unboosted; a
 * boosted owner's call may succeed, but must not last past the boost).
 * A lower nice the kernel refuses anyway.
 */
static int fz_entitled(const struct fz_worker *w, const struct sched_attr_k *a)
{
	if (!w->unpriv)
		return 1;
	if (a->sched_policy == SCHED_FIFO || a->sched_policy == SCHED_RR)
		return 0;
	return !(w->own.sched_policy == SCHED_IDLE &&
		 a->sched_policy != SCHED_IDLE);
}

/* A random change of the caller's own scheduling (perhaps while boosted). */
static int fz_sched(struct fz_worker *w)
{
	static const uint32_t policies[] = { SCHED_OTHER, SCHED_FIFO,
		SCHED_RR, SCHED_BATCH, SCHED_IDLE };
	struct sched_attr_k a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sched_policy = policies[fz_pick(&w->rng, 5)];
	if (a.sched_policy == SCHED_FIFO || a.sched_policy == SCHED_RR)
		a.sched_priority = 1 + fz_pick(&w->rng, 20);
	else if (a.sched_policy != SCHED_IDLE)
		a.sched_nice = (int32_t)fz_pick(&w->rng, 11) - 5;
	if (!fz_pick(&w->rng, 3))
		a.sched_flags = SCHED_FLAG_RESET_ON_FORK;
	if (syscall(SYS_sched_setattr, 0, &a, 0))
		return -errno;
	if (fz_entitled(w, &a))
		w->own = a;
	return 0;
}

/*
 * After the run, once every waiter's deadline has passed (3 s at most):
 * does the caller run with what it may have on its own rights, with no
 * boost left? Return: 0, or -1 with the difference in *@why.
 */
static int fz_sched_check(struct fz_worker *w, char *why, size_t n)
{
	uint64_t end = now_ns() + 3 * SEC;
	const struct sched_attr_k *o = &w->own;
	struct sched_attr_k a;
	int rt = o->sched_policy == SCHED_FIFO || o->sched_policy == SCHED_RR;
	int fair = o->sched_policy == SCHED_OTHER ||
		   o->sched_policy == SCHED_BATCH;

	do {
		if (get_attr(0, &a))
			return 0;
		if (a.sched_policy == o->sched_policy &&
		    (!rt || a.sched_priority == o->sched_priority) &&
		    (!fair || a.sched_nice == o->sched_nice))
			return 0;
		usleep(20000);
	} while (now_ns() < end);
	snprintf(why, n, "a %s worker ends at policy %u prio %u nice %d, its own is policy %u prio %u nice %d",
		 w->unpriv ? "uid 65534" : "root", a.sched_policy,
		 a.sched_priority, a.sched_nice, o->sched_policy,
		 o->sched_priority, o->sched_nice);
	return -1;
}

/* A word address: mostly a shared word, sometimes a bad one. */
static uint64_t fz_addr(struct fz_worker *w, void *unmapped)
{
	unsigned int r = fz_pick(&w->rng, 100);
	uint32_t *word = &w->c->words[2 * fz_pick(&w->rng, FZ_WORDS)];

	if (w->mnt && r < 20)
		return (uintptr_t)&w->mnt->words[2 * fz_pick(&w->rng, FZ_WORDS)];
	if (r < 86)
		return (uintptr_t)word;
	if (r < 90)
		return (uintptr_t)word + 1 + fz_pick(&w->rng, 3);
	if (r < 93)
		return 0;
	if (r < 97)
		return (uintptr_t)unmapped + 4 * fz_pick(&w->rng, 4096);
	return 0xffffffffff600000ull + 4 * fz_pick(&w->rng, 64);
}

static uint32_t fz_flags(struct fz_worker *w, int blocking)
{
	unsigned int r = fz_pick(&w->rng, 100);
	uint32_t f = 0;

	if (r < 5)
		return (uint32_t)fz_rand(&w->rng);
	if (r < 35)
		f |= FUTEXLAB_F_SHARED;
	if (r >= 90)
		f |= FUTEXLAB_F_NODE;
	if (blocking)
		f |= FUTEXLAB_F_DEADLINE;
	return f;
}

/* A value to store into a word: a sibling's TID, a bogus one, 0, bits. */
static uint32_t fz_value(struct fz_worker *w)
{
	unsigned int r = fz_pick(&w->rng, 6);
	uint32_t v;

	switch (r) {
	case 0:
		return 0;
	case 1:
		v = (uint32_t)w->c->slot[fz_pick(&w->rng, FZ_WORKERS)].tid;
		break;
	case 2:
		v = 1 + fz_pick(&w->rng, 4000000);	/* mostly no such task */
		break;
	case 3:
		v = 2;					/* kthreadd */
		break;
	default:
		v = fz_pick(&w->rng, 4);
		break;
	}
	if (fz_pick(&w->rng, 4) == 0)
		v |= FUTEXLAB_WAITERS;
	if (fz_pick(&w->rng, 8) == 0)
		v |= FUTEXLAB_OWNER_DIED;
	return v;
}

/*
 * One switch over every ioctl the fuzzer issues: each case builds its
 * random argument and checks the result against the documented ones, so
 * an operation's whole contract is read in one place.
 */
static int fz_one(struct fz_worker *w, void *unmapped, int op)
{
	uint64_t dl = now_ns() + fz_pick(&w->rng, 20000001);
	uint32_t node = fz_pick(&w->rng, 5);
	union {
		struct futexlab_wait wa;
		struct futexlab_wake wk;
		struct futexlab_requeue rq;
		struct futexlab_pi pi;
		struct futexlab_wait_requeue_pi wr;
		struct futexlab_stats st;
		struct futexlab_design d;
	} u;
	static const unsigned long pi_cmd[] = { FUTEXLAB_IOC_LOCK_PI,
		FUTEXLAB_IOC_TRYLOCK_PI, FUTEXLAB_IOC_UNLOCK_PI };
	uint64_t counts[8];

	memset(&u, 0, sizeof(u));
	switch (op) {
	case OP_WAIT:
		u.wa.uaddr = fz_addr(w, unmapped);
		u.wa.val = fz_pick(&w->rng, 2) ? 0 : fz_value(w);
		u.wa.bitset = fz_pick(&w->rng, 20) ? ~0u : (uint32_t)fz_rand(&w->rng);
		u.wa.flags = fz_flags(w, 1);
		u.wa.node = node;
		u.wa.deadline_ns = dl;
		return xioctl(w->fd, FUTEXLAB_IOC_WAIT, &u.wa);
	case OP_WAKE:
		u.wk.uaddr = fz_addr(w, unmapped);
		u.wk.nr_wake = fz_pick(&w->rng, 4);
		u.wk.bitset = fz_pick(&w->rng, 20) ? ~0u : (uint32_t)fz_rand(&w->rng);
		u.wk.flags = fz_flags(w, 0);
		u.wk.node = node;
		return xioctl(w->fd, FUTEXLAB_IOC_WAKE, &u.wk);
	case OP_REQUEUE:
	case OP_RQPI:
		u.rq.uaddr = fz_addr(w, unmapped);
		u.rq.uaddr2 = fz_addr(w, unmapped);
		u.rq.nr_wake = fz_pick(&w->rng, 10) ? fz_pick(&w->rng, 3) :
						      (uint32_t)fz_rand(&w->rng);
		u.rq.nr_requeue = fz_pick(&w->rng, 4);
		u.rq.val = fz_pick(&w->rng, 2) ? 0 : fz_value(w);
		u.rq.flags = fz_flags(w, 0);
		u.rq.node = node;
		u.rq.node2 = fz_pick(&w->rng, 3);
		u.rq.pad = fz_pick(&w->rng, 50) == 0;
		return xioctl(w->fd, op == OP_RQPI ? FUTEXLAB_IOC_CMP_REQUEUE_PI :
					       FUTEXLAB_IOC_CMP_REQUEUE, &u.rq);
	case OP_LOCK:
	case OP_TRYLOCK:
	case OP_UNLOCK:
		u.pi.uaddr = fz_addr(w, unmapped);
		u.pi.flags = fz_flags(w, op == OP_LOCK);
		u.pi.node = node;
		u.pi.deadline_ns = dl;
		if (op == OP_LOCK && !(u.pi.flags & FUTEXLAB_F_DEADLINE))
			return -EINVAL;	/* (random flags: never unbounded) */
		return xioctl(w->fd, pi_cmd[op - OP_LOCK], &u.pi);
	case OP_WRPI:
		u.wr.uaddr = fz_addr(w, unmapped);
		u.wr.uaddr2 = fz_addr(w, unmapped);
		u.wr.val = fz_pick(&w->rng, 2) ? 0 : fz_value(w);
		u.wr.flags = fz_flags(w, 1);
		if (!(u.wr.flags & FUTEXLAB_F_DEADLINE))
			return -EINVAL;
		u.wr.node = node;
		u.wr.node2 = fz_pick(&w->rng, 3);
		u.wr.deadline_ns = dl;
		return xioctl(w->fd, FUTEXLAB_IOC_WAIT_REQUEUE_PI, &u.wr);
	case OP_STATS:
		u.st.flags = fz_pick(&w->rng, 20) == 0;
		u.st.nr_counts = fz_pick(&w->rng, 3) ? 8 :
						      (uint32_t)fz_rand(&w->rng);
		/* a bad array is never a live word: the module would write
		 * past it into the fuzzer's own state */
		u.st.counts_ptr = fz_pick(&w->rng, 4) ? (uintptr_t)counts :
			fz_pick(&w->rng, 2) ? 0 : (uintptr_t)unmapped +
						   8 * fz_pick(&w->rng, 512);
		if (u.st.nr_counts > 8 && u.st.counts_ptr == (uintptr_t)counts)
			u.st.nr_counts = 8;
		return xioctl(w->fd, FUTEXLAB_IOC_STATS, &u.st);
	case OP_DESIGN:
		u.d.design = fz_pick(&w->rng, 5);
		u.d.slots = fz_pick(&w->rng, 2) ? 0 : 1u << fz_pick(&w->rng, 24);
		if (fz_pick(&w->rng, 2))
			return xioctl(w->fd, FUTEXLAB_IOC_GET_DESIGN, &u.d);
		return xioctl(w->fd, FUTEXLAB_IOC_SET_DESIGN, &u.d);
	case OP_BOGUS:
		return xioctl(w->fd, _IOWR(FUTEXLAB_IOC_MAGIC,
					   0x20 + fz_pick(&w->rng, 200),
					   struct futexlab_wait), &u.wa);
	case OP_SCHED:
		return fz_sched(w);
	case OP_REMOUNT:
		return fz_remount(w);
	default:
		w->c->words[2 * fz_pick(&w->rng, FZ_WORDS)] = fz_value(w);
		return 0;
	}
}

static int fz_documented(int op, int r)
{
	int i;

	if (r >= 0)
		return op != OP_WAIT && op != OP_LOCK && op != OP_TRYLOCK &&
		       op != OP_UNLOCK && op != OP_WRPI && op != OP_STATS &&
		       op != OP_DESIGN && op != OP_SCHED && op != OP_REMOUNT ?
		       1 : r == 0;
	for (i = 0; i < 10 && ok_errs[op][i]; i++)
		if (-r == ok_errs[op][i])
			return 1;
	return 0;
}

static void fz_usr1(int sig)
{
	(void)sig;
}

/* Run random operations until @budget is spent or the run stops. */
static void fz_loop(struct fz_worker *w, void *unmapped, unsigned long budget)
{
	struct fz_ctl *c = w->c;
	struct fz_slot *sl = &c->slot[w->id];

	while (budget-- && !c->stop &&
	       atomic_fetch_add(&c->ops, 1) < fuzz_ops) {
		int op = fz_pick(&w->rng, OP_NR), r;

		if (fz_pick(&w->rng, 300) == 0) {
			/*
			 * A child that does a few operations and exits. It
			 * inherits the tmpfs file's mapping, which keeps the
			 * tmpfs busy: no remount until it is reaped.
			 */
			struct fz_mount *m = w->child ? NULL : w->mnt;
			pid_t kid;

			if (m)
				pthread_mutex_lock(&m->lock);
			kid = fork();

			if (kid == 0) {
				w->rng ^= (uint64_t)getpid() << 32;
				w->child = 1;
				fz_loop(w, unmapped, 20);
				_exit(0);
			}
			if (kid > 0) {
				c->forks++;
				waitpid(kid, NULL, 0);
			}
			if (m)
				pthread_mutex_unlock(&m->lock);
			continue;
		}
		sl->op = op;
		sl->op_end = now_ns() + 20000000;
		r = fz_one(w, unmapped, op);
		sl->op_end = 0;
		c->results[op][r < 0]++;
		if (!fz_documented(op, r) && c->bad++ == 0)
			snprintf(c->first_bad, sizeof(c->first_bad),
				 "%s returned %d (%s)", op_names[op], r,
				 r < 0 ? strerror(-r) : "count");
		/* a lock taken is mostly given back at once */
		if ((op == OP_LOCK || op == OP_TRYLOCK) && !r &&
		    fz_pick(&w->rng, 2))
			fz_one(w, unmapped, OP_UNLOCK);
	}
}

static void *fz_thread(void *p)
{
	struct fz_worker *w = p;
	char why[160];

	w->c->slot[w->id].tid = (pid_t)syscall(SYS_gettid);
	get_attr(0, &w->own);
	fz_loop(w, w->unmapped, ~0ul);
	/* the run is over for every worker: no new waiter comes */
	while (!w->c->stop)
		usleep(5000);
	if (fz_sched_check(w, why, sizeof(why)) && w->c->bad++ == 0)
		snprintf(w->c->first_bad, sizeof(w->c->first_bad), "%s", why);
	return NULL;
}

/*
 * Become a hostile user: uid 65534, RLIMIT_RTPRIO 0, in namespaces of its
 * own with a tmpfs whose file's page gives more lock words (if user
 * namespaces are allowed). Return: its mount, or NULL.
 */
static struct fz_mount *fz_unprivileged(struct fz_ctl *c)
{
	static struct fz_mount m = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct rlimit rl = { 0, 0 };

	if (setrlimit(RLIMIT_RTPRIO, &rl) || become_userns_nobody())
		return NULL;
	m.dir = c->dir;
	m.words = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	if (m.words == MAP_FAILED || fz_map_file(&m))
		return NULL;
	return &m;
}

/* One worker process: FZ_THREADS threads on one descriptor. */
static void fz_process(struct fz_ctl *c, uint32_t design, int first_id,
		       uint64_t seed)
{
	struct fz_worker w[FZ_THREADS];
	struct fz_mount *mnt = NULL;
	int unpriv = fz_rand(&seed) % 2;
	pthread_t th[FZ_THREADS];
	/*
	 * Kept mapped without access rather than unmapped: a hole could be
	 * reused by a thread stack, and the module's writes to "bad" words
	 * (a PI claim, a node word) would land in it.
	 */
	void *unmapped = mmap(NULL, 4 * 4096, PROT_NONE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct sigaction sa;
	int i, fd;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fz_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	/* slots are only for the private design (EINVAL elsewhere) */
	fd = open_design(design, design == FUTEXLAB_DESIGN_PRIVATE &&
			 fz_rand(&seed) % 2 ? 64 : 0);
	if (fd < 0)
		_exit(1);
	if (unpriv) {
		mnt = fz_unprivileged(c);
		/* no user namespace: still uid 65534, with no tmpfs */
		if (!mnt && getuid() != NOBODY)
			_exit(1);
	}
	for (i = 0; i < FZ_THREADS; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].mnt = mnt;
		w[i].unpriv = unpriv;
		w[i].c = c;
		w[i].design = design;
		w[i].fd = fd;
		w[i].id = first_id + i;
		w[i].rng = seed * 0x9e3779b97f4a7c15ull + (uint64_t)i + 1;
		w[i].unmapped = unmapped;
		pthread_create(&th[i], NULL, fz_thread, &w[i]);
	}
	for (i = 0; i < FZ_THREADS; i++)
		pthread_join(th[i], NULL);
	_exit(0);
}

static pid_t fz_spawn(struct fz_ctl *c, uint32_t design, int p, uint64_t seed)
{
	pid_t kid = fork();

	if (kid == 0)
		fz_process(c, design, p * FZ_THREADS, seed);
	return kid;
}

/*
 * Reap @kid, which stops by itself by @deadline; SIGKILL after it. -1 if it
 * is still there 3 s after SIGKILL (it outlived its deadline for good).
 */
static int reap_kid_bounded(pid_t kid, uint64_t deadline)
{
	uint64_t end = deadline;
	int killed = 0;

	for (;;) {
		if (waitpid(kid, NULL, WNOHANG) == kid)
			return 0;
		if (now_ns() > end) {
			if (killed)
				return -1;
			kill(kid, SIGKILL);
			killed = 1;
			end = now_ns() + 3000000000ull;
		}
		usleep(5000);
	}
}

/* Lines of the kernel log that say something went wrong. */
static int bad_kernel_lines(char *first, size_t n)
{
	static char buf[1 << 20];
	int len = klogctl(3, buf, sizeof(buf) - 1), count = 0;
	char *line, *save = NULL;

	if (len < 0)
		return -1;
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "BUG") || strstr(line, "WARNING") ||
		    strstr(line, "lockup") || strstr(line, "stall") ||
		    strstr(line, "Oops") || strstr(line, "Busy inodes")) {
			if (!count)
				snprintf(first, n, "%s", line);
			count++;
		}
	}
	return count;
}

/*
 * Long on purpose: the fuzzer's one run is a sequence (fork the workers,
 * signal and kill them at random, reap them under a watchdog, then check
 * the counts and dmesg) whose steps share the worker table.
 */
int t_fuzz(uint32_t design)
{
	struct fz_ctl *c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t seed = fuzz_seed * 131 + design, start = now_ns(), t;
	uint64_t end = start + (uint64_t)fuzz_seconds * 1000000000ull;
	uint64_t last_progress = start, last_report = start;
	unsigned long last_ops = 0;
	pid_t kids[FZ_PROCS];
	unsigned long kills = 0, signals = 0, ok = 0, err = 0;
	char klog[200] = "", overrun[160] = "";
	int klog_before, klog_after, i, j, ret = -1;
	struct futexlab_stats st;

	if (c == MAP_FAILED)
		return fail("mmap"), -1;
	memset(c, 0, sizeof(*c));
	snprintf(c->dir, sizeof(c->dir), "/tmp/kmodtest-fz-XXXXXX");
	if (!mkdtemp(c->dir) || chmod(c->dir, 0755))
		return fail("mkdtemp: %s", strerror(errno)), -1;
	/*
	 * Above the workers' own SCHED_FIFO (at most 20): the watchdog runs
	 * whatever they chose.
	 */
	set_fifo(0, 30);
	for (i = 0; i < FZ_WORDS; i++)
		c->words[2 * i + 1] = FUTEXLAB_NO_NODE;
	klog_before = bad_kernel_lines(klog, sizeof(klog));
	for (i = 0; i < FZ_PROCS; i++)
		kids[i] = fz_spawn(c, design, i, fz_rand(&seed));
	while (c->ops < fuzz_ops && (t = now_ns()) < end && !overrun[0]) {
		usleep(2000 + fz_pick(&seed, 8000));
		/* every operation ends within 20 ms: no progress is a hang */
		if (c->ops != last_ops) {
			last_ops = c->ops;
			last_progress = t;
		} else if (t - last_progress > 6 * FZ_SLACK) {
			snprintf(overrun, sizeof(overrun),
				 "no operation completed for 30 s (at %lu)",
				 last_ops);
		}
		if (t - last_report > 10000000000ull) {
			printf("# fuzz %s: %lu operations after %.0f s\n",
			       design_name(design), (unsigned long)c->ops,
			       (t - start) / 1e9);
			last_report = t;
		}
		i = fz_pick(&seed, FZ_WORKERS);
		if (c->slot[i].tid && fz_pick(&seed, 2)) {
			syscall(SYS_tgkill, kids[i / FZ_THREADS],
				c->slot[i].tid, SIGUSR1);
			signals++;
		}
		if (fz_pick(&seed, 100) == 0) {
			/* kill -9 a worker process, start another */
			j = fz_pick(&seed, FZ_PROCS);
			kill(kids[j], SIGKILL);
			if (reap_kid_bounded(kids[j], now_ns()))
				snprintf(overrun, sizeof(overrun),
					 "worker process %d outlived SIGKILL by 3 s",
					 j);
			for (i = 0; i < FZ_THREADS; i++)
				c->slot[j * FZ_THREADS + i].tid = 0;
			kids[j] = fz_spawn(c, design, j, fz_rand(&seed));
			kills++;
		}
		for (i = 0; i < FZ_WORKERS; i++) {
			uint64_t e = c->slot[i].op_end;

			if (e && now_ns() > e + FZ_SLACK)
				snprintf(overrun, sizeof(overrun),
					 "worker %d's %s outlived its deadline by 5 s",
					 i, op_names[c->slot[i].op]);
		}
	}
	c->stop = 1;
	for (i = 0; i < FZ_PROCS; i++)
		if (reap_kid_bounded(kids[i], now_ns() + 2 * FZ_SLACK) &&
		    !overrun[0])
			snprintf(overrun, sizeof(overrun),
				 "worker process %d outlived the run and SIGKILL",
				 i);
	for (i = 0; i < OP_NR; i++) {
		ok += c->results[i][0];
		err += c->results[i][1];
	}
	set_fifo(0, 0);
	rmdir(c->dir);
	printf("# fuzz %s: seed %lu, %lu operations (%lu ok, %lu errors) in %.1f s, %lu signals, %lu kills, %lu forks, %lu remounts\n",
	       design_name(design), fuzz_seed, ok + err, ok, err,
	       (now_ns() - start) / 1e9, signals, kills,
	       (unsigned long)c->forks, (unsigned long)c->remounts);
	klog_after = bad_kernel_lines(klog, sizeof(klog));
	if (overrun[0]) {
		fail("%s", overrun);
	} else if (c->bad) {
		fail("%d undocumented results, the first: %s", c->bad,
		     c->first_bad);
	} else if (klog_after != klog_before) {
		fail("the kernel log gained %d bad lines: %s",
		     klog_after - klog_before, klog);
	} else {
		int fd = open_design(design == FUTEXLAB_DESIGN_PRIVATE ?
				     FUTEXLAB_DESIGN_GLOBAL : design, 0);

		k_stats(fd, &st, NULL, 0);
		close(fd);
		if (st.live_waiters)
			fail("%llu waiters left queued",
			     (unsigned long long)st.live_waiters);
		else if (ok + err < 100)
			fail("only %lu operations ran", ok + err);
		else
			ret = 0;
	}
	munmap(c, sizeof(*c));
	return ret;
}
