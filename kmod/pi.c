// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab priority-inheritance locks: lock_pi, trylock_pi, unlock_pi on a
 * word in the stock encoding: 0 is free, else the owner's TID, with
 * FUTEXLAB_WAITERS set while the kernel has waiters queued (so that the
 * owner's user-space fast unlock, cmpxchg(TID -> 0), fails and it calls
 * unlock_pi). Unlock hands the lock to the highest-priority waiter: the
 * word becomes that waiter's TID | WAITERS, and the waiter returns owning
 * it, like the stock futex.
 *
 * Boosting, kept simple rather than complete (the security model of
 * docs/kmod.md):
 *  - whenever the waiters or the owner change (a waiter queues or leaves,
 *    the lock is handed over or taken), the boost is recomputed from the
 *    waiters' priorities as they are now: the old owner is restored, the
 *    new owner boosted if needed;
 *  - a waiter stands for the real-time priority of its own policy
 *    (SCHED_FIFO/RR: its priority; SCHED_DEADLINE: the top one, 99), and
 *    never for more than it could give the owner itself with
 *    sched_setattr(): nothing without CAP_SYS_NICE unless it has the
 *    owner's uid, and then no more than the owner's RLIMIT_RTPRIO;
 *  - the owner is switched to SCHED_FIFO at the highest priority any of
 *    the locks it holds asks for, with sched_setattr_nocheck() and
 *    reset-on-fork (a child it forks while boosted starts SCHED_NORMAL);
 *    its own policy, priority, nice and reset-on-fork, read before its
 *    first boost and shared by every lock that boosts it, are put back
 *    when the last boost ends, in whatever order the locks are released.
 *    A change of its scheduling during the boost (its own call, or an
 *    administrator's) is kept only if the owner could have made it on its
 *    own rights, else undone (pi_boost.c);
 *  - the TID in the word names a task only if the caller could signal it
 *    (flk_task_by_tid()): another user's task reads as none (ESRCH);
 *    kernel threads are never owners (EPERM, as stock), nor are exiting or
 *    dead tasks (ESRCH, as stock);
 *  - sched_setattr_nocheck() may sleep, so it runs outside the bucket lock,
 *    serialized per lock by flk_pi_state.boost_lock and per task by its
 *    task mutex; between a change and the recomputation the boost may be
 *    briefly stale;
 *  - chains: a boosted owner blocked on another module PI lock passes the
 *    boost on, under the rights of every waiter on the way (pi_chain.c);
 *    LOCK_PI fails with EDEADLK on a cycle or a chain too long.
 * Limits (documented in docs/kmod.md): chains stop at requeue-PI waiters and at other files' private tables; a
 * SCHED_DEADLINE owner is not boosted. An owner that dies holding the
 * lock: its queued waiters notice within a slice of pi_owner_check_ms and
 * the top one takes the lock over (pi_owner.c), while a new LOCK_PI on its
 * word fails with ESRCH until then. Requeue-PI (requeue.c) queues its
 * waiters here the same way.
 */
#include <linux/cred.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/pagemap.h>
#include <linux/pid.h>
#include <linux/sched/prio.h>
#include <linux/sched/rt.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <uapi/linux/sched/types.h>

#include "pi.h"

#define FLK_LOCK_FLAGS	(FUTEXLAB_F_SHARED | FUTEXLAB_F_DEADLINE | \
			 FUTEXLAB_F_NODE | FUTEXLAB_F_INTERRUPTIBLE)
#define FLK_UNLOCK_FLAGS	(FUTEXLAB_F_SHARED | FUTEXLAB_F_NODE)

struct flk_pi_state *__flk_pi_find(struct flk_bucket *hb, struct flk_key *key)
{
	struct flk_pi_state *pi;

	list_for_each_entry(pi, &hb->pi_states, list)
		if (flk_key_match(&pi->key, key))
			return pi;
	return NULL;
}

void flk_pi_put(struct flk_pi_state *pi)
{
	struct flk_bucket *hb = pi->hb;
	struct task_struct *owner = NULL;
	bool last;

	flk_hb_lock(hb);
	last = !--pi->refs;
	if (last) {
		list_del(&pi->list);
		owner = pi->owner;
		pi->owner = NULL;
	}
	spin_unlock(&hb->lock);
	if (!last)
		return;
	if (pi->boosted)
		flk_pi_restore(pi);
	if (owner)
		put_task_struct(owner);
	kfree_rcu(pi, rcu);	/* a chain walker may still look (pi_chain.c) */
}

