// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab futex_waitv: sleep on up to FUTEXLAB_WAITV_MAX futexes at once
 * (each with its own value, key kind and node) and return the index of the
 * one whose wake ended the sleep.
 *
 * Setup resolves every futex's key, then queues one waiter per futex, in
 * vector order, each exactly as a single wait queues (flk_queue_wait():
 * the waiters count, barrier A of waitwake.c, the bucket lock, the word
 * read under it). One bucket lock is
 * held at a time and always in the order of the vector, so two vectors
 * naming the same buckets in any order cannot deadlock, and a wake of any
 * futex already queued finds its waiter: the lost-wakeup rule holds per
 * futex. If a word no longer holds its value, the futexes queued so far
 * are unqueued and the call is EAGAIN, unless one of them was woken
 * meanwhile: then it returns that index, since its wake was consumed.
 *
 * A waker dequeues one entry and clears its ->hb; every entry names the
 * same task, so one wakeup ends the sleep, whichever futex it came from.
 * After the sleep every entry still queued is unqueued; the index of a
 * woken one (the last, as the kernel's futex_unqueue_multiple() answers)
 * wins over a deadline or a signal that came at the same time.
 *
 * The entries (a struct flk_q and a struct flk_target each, a few
 * hundred bytes) live in one allocation per call, accounted to the
 * caller's memory cgroup and freed on every path: 128 of them do not fit
 * a kernel stack.
 */
#include <linux/errno.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "futexlab_internal.h"

#define FLK_WAITV_ENTRY_FLAGS	(FUTEXLAB_WAITV_SIZE_MASK | \
				 FUTEXLAB_WAITV_NUMA | FUTEXLAB_WAITV_PRIVATE)
/* the call's flags: FUTEXLAB_F_INTERRUPTIBLE cancels the whole wait */
#define FLK_WAITV_FLAGS	(FUTEXLAB_F_DEADLINE | FUTEXLAB_F_INTERRUPTIBLE)

/**
 * struct flk_waitv_entry - one futex of the vector
 * @q:		its waiter (valid while @queued)
 * @t:		its target, resolved before each setup pass
 * @uaddr:	its word
 * @val:	the value it must hold
 * @flags:	FUTEXLAB_F_SHARED, FUTEXLAB_F_NODE, for flk_target_get()
 * @queued:	@q is (or was, until a waker took it) on a bucket's chain
 */
struct flk_waitv_entry {
	struct flk_q q;
	struct flk_target t;
	u32 __user *uaddr;
	u32 val;
	u32 flags;
	bool queued;
};

/* Copy in and check one entry, as futex_parse_waitv() does. */
static int flk_waitv_read(struct futexlab_waitv __user *uv,
			  struct flk_waitv_entry *e)
{
	struct futexlab_waitv v;

	if (copy_from_user(&v, uv, sizeof(v)))
		return -EFAULT;
	if ((v.flags & ~FLK_WAITV_ENTRY_FLAGS) || v.reserved)
		return -EINVAL;
	if ((v.flags & FUTEXLAB_WAITV_SIZE_MASK) != FUTEXLAB_WAITV_SIZE_U32)
		return -EINVAL;
	if (v.val >> 32)
		return -EINVAL;
	if (v.uaddr % sizeof(u32) || v.uaddr != (unsigned long)v.uaddr)
		return -EINVAL;
	e->uaddr = u64_to_user_ptr(v.uaddr);
	e->val = (u32)v.val;
	e->flags = 0;
	if (!(v.flags & FUTEXLAB_WAITV_PRIVATE))
		e->flags |= FUTEXLAB_F_SHARED;
	/* a plain u32 unless the entry says a node word follows it */
	if (!(v.flags & FUTEXLAB_WAITV_NUMA))
		e->flags |= FUTEXLAB_F_NODE;
	return 0;
}

/*
 * Unqueue the first @n entries (those queued) and drop what they hold.
 * Return: the index of the last one a waker had dequeued, or -1.
 */
