// SPDX-License-Identifier: GPL-2.0
/*
 * kmodtest's fuzzer (kmodtest_fuzz.c): one random operation on
 * /dev/futexlab with random, partly invalid arguments (word addresses,
 * flags, values stored into words), and the results documented for each.
 */
#include "kmodtest_fuzz.h"

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
int fz_one(struct fz_worker *w, void *unmapped, int op)
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

int fz_documented(int op, int r)
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