/*
 * Fault the word in for writing without writing it (the stock futex's
 * fault_in_user_writeable()): fault_in_writeable() stores a zero byte, which
 * would corrupt a lock word that another thread owns.
 */
int flk_fault_in_writeable(u32 __user *uaddr)
{
	struct mm_struct *mm = current->mm;
	int ret;

	mmap_read_lock(mm);
	ret = fixup_user_fault(mm, (unsigned long)uaddr,
			       FAULT_FLAG_WRITE, NULL);
	mmap_read_unlock(mm);
	return ret < 0 ? ret : 0;
}

/**
 * __flk_pi_attach() - find or create the PI state of a lock owned by @tid
 * @t:		the lock's target (its bucket is locked)
 * @tid:	the owner the word names
 * @prealloc:	a zeroed flk_pi_state, consumed if a new one is needed
 * @out:	the PI state (no reference taken)
 * @old_owner:	a task reference the caller drops after unlocking, or NULL
 *
 * Return: 0, -ESRCH (no such owner, or it is exiting), -EPERM (a kernel
 * thread, as the stock futex) or -EINVAL (the word names another owner
 * than the one the queued waiters wait for).
 */
int __flk_pi_attach(struct flk_target *t, u32 tid,
		   struct flk_pi_state **prealloc, struct flk_pi_state **out,
		   struct task_struct **old_owner)
{
	struct flk_pi_state *pi = __flk_pi_find(t->hb, &t->key);
	struct task_struct *owner;
	int ret;

	if (pi && pi->nr_waiters &&
	    (!pi->owner || task_pid_vnr(pi->owner) != tid))
		return -EINVAL;		/* the word disagrees with the kernel */
	if (pi && pi->nr_waiters && (pi->owner->flags & PF_EXITING))
		return -ESRCH;		/* it will never unlock */
	if (!pi || !pi->nr_waiters) {
		owner = flk_task_by_tid(tid);
		if (!owner)
			return -ESRCH;
		if (owner->flags & (PF_KTHREAD | PF_EXITING)) {
			ret = owner->flags & PF_KTHREAD ? -EPERM : -ESRCH;
			put_task_struct(owner);
			return ret;
		}
		if (!pi) {
			pi = *prealloc;
			*prealloc = NULL;
			pi->key = t->key;
			pi->hb = t->hb;
			pi->table = t->table;
			mutex_init(&pi->boost_lock);
			list_add(&pi->list, &t->hb->pi_states);
		}
		*old_owner = pi->owner;
		pi->owner = owner;
	}
	*out = pi;
	return 0;
}

/**
 * __flk_pi_claim() - take a PI lock word for @tid if it is free, else mark
 * it contended
 * @uaddr:	the word (its bucket is locked)
 * @uval:	the word as it is now
 * @pi:		the word's PI state (__flk_pi_find()), or NULL
 * @tid:	the task that takes it
 * @waiters:	take it with FUTEXLAB_WAITERS set (waiters are queued, or
 *		are about to be)
 * @mark:	set FUTEXLAB_WAITERS in a word that another task holds, so
 *		that its user-space fast unlock fails
 *
 * A free word whose PI state has waiters and a live owner was written by
 * user space (only an exiting owner's robust list frees such a word): it
 * is not taken, which would hand the lock over and end the owner's boost
 * on the word of whoever wrote it. EINVAL, as the stock futex's
 * attach_to_pi_state() answers LOCK_PI, TRYLOCK_PI and CMP_REQUEUE_PI.
 *
 * Return: 1 if the word was free and now names @tid; 0 if another task
 * holds it; -EDEADLK if @tid holds it; -EINVAL if it is free but @pi has
 * an owner (above); -EAGAIN if the word kept changing under us (drop the
 * locks and retry, flk_retry_check()); -EFAULT (or the cmpxchg's error):
 * fault the word in for writing and retry.
 */
int __flk_pi_claim(u32 __user *uaddr, u32 *uval, struct flk_pi_state *pi,
		  u32 tid, bool waiters, bool mark)
{
	unsigned int tries = FLK_CMPXCHG_TRIES;
	u32 cur, newval;
	bool take;
	int ret;

	ret = flk_get_value_locked(uval, uaddr);
	if (ret)
		return ret;
	while (tries--) {
		if ((*uval & FUTEXLAB_TID_MASK) == tid)
			return -EDEADLK;
		take = !(*uval & FUTEXLAB_TID_MASK);
		if (take && pi && pi->nr_waiters && pi->owner &&
		    !(READ_ONCE(pi->owner->flags) & PF_EXITING))
			return -EINVAL;		/* see above */
		if (take) {
			newval = tid | (*uval & FUTEXLAB_OWNER_DIED);
			if (waiters)
				newval |= FUTEXLAB_WAITERS;
		} else if (mark && !(*uval & FUTEXLAB_WAITERS)) {
			newval = *uval | FUTEXLAB_WAITERS;
		} else {
			return 0;
		}
		ret = flk_cmpxchg_value_locked(&cur, uaddr, *uval, newval);
		if (ret)
			return ret;
		if (cur == *uval) {
			*uval = newval;
			return take;
		}
		*uval = cur;
	}
	return -EAGAIN;
}

