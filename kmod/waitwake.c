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
 * leaves the queue (__fl_unqueue()).
 *
 * The word is read with page faults disabled, because the bucket lock is a
 * spinlock; on a fault the lock is dropped, the page faulted in by an
 * ordinary get_user(), and the whole operation retried.
 */
#include <linux/errno.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>

#include "futexlab.h"

#define FL_WAIT_FLAGS	(FUTEXLAB_F_SHARED | FUTEXLAB_F_DEADLINE | \
			 FUTEXLAB_F_NODE)
#define FL_WAKE_FLAGS	(FUTEXLAB_F_SHARED | FUTEXLAB_F_NODE)

int fl_wait(struct fl_ctx *ctx, struct futexlab_wait *a)
{
	u32 __user *uaddr = u64_to_user_ptr(a->uaddr);
	ktime_t deadline, *dl = NULL;
	bool timed_out = false;
	struct fl_target t;
	struct fl_q q;
	u32 uval;
	int ret;

	if (a->flags & ~FL_WAIT_FLAGS)
		return -EINVAL;
	if (!a->bitset)
		return -EINVAL;
	if (a->flags & FUTEXLAB_F_DEADLINE) {
		deadline = a->deadline_ns > KTIME_MAX ? KTIME_MAX :
			   (ktime_t)a->deadline_ns;
		dl = &deadline;
	}

retry:
	ret = fl_target_get(ctx, a->uaddr, a->flags, a->node, &t, true);
	if (ret)
		return ret;

	memset(&q, 0, sizeof(q));
	INIT_LIST_HEAD(&q.list);
	q.task = current;
	q.prio = current->prio;
	q.key = t.key;
	q.bitset = a->bitset;
	q.page = t.page;

	atomic_inc(&t.hb->waiters);
	smp_mb__after_atomic();		/* A: see the comment above */
	fl_hb_lock(t.hb);

	ret = fl_get_value_locked(&uval, uaddr);
	if (ret) {
		spin_unlock(&t.hb->lock);
		atomic_dec(&t.hb->waiters);
		fl_target_put(&t);
		if (get_user(uval, uaddr))
			return -EFAULT;
		goto retry;
	}
	if (uval != a->val) {
		t.hb->eagain++;
		spin_unlock(&t.hb->lock);
		atomic_dec(&t.hb->waiters);
		fl_target_put(&t);
		return -EAGAIN;
	}
	__fl_queue(t.hb, t.table, &q);
	spin_unlock(&t.hb->lock);

	ret = 0;
	if (fl_sleep(&q, dl, &timed_out) && fl_unqueue_self(&q)) {
		if (timed_out) {
			atomic64_inc(&q.table->timeouts);
			ret = -ETIMEDOUT;
		} else {
			atomic64_inc(&q.table->signals);
			ret = -ERESTARTSYS;
		}
	}
	/* a requeue may have swapped the pinned page: put the current one */
	if (q.page)
		put_page(q.page);
	return ret;
}

int fl_wake(struct fl_ctx *ctx, struct futexlab_wake *a)
{
	struct fl_wake_batch wb = { .nr = 0 };
	int nr_wake = (int)a->nr_wake;
	struct fl_q *q, *n;
	struct fl_target t;
	int ret;

	if (a->flags & ~FL_WAKE_FLAGS)
		return -EINVAL;
	if (!a->bitset)
		return -EINVAL;

	ret = fl_target_get(ctx, a->uaddr, a->flags, a->node, &t, false);
	if (ret) {
		/*
		 * numa design, private key: the page was needed only to find
		 * the node; an unmapped word has no waiters (the stock
		 * futex does not touch the page of a private wake).
		 */
		if (ret == -EFAULT && ctx->design == FUTEXLAB_DESIGN_NUMA &&
		    !(a->flags & FUTEXLAB_F_SHARED))
			return 0;
		return ret;
	}

	if (!fl_hb_waiters_pending(t.hb))	/* B: see the comment above */
		return 0;

	ret = 0;
	fl_hb_lock(t.hb);
	t.hb->wakes++;
	list_for_each_entry_safe(q, n, &t.hb->chain, list) {
		if (!fl_key_match(&q->key, &t.key))
			continue;
		if (q->pi || q->rq_pi) {
			ret = -EINVAL;
			break;
		}
		if (!(q->bitset & a->bitset))
			continue;
		__fl_wake_q(q, &wb);
		if (++ret >= nr_wake)
			break;
	}
	spin_unlock(&t.hb->lock);
	fl_wake_flush(&wb);
	return ret;
}
