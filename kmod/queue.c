// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab: the queue of a bucket, and the futex word read and changed
 * under its lock.
 *
 * The queue is a priority list of our own (plist is not exported to
 * modules): entries are kept sorted by kernel priority, FIFO among equal
 * priorities. Insertion walks from the tail, so the common case of
 * waiters that share a priority costs O(1). Waiters are woken in batches
 * (struct flk_wake_batch) after the bucket lock is dropped.
 */
#include <linux/sched/task.h>
#include <linux/uaccess.h>
#include <asm/futex.h>

#include "futexlab_internal.h"

/* Waker side of the barrier pair in waitwake.c: full barrier, then read. */
int flk_hb_waiters_pending(struct flk_bucket *hb)
{
	/* B: order the user's store to the word before reading waiters */
	smp_mb();
	return atomic_read(&hb->waiters);
}

/* The priority list: sorted by prio, FIFO among equal priorities. */
static void __flk_prio_insert(struct flk_bucket *hb, struct flk_q *q)
{
	struct flk_q *pos;

	list_for_each_entry_reverse(pos, &hb->chain, list) {
		if (pos->prio <= q->prio) {
			list_add(&q->list, &pos->list);
			return;
		}
	}
	list_add(&q->list, &hb->chain);
}

/* Set up the waiter @q of the futex @t, not queued yet. */
void flk_q_init(struct flk_q *q, struct flk_target *t, u32 bitset)
{
	memset(q, 0, sizeof(*q));
	INIT_LIST_HEAD(&q->list);
	q->task = current;
	q->prio = current->prio;
	q->key = t->key;
	q->bitset = bitset;
}

/* Queue @q on @hb; the caller counted it in @hb->waiters already. */
void __flk_queue(struct flk_bucket *hb, struct flk_table *t, struct flk_q *q)
{
	lockdep_assert_held(&hb->lock);
	q->hb = hb;
	q->table = t;
	__flk_prio_insert(hb, q);
	hb->len++;
	if (hb->len > hb->max_len)
		hb->max_len = hb->len;
	hb->waits++;
}

/* Remove @q from its bucket; @q->hb stays set (the waker clears it). */
void __flk_unqueue(struct flk_q *q)
{
	struct flk_bucket *hb = q->hb;

	lockdep_assert_held(&hb->lock);
	list_del_init(&q->list);
	hb->len--;
	atomic_dec(&hb->waiters);
}

static void flk_wake_issue(struct flk_wake_batch *wb)
{
	unsigned int i;

	for (i = 0; i < wb->nr; i++) {
		wake_up_process(wb->task[i]);
		put_task_struct(wb->task[i]);
	}
	wb->nr = 0;
}

/*
 * Dequeue @q for waking. After the release store of NULL the waiter may
 * return and its stack (and @q) be gone: take the task reference first.
 * A full batch is woken right away, under the lock: correct, if slower.
 */
void __flk_wake_q(struct flk_q *q, struct flk_wake_batch *wb)
{
	struct task_struct *p = q->task;

	get_task_struct(p);
	__flk_unqueue(q);
	q->hb->woken++;
	/* release: the dequeue is visible before the waiter may leave */
	smp_store_release(&q->hb, NULL);
	if (wb->nr == FLK_WAKE_BATCH)
		flk_wake_issue(wb);
	wb->task[wb->nr++] = p;
}

void flk_wake_flush(struct flk_wake_batch *wb)
{
	flk_wake_issue(wb);
}

/*
 * The waiter leaves the queue by itself (timeout, signal, error).
 * Return: true if it was still queued and is now removed, false if a waker
 * dequeued it first (the wake, or the PI lock hand-over, is ours).
 */
bool flk_unqueue_self(struct flk_q *q)
{
	struct flk_bucket *hb;

	for (;;) {
		/* acquire: pairs with the waker's release of NULL */
		hb = smp_load_acquire(&q->hb);
		if (!hb)
			return false;
		spin_lock(&hb->lock);
		/* a requeue may have moved us, a waker may have taken us */
		if (likely(hb == q->hb))
			break;
		spin_unlock(&hb->lock);
	}
	__flk_unqueue(q);
	if (q->pi)
		__flk_pi_waiter_left(q->pi);	/* in the same critical section */
	spin_unlock(&hb->lock);
	return true;
}

/**
 * flk_lock_word() - flk_lock_waiting(), then read the word of @t
 * @t:		the futex whose word is read
 * @dest:	as for flk_lock_waiting()
 * @uaddr:	the word of @t
 * @uval:	the value read
 *
 * Return: 0 with the bucket locks held; else flk_unlock_waiting() was done
 * and the word faulted: FLK_RETRY if it was faulted in (resolve the targets
 * again and retry), -EFAULT if it cannot be read.
 */
int flk_lock_word(struct flk_target *t, struct flk_target *dest,
		 u32 __user *uaddr, u32 *uval)
{
	flk_lock_waiting(t, dest);
	if (!flk_get_value_locked(uval, uaddr))
		return 0;
	flk_unlock_waiting(t, dest);
	return get_user(*uval, uaddr) ? -EFAULT : FLK_RETRY;
}

/**
 * flk_queue_wait() - queue @q on @t if the word still holds @val
 * @t:		the futex
 * @q:		the waiter, from flk_q_init()
 * @uaddr:	the word
 * @val:	the value the caller saw
 *
 * Return: 0 once @q is queued (the bucket unlocked); else nothing is held:
 * -EAGAIN (the word changed, counted), -EFAULT or FLK_RETRY (flk_lock_word()).
 */
int flk_queue_wait(struct flk_target *t, struct flk_q *q, u32 __user *uaddr,
		  u32 val)
{
	u32 uval;
	int ret;

	ret = flk_lock_word(t, t, uaddr, &uval);
	if (ret)
		return ret;
	if (uval != val) {
		t->hb->eagain++;
		flk_unlock_waiting(t, t);
		return -EAGAIN;
	}
	__flk_queue(t->hb, t->table, q);
	spin_unlock(&t->hb->lock);
	return 0;
}

int flk_cmpxchg_value_locked(u32 *cur, u32 __user *uaddr, u32 old, u32 new)
{
	int ret;

	pagefault_disable();
	ret = futex_atomic_cmpxchg_inatomic(cur, uaddr, old, new);
	pagefault_enable();
	return ret;
}
