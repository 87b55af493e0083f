// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab wait and wake.
 *
 * The lost-wakeup rule. A waiter must never sleep after the waker changed
 * the word and looked for waiters; the waker must never skip a waiter that
 * saw the old value. The waiter announces itself in hb->waiters and reads
 * the word under the bucket lock; the waker changes the word in user space
 * first, then looks at hb->waiters (and takes the lock only if non-zero):
 *
 *   CPU 0 (waiter)                         CPU 1 (waker)
 *
 *   atomic_inc(&hb->waiters);
 *   smp_mb__after_atomic();  (A)           *futex = new;   (user space)
 *   spin_lock(&hb->lock);                  sys_ioctl(WAKE)
 *   uval = *futex;                           smp_mb();      (B)
 *   if (uval == val) {                       if (!atomic_read(&hb->waiters))
 *           queue(q);                                return 0;
 *           spin_unlock(&hb->lock);          spin_lock(&hb->lock);
 *           sleep();                         dequeue and wake q;
 *   }                                        spin_unlock(&hb->lock);
 *
 * Barrier A orders the increment before the read of the word, barrier B
 * orders the waker's store to the word before its read of the counter:
 * either the waiter reads the new value (and returns -EAGAIN), or the waker
 * reads a non-zero counter, takes the lock after the waiter queued, and
 * finds it. Everything after the counter is serialized by the bucket lock.
 * The counter stays raised while the waiter is queued and drops when it
 * leaves the queue (__flk_unqueue()). The waiter's side is
 * flk_lock_waiting() in futexlab_internal.h, shared by every operation that
 * queues.
 *
 * The word is read with page faults disabled, because the bucket lock is a
 * spinlock; on a fault the lock is dropped, the page faulted in by an
 * ordinary get_user(), and the whole operation retried (flk_wait(),
 * flk_lock_word()).
 */
#include <linux/errno.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>

#include "futexlab_internal.h"

#define FLK_WAIT_FLAGS	(FUTEXLAB_F_SHARED | FUTEXLAB_F_DEADLINE | \
			 FUTEXLAB_F_NODE | FUTEXLAB_F_INTERRUPTIBLE)
#define FLK_WAKE_FLAGS	(FUTEXLAB_F_SHARED | FUTEXLAB_F_NODE)

/*
 * The sleeping half of flk_wait(), entered with @t's bucket locked and
 * counted in hb->waiters, the word found equal to the expected value: the
 * waiter is built and queued here, not before the compare, so a failing
 * wait (the common case of a contended lock whose word moved on) never
 * pays for it. Out of line so that flk_wait()'s frame, which the
 * kernel's automatic stack initialisation zeroes on every call, does not
 * hold the waiter either.
 */
static noinline int flk_wait_sleep(struct flk_target *t, u32 bitset,
				   ktime_t *deadline, u32 flags)
{
	struct flk_q q;

	flk_q_init(&q, t, bitset);
	__flk_queue(t->hb, t->table, &q);
	spin_unlock(&t->hb->lock);
	return flk_cancelled(flags, flk_wait_queued(&q, deadline));
}

int flk_wait(struct flk_ctx *ctx, struct futexlab_wait *a)
{
	u32 __user *uaddr = u64_to_user_ptr(a->uaddr);
	ktime_t deadline, *dl;
	/* flk_target_get() writes what is read, so no zeroing on every call */
	struct flk_target t __uninitialized;
	u32 uval;
	int ret;

	if (a->flags & ~FLK_WAIT_FLAGS)
		return -EINVAL;
	if (!a->bitset)
		return -EINVAL;
	dl = flk_deadline(a->flags, a->deadline_ns, &deadline);

retry:
	ret = flk_target_get(ctx, a->uaddr, a->flags, a->node, &t);
	if (ret)
		return ret;
	flk_lock_waiting(&t, &t);
	if (unlikely(flk_get_value_locked(&uval, uaddr))) {
		flk_unlock_waiting(&t, &t);
		if (get_user(uval, uaddr))
			return -EFAULT;
		ret = flk_retry_check(dl);
		if (ret)
			return flk_cancelled(a->flags, ret);
		goto retry;
	}
	if (uval != a->val) {
		t.hb->eagain++;
		flk_unlock_waiting(&t, &t);
		return -EAGAIN;
	}
	return flk_wait_sleep(&t, a->bitset, dl, a->flags);
}

int flk_wake(struct flk_ctx *ctx, struct futexlab_wake *a)
{
	struct flk_wake_batch wb = { .nr = 0 };
	int nr_wake = (int)a->nr_wake;
	struct flk_q *q, *n;
	struct flk_target t;
	int ret;

	if (a->flags & ~FLK_WAKE_FLAGS)
		return -EINVAL;
	if (!a->bitset)
		return -EINVAL;

	ret = flk_target_get(ctx, a->uaddr, a->flags, a->node, &t);
	if (ret) {
		/*
		 * numa design, private key: the node word was needed only to
		 * find the table; an unmapped word has no waiters (the stock
		 * futex does not touch the page of a private wake).
		 */
		if (ret == -EFAULT && ctx->design == FUTEXLAB_DESIGN_NUMA &&
		    !(a->flags & FUTEXLAB_F_SHARED))
			return 0;
		return ret;
	}

	if (!flk_hb_waiters_pending(t.hb))	/* B: see the comment above */
		return 0;

	ret = 0;
	flk_hb_lock(t.hb);
	t.hb->wakes++;
	list_for_each_entry_safe(q, n, &t.hb->chain, list) {
		if (!flk_key_match(&q->key, &t.key))
			continue;
		if (q->pi || q->rq_pi) {
			ret = -EINVAL;
			break;
		}
		if (!(q->bitset & a->bitset))
			continue;
		__flk_wake_q(q, &wb);
		if (++ret >= nr_wake)
			break;
	}
	spin_unlock(&t.hb->lock);
	flk_wake_flush(&wb);
	return ret;
}
