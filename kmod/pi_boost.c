// SPDX-License-Identifier: GPL-2.0
/*
 * futexlab PI boosting: which priority a contended PI lock's owner gets
 * from its waiters, and applying, moving and ending that boost. The rules
 * (what a waiter stands for, whose rights a boost carries, what is saved
 * and put back) are in pi.c's header and docs/kmod.md; the walk that
 * passes a boost down a chain of locks is pi_chain.c.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/hash.h>
#include <linux/mutex.h>
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
 * Every change the module makes to one task's scheduling, and the reading
 * of what that task runs with before it, happens under that task's mutex
 * (hashed by task: the module cannot add fields to task_struct). Several
 * locks may boost one task; under the mutex they agree on the task's own
 * attributes and on what was applied, so that whatever order the boosts
 * end in, the last one puts back what the task had before the first.
 */
#define FLK_TASK_LOCK_BITS	6
static struct mutex flk_task_locks[1 << FLK_TASK_LOCK_BITS];

void flk_pi_boost_init(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(flk_task_locks); i++)
		mutex_init(&flk_task_locks[i]);
}

static struct mutex *flk_task_lock(struct task_struct *p)
{
	return &flk_task_locks[hash_ptr(p, FLK_TASK_LOCK_BITS)];
}

/* What @p runs with now, as sched_getattr() would report it. */
static void flk_sched_read(struct task_struct *p, struct flk_sched_own *s)
{
	s->policy = READ_ONCE(p->policy);
	s->rt_priority = flk_rt_policy(s->policy) ?
			 READ_ONCE(p->rt_priority) : 0;
	s->nice = task_nice(p);
	s->reset_on_fork = p->sched_reset_on_fork;
}

/* The kernel's can_nice() for @p without its capability test. */
static bool flk_rlimit_nice(struct task_struct *p, int nice)
{
	return nice_to_rlimit(nice) <= task_rlimit(p, RLIMIT_NICE);
}

/*
 * Could @p, running on @own, have set @want with sched_setattr() on its
 * own rights? The checks of the kernel's user_check_sched_setscheduler()
 * (kernel/sched/syscalls.c), against @own rather than the boost it runs
 * with: CAP_SYS_NICE may do anything; else no SCHED_DEADLINE, no leaving
 * reset-on-fork, a lower nice only within RLIMIT_NICE, a real-time policy
 * only with a non-zero RLIMIT_RTPRIO and a priority above its own only
 * within it, and out of SCHED_IDLE only within RLIMIT_NICE.
 */
static bool flk_may_set(struct task_struct *p, const struct flk_sched_own *own,
			const struct flk_sched_own *want)
{
	unsigned long rtprio = task_rlimit(p, RLIMIT_RTPRIO);
	bool fair = want->policy == SCHED_NORMAL || want->policy == SCHED_BATCH;

	if (has_capability_noaudit(p, CAP_SYS_NICE))
		return true;
	if (want->policy == SCHED_DEADLINE)
		return false;
	if (own->reset_on_fork && !want->reset_on_fork)
		return false;
	if (fair && want->nice < own->nice && !flk_rlimit_nice(p, want->nice))
		return false;
	if (flk_rt_policy(want->policy)) {
		if (want->policy != own->policy && !rtprio)
			return false;
		if (want->rt_priority > own->rt_priority &&
		    want->rt_priority > rtprio)
			return false;
	}
	if (own->policy == SCHED_IDLE && want->policy != SCHED_IDLE &&
	    !flk_rlimit_nice(p, want->nice))
		return false;
	return true;
}

static int flk_sched_set(struct task_struct *p, const struct flk_sched_own *s)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = s->policy,
		.sched_priority = s->rt_priority,
		.sched_nice = s->nice,
		.sched_flags = s->reset_on_fork ? SCHED_FLAG_RESET_ON_FORK : 0,
	};

	return sched_setattr_nocheck(p, &attr);
}

/*
 * Bring @p's scheduling in line with the boosts indexed for it, other than
 * @gone (a state whose boost ends: its copy of @p's own attributes is the
 * last one if no other remains), under @p's task mutex: the highest boost,
 * if it exceeds @p's own real-time priority, as SCHED_FIFO with
 * reset-on-fork (a child forked while boosted starts SCHED_NORMAL, and an
 * unprivileged owner cannot clear the flag to keep the policy); else @p's
 * own attributes.
 *
 * If @p runs with something other than what was applied, someone changed
 * its scheduling during the boost: @p itself (sched_setattr() lets it
 * lower a boost, whatever its rights) or an administrator. That becomes
 * its own choice only if @p could have made it on its own rights
 * (flk_may_set()); otherwise it is undone, so that nothing a user does
 * during a boost leaves it with a policy it has no right to.
 *
 * Return: whether a boost was applied (for the table's counter).
 */
