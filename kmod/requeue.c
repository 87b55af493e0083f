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
 * with both locks held; flk_unqueue_self() re-checks it after locking.
 * hb2->waiters is raised before the locks are taken (and dropped after),
 * so a concurrent waker of uaddr2 does not skip a bucket that is about to
 * receive waiters (the stock futex does the same).
 *
 * PI waiters are never requeued here: a PI waiter (or a wait_requeue_pi
 * waiter) on uaddr is -EINVAL, as in the stock futex.
 *
 * Requeue-PI, the condition variable whose mutex is a PI lock: the waiter
 * sleeps on uaddr with wait_requeue_pi, naming the PI lock uaddr2;
 * cmp_requeue_pi then either takes uaddr2 for the top waiter (the word
 * becomes its TID, and it returns owning the lock without ever contending
 * in user space), or queues it on uaddr2 as a PI waiter, as if it had
 * called lock_pi, together with up to nr_requeue more:
 *
 *   queued(uaddr) --cmp_requeue_pi, uaddr2 free--> owns uaddr2 (returns 0)
 *        |
 *        +--cmp_requeue_pi, uaddr2 held--> PI waiter(uaddr2) --unlock_pi-->
 *        |                                      |           owns (0)
 *        +--timeout: -ETIMEDOUT                 +--timeout: -ETIMEDOUT
 *        +--signal: restart (then -EAGAIN)      +--signal: -EAGAIN
 *
 * as the stock futex does; with FUTEXLAB_F_INTERRUPTIBLE a signal is
 * -ECANCELED in both states, the requeued waiter leaving the PI lock's
 * chain as at its deadline.
 */
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "futexlab_internal.h"

#define FLK_REQUEUE_FLAGS	(FUTEXLAB_F_SHARED | FUTEXLAB_F_NODE)

/* Move @q (on @t1's futex) to @t2; the caller holds both bucket locks. */
static void __flk_requeue_q(struct flk_q *q, struct flk_target *t1,
			    struct flk_target *t2)
{
	struct flk_bucket *hb1 = q->hb;

	q->key = t2->key;
	hb1->requeued++;
	if (hb1 == t2->hb)
		return;
	list_del_init(&q->list);
	hb1->len--;
	atomic_dec(&hb1->waiters);
	atomic_inc(&t2->hb->waiters);
	__flk_queue(t2->hb, t2->table, q);
	/* __flk_queue() counted a wait: this is a move, not a new wait */
	t2->hb->waits--;
}

/**
 * flk_requeue_lock() - resolve both futexes of a requeue, lock their buckets
 * and check the word of the first
 * @ctx:	the file's context
 * @a:		the request
 * @t1:		uaddr's target
 * @t2:		uaddr2's target
 *
 * uaddr2's bucket counts a waiter before the locks are taken (dropped by
 * flk_unlock_waiting()): wakers of uaddr2 see the count before we move
 * waiters there.
 *
 * Return: 0 with both bucket locks held, else nothing held: -EAGAIN (the
 * word is not a->val), -EFAULT, -EINVAL.
 */
static int flk_requeue_lock(struct flk_ctx *ctx, struct futexlab_requeue *a,
			   struct flk_target *t1, struct flk_target *t2)
{
	u32 __user *uaddr = u64_to_user_ptr(a->uaddr);
	u32 uval;
	int ret;

	for (;;) {
		ret = flk_target_get(ctx, a->uaddr, a->flags, a->node, t1);
		if (ret)
			return ret;
		ret = flk_target_get(ctx, a->uaddr2, a->flags, a->node2, t2);
		if (ret)
			return ret;
		ret = flk_lock_word(t1, t2, uaddr, &uval);
		if (ret != FLK_RETRY)
			break;
		ret = flk_retry_check(NULL);
		if (ret)
			return ret;
	}
	if (ret)
		return ret;
	if (uval != a->val) {
		flk_unlock_waiting(t1, t2);
		return -EAGAIN;
	}
	return 0;
}

