// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab PI boosting: which priority a contended PI lock's owner gets
 * from its waiters, and applying, moving and ending that boost. The rules
 * (what a waiter stands for, whose rights a boost carries, what is saved
 * and put back) are in pi.c's header and docs/kmod.md; the walk that
 * passes a boost down a chain of locks is pi_chain.c.
 */
#include <linux/cred.h>
#include <linux/rcupdate.h>
#include <linux/sched/prio.h>
#include <linux/sched/rt.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <uapi/linux/sched/types.h>

#include "pi.h"

static bool flk_rt_policy(unsigned int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

/*
 * The real-time priority a task's own policy stands for, read now (it may
 * have changed since the task queued): SCHED_FIFO/RR their priority,
 * SCHED_DEADLINE the top SCHED_FIFO priority, others 0.
 */
unsigned int flk_rt_prio(struct task_struct *p)
{
	unsigned int policy = READ_ONCE(p->policy);

	if (policy == SCHED_DEADLINE)
		return MAX_RT_PRIO - 1;
	if (flk_rt_policy(policy))
		return READ_ONCE(p->rt_priority);
	return 0;
}

/*
 * The highest-priority PI waiter of @key, by the priorities of now; the
 * first in the chain among equals (the chain is FIFO among equals).
 */
struct flk_q *__flk_pi_top(struct flk_bucket *hb, struct flk_key *key)
{
	struct flk_q *q, *top = NULL;
	unsigned int best = 0, prio;

	list_for_each_entry(q, &hb->chain, list) {
		if (!q->pi || !flk_key_match(&q->key, key))
			continue;
		prio = flk_rt_prio(q->task);
		if (!top || prio > best) {
			top = q;
			best = prio;
		}
	}
	return top;
}

/*
 * The boost @pi's waiters may give @owner, and the rights it comes with
 * (pi_chain.c); the caller holds @pi->hb->lock.
 */
static unsigned int __flk_pi_want(struct flk_pi_state *pi,
				  struct task_struct *owner,
				  struct flk_pi_path *path)
{
	struct flk_pi_path qpath;
	unsigned int want = 0, prio;
	struct flk_q *q;

	rcu_read_lock();
	list_for_each_entry(q, &pi->hb->chain, list) {
		if (q->pi != pi)
			continue;
		prio = __flk_pi_chain_value(q, owner, &qpath);
		if (prio > want) {
			want = prio;
			*path = qpath;
		}
	}
	rcu_read_unlock();
	return want;
}

/*
 * End the boost: put back the saved attributes, unless the owner changed
 * its scheduling itself meanwhile (it is no longer what we set); then
 * take the boost out of the chain index.
 */
void flk_pi_restore(struct flk_pi_state *pi)
{
	struct task_struct *p = pi->boosted;
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = pi->saved_policy,
		.sched_priority = pi->saved_rt_priority,
		.sched_nice = pi->saved_nice,
		.sched_flags = pi->saved_reset_on_fork ?
			       SCHED_FLAG_RESET_ON_FORK : 0,
	};

	/* a dying owner (a takeover, pi_owner.c) runs no more user code */
	if (!(READ_ONCE(p->flags) & PF_EXITING) &&
	    READ_ONCE(p->policy) == SCHED_FIFO &&
	    READ_ONCE(p->rt_priority) == pi->boost_prio)
		sched_setattr_nocheck(p, &attr);
	flk_pi_boost_unpublish(pi);
	put_task_struct(p);
	pi->boosted = NULL;
}

/* Switch @owner to SCHED_FIFO @prio, keeping its reset-on-fork flag. */
static int flk_pi_boost(struct task_struct *owner, unsigned int prio)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_FIFO,
		.sched_priority = prio,
		.sched_flags = owner->sched_reset_on_fork ?
			       SCHED_FLAG_RESET_ON_FORK : 0,
	};

	return sched_setattr_nocheck(owner, &attr);
}

