// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab adaptive lock: the article's "adaptive futexes". User space can
 * only spin blindly, because it cannot see whether a lock's owner runs; the
 * kernel can. The word is the PI word without inheritance: 0 free, else
 * the owner's TID, with FUTEXLAB_WAITERS while someone may sleep on it.
 * User space takes 0 -> TID and releases TID -> 0 by itself; it calls
 * LOCK_ADAPTIVE when the lock is held and UNLOCK_ADAPTIVE when the word
 * holds more than its TID.
 *
 * LOCK_ADAPTIVE, one pass under the bucket lock:
 *   free           take it (TID, and WAITERS if others still sleep here);
 *   owner dead     (no such task, exiting, a kernel thread: it will never
 *                  release) take it over, with FUTEXLAB_OWNER_DIED: EOWNERDEAD;
 *   owner on a CPU drop the lock and spin while the word is unchanged and
 *                  the owner stays on its CPU, at most adaptive_lock_spin_us
 *                  per call in all, stopping at need_resched(), a signal
 *                  or the deadline; then the next pass;
 *   otherwise      set WAITERS and queue, in the same critical section, and
 *                  sleep like a wait.
 *
 * The lost-wakeup rule: a sleeper sets WAITERS and queues under the bucket
 * lock, so the owner's TID -> 0 in user space fails and UNLOCK_ADAPTIVE,
 * which takes that lock, finds it. UNLOCK_ADAPTIVE stores 0 (or WAITERS
 * while more sleepers are queued, so that the next owner also comes to the
 * kernel) and wakes one sleeper, which then competes for the lock again. A
 * woken sleeper owes the others that attempt: it tries the lock once more
 * before it honours a signal or its deadline, and leaves only after it saw
 * the lock held with WAITERS set, whose owner will wake the next one.
 *
 * A sleeper looks at its owner every FLK_OWNER_CHECK_MS: an owner that
 * died (or a word that names another owner) sends it back to a new pass,
 * so a dead owner leaves nobody asleep beyond that; no spin outlives the
 * owner's time on a CPU. Nothing is boosted: the owner's scheduling is
 * only read.
 */
#include <linux/errno.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/uaccess.h>

#include "futexlab_internal.h"

static unsigned int flk_adaptive_lock_spin_us = 100;
module_param_named(adaptive_lock_spin_us, flk_adaptive_lock_spin_us, uint,
		   0644);
MODULE_PARM_DESC(adaptive_lock_spin_us,
		 "LOCK_ADAPTIVE spins at most this long per call while the owner runs (0: never spin)");

/* How often a sleeper checks that its owner can still release the lock. */
#define FLK_OWNER_CHECK_MS	20

#define FLK_ADAPTIVE_LOCK_FLAGS	(FUTEXLAB_F_SHARED | FUTEXLAB_F_DEADLINE | \
				 FUTEXLAB_F_NODE | FUTEXLAB_F_INTERRUPTIBLE)
#define FLK_ADAPTIVE_UNLOCK_FLAGS	(FUTEXLAB_F_SHARED | FUTEXLAB_F_NODE)

/* What one pass of LOCK_ADAPTIVE tells the loop around it. */
enum flk_pass {
	FLK_PASS_TAKEN,		/* we own the lock */
	FLK_PASS_TAKEN_OVER,	/* we own it; its owner had died */
	FLK_PASS_SPIN,		/* the owner runs: spin on @owner */
	FLK_PASS_QUEUED,	/* queued to sleep on @owner */
	FLK_PASS_AGAIN,		/* the word changed or was faulted in */
};

/* An owner that will never release the lock from user space again. */
static bool flk_owner_gone(struct task_struct *p)
{
	return !p || (READ_ONCE(p->flags) & (PF_EXITING | PF_KTHREAD));
}

/* Another waiter of @key is queued on @hb (its lock held). */
static bool __flk_key_waited(struct flk_bucket *hb, struct flk_key *key)
{
	struct flk_q *q;

	list_for_each_entry(q, &hb->chain, list)
		if (flk_key_match(&q->key, key))
			return true;
	return false;
}

/*
 * One pass under the bucket lock (see the top of the file). With
 * FLK_PASS_SPIN or FLK_PASS_QUEUED, *@owner holds a reference on the owner
 * and *@uval is the word seen; FLK_PASS_QUEUED leaves @q queued. Return:
 * the pass's outcome, or -EDEADLK, -EFAULT.
 */