int flk_cmp_requeue(struct flk_ctx *ctx, struct futexlab_requeue *a)
{
	struct flk_wake_batch wb = { .nr = 0 };
	int nr_requeue = (int)a->nr_requeue;
	int nr_wake = (int)a->nr_wake;
	struct flk_target t1, t2;
	int woken = 0, moved = 0;
	struct flk_q *q, *n;
	int ret;

	if (a->flags & ~FLK_REQUEUE_FLAGS || a->pad || a->pad2)
		return -EINVAL;
	if (nr_wake < 0 || nr_requeue < 0)
		return -EINVAL;

	ret = flk_requeue_lock(ctx, a, &t1, &t2);
	if (ret)
		return ret;

	t1.hb->wakes++;
	list_for_each_entry_safe(q, n, &t1.hb->chain, list) {
		if (!flk_key_match(&q->key, &t1.key))
			continue;
		if (q->pi || q->rq_pi) {
			ret = -EINVAL;
			break;
		}
		if (woken < nr_wake) {
			__flk_wake_q(q, &wb);
			woken++;
			continue;
		}
		if (moved >= nr_requeue)
			break;
		__flk_requeue_q(q, &t1, &t2);
		moved++;
	}
	if (!ret)
		ret = woken + moved;

	flk_unlock_waiting(&t1, &t2);
	flk_wake_flush(&wb);
	return ret;
}

#define FLK_WRPI_FLAGS	(FUTEXLAB_F_SHARED | FUTEXLAB_F_DEADLINE | \
			 FUTEXLAB_F_NODE | FUTEXLAB_F_INTERRUPTIBLE)

int flk_wait_requeue_pi(struct flk_ctx *ctx,
		       struct futexlab_wait_requeue_pi *a)
{
	u32 __user *uaddr = u64_to_user_ptr(a->uaddr);
	ktime_t deadline, *dl;
	struct flk_target t, t2;
	struct flk_q q;
	int ret;

	if (a->flags & ~FLK_WRPI_FLAGS)
		return -EINVAL;
	if (a->uaddr == a->uaddr2)
		return -EINVAL;
	dl = flk_deadline(a->flags, a->deadline_ns, &deadline);

retry:
	ret = flk_target_get(ctx, a->uaddr, a->flags, a->node, &t);
	if (ret)
		return ret;
	ret = flk_target_get(ctx, a->uaddr2, a->flags, a->node2, &t2);
	if (ret)
		return ret;
	/* the same futex through two mappings is still the same futex */
	if (flk_key_match(&t.key, &t2.key))
		return -EINVAL;

	flk_q_init(&q, &t, FUTEXLAB_BITSET_ANY);
	flk_q_init_pi(&q);
	q.rq_pi = true;
	q.key2 = t2.key;
	ret = flk_queue_wait(&t, &q, uaddr, a->val);
	if (ret) {
		if (ret != FLK_RETRY)
			return ret;
		ret = flk_retry_check(dl);
		if (ret)
			return ret;
		goto retry;
	}

	/*
	 * q.pi is stable once we are off every queue. In slices: once
	 * requeued, an owner of uaddr2 that dies is noticed (pi_owner.c).
	 */
	ret = flk_pi_wait_queued(&q, dl, ctx, a->uaddr2, a->flags, a->node2);
	/*
	 * A signal, without the flag: the stock futex restarts a waiter not
	 * requeued yet, and ends a requeued one with EAGAIN (a restart would
	 * find the condition word changed). With it, either is cancelled;
	 * a requeued one has left the PI lock's chain, as at its deadline.
	 */
	if (ret == -ERESTARTSYS && !(a->flags & FUTEXLAB_F_INTERRUPTIBLE))
		ret = q.pi ? -EAGAIN : -ERESTARTNOINTR;
	/* success: cmp_requeue_pi took the lock for us, or unlock_pi gave it */
	flk_pi_wait_done(&q, !ret);
	return ret;
}

/* Is there a waiter of @key after @top in its chain? */
static bool __flk_more_waiters(struct flk_bucket *hb, struct flk_q *top,
			      struct flk_key *key)
{
	struct flk_q *q = top;

	list_for_each_entry_continue(q, &hb->chain, list)
		if (flk_key_match(&q->key, key))
			return true;
	return false;
}

/*
 * One function, as the stock futex_requeue() is: the retry after a fault
 * must drop and retake both bucket locks and recheck everything, and the
 * labels that unwind that state are shared by every step.
 */