/* Take a reference on @pi; the caller holds the bucket lock. */
void __flk_pi_get(struct flk_pi_state *pi)
{
	pi->refs++;
}

/* Count @q in as a waiter of @pi; the caller holds the bucket lock. */
void __flk_pi_add_waiter(struct flk_pi_state *pi, struct flk_q *q)
{
	pi->refs++;
	pi->nr_waiters++;
	q->pi = pi;
}

/*
 * A PI waiter took itself off the queue (flk_unqueue_self(), bucket lock
 * held): it stops counting in the same critical section, so nobody sees a
 * waiter count that the queue no longer has (a contender would take that
 * for a word that disagrees with the kernel and fail with EINVAL).
 */
void __flk_pi_waiter_left(struct flk_pi_state *pi)
{
	pi->nr_waiters--;
}

/* A PI waiter left without the lock: recompute the boost, drop its ref. */
void flk_pi_waiter_gone(struct flk_pi_state *pi)
{
	flk_pi_adjust(pi);
	flk_pi_put(pi);
}

/*
 * A PI waiter (lock_pi, or requeue-PI once requeued) is off every queue:
 * count the lock if it got it (@owner) and drop its reference, else
 * recompute the boost it leaves behind.
 */
void flk_pi_wait_done(struct flk_q *q, bool owner)
{
	if (owner)
		atomic64_inc(&q->table->pi_locks);
	if (!q->pi)
		return;
	if (owner)
		flk_pi_put(q->pi);
	else
		flk_pi_waiter_gone(q->pi);
}

struct flk_pi_state *flk_pi_alloc(void)
{
	return kzalloc(sizeof(struct flk_pi_state), GFP_KERNEL_ACCOUNT);
}

/*
 * The adaptive lock (what user space cannot do, since it cannot see
 * whether the owner runs): with adaptive_spin_us set, a contender that
 * finds the lock held by a task running on a CPU, with nobody queued yet,
 * does not queue: it drops the bucket lock and spins while that owner runs
 * and the word is unchanged, then retries from the start (a fast user-space
 * unlock lets it take the lock without sleeping). The spinning of one call
 * is bounded by adaptive_spin_us in total; then it queues as usual.
 *
 * Return: true if the word changed (retry), false to stop spinning.
 */
static bool flk_pi_spin(u32 __user *uaddr, u32 uval, pid_t tid, u64 end)
{
	struct task_struct *owner = flk_task_by_tid(tid);
	bool changed = false;
	u32 cur;

	/*
	 * No such owner, or one that will never run again: nothing to spin
	 * for. Stop spinning; the next pass queues, and attaching to this
	 * owner fails as the stock futex does (ESRCH, EPERM).
	 */
	if (!owner)
		return false;
	if (owner->flags & (PF_EXITING | PF_KTHREAD)) {
		put_task_struct(owner);
		return false;
	}
	while (owner_on_cpu(owner) && !need_resched() &&
	       ktime_get_ns() < end) {
		if (get_user(cur, uaddr) || cur != uval) {
			changed = true;
			break;
		}
		cpu_relax();
	}
	put_task_struct(owner);
	return changed;
}

/*
 * One function, as the stock futex_lock_pi() is: claiming the word, the
 * adaptive spin and attaching to the owner each end in a retry that drops
 * the bucket lock and starts over, and the labels that unwind that state
 * are shared by every step.
 */