static int flk_adaptive_pass(struct flk_target *t, struct flk_q *q,
			     u32 __user *uaddr, u32 tid, bool spin,
			     struct task_struct **owner, u32 *uval)
{
	struct task_struct *p = NULL;
	bool sleep = false, died = false;
	u32 val, new, cur;
	int ret;

	*owner = NULL;
	ret = flk_lock_word(t, t, uaddr, &val);
	if (ret)
		return ret == FLK_RETRY ? FLK_PASS_AGAIN : ret;
	*uval = val;
	if ((val & FUTEXLAB_TID_MASK) == tid) {
		ret = -EDEADLK;
		goto out_unlock;
	}
	new = tid;
	if (val & FUTEXLAB_TID_MASK) {
		p = flk_task_by_tid(val & FUTEXLAB_TID_MASK);
		if (flk_owner_gone(p)) {
			new = tid | FUTEXLAB_OWNER_DIED;
			died = true;
		} else if (spin && owner_on_cpu(p)) {
			ret = FLK_PASS_SPIN;
			goto out_unlock;
		} else {
			new = val | FUTEXLAB_WAITERS;
			sleep = true;
		}
	}
	if (!sleep && __flk_key_waited(t->hb, &t->key))
		new |= FUTEXLAB_WAITERS;	/* they still need waking */
	if (new != val) {
		ret = flk_cmpxchg_value_locked(&cur, uaddr, val, new);
		if (ret || cur != val) {
			flk_unlock_waiting(t, t);
			if (p)
				put_task_struct(p);
			if (ret)
				ret = flk_fault_in_writeable(uaddr);
			return ret ? ret : FLK_PASS_AGAIN;
		}
	}
	if (sleep) {
		/* WAITERS is set: the owner's unlock comes here and finds q */
		__flk_queue(t->hb, t->table, q);
		spin_unlock(&t->hb->lock);
		*owner = p;
		return FLK_PASS_QUEUED;
	}
	ret = died ? FLK_PASS_TAKEN_OVER : FLK_PASS_TAKEN;
out_unlock:
	flk_unlock_waiting(t, t);
	if (ret == FLK_PASS_SPIN)
		*owner = p;
	else if (p)
		put_task_struct(p);
	return ret;
}

/*
 * Spin while @owner is on a CPU and the word still holds @uval. Return:
 * false once spinning is pointless for this call (the bound is spent).
 */
static bool flk_adaptive_spin(struct flk_table *table, u32 __user *uaddr,
			      u32 uval, struct task_struct *owner, u64 end,
			      ktime_t *deadline)
{
	u32 cur;

	atomic64_inc(&table->adaptive.spins);
	for (;;) {
		if (!owner_on_cpu(owner)) {
			atomic64_inc(&table->adaptive.spin_off_cpu);
			return true;
		}
		if (ktime_get_ns() >= end) {
			atomic64_inc(&table->adaptive.spin_bound);
			return false;
		}
		if (need_resched() || signal_pending(current))
			return true;
		if (deadline && ktime_compare(ktime_get(), *deadline) >= 0)
			return true;
		if (get_user(cur, uaddr) || cur != uval)
			return true;
		cpu_relax();
	}
}

/*
 * Sleep as the queued @q, waking every FLK_OWNER_CHECK_MS to look at the
 * owner. Return: 0 if an unlock woke us, 1 if we left the queue to look at
 * the lock again, -ETIMEDOUT or -ERESTARTSYS (we left the queue).
 */
static int flk_adaptive_sleep(struct flk_q *q, u32 __user *uaddr,
			      struct task_struct *owner, u32 uval,
			      ktime_t *deadline)
{
	bool timed_out, last;
	ktime_t slice;
	u32 cur;

	for (;;) {
		slice = ktime_add_ms(ktime_get(), FLK_OWNER_CHECK_MS);
		last = deadline && ktime_compare(*deadline, slice) <= 0;
		if (last)
			slice = *deadline;
		timed_out = false;
		if (!flk_sleep(q, &slice, &timed_out))
			return 0;
		if (!timed_out || last)
			return flk_wait_left(q, timed_out);
		/* a slice ended: can the owner still release the lock? */
		if (!flk_owner_gone(owner) && !get_user(cur, uaddr) &&
		    (cur & FUTEXLAB_TID_MASK) == (uval & FUTEXLAB_TID_MASK))
			continue;
		return flk_unqueue_self(q) ? 1 : 0;
	}
}