int flk_cmp_requeue_pi(struct flk_ctx *ctx, struct futexlab_requeue *a)
{
	u32 __user *uaddr2 = u64_to_user_ptr(a->uaddr2);
	struct flk_wake_batch wb = { .nr = 0 };
	struct task_struct *old_owner = NULL;
	struct flk_pi_state *pi = NULL, *prealloc;
	int nr_requeue = (int)a->nr_requeue;
	struct flk_q *q, *n, *top;
	int count = 0, moved = 0, limit;
	struct flk_target t1, t2;
	bool locked, more;
	u32 uval2;
	int ret;

	if (a->flags & ~FLK_REQUEUE_FLAGS || a->pad || a->pad2)
		return -EINVAL;
	if ((int)a->nr_wake != 1 || nr_requeue < 0)
		return -EINVAL;
	if (a->uaddr == a->uaddr2)
		return -EINVAL;
	prealloc = flk_pi_alloc();
	if (!prealloc)
		return -ENOMEM;

retry:
	ret = flk_requeue_lock(ctx, a, &t1, &t2);
	if (ret)
		goto out_free;
	/* two mappings of one page: one futex, as the stock futex compares */
	if (flk_key_match(&t1.key, &t2.key)) {
		ret = -EINVAL;
		goto out_unlock;
	}

	/* found again after a retry: the one found before may have left */
	top = NULL;
	list_for_each_entry(q, &t1.hb->chain, list) {
		if (flk_key_match(&q->key, &t1.key)) {
			top = q;
			break;
		}
	}
	if (!top)
		goto out_unlock;	/* nobody to requeue: 0 */
	if (!top->rq_pi || !flk_key_match(&top->key2, &t2.key)) {
		ret = -EINVAL;
		goto out_unlock;
	}
	more = nr_requeue > 0 && __flk_more_waiters(t1.hb, top, &t1.key);

	/* take uaddr2 for the top waiter if it is free, else mark WAITERS */
	ret = __flk_pi_claim(uaddr2, &uval2, __flk_pi_find(t2.hb, &t2.key),
			     task_pid_vnr(top->task), more, true);
	if (ret == -EDEADLK || ret == -EINVAL)
		goto out_unlock;
	if (ret < 0) {
		flk_unlock_waiting(&t1, &t2);
		if (ret != -EAGAIN) {
			ret = flk_fault_in_writeable(uaddr2);
			if (ret)
				goto out_free;
		}
		ret = flk_retry_check(NULL);
		if (ret)
			goto out_free;
		goto retry;
	}
	locked = ret;
	ret = 0;

	if (locked) {
		/* top owns uaddr2 now: wake it; the rest queue behind it */
		__flk_wake_q(top, &wb);
		count = 1;
		limit = nr_requeue;
	} else {
		/* top is queued on uaddr2 too */
		limit = nr_requeue < INT_MAX ? nr_requeue + 1 : INT_MAX;
	}
	if (limit > 0 && (!locked || more)) {
		ret = __flk_pi_attach(&t2, uval2 & FUTEXLAB_TID_MASK, &prealloc,
				     &pi, &old_owner);
		if (ret) {
			pi = NULL;
			goto out_unlock;
		}
		list_for_each_entry_safe(q, n, &t1.hb->chain, list) {
			if (moved >= limit)
				break;
			if (!flk_key_match(&q->key, &t1.key))
				continue;
			if (!q->rq_pi || !flk_key_match(&q->key2, &t2.key)) {
				ret = -EINVAL;
				break;
			}
			__flk_requeue_q(q, &t1, &t2);
			__flk_pi_add_waiter(pi, q);
			moved++;
		}
		__flk_pi_get(pi);	/* ours, for flk_pi_adjust() below */
	}
	if (!ret)
		ret = count + moved;

out_unlock:
	flk_unlock_waiting(&t1, &t2);
	flk_wake_flush(&wb);
	if (old_owner)
		put_task_struct(old_owner);
	if (pi) {
		flk_pi_adjust(pi);
		flk_pi_put(pi);
	}
out_free:
	kfree(prealloc);
	return ret;
}
