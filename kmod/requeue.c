// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab cmp_requeue: if *uaddr == val, wake nr_wake waiters of uaddr and
 * move up to nr_requeue of the rest to uaddr2, without waking them (the
 * condition-variable broadcast that avoids a thundering herd on the mutex).
 *
 * A waiter moved here goes through these states, each change made under
 * the lock of the bucket it leaves and of the bucket it enters:
 *
 *   queued(uaddr, hb1) --requeue--> queued(uaddr2, hb2) --wake--> woken
 *          |                                |
 *          +--timeout/signal--> gone        +--timeout/signal--> gone
 *
 * The waiter finds its current bucket through q->hb, which only changes
 * with both locks held; fl_unqueue_self() re-checks it after locking.
 * hb2->waiters is raised before the locks are taken (and dropped after),
 * so a concurrent waker of uaddr2 does not skip a bucket that is about to
 * receive waiters (the stock futex does the same).
 *
 * PI waiters are never requeued here: a PI waiter on uaddr is -EINVAL, as
 * in the stock futex.
 */
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/uaccess.h>

#include "futexlab.h"

#define FL_REQUEUE_FLAGS	(FUTEXLAB_F_SHARED | FUTEXLAB_F_NODE)

/* Move @q to @t2; the caller holds both bucket locks. */
static void __fl_requeue_q(struct fl_q *q, struct fl_target *t2)
{
	struct fl_bucket *hb1 = q->hb;

	q->key = t2->key;
	if (t2->page && q->page != t2->page) {
		get_page(t2->page);
		if (q->page)
			put_page(q->page);
		q->page = t2->page;
	}
	hb1->requeued++;
	if (hb1 == t2->hb)
		return;
	list_del_init(&q->list);
	hb1->len--;
	atomic_dec(&hb1->waiters);
	atomic_inc(&t2->hb->waiters);
	__fl_queue(t2->hb, t2->table, q);
	/* __fl_queue() counted a wait: this is a move, not a new wait */
	t2->hb->waits--;
}

int fl_cmp_requeue(struct fl_ctx *ctx, struct futexlab_requeue *a)
{
	u32 __user *uaddr = u64_to_user_ptr(a->uaddr);
	struct fl_wake_batch wb = { .nr = 0 };
	int nr_requeue = (int)a->nr_requeue;
	int nr_wake = (int)a->nr_wake;
	struct fl_target t1, t2;
	int woken = 0, moved = 0;
	struct fl_q *q, *n;
	u32 uval;
	int ret;

	if (a->flags & ~FL_REQUEUE_FLAGS || a->pad || a->pad2)
		return -EINVAL;
	if (nr_wake < 0 || nr_requeue < 0)
		return -EINVAL;

retry:
	ret = fl_target_get(ctx, a->uaddr, a->flags, a->node, &t1, false);
	if (ret)
		return ret;
	ret = fl_target_get(ctx, a->uaddr2, a->flags, a->node2, &t2, true);
	if (ret)
		return ret;

	atomic_inc(&t2.hb->waiters);
	/* A: wakers of uaddr2 see the count before we move waiters */
	smp_mb__after_atomic();
	fl_hb_lock2(t1.hb, t2.hb);

	ret = fl_get_value_locked(&uval, uaddr);
	if (ret) {
		fl_hb_unlock2(t1.hb, t2.hb);
		atomic_dec(&t2.hb->waiters);
		fl_target_put(&t2);
		if (get_user(uval, uaddr))
			return -EFAULT;
		goto retry;
	}
	if (uval != a->val) {
		ret = -EAGAIN;
		goto out_unlock;
	}

	t1.hb->wakes++;
	list_for_each_entry_safe(q, n, &t1.hb->chain, list) {
		if (!fl_key_match(&q->key, &t1.key))
			continue;
		if (q->pi) {
			ret = -EINVAL;
			break;
		}
		if (woken < nr_wake) {
			__fl_wake_q(q, &wb);
			woken++;
			continue;
		}
		if (moved >= nr_requeue)
			break;
		__fl_requeue_q(q, &t2);
		moved++;
	}
	if (!ret)
		ret = woken + moved;

out_unlock:
	fl_hb_unlock2(t1.hb, t2.hb);
	atomic_dec(&t2.hb->waiters);
	fl_wake_flush(&wb);
	fl_target_put(&t2);
	return ret;
}