static bool flk_boost_sync(struct task_struct *p, const struct flk_pi_state *gone)
{
	struct flk_sched_own own, cur, want, fifo;
	unsigned int top, nr;
	bool boosted = false;
	u32 applied;

	nr = flk_pi_boost_scan(p, gone, &own, &applied, &top);
	if (!nr) {
		if (!gone)
			return false;
		own = gone->own;
		applied = gone->applied;
	}
	flk_sched_read(p, &cur);
	want = cur;
	if (applied && cur.policy == SCHED_FIFO && cur.rt_priority == applied) {
		want = own;		/* only its nice may have changed */
		want.nice = cur.nice;
	}
	if (!applied || flk_may_set(p, &own, &want))
		own = want;
	/* a deadline task is never boosted; restoring one needs its params */
	if (own.policy == SCHED_DEADLINE ||
	    (flk_rt_policy(own.policy) && own.rt_priority >= top))
		top = 0;

	/* a dying owner (a takeover, pi_owner.c) runs no more user code */
	if (READ_ONCE(p->flags) & PF_EXITING) {
		applied = top;
	} else if (top) {
		fifo = (struct flk_sched_own){ .policy = SCHED_FIFO,
					       .rt_priority = top,
					       .reset_on_fork = true };
		/* nice is kept aside while SCHED_FIFO: not compared */
		if (cur.policy != SCHED_FIFO || cur.rt_priority != top ||
		    !cur.reset_on_fork || applied != top) {
			if (!flk_sched_set(p, &fifo)) {
				applied = top;
				boosted = true;
			}
		}
	} else if (applied) {
		flk_sched_set(p, &own);
		applied = 0;
	}
	if (nr)
		flk_pi_boost_store(p, &own, applied);
	return boosted;
}

/*
 * End the boost @pi gives: bring its task back to the boosts that remain
 * (or to its own attributes), then take @pi out of the index.
 */
void flk_pi_restore(struct flk_pi_state *pi)
{
	struct task_struct *p = pi->boosted;
	struct mutex *m = flk_task_lock(p);

	mutex_lock(m);
	flk_boost_sync(p, pi);
	flk_pi_boost_unpublish(pi);
	mutex_unlock(m);
	put_task_struct(p);
	pi->boosted = NULL;
}

/*
 * Start boosting @owner from @pi: take the task's own attributes from a
 * state that boosts it already (the task runs with a boost, not its own),
 * else from the task; index, then apply. A SCHED_DEADLINE owner is not
 * boosted.
 */
static void flk_pi_boost_new(struct flk_pi_state *pi,
			     struct task_struct *owner, unsigned int want,
			     const struct flk_pi_path *path)
{
	struct mutex *m = flk_task_lock(owner);
	unsigned int top;

	mutex_lock(m);
	if (!flk_pi_boost_scan(owner, NULL, &pi->own, &pi->applied, &top)) {
		flk_sched_read(owner, &pi->own);
		pi->applied = 0;
		if (pi->own.policy == SCHED_DEADLINE) {
			mutex_unlock(m);
			return;
		}
	}
	pi->boosted = get_task_struct(owner);
	flk_pi_boost_publish(pi, want, path);
	if (flk_boost_sync(owner, NULL))
		atomic64_inc(&pi->table->pi_boosts);
	mutex_unlock(m);
}

/* Move the boost @pi gives its task to @want with @path's rights. */
static void flk_pi_boost_change(struct flk_pi_state *pi, unsigned int want,
				const struct flk_pi_path *path)
{
	struct mutex *m = flk_task_lock(pi->boosted);

	mutex_lock(m);
	flk_pi_boost_publish(pi, want, path);
	if (flk_boost_sync(pi->boosted, NULL))
		atomic64_inc(&pi->table->pi_boosts);
	mutex_unlock(m);
}

static bool flk_path_eq(const struct flk_pi_path *a,
			const struct flk_pi_path *b)
{
	return a->has_uid == b->has_uid && a->conflict == b->conflict &&
	       (!a->has_uid || uid_eq(a->euid, b->euid));
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
	if (want && pi->boosted)
		flk_pi_boost_change(pi, want, &path);
	else if (want)
		flk_pi_boost_new(pi, owner, want, &path);
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