static bool flk_path_eq(const struct flk_pi_path *a,
			const struct flk_pi_path *b)
{
	return a->has_uid == b->has_uid && a->conflict == b->conflict &&
	       (!a->has_uid || uid_eq(a->euid, b->euid));
}

/*
 * Boost @owner, not boosted by @pi yet, to @want with @path's rights.
 * Indexed first (pi_chain.c), so a chain reader never sees the boosted
 * priority as the owner's own.
 */
static void flk_pi_boost_new(struct flk_pi_state *pi,
			     struct task_struct *owner, unsigned int want,
			     const struct flk_pi_path *path)
{
	pi->saved_policy = owner->policy;
	pi->saved_rt_priority = owner->rt_priority;
	pi->saved_nice = task_nice(owner);
	pi->saved_reset_on_fork = owner->sched_reset_on_fork;
	pi->boosted = get_task_struct(owner);
	flk_pi_boost_publish(pi, want, path);
	if (flk_pi_boost(owner, want)) {
		/* nothing changed, nothing to restore */
		flk_pi_boost_unpublish(pi);
		put_task_struct(owner);
		pi->boosted = NULL;
		return;
	}
	atomic64_inc(&pi->table->pi_boosts);
}

/* Move the boost @pi applies to @owner to @want. */
static void flk_pi_boost_change(struct flk_pi_state *pi,
				struct task_struct *owner, unsigned int want,
				const struct flk_pi_path *path)
{
	struct flk_pi_path old_path = pi->boost_path;
	unsigned int old = pi->boost_prio;

	if (old == want) {
		if (!flk_path_eq(&old_path, path))
			flk_pi_boost_publish(pi, want, path);
	} else if (flk_rt_policy(pi->saved_policy) &&
		   pi->saved_rt_priority >= want) {
		flk_pi_restore(pi);
	} else {
		flk_pi_boost_publish(pi, want, path);
		if (flk_pi_boost(owner, want))
			flk_pi_boost_publish(pi, old, &old_path);
		else
			atomic64_inc(&pi->table->pi_boosts);
	}
}

/**
 * flk_pi_adjust_one() - recompute the boost of @pi's owner from its waiters
 * @pi:		the lock (the caller holds a reference)
 * @ownerp:	out: the owner, a reference the caller drops, or NULL
 *
 * One step of the chain walk (pi_chain.c). May sleep.
 * Return: whether the boost @pi gives (task, priority or rights) changed.
 */
bool flk_pi_adjust_one(struct flk_pi_state *pi, struct task_struct **ownerp)
{
	struct flk_pi_path path = { 0 }, before_path;
	struct task_struct *owner = NULL, *before;
	unsigned int want = 0, before_prio;
	bool changed;

	mutex_lock(&pi->boost_lock);
	before = pi->boosted;
	before_prio = pi->boost_prio;
	before_path = pi->boost_path;
	flk_hb_lock(pi->hb);
	if (pi->owner && !(pi->owner->flags & (PF_EXITING | PF_KTHREAD))) {
		owner = get_task_struct(pi->owner);
		want = __flk_pi_want(pi, owner, &path);
	}
	spin_unlock(&pi->hb->lock);

	if (pi->boosted && (pi->boosted != owner || !want))
		flk_pi_restore(pi);
	if (!want || owner->policy == SCHED_DEADLINE)
		goto out;
	if (pi->boosted)
		flk_pi_boost_change(pi, owner, want, &path);
	else if (!flk_rt_policy(owner->policy) || owner->rt_priority < want)
		flk_pi_boost_new(pi, owner, want, &path);
out:
	changed = pi->boosted != before || pi->boost_prio != before_prio ||
		  (pi->boosted && !flk_path_eq(&pi->boost_path, &before_path));
	mutex_unlock(&pi->boost_lock);
	*ownerp = owner;
	return changed;
}

/* Recompute the boost of @pi's owner and pass it down the chain. */
void flk_pi_adjust(struct flk_pi_state *pi)
{
	flk_pi_chain_walk(pi, NULL);
}