int flk_lock_adaptive(struct flk_ctx *ctx, struct futexlab_adaptive *a)
{
	u32 __user *uaddr = u64_to_user_ptr(a->uaddr);
	u64 spin_ns = (u64)READ_ONCE(flk_adaptive_lock_spin_us) * NSEC_PER_USEC;
	u32 tid = task_pid_vnr(current);
	struct task_struct *owner;
	bool woken = false;
	ktime_t deadline, *dl;
	struct flk_target t;
	u64 spin_end = 0;
	struct flk_q q;
	u32 uval;
	int ret;

	if (a->flags & ~FLK_ADAPTIVE_LOCK_FLAGS)
		return -EINVAL;
	dl = flk_deadline(a->flags, a->deadline_ns, &deadline);

	for (;;) {
		/* a woken sleeper tries once more before it may leave */
		if (!woken) {
			ret = flk_retry_check(dl);
			if (ret)
				return ret;
		}
		woken = false;
		ret = flk_target_get(ctx, a->uaddr, a->flags, a->node, &t);
		if (ret)
			return ret;
		flk_q_init(&q, &t, FUTEXLAB_BITSET_ANY);
		ret = flk_adaptive_pass(&t, &q, uaddr, tid, spin_ns != 0,
					&owner, &uval);
		switch (ret) {
		case FLK_PASS_TAKEN:
		case FLK_PASS_TAKEN_OVER:
			atomic64_inc(&t.table->adaptive.locks);
			if (ret == FLK_PASS_TAKEN)
				return 0;
			atomic64_inc(&t.table->adaptive.owner_died);
			return -EOWNERDEAD;
		case FLK_PASS_SPIN:
			if (!spin_end)
				spin_end = ktime_get_ns() + spin_ns;
			if (!flk_adaptive_spin(t.table, uaddr, uval, owner,
					       spin_end, dl))
				spin_ns = 0;
			put_task_struct(owner);
			break;
		case FLK_PASS_QUEUED:
			atomic64_inc(&t.table->adaptive.sleeps);
			ret = flk_adaptive_sleep(&q, uaddr, owner, uval, dl);
			put_task_struct(owner);
			if (ret < 0)
				return ret;
			woken = ret == 0;
			break;
		case FLK_PASS_AGAIN:
			break;
		default:
			return ret;
		}
	}
}

int flk_unlock_adaptive(struct flk_ctx *ctx, struct futexlab_adaptive *a)
{
	struct flk_wake_batch wb = { .nr = 0 };
	u32 __user *uaddr = u64_to_user_ptr(a->uaddr);
	u32 tid = task_pid_vnr(current);
	struct flk_q *q, *first;
	struct flk_target t;
	u32 uval, new, cur;
	int ret;

	if (a->flags & ~FLK_ADAPTIVE_UNLOCK_FLAGS)
		return -EINVAL;
retry:
	ret = flk_target_get(ctx, a->uaddr, a->flags, a->node, &t);
	if (ret)
		return ret;
	flk_hb_lock(t.hb);
	if (flk_get_value_locked(&uval, uaddr)) {
		spin_unlock(&t.hb->lock);
		if (get_user(uval, uaddr))
			return -EFAULT;
		goto again;
	}
	if ((uval & FUTEXLAB_TID_MASK) != tid) {
		ret = -EPERM;
		goto out_unlock;
	}
	first = NULL;
	new = 0;
	list_for_each_entry(q, &t.hb->chain, list) {
		/* a PI waiter on this word is a misuse: never woken here */
		if (!flk_key_match(&q->key, &t.key) || q->pi || q->rq_pi)
			continue;
		if (first) {
			new = FUTEXLAB_WAITERS;	/* the next owner wakes it */
			break;
		}
		first = q;
	}
	ret = flk_cmpxchg_value_locked(&cur, uaddr, uval, new);
	if (ret || cur != uval) {
		spin_unlock(&t.hb->lock);
		if (ret && flk_fault_in_writeable(uaddr))
			return -EFAULT;
		goto again;
	}
	if (first) {
		t.hb->wakes++;
		__flk_wake_q(first, &wb);
	}
out_unlock:
	spin_unlock(&t.hb->lock);
	flk_wake_flush(&wb);
	return ret;
again:
	ret = flk_retry_check(NULL);
	if (ret)
		return ret;
	goto retry;
}