static int flk_waitv_unqueue(struct flk_waitv_entry *v, unsigned int n)
{
	int woken = -1;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!v[i].queued)
			continue;
		if (!flk_unqueue_self(&v[i].q))
			woken = i;
		v[i].queued = false;
	}
	return woken;
}

/*
 * Resolve every futex of the vector, then queue a waiter on each, in
 * order (the keys first, as the kernel's futex_wait_multiple_setup(), so
 * a bad address is EFAULT or EINVAL whatever the words hold).
 * Return: 0 with all queued; else none is queued and nothing held, and the
 * result is -EAGAIN, -EFAULT, -EINVAL, or FLK_RETRY (a word was faulted
 * in: resolve and queue again), with *@woken the index of an entry a waker
 * took meanwhile (-1 if none), which then is the answer.
 */
static int flk_waitv_setup(struct flk_ctx *ctx, struct flk_waitv_entry *v,
			   unsigned int n, int *woken)
{
	unsigned int i;
	int ret = 0;

	*woken = -1;
	for (i = 0; i < n; i++) {
		ret = flk_target_get(ctx, (unsigned long)v[i].uaddr,
				     v[i].flags, FUTEXLAB_NO_NODE, &v[i].t);
		if (ret)
			return ret;
	}
	for (i = 0; i < n; i++) {
		struct flk_waitv_entry *e = &v[i];

		flk_q_init(&e->q, &e->t, FUTEXLAB_BITSET_ANY);
		ret = flk_queue_wait(&e->t, &e->q, e->uaddr, e->val);
		if (ret)
			break;
		e->queued = true;
	}
	if (!ret)
		return 0;
	*woken = flk_waitv_unqueue(v, i);
	return ret;
}

/*
 * Sleep until a waker dequeues one of the entries, the deadline, or a
 * signal: flk_sleep() for many entries of one task.
 */
static void flk_waitv_sleep(struct flk_waitv_entry *v, unsigned int n,
			    ktime_t *deadline, bool *timed_out)
{
	unsigned int i;

	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		for (i = 0; i < n; i++) {
			/* acquire: pairs with the waker's release of NULL */
			if (!smp_load_acquire(&v[i].q.hb))
				goto out;
		}
		if (!flk_sleep_once(deadline, timed_out))
			break;
	}
out:
	__set_current_state(TASK_RUNNING);
}

int flk_waitv(struct flk_ctx *ctx, struct futexlab_waitv_args *a)
{
	struct futexlab_waitv __user *uv = u64_to_user_ptr(a->waiters);
	struct flk_waitv_entry *v;
	ktime_t deadline, *dl;
	struct flk_table *table;
	bool timed_out = false;
	unsigned int i, n = a->nr;
	int ret, woken;

	if (a->flags & ~FLK_WAITV_FLAGS)
		return -EINVAL;
	if (!n || n > FUTEXLAB_WAITV_MAX || !a->waiters)
		return -EINVAL;
	dl = flk_deadline(a->flags, a->deadline_ns, &deadline);

	v = kvcalloc(n, sizeof(*v), GFP_KERNEL_ACCOUNT);
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		ret = flk_waitv_read(&uv[i], &v[i]);
		if (ret)
			goto out_free;
	}

	for (;;) {
		ret = flk_waitv_setup(ctx, v, n, &woken);
		if (woken >= 0) {
			ret = woken;	/* its wake was ours: it counts */
			goto out_free;
		}
		if (ret != FLK_RETRY)
			break;
		ret = flk_retry_check(dl);
		if (ret)
			goto out_free;
	}
	if (ret)
		goto out_free;

	table = v[0].q.table;
	flk_waitv_sleep(v, n, dl, &timed_out);
	ret = flk_waitv_unqueue(v, n);
	if (ret >= 0)
		goto out_free;
	if (timed_out) {
		atomic64_inc(&table->timeouts);
		ret = -ETIMEDOUT;
	} else {
		/* a signal: the ioctl is issued again, or EINTR */
		atomic64_inc(&table->signals);
		ret = -ERESTARTSYS;
	}
out_free:
	kvfree(v);
	return ret;
}
