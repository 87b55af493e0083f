// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab chained priority inheritance: when the owner of a PI lock is
 * itself blocked on another of the module's PI locks, its boost passes on
 * to that lock's owner, and so on down the chain (the facts of the kernel's
 * rt_mutex_adjust_prio_chain(), done the module's way).
 *
 * Two indexes, keyed by task (the module cannot add fields to task_struct),
 * both under flk_chain_lock, which nests inside a bucket lock and takes
 * nothing itself:
 *  - blocked: struct flk_pi_blocked on the stack of each LOCK_PI waiter,
 *    hashed from just after it queues until its wait is over (a killed
 *    waiter also returns through that path), so its memory is bounded by
 *    the tasks blocked and nothing outlives them;
 *  - boosted: each flk_pi_state whose owner we boosted, with the boost's
 *    priority and the rights it came with (struct flk_pi_path).
 *
 * What a waiter stands for (pi.c's __flk_pi_want(), via
 * __flk_pi_chain_value()): its own real-time priority, limited by what it
 * may do to the owner (pi.c's rules), or, if it is itself a boosted
 * owner, the boost it received, limited by what every waiter on the way
 * may do to the owner (the path), whichever is higher. A boosted waiter's
 * own priority is its own attributes' (struct flk_sched_own), not the
 * boost's.
 *
 * The walk (flk_pi_chain_walk()), from a lock whose waiters or owner
 * changed: recompute that lock's boost (flk_pi_adjust_one(), which holds
 * only that lock's boost_lock and, briefly, its bucket lock); find whom the
 * owner is blocked on; take a reference on that lock after re-validating,
 * with the bucket locks of both locks held, that the owner still owns the
 * one and is still queued on the other (since it was read it may have
 * unlocked and queued again, even on the same lock, been handed the lock
 * or left); drop every lock; step. No lock is held from one step to the
 * next, and the two bucket locks of a step are taken in address order, as
 * everywhere. A walk after LOCK_PI queues goes the whole chain to
 * detect deadlock: it fails with EDEADLK when the chain comes back to the
 * caller or to the first lock, or is longer than pi_max_chain locks (the
 * kernel's max_lock_depth, 1024). Other walks stop at the first lock whose
 * boost did not change, at a cycle or at the limit.
 *
 * Lifetimes: the blocked record is read only under flk_chain_lock, while
 * its waiter's reference keeps the lock alive; a walker that drops
 * flk_chain_lock before taking its own reference stays in an RCU read
 * section, and PI states are freed after a grace period (pi.c), so it can
 * see that the state died (refs 0) instead of touching freed memory. A
 * private table is freed when its file is released, so a walk only enters
 * the global table, the node tables (they last as long as the module) and
 * the table it started in (pinned by the caller's own ioctl): a chain
 * through another file's private table stops there.
 */
#include <linux/cred.h>
#include <linux/delay.h>
#include <linux/hashtable.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched/prio.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/spinlock.h>

#include "pi.h"

static unsigned int flk_pi_max_chain = 1024;
module_param_named(pi_max_chain, flk_pi_max_chain, uint, 0644);
MODULE_PARM_DESC(pi_max_chain,
		 "PI chain depth limit in locks, LOCK_PI fails with EDEADLK beyond it (kernel: max_lock_depth)");

/*
 * For tests only (kmodtest's pi-chain-relock): a LOCK_PI walk sleeps this
 * long between reading a lock's owner and looking up whom that owner is
 * blocked on, so that a test can change the owner in between on purpose,
 * where otherwise only a rare interleaving would.
 */
static unsigned int flk_pi_chain_test_delay_ms;
module_param_named(pi_chain_test_delay_ms, flk_pi_chain_test_delay_ms, uint,
		   0644);
MODULE_PARM_DESC(pi_chain_test_delay_ms,
		 "for tests: a LOCK_PI chain walk sleeps this long (ms, at most 1000) before each step's re-check; 0: off");

static DEFINE_SPINLOCK(flk_chain_lock);
static DEFINE_HASHTABLE(flk_blocked_index, 10);
static DEFINE_HASHTABLE(flk_boost_index, 10);

/* Index the caller as blocked on @pi; called with @pi->hb->lock held. */
void flk_pi_block(struct flk_pi_blocked *b, struct flk_pi_state *pi)
{
	b->task = current;
	b->pi = pi;
	spin_lock(&flk_chain_lock);
	hash_add(flk_blocked_index, &b->node, (unsigned long)current);
	spin_unlock(&flk_chain_lock);
}

/* The wait is over: before the waiter drops its reference on b->pi. */
void flk_pi_unblock(struct flk_pi_blocked *b)
{
	spin_lock(&flk_chain_lock);
	hash_del(&b->node);
	spin_unlock(&flk_chain_lock);
}

/*
 * @pi boosts @pi->boosted to @prio with the rights of @path: index it (or
 * update it) before the boost is applied, so that a reader never takes
 * the boosted priority for the task's own.
 */
void flk_pi_boost_publish(struct flk_pi_state *pi, unsigned int prio,
			  const struct flk_pi_path *path)
{
	spin_lock(&flk_chain_lock);
	pi->boost_prio = prio;
	pi->boost_path = *path;
	if (hlist_unhashed(&pi->boost_node))
		hash_add(flk_boost_index, &pi->boost_node,
			 (unsigned long)pi->boosted);
	spin_unlock(&flk_chain_lock);
}

/* The boost was taken back (after the restore): drop it from the index. */
void flk_pi_boost_unpublish(struct flk_pi_state *pi)
{
	spin_lock(&flk_chain_lock);
	hash_del(&pi->boost_node);
	pi->boost_prio = 0;
	spin_unlock(&flk_chain_lock);
}

/**
 * flk_pi_boost_scan() - the boosts indexed for @p
 * @p:		the task
 * @skip:	a state to leave out (one whose boost is ending), or NULL
 * @own:	out, if any: @p's own scheduling (the same in every state)
 * @applied:	out, if any: the priority the module last set on @p
 * @top:	out: the highest boost priority among them, 0 if none
 *
 * Return: how many states (other than @skip) boost @p.
 */
unsigned int flk_pi_boost_scan(struct task_struct *p,
			       const struct flk_pi_state *skip,
			       struct flk_sched_own *own, u32 *applied,
			       unsigned int *top)
{
	struct flk_pi_state *b;
	unsigned int nr = 0;

	*top = 0;
	spin_lock(&flk_chain_lock);
	hash_for_each_possible(flk_boost_index, b, boost_node,
			       (unsigned long)p) {
		if (b->boosted != p || b == skip)
			continue;
		*own = b->own;
		*applied = b->applied;
		*top = max(*top, b->boost_prio);
		nr++;
	}
	spin_unlock(&flk_chain_lock);
	return nr;
}

/* Record @own and @applied in every state that boosts @p. */
void flk_pi_boost_store(struct task_struct *p, const struct flk_sched_own *own,
			u32 applied)
{
	struct flk_pi_state *b;

	spin_lock(&flk_chain_lock);
	hash_for_each_possible(flk_boost_index, b, boost_node,
			       (unsigned long)p) {
		if (b->boosted != p)
			continue;
		b->own = *own;
		b->applied = applied;
	}
	spin_unlock(&flk_chain_lock);
}

static void flk_path_of(struct flk_pi_path *p, const struct flk_q *q)
{
	p->has_uid = !q->cap_nice;
	p->conflict = false;
	p->euid = q->euid;
}

/* @p gets the rights that both @p and @more have. */
static void flk_path_merge(struct flk_pi_path *p,
			   const struct flk_pi_path *more)
{
	p->conflict |= more->conflict;
	if (!more->has_uid)
		return;
	if (p->has_uid && !uid_eq(p->euid, more->euid))
		p->conflict = true;
	p->has_uid = true;
	p->euid = more->euid;
}

/*
 * The highest SCHED_FIFO priority that every waiter on @p could give
 * @owner with sched_setattr(): any with CAP_SYS_NICE, else only a task of
 * the same (e)uid and within its RLIMIT_RTPRIO. Call under RCU.
 */
static unsigned int flk_path_limit(const struct flk_pi_path *p,
				   struct task_struct *owner)
{
	const struct cred *pcred = __task_cred(owner);

	if (p->conflict)
		return 0;
	if (!p->has_uid)
		return MAX_RT_PRIO - 1;
	if (!uid_eq(p->euid, pcred->euid) && !uid_eq(p->euid, pcred->uid))
		return 0;
	return min_t(unsigned long, task_rlimit(owner, RLIMIT_RTPRIO),
		     MAX_RT_PRIO - 1);
}

/**
 * __flk_pi_chain_value() - the boost that PI waiter @q stands for
 * @q:		a queued waiter (its bucket is locked)
 * @owner:	the owner it would boost
 * @path:	out: the rights that go with the value
 *
 * Call under RCU with @q->hb->lock held.
 * Return: a SCHED_FIFO priority, 0 for none.
 */
unsigned int __flk_pi_chain_value(struct flk_q *q, struct task_struct *owner,
				  struct flk_pi_path *path)
{
	struct flk_pi_path qpath, inh_path = { 0 };
	unsigned int own = MAX_RT_PRIO, inh = 0, val, ival;
	struct flk_pi_state *b;
	bool boosted = false;

	spin_lock(&flk_chain_lock);
	hash_for_each_possible(flk_boost_index, b, boost_node,
			       (unsigned long)q->task) {
		if (b->boosted != q->task)
			continue;
		own = b->own.policy == SCHED_FIFO ||
		      b->own.policy == SCHED_RR ? b->own.rt_priority : 0;
		if (!boosted || b->boost_prio > inh) {
			inh = b->boost_prio;
			inh_path = b->boost_path;
		}
		boosted = true;
	}
	spin_unlock(&flk_chain_lock);
	if (!boosted)
		own = flk_rt_prio(q->task);

	flk_path_of(&qpath, q);
	val = min(own, flk_path_limit(&qpath, owner));
	*path = qpath;
	if (boosted) {
		flk_path_merge(&inh_path, &qpath);
		ival = min(inh, flk_path_limit(&inh_path, owner));
		if (ival > val) {
			val = ival;
			*path = inh_path;
		}
	}
	return val;
}

/* May a walk that started in @pinned enter @t? (see the top comment) */
static bool flk_table_lasts(struct flk_table *t, struct flk_table *pinned)
{
	int node;

	if (t == pinned || t == flk_global)
		return true;
	if (!flk_numa)
		return false;
	for (node = 0; node < nr_node_ids; node++)
		if (flk_numa[node] == t)
			return true;
	return false;
}

/*
 * The PI lock that @task, read as the owner of @prev, is blocked on, with a
 * reference taken; or NULL: not blocked, in a table the walk may not enter,
 * or the step no longer holds.
 *
 * The step is re-validated with the buckets of @prev and of that lock both
 * held, so that "@task owns @prev" and "@task is queued there" are true at
 * one instant: the owner was read with every lock dropped since, and it may
 * have unlocked @prev (handing it to another waiter) and queued again, on
 * another lock or on @prev itself. Checked apart, such a former owner
 * queued on the walk's first lock looked like a cycle: a false EDEADLK on a
 * single lock. The kernel's chain walk checks the same pair at one instant
 * too, under the task's pi_lock (its top waiter is still the one it came
 * from, and its pi_blocked_on still names the lock).
 */
static struct flk_pi_state *flk_pi_blocked_on(struct flk_pi_state *prev,
					      struct task_struct *task,
					      struct flk_table *pinned)
{
	struct flk_pi_state *pi = NULL;
	struct flk_pi_blocked *b;
	struct flk_q *q;
	bool queued = false;

	rcu_read_lock();
	spin_lock(&flk_chain_lock);
	hash_for_each_possible(flk_blocked_index, b, node,
			       (unsigned long)task) {
		if (b->task == task) {
			pi = b->pi;
			break;
		}
	}
	if (pi && !flk_table_lasts(pi->table, pinned))
		pi = NULL;
	spin_unlock(&flk_chain_lock);
	if (!pi)
		goto out;

	/*
	 * Its waiter may have left and dropped it: RCU keeps the memory.
	 * @prev lives (the walk holds a reference); both buckets are taken
	 * in address order, as everywhere two are.
	 */
	flk_hb_lock2(prev->hb, pi->hb);
	if (pi->refs && prev->owner == task) {
		list_for_each_entry(q, &pi->hb->chain, list) {
			if (q->pi == pi && q->task == task) {
				queued = true;
				break;
			}
		}
	}
	if (queued)
		__flk_pi_get(pi);
	flk_hb_unlock2(prev->hb, pi->hb);
out:
	rcu_read_unlock();
	return queued ? pi : NULL;
}

/**
 * flk_pi_chain_walk() - recompute the boost of @start's owner and pass it
 * down the chain of owners blocked on module PI locks
 * @start:	the lock whose waiters or owner changed (the caller holds a
 *		reference)
 * @origin:	LOCK_PI's caller, just queued on @start: detect deadlock
 *		and walk the whole chain; NULL: stop where nothing changes
 *
 * May sleep. Return: 0, or with @origin -EDEADLK (the chain leads back to
 * @origin or to @start, or is longer than pi_max_chain locks).
 */
int flk_pi_chain_walk(struct flk_pi_state *start, struct task_struct *origin)
{
	unsigned int depth = 0, limit = READ_ONCE(flk_pi_max_chain), delay;
	struct flk_pi_state *pi = start, *next;
	struct task_struct *owner;
	bool changed;
	int ret = 0;

	for (;;) {
		changed = flk_pi_adjust_one(pi, &owner);
		if (!owner)
			break;
		if (owner == origin) {
			ret = -EDEADLK;
			put_task_struct(owner);
			break;
		}
		delay = READ_ONCE(flk_pi_chain_test_delay_ms);
		if (origin && unlikely(delay))
			msleep_interruptible(min(delay, 1000U));
		next = (changed || origin) ?
		       flk_pi_blocked_on(pi, owner, start->table) : NULL;
		put_task_struct(owner);
		if (!next)
			break;
		if (next == start || ++depth > limit) {
			ret = -EDEADLK;
			flk_pi_put(next);
			break;
		}
		if (pi != start)
			flk_pi_put(pi);
		pi = next;
		cond_resched();
	}
	if (pi != start)
		flk_pi_put(pi);
	return origin ? ret : 0;
}