int flk_lock_pi(struct flk_ctx *ctx, struct futexlab_pi *a, bool trylock)
{
	u32 __user *uaddr = u64_to_user_ptr(a->uaddr);
	struct flk_pi_state *pi, *prealloc, *taken = NULL;
	struct task_struct *old_owner = NULL;
	struct flk_pi_blocked blocked;
	ktime_t deadline, *dl;
	u32 vpid = task_pid_vnr(current);
	unsigned int spin_us = READ_ONCE(flk_adaptive_spin_us);
	bool waiters;
	u64 spin_end = 0;
	struct flk_target t;
	struct flk_q q;
	u32 uval;
	int ret;

	if (a->flags & ~(trylock ? FLK_UNLOCK_FLAGS : FLK_LOCK_FLAGS))
		return -EINVAL;
	dl = flk_deadline(a->flags, a->deadline_ns, &deadline);
	prealloc = flk_pi_alloc();
	if (!prealloc)
		return -ENOMEM;

	goto first;
retry:
	ret = flk_retry_check(dl);
	if (ret)
		goto out_restart;
first:
	ret = flk_target_get(ctx, a->uaddr, a->flags, a->node, &t);
	if (ret)
		goto out_free;
	flk_lock_waiting(&t, &t);

	/*
	 * If free, take it, keeping WAITERS if some are queued; if held, mark
	 * it, unless we only try or spin first.
	 */
	pi = __flk_pi_find(t.hb, &t.key);
	waiters = pi && pi->nr_waiters;
	ret = __flk_pi_claim(uaddr, &uval, pi, vpid, waiters,
			     !trylock && !spin_us);
	if (ret == -EDEADLK || ret == -EINVAL)
		goto out_unlock;
	if (ret < 0) {
		flk_unlock_waiting(&t, &t);
		if (ret != -EAGAIN) {
			ret = flk_fault_in_writeable(uaddr);
			if (ret)
				goto out_free;
		}
		goto retry;
	}
	if (ret) {
		/* taken: with waiters queued, their boost moves to us */
		if (waiters) {
			old_owner = pi->owner;
			pi->owner = get_task_struct(current);
			__flk_pi_get(pi);
			taken = pi;
		}
		atomic64_inc(&t.table->pi_locks);
		ret = 0;
		goto out_unlock;
	}
	if (trylock) {
		ret = -EAGAIN;
		goto out_unlock;
	}
	if (!(uval & FUTEXLAB_WAITERS)) {
		/* left unmarked for spin_us: nobody queued, spin first */
		flk_unlock_waiting(&t, &t);
		if (!spin_end)
			spin_end = ktime_get_ns() + (u64)spin_us * NSEC_PER_USEC;
		atomic64_inc(&t.table->spins);
		if (!flk_pi_spin(uaddr, uval, uval & FUTEXLAB_TID_MASK,
				 spin_end))
			spin_us = 0;	/* owner off CPU or budget spent */
		goto retry;
	}

	/* owned by another task: attach to the lock's PI state */
	ret = __flk_pi_attach(&t, uval & FUTEXLAB_TID_MASK, &prealloc, &pi,
			     &old_owner);
	if (ret)
		goto out_unlock;

	flk_q_init(&q, &t, FUTEXLAB_BITSET_ANY);
	flk_q_init_pi(&q);
	__flk_pi_add_waiter(pi, &q);
	__flk_queue(t.hb, t.table, &q);
	flk_pi_block(&blocked, pi);
	spin_unlock(&t.hb->lock);
	if (old_owner)
		put_task_struct(old_owner);

	/*
	 * Boost down the chain; a chain back to us (or too long) is a
	 * deadlock: leave the queue, unless the lock was handed to us
	 * meanwhile (then the wait below returns at once, owning it).
	 */
	ret = flk_pi_chain_walk(pi, current);
	if (!ret || !flk_unqueue_self(&q)) {
		/* in slices: an owner that dies is noticed (pi_owner.c) */
		ret = flk_pi_wait_queued(&q, dl, ctx, a->uaddr, a->flags,
					 a->node);
		if (ret == -ERESTARTSYS)
			ret = -ERESTARTNOINTR;	/* as stock; ioctl.c may cancel */
	}
	flk_pi_unblock(&blocked);
	/* success: unlock_pi (or a takeover) handed us the lock */
	flk_pi_wait_done(&q, !ret);
	goto out_free;

out_unlock:
	flk_unlock_waiting(&t, &t);
	if (old_owner)
		put_task_struct(old_owner);
	if (taken) {
		flk_pi_adjust(taken);
		flk_pi_put(taken);
	}
	goto out_free;
out_restart:
	if (ret == -ERESTARTSYS)
		ret = -ERESTARTNOINTR;	/* as stock; ioctl.c may cancel */
out_free:
	kfree(prealloc);
	return ret;
}

