// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab: a PI lock whose owner dies holding it.
 *
 * The stock futex learns of the death at once: exit_pi_state_list() runs
 * in the owner's exit path and hands each contended PI lock to its top
 * waiter, which becomes the owner and rewrites the word to its TID |
 * WAITERS | OWNER_DIED (the previous owner died: the data it protected
 * may be inconsistent), then returns 0 from LOCK_PI. A module cannot add
 * an exit hook, so the waiters look for the death themselves: a PI waiter
 * (lock_pi, or wait_requeue_pi once requeued onto the lock) sleeps in
 * slices of pi_owner_check_ms, never beyond its own deadline, and at the
 * end of each slice checks, under the bucket lock, whether the owner its
 * PI state names is exiting (PF_EXITING: it never returns to user space,
 * so it never unlocks). If so, the waiter that noticed hands the lock to
 * the top waiter as unlock_pi would, with the stock futex's word: top's
 * TID | WAITERS | OWNER_DIED; top is the owner, dequeued and woken, and
 * returns 0; the others stay queued behind it, and the boost is
 * recomputed for the new owner.
 *
 * The cost: a wakeup and one bucket lock per slice per sleeping PI
 * waiter; the latency: at most one slice after the owner started to exit
 * (plus the waiter's scheduling). No wait depends on the dead owner.
 */
#include <linux/errno.h>
#include <linux/hrtimer.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/sched/task.h>

#include "futexlab_internal.h"

#define FLK_PI_CHECK_MS_MAX	1000U

static unsigned int flk_pi_owner_check_ms = 100;
module_param_named(pi_owner_check_ms, flk_pi_owner_check_ms, uint, 0644);
MODULE_PARM_DESC(pi_owner_check_ms,
		 "a sleeping PI waiter checks every this many ms whether the owner died (1..1000)");

/* The slice length in ns: the parameter, kept within 1..1000 ms */
static u64 flk_pi_slice_ns(void)
{
	unsigned int ms = clamp(READ_ONCE(flk_pi_owner_check_ms), 1U,
				FLK_PI_CHECK_MS_MAX);

	return (u64)ms * NSEC_PER_MSEC;
}

static bool flk_task_exiting(struct task_struct *p)
{
	/* set early in do_exit(), before exit_mm(): never back to user space */
	return READ_ONCE(p->flags) & PF_EXITING;
}

/*
 * Lock the bucket @q is queued on. Return: it, or NULL if @q is no longer
 * queued (a waker took it).
 */
static struct flk_bucket *flk_lock_q_bucket(struct flk_q *q)
{
	struct flk_bucket *hb;

	for (;;) {
		/* acquire: pairs with the waker's release of NULL */
		hb = smp_load_acquire(&q->hb);
		if (!hb)
			return NULL;
		flk_hb_lock(hb);
		if (likely(hb == q->hb))
			return hb;
		spin_unlock(&hb->lock);
	}
}

/* Is @q a queued PI waiter whose lock's owner is exiting? */
static bool flk_pi_owner_exiting(struct flk_q *q)
{
	struct flk_bucket *hb = flk_lock_q_bucket(q);
	struct task_struct *owner;
	bool gone = false;

	if (!hb)
		return false;
	if (q->pi) {
		owner = __flk_pi_owner(q->pi);
		gone = owner && flk_task_exiting(owner);
	}
	spin_unlock(&hb->lock);
	return gone;
}

/*
 * Rewrite the word for the new owner @tid, as the stock futex's fixup does
 * when the old owner died: TID | WAITERS | OWNER_DIED, whatever TID the
 * word had (the PI state, not the word, says who owns the lock: a TID
 * reused since the owner died must not keep the lock stranded). The
 * bucket lock is held.
 * Return: 0, -EAGAIN (the word kept changing) or a fault (fault the word
 * in, try again).
 */
static int __flk_pi_word_takeover(u32 __user *uaddr, u32 tid)
{
	unsigned int tries = FLK_CMPXCHG_TRIES;
	u32 uval, cur, newval;
	int ret;

	ret = flk_get_value_locked(&uval, uaddr);
	while (!ret && tries--) {
		newval = tid | FUTEXLAB_WAITERS | FUTEXLAB_OWNER_DIED;
		ret = flk_cmpxchg_value_locked(&cur, uaddr, uval, newval);
		if (ret)
			break;
		if (cur == uval)
			return 0;
		uval = cur;
	}
	return ret ? ret : -EAGAIN;
}

/*
 * The owner of @q's lock is exiting: hand the lock to its top waiter (@q
 * or another), as unlock_pi would. @uaddr, @flags and @node name the
 * lock word as @q's caller gave it; the word is only written if it still
 * resolves to @q's key and bucket.
 */
static void flk_pi_take_over(struct flk_q *q, struct flk_ctx *ctx,
			     u64 uaddr, u32 flags, u32 node)
{
	struct flk_wake_batch wb = { .nr = 0 };
	struct task_struct *old_owner = NULL, *owner;
	struct flk_pi_state *pi = NULL;
	struct flk_target t;
	struct flk_q *top;
	int ret;

	if (flk_target_get(ctx, uaddr, flags, node, &t))
		return;
	flk_hb_lock(t.hb);
	/* still queued here (a waker may have taken us), on this word */
	if (q->hb != t.hb || !q->pi || !flk_key_match(&q->key, &t.key))
		goto out_unlock;
	owner = __flk_pi_owner(q->pi);
	if (!owner || !flk_task_exiting(owner))
		goto out_unlock;	/* someone took over already */
	top = __flk_pi_top_waiter(t.hb, &t.key);
	ret = __flk_pi_word_takeover(u64_to_user_ptr(uaddr),
				     task_pid_vnr(top->task));
	if (ret) {
		spin_unlock(&t.hb->lock);
		/* a fault: fault it in now, the next slice tries again */
		if (ret != -EAGAIN)
			flk_fault_in_writeable(u64_to_user_ptr(uaddr));
		return;
	}
	pi = q->pi;
	old_owner = __flk_pi_hand_to(pi, top, &wb);
out_unlock:
	spin_unlock(&t.hb->lock);
	flk_wake_flush(&wb);
	if (old_owner)
		put_task_struct(old_owner);
	if (pi) {
		flk_pi_adjust(pi);	/* the boost moves to the new owner */
		flk_pi_put(pi);
	}
}

/**
 * flk_pi_wait_queued() - flk_wait_queued() for a PI waiter: sleep in
 * slices and take the lock over if its owner dies
 * @q:		the queued waiter (lock_pi's, or wait_requeue_pi's, which
 *		becomes a PI waiter once requeued)
 * @deadline:	absolute CLOCK_MONOTONIC, or NULL
 * @ctx:	the file's context
 * @uaddr:	the PI lock word (wait_requeue_pi: uaddr2)
 * @flags:	its FUTEXLAB_F_SHARED and FUTEXLAB_F_NODE
 * @node:	with FUTEXLAB_F_NODE: its node
 *
 * Return: 0 if a waker dequeued @q (it owns the lock, or, not requeued
 * yet, was taken by cmp_requeue_pi), -ETIMEDOUT or -ERESTARTSYS, as
 * flk_wait_queued().
 */
int flk_pi_wait_queued(struct flk_q *q, ktime_t *deadline,
		       struct flk_ctx *ctx, u64 uaddr, u32 flags, u32 node)
{
	bool timed_out = false, last;
	ktime_t end;
	int ret = 0;

	for (;;) {
		end = ktime_add_ns(ktime_get(), flk_pi_slice_ns());
		last = deadline && ktime_compare(*deadline, end) <= 0;
		if (last)
			end = *deadline;
		if (!flk_sleep(q, &end, &timed_out))
			break;			/* a waker dequeued us */
		if (timed_out && !last) {
			/* a slice ended: is the owner gone? */
			timed_out = false;
			if (flk_pi_owner_exiting(q))
				flk_pi_take_over(q, ctx, uaddr, flags, node);
			continue;
		}
		ret = flk_wait_left(q, timed_out);
		break;
	}
	return ret;
}