int flk_unlock_pi(struct flk_ctx *ctx, struct futexlab_pi *a)
{
	u32 __user *uaddr = u64_to_user_ptr(a->uaddr);
	struct flk_wake_batch wb = { .nr = 0 };
	struct task_struct *old_owner = NULL;
	u32 vpid = task_pid_vnr(current);
	struct flk_pi_state *pi = NULL, *idle;
	u32 uval, cur, newval;
	unsigned int tries;
	struct flk_target t;
	struct flk_q *top;
	int ret;

	if (a->flags & ~FLK_UNLOCK_FLAGS)
		return -EINVAL;

	goto first;
retry:
	ret = flk_retry_check(NULL);
	if (ret)
		return ret;
first:
	ret = flk_target_get(ctx, a->uaddr, a->flags, a->node, &t);
	if (ret)
		return ret;
	flk_hb_lock(t.hb);
	ret = flk_get_value_locked(&uval, uaddr);
	tries = FLK_CMPXCHG_TRIES;
	while (!ret && tries--) {
		if ((uval & FUTEXLAB_TID_MASK) != vpid) {
			ret = -EPERM;
			goto out_unlock;
		}
		top = __flk_pi_top(t.hb, &t.key);
		/*
		 * The word names us, the kernel's PI state another owner: user
		 * space wrote it. Handing the lock over would end that owner's
		 * boost on the word of a task that may not change it: the word
		 * stays, EINVAL, as the stock futex_unlock_pi() answers.
		 */
		if (top && top->pi->owner != current) {
			ret = -EINVAL;
			goto out_unlock;
		}
		newval = top ? task_pid_vnr(top->task) | FUTEXLAB_WAITERS : 0;
		ret = flk_cmpxchg_value_locked(&cur, uaddr, uval, newval);
		if (ret)
			break;
		if (cur == uval)
			goto handover;
		uval = cur;
	}
	spin_unlock(&t.hb->lock);
	if (ret) {		/* else the word kept changing: retry */
		ret = flk_fault_in_writeable(uaddr);
		if (ret)
			return ret;
	}
	goto retry;

handover:
	if (top) {
		pi = top->pi;
		pi->nr_waiters--;
		pi->refs++;
		old_owner = pi->owner;
		pi->owner = get_task_struct(top->task);
		__flk_wake_q(top, &wb);
	} else {
		/*
		 * Free now. A PI state that outlives its waiters (a chain
		 * walk or a leaving waiter holds it) must not keep naming
		 * us: a walk would take us for its owner wherever we block
		 * next (pi_chain.c), a false chain or cycle.
		 */
		idle = __flk_pi_find(t.hb, &t.key);
		if (idle) {
			old_owner = idle->owner;
			idle->owner = NULL;
		}
	}
out_unlock:
	spin_unlock(&t.hb->lock);
	flk_wake_flush(&wb);
	if (old_owner)
		put_task_struct(old_owner);
	if (pi) {
		flk_pi_adjust(pi);	/* deboost us, boost the new owner */
		flk_pi_put(pi);
	}
	return ret;
}

/* A PI waiter's credentials: whose scheduling it may change (pi.c). */
void flk_q_init_pi(struct flk_q *q)
{
	q->euid = current_euid();
	q->cap_nice = ns_capable_noaudit(&init_user_ns, CAP_SYS_NICE);
}

/* For pi_owner.c: the task @pi's word names; the bucket lock is held. */
struct task_struct *__flk_pi_owner(struct flk_pi_state *pi)
{
	return pi->owner;
}

/* For pi_owner.c: the waiter unlock_pi would pick; bucket lock held. */
struct flk_q *__flk_pi_top_waiter(struct flk_bucket *hb, struct flk_key *key)
{
	return __flk_pi_top(hb, key);
}

/**
 * __flk_pi_hand_to() - make @top the owner of @pi, as unlock_pi does once
 * the word names @top: dequeue it for waking (it returns owning the lock)
 * @pi:		the lock's PI state (the bucket lock is held)
 * @top:	its queued waiter that gets the lock
 * @wb:		the wake batch to flush after unlocking
 *
 * Takes a reference on @pi for the caller, who recomputes the boost and
 * puts it (flk_pi_adjust(), flk_pi_put()) once the bucket is unlocked.
 * Return: the old owner's reference, to put after unlocking.
 */
struct task_struct *__flk_pi_hand_to(struct flk_pi_state *pi,
				     struct flk_q *top,
				     struct flk_wake_batch *wb)
{
	struct task_struct *old_owner = pi->owner;

	pi->nr_waiters--;
	pi->refs++;
	pi->owner = get_task_struct(top->task);
	__flk_wake_q(top, wb);
	return old_owner;
}
